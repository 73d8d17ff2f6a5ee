package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
)

// waits records the retrier's waits instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// mustClient builds a client for the fake; its waits are recorded, not slept.
func mustClient(tb testing.TB, srv *llmtest.Server, cfg Config) (*Client, *waits) {
	tb.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL
	}
	if cfg.Model == "" {
		cfg.Model = "gpt-4o-mini"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = srv.Client()
	}
	c, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	w := &waits{}
	c.rt.sleep = w.sleep
	return c, w
}

var userMsg = []Message{{Role: RoleSystem, Content: "You write SQL."}, {Role: RoleUser, Content: "how many orders?"}}

func TestChatOpenAIWire(t *testing.T) {
	srv := llmtest.New(t)
	srv.Model = "gpt-4o-mini"
	tool := Tool{Name: "search_columns", Description: "find columns", Parameters: json.RawMessage(`{"type":"object","properties":{"phrase":{"type":"string"}},"required":["phrase"]}`)}
	srv.Enqueue(func(tb testing.TB, c llmtest.Call) llmtest.Reply {
		if got := c.Header.Get("Authorization"); got != "Bearer sk-test" {
			tb.Errorf("authorization %q", got)
		}
		if c.Path != "/v1/chat/completions" {
			tb.Errorf("path %s", c.Path)
		}
		if c.N() != 3 || c.Req.Temperature != 0.7 || c.Req.MaxTokens != 500 {
			tb.Errorf("n=%d temperature=%v max_tokens=%d", c.N(), c.Req.Temperature, c.Req.MaxTokens)
		}
		if c.Req.ResponseFormat == nil || c.Req.ResponseFormat.Type != openai.ChatCompletionResponseFormatTypeJSONObject {
			tb.Errorf("response_format %+v", c.Req.ResponseFormat)
		}
		if names := c.ToolNames(); len(names) != 1 || names[0] != "search_columns" || c.Req.ToolChoice != "auto" {
			tb.Errorf("tools %v choice %v", names, c.Req.ToolChoice)
		}
		if c.System() != "You write SQL." || c.User() != "how many orders?" {
			tb.Errorf("messages %+v", c.Req.Messages)
		}
		return llmtest.SQL("SELECT 1", "SELECT 2", "SELECT 3")
	})
	c, _ := mustClient(t, srv, Config{APIKey: "sk-test"})
	resp, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 3, Temperature: 0.7, MaxTokens: 500, JSON: true, Tools: []Tool{tool}, ToolChoice: ToolChoiceAuto})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 3 || !strings.Contains(resp.Choices[2].Message.Content, "SELECT 3") {
		t.Fatalf("choices %+v", resp.Choices)
	}
	if resp.Usage.Calls != 1 || resp.Usage.PromptTokens == 0 || resp.Usage.Estimated {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestChatServers(t *testing.T) {
	tests := []struct {
		name  string
		cfg   func(srv *llmtest.Server) Config
		check func(tb testing.TB, c llmtest.Call)
	}{
		{"azure", func(srv *llmtest.Server) Config {
			return Config{Azure: true, BaseURL: srv.Root, APIKey: "azure-key", APIVersion: "2024-06-01", Model: "my-gpt4o"}
		}, func(tb testing.TB, c llmtest.Call) {
			if c.Path != "/openai/deployments/my-gpt4o/chat/completions" || c.Query != "api-version=2024-06-01" {
				tb.Errorf("azure path %s?%s", c.Path, c.Query)
			}
			if c.Header.Get("api-key") != "azure-key" || c.Header.Get("Authorization") != "" {
				tb.Errorf("azure auth headers %v", c.Header)
			}
		}},
		{"ollama without key", func(srv *llmtest.Server) Config {
			return Config{BaseURL: srv.URL + "/", Model: "qwen2.5-coder:7b"}
		}, func(tb testing.TB, c llmtest.Call) {
			if c.Path != "/v1/chat/completions" || c.Header.Get("Authorization") != "" || c.Req.Model != "qwen2.5-coder:7b" {
				tb.Errorf("path %s auth %q model %s", c.Path, c.Header.Get("Authorization"), c.Req.Model)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(llmtest.Always(llmtest.SQL("SELECT 1"), tt.check))
			c, _ := mustClient(t, srv, tt.cfg(srv))
			resp, err := c.Chat(context.Background(), Request{Messages: userMsg})
			if err != nil || len(resp.Choices) != 1 {
				t.Fatalf("%v %+v", err, resp)
			}
		})
	}
}

func TestChatSamplesWithoutN(t *testing.T) {
	t.Run("configured", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Fallback(llmtest.Always(llmtest.SQL("SELECT 1"), func(tb testing.TB, c llmtest.Call) {
			if c.Req.N != 0 {
				tb.Errorf("n=%d sent to a server configured without n", c.Req.N)
			}
		}))
		c, _ := mustClient(t, srv, Config{NoN: true})
		resp, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 4, Temperature: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Choices) != 4 || len(srv.Calls()) != 4 || resp.Usage.Calls != 4 {
			t.Fatalf("%d choices from %d calls, usage %+v", len(resp.Choices), len(srv.Calls()), resp.Usage)
		}
	})
	t.Run("detected", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Fallback(llmtest.Always(llmtest.SQL("SELECT 1"), nil)) // one choice, whatever n says
		c, _ := mustClient(t, srv, Config{})
		resp, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 3})
		if err != nil {
			t.Fatal(err)
		}
		calls := srv.Calls()
		if len(resp.Choices) != 3 || len(calls) != 3 || calls[0].N() != 3 || calls[1].N() != 1 {
			t.Fatalf("%d choices; calls %d", len(resp.Choices), len(calls))
		}
		if _, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 2}); err != nil {
			t.Fatal(err)
		}
		if calls = srv.Calls(); len(calls) != 5 || calls[3].N() != 1 {
			t.Fatalf("after detection, samples should go one by one: %d calls", len(calls))
		}
	})
	t.Run("reasoning model", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Fallback(llmtest.Always(llmtest.SQL("SELECT 1"), func(tb testing.TB, c llmtest.Call) {
			if c.Req.Temperature != 0 || c.Req.N > 1 || c.Req.MaxTokens != 0 {
				tb.Errorf("a reasoning model got temperature=%v n=%d max_tokens=%d", c.Req.Temperature, c.Req.N, c.Req.MaxTokens)
			}
		}))
		c, _ := mustClient(t, srv, Config{Model: "o3-mini"})
		resp, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 2, Temperature: 0.7, MaxTokens: 300})
		if err != nil || len(resp.Choices) != 2 {
			t.Fatalf("%v %+v", err, resp)
		}
	})
}

