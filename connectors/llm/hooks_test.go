package llm

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
)

// TestHooksHearUsageAndRetries: each completion reports the server's
// usage under the configured model, and each retry says why.
func TestHooksHearUsageAndRetries(t *testing.T) {
	ok := llmtest.Reply{Usage: &openai.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150}}
	ok.Choices = llmtest.SQL("SELECT 1").Choices
	tests := []struct {
		name        string
		maxRetries  int
		steps       []llmtest.Step
		wantRetries []string
		wantUsage   []Usage
	}{
		{"no retry", 3, []llmtest.Step{llmtest.Always(ok, nil)}, nil,
			[]Usage{{PromptTokens: 120, CompletionTokens: 30, Calls: 1}}},
		{"429 then 503 then ok", 3, []llmtest.Step{
			llmtest.Always(llmtest.Error(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "1"}), nil),
			llmtest.Always(llmtest.Error(503, "server_error", "busy", nil), nil),
			llmtest.Always(ok, nil),
		}, []string{RetryRateLimited, RetryServerError}, []Usage{{PromptTokens: 120, CompletionTokens: 30, Calls: 1}}},
		{"gives up", 1, []llmtest.Step{
			llmtest.Always(llmtest.Error(500, "server_error", "down", nil), nil),
			llmtest.Always(llmtest.Error(500, "server_error", "down", nil), nil),
		}, []string{RetryServerError}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(tt.steps...)
			var (
				mu      sync.Mutex
				retries []string
				usage   []Usage
				models  []string
			)
			hooks := Hooks{
				Usage: func(model string, u Usage) {
					mu.Lock()
					usage = append(usage, u)
					models = append(models, model)
					mu.Unlock()
				},
				Retry: func(reason string) { mu.Lock(); retries = append(retries, reason); mu.Unlock() },
			}
			c, _ := mustClient(t, srv, Config{Model: "gpt-test", Hooks: hooks, MaxRetries: tt.maxRetries, Backoff: time.Millisecond})
			c.Chat(context.Background(), Request{Messages: userMsg})
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(retries, tt.wantRetries) {
				t.Errorf("retries %v, want %v", retries, tt.wantRetries)
			}
			if !slices.Equal(usage, tt.wantUsage) {
				t.Errorf("usage %+v, want %+v", usage, tt.wantUsage)
			}
			for _, m := range models {
				if m != "gpt-test" {
					t.Errorf("model %q, want the configured one", m)
				}
			}
		})
	}
}
