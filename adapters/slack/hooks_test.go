package slack

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// hookCounts records what Hooks heard.
type hookCounts struct {
	mu              sync.Mutex
	errors, retries map[string]int
	duplicates      int
}

func (c *hookCounts) hooks() Hooks {
	c.errors, c.retries = map[string]int{}, map[string]int{}
	return Hooks{
		APIError:  func(m string) { c.mu.Lock(); c.errors[m]++; c.mu.Unlock() },
		Retry:     func(m string) { c.mu.Lock(); c.retries[m]++; c.mu.Unlock() },
		Duplicate: func() { c.mu.Lock(); c.duplicates++; c.mu.Unlock() },
	}
}

// TestHooksHearRetriesAndDuplicates: a 429 on posting is one retry of
// chat.postMessage, and Slack's resending of an event is one duplicate.
func TestHooksHearRetriesAndDuplicates(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	var counts hookCounts
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Workers = 1; c.Hooks = counts.hooks() })
	fake.RateLimit("chat.postMessage", 1)
	ts := newTS()
	p := mention(t, "U0HOOK", "C0HOOKS", ts, "", "how many customers do we have?")
	since := fake.Mark()
	h.event(p)
	retry := http.Header{"X-Slack-Retry-Num": {"1"}, "X-Slack-Retry-Reason": {"http_timeout"}}
	if code, body := slackfake.Post(t, h.url+EventsPath, slackfake.Secret, time.Now().Add(time.Second), "application/json", mustJSON(t, p), retry); code != http.StatusOK {
		t.Fatalf("retry: %d %s", code, body)
	}
	h.reply(since, "C0HOOKS", ts, isAnswer)
	counts.mu.Lock()
	defer counts.mu.Unlock()
	if counts.duplicates != 1 || counts.retries["chat.postMessage"] != 1 || len(counts.errors) != 0 {
		t.Fatalf("duplicates %d, retries %v, errors %v; want 1, chat.postMessage:1, none", counts.duplicates, counts.retries, counts.errors)
	}
}

// TestCallReportsErrorsOnce: a call that fails for good is one API error
// under its method; one that succeeds after a rate limit is a retry only.
func TestCallReportsErrorsOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		fails       []error // what each attempt returns; nil succeeds
		wantErrors  int
		wantRetries int
	}{
		{"ok", []error{nil}, 0, 0},
		{"fails", []error{errors.New("channel_not_found")}, 1, 0},
		{"rate limited then ok", []error{&slack.RateLimitedError{RetryAfter: time.Millisecond}, nil}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var counts hookCounts
			a := &Adapter{cfg: Config{Hooks: counts.hooks()}, log: slog.New(slog.DiscardHandler)}
			i := 0
			a.call(context.Background(), "chat.update", func(context.Context) error { err := tt.fails[i]; i++; return err })
			if counts.errors["chat.update"] != tt.wantErrors || counts.retries["chat.update"] != tt.wantRetries {
				t.Fatalf("errors %v retries %v", counts.errors, counts.retries)
			}
		})
	}
}