func TestChatToolCallsRoundTrip(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Always(llmtest.Tools(llmtest.ToolCall{Name: "search_values", Args: map[string]any{"phrase": "texas"}}), nil),
		func(tb testing.TB, c llmtest.Call) llmtest.Reply {
			last := c.Req.Messages[len(c.Req.Messages)-1]
			prev := c.Req.Messages[len(c.Req.Messages)-2]
			if last.Role != "tool" || last.ToolCallID != "call_0_search_values" || last.Content != `[{"value":"Texas"}]` {
				tb.Errorf("tool answer %+v", last)
			}
			if len(prev.ToolCalls) != 1 || prev.ToolCalls[0].Function.Name != "search_values" || prev.ToolCalls[0].Type != "function" {
				tb.Errorf("assistant message %+v", prev)
			}
			return llmtest.SQL("SELECT 1")
		})
	c, _ := mustClient(t, srv, Config{})
	tools := []Tool{{Name: "search_values", Parameters: json.RawMessage(`{"type":"object","properties":{"phrase":{"type":"string"}},"required":["phrase"]}`)}}
	resp, err := c.Chat(context.Background(), Request{Messages: userMsg, Tools: tools, ToolChoice: ToolChoiceAuto})
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Name != "search_values" || msg.ToolCalls[0].Arguments != `{"phrase":"texas"}` || resp.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("tool calls %+v", resp.Choices[0])
	}
	msgs := append(append([]Message(nil), userMsg...), msg, Message{Role: RoleTool, ToolCallID: msg.ToolCalls[0].ID, Content: `[{"value":"Texas"}]`})
	if _, err := c.Chat(context.Background(), Request{Messages: msgs, Tools: tools}); err != nil {
		t.Fatal(err)
	}
}

func TestChatRetries(t *testing.T) {
	rate := func(h map[string]string) llmtest.Step {
		return llmtest.Always(llmtest.Error(429, "rate_limit_exceeded", "Rate limit reached for requests", h), nil)
	}
	server := func(status int) llmtest.Step {
		return llmtest.Always(llmtest.Error(status, "server_error", "The server had an error", nil), nil)
	}
	ok := llmtest.Always(llmtest.SQL("SELECT 1"), nil)
	tests := []struct {
		name      string
		steps     []llmtest.Step
		wantKind  Kind
		wantCalls int
		// checkWaits inspects the recorded waits.
		checkWaits func(t *testing.T, w []time.Duration)
	}{
		{"429 Retry-After seconds", []llmtest.Step{rate(map[string]string{"Retry-After": "2"}), ok}, KindUnknown, 2, func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || w[0] != 2*time.Second {
				t.Errorf("waits %v, want [2s]", w)
			}
		}},
		{"429 retry-after-ms", []llmtest.Step{rate(map[string]string{"retry-after-ms": "350", "Retry-After": "1"}), ok}, KindUnknown, 2, func(t *testing.T, w []time.Duration) {
			if len(w) != 1 || w[0] != 350*time.Millisecond {
				t.Errorf("waits %v, want [350ms]", w)
			}
		}},
		{"429 Retry-After too long", []llmtest.Step{rate(map[string]string{"Retry-After": "120"})}, KindRateLimited, 1, func(t *testing.T, w []time.Duration) {
			if len(w) != 0 {
				t.Errorf("waited %v for a retry-after beyond the cap", w)
			}
		}},
		{"429 insufficient quota", []llmtest.Step{llmtest.Always(llmtest.Error(429, "insufficient_quota", "You exceeded your current quota", map[string]string{"Retry-After": "1"}), nil)}, KindQuota, 1, nil},
		{"5xx backoff", []llmtest.Step{server(500), server(502), server(503), ok}, KindUnknown, 4, func(t *testing.T, w []time.Duration) {
			if len(w) != 3 {
				t.Fatalf("waits %v", w)
			}
			for i, d := range w {
				lo, hi := (100*time.Millisecond<<i)/2, 100*time.Millisecond<<i
				if d < lo || d > hi {
					t.Errorf("wait %d is %v, want within [%v, %v]", i, d, lo, hi)
				}
			}
		}},
		{"5xx gives up", []llmtest.Step{server(503), server(503), server(503), server(503)}, KindUnavailable, 4, nil},
		{"401", []llmtest.Step{llmtest.Always(llmtest.Error(401, "invalid_api_key", "Incorrect API key provided: sk-test***", nil), nil)}, KindAuth, 1, nil},
		{"404 model", []llmtest.Step{llmtest.Always(llmtest.Error(404, "model_not_found", "The model `gpt-9` does not exist", nil), nil)}, KindNotFound, 1, nil},
		{"400 context too long", []llmtest.Step{llmtest.Always(llmtest.Error(400, "context_length_exceeded", "maximum context length", nil), nil)}, KindBadRequest, 1, nil},
		{"non-JSON 502 from a proxy", []llmtest.Step{
			llmtest.Always(llmtest.Reply{Status: 502, Body: "<html>bad gateway</html>"}, nil),
			llmtest.Always(llmtest.Reply{Status: 502, Body: "<html>bad gateway</html>"}, nil),
			llmtest.Always(llmtest.Reply{Status: 502, Body: "<html>bad gateway</html>"}, nil),
			llmtest.Always(llmtest.Reply{Status: 502, Body: "<html>bad gateway</html>"}, nil),
		}, KindUnavailable, 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(tt.steps...)
			c, w := mustClient(t, srv, Config{APIKey: "sk-test", Backoff: 100 * time.Millisecond, MaxBackoff: time.Second, MaxRetries: 3})
			resp, err := c.Chat(context.Background(), Request{Messages: userMsg})
			if tt.wantKind == KindUnknown {
				if err != nil || len(resp.Choices) != 1 {
					t.Fatalf("want success, got %v", err)
				}
			} else if KindOf(err) != tt.wantKind {
				t.Fatalf("error %v (kind %v), want kind %v", err, KindOf(err), tt.wantKind)
			}
			if err != nil {
				if msg := UserMessage(err); strings.Contains(msg, "sk-test") || msg == "" {
					t.Errorf("user message %q", msg)
				}
			}
			if n := len(srv.Calls()); n != tt.wantCalls {
				t.Errorf("%d calls, want %d", n, tt.wantCalls)
			}
			if tt.checkWaits != nil {
				tt.checkWaits(t, w.all())
			}
		})
	}
}

func TestRateLimitMessageSaysWhen(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Always(llmtest.Error(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "90"}), nil))
	c, _ := mustClient(t, srv, Config{})
	_, err := c.Chat(context.Background(), Request{Messages: userMsg})
	var e *Error
	if !errors.As(err, &e) || e.RetryAfter != 90*time.Second || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("%v", err)
	}
	if msg := UserMessage(err); !strings.Contains(msg, "1m30s") {
		t.Fatalf("message %q", msg)
	}
}

func TestChatTimeoutAndCancel(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Enqueue(llmtest.Always(llmtest.Reply{Block: true}, nil))
		c, _ := mustClient(t, srv, Config{Timeout: 100 * time.Millisecond})
		_, err := c.Chat(context.Background(), Request{Messages: userMsg})
		if !errors.Is(err, ErrTimeout) || UserMessage(err) != userMessages[KindTimeout] {
			t.Fatalf("%v", err)
		}
		waitFor(t, srv.Released, "the server to see the request end")
	})
	t.Run("cancel reaches the HTTP call", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Enqueue(llmtest.Always(llmtest.Reply{Block: true}, nil))
		c, _ := mustClient(t, srv, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Chat(ctx, Request{Messages: userMsg})
			done <- err
		}()
		waitFor(t, srv.Blocked, "the request to arrive")
		cancel()
		waitFor(t, srv.Released, "the server to see the cancellation")
		select {
		case err := <-done:
			if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
				t.Fatalf("%v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Chat did not return after cancellation")
		}
	})
	t.Run("cancel during a Retry-After wait", func(t *testing.T) {
		srv := llmtest.New(t)
		answered := make(chan struct{}, 1)
		srv.Enqueue(func(tb testing.TB, c llmtest.Call) llmtest.Reply {
			answered <- struct{}{}
			return llmtest.Error(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "15"})
		})
		c, err := New(Config{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client()}) // real waits
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Chat(ctx, Request{Messages: userMsg})
			done <- err
		}()
		waitFor(t, answered, "the 429")
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, ErrCanceled) {
				t.Fatalf("%v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the retry wait ignored the cancellation")
		}
	})
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestChatEstimatesMissingUsage(t *testing.T) {
	srv := llmtest.New(t)
	r := llmtest.SQL("SELECT COUNT(*) FROM orders")
	r.NoUsage = true
	srv.Enqueue(llmtest.Always(r, nil))
	c, _ := mustClient(t, srv, Config{Tokens: testTokenizer(t, EncodingCL100k)})
	resp, err := c.Chat(context.Background(), Request{Messages: userMsg})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Usage.Estimated || resp.Usage.PromptTokens < 10 || resp.Usage.CompletionTokens < 5 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

func TestChatPartialSamples(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Always(llmtest.SQL("SELECT 1"), nil), llmtest.Always(llmtest.Error(400, "bad", "bad", nil), nil))
	c, _ := mustClient(t, srv, Config{NoN: true, Parallel: 1})
	resp, err := c.Chat(context.Background(), Request{Messages: userMsg, N: 2})
	if err != nil || len(resp.Choices) != 1 {
		t.Fatalf("one failed sample should not fail the call: %v %+v", err, resp)
	}
}
