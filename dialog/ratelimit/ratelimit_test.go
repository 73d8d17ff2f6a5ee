package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/ratestore"
)

// clock is a settable time for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestQuestionLimiter(t *testing.T) {
	who := func(user, channel string) dialog.Who {
		return dialog.Who{Platform: "slack", Workspace: "T1", Channel: channel, User: user}
	}
	type step = limiterStep
	tests := []struct {
		name  string
		cfg   Limits
		steps []step
	}{
		{"person: burst, then one every 10 s", Limits{UserQuestionsPerMinute: 6, Burst: 3}, []step{
			{0, who("ana", "C1"), ""},
			{0, who("ana", "C1"), ""},
			{0, who("ana", "C2"), ""}, // another channel, same person
			{0, who("ana", "C1"), "from one person (6 questions a minute). Please try again in about 10 seconds."},
			{0, who("bo", "C1"), ""}, // someone else is not held up
			{4 * time.Second, who("ana", "C1"), "about 6 seconds"},
			{10 * time.Second, who("ana", "C1"), ""},
			{10 * time.Second, who("ana", "C1"), "about 10 seconds"},
		}},
		{"channel: shared by everyone in it", Limits{ChannelQuestionsPerMinute: 30, Burst: 3}, []step{
			{0, who("a", "C1"), ""},
			{0, who("b", "C1"), ""},
			{0, who("c", "C1"), ""},
			{0, who("d", "C1"), "You're asking faster than this channel allows (30 questions a minute). Please try again in about 2 seconds."},
			{0, who("d", "C2"), ""},
			{2 * time.Second, who("d", "C1"), ""},
		}},
		{"channel: ten people asking at once all get in", Limits{ChannelQuestionsPerMinute: 30, Burst: 3, ChannelBurst: 10}, []step{
			{0, who("a", "C1"), ""}, {0, who("b", "C1"), ""}, {0, who("c", "C1"), ""}, {0, who("d", "C1"), ""}, {0, who("e", "C1"), ""},
			{0, who("f", "C1"), ""}, {0, who("g", "C1"), ""}, {0, who("h", "C1"), ""}, {0, who("i", "C1"), ""}, {0, who("j", "C1"), ""},
			{0, who("k", "C1"), "this channel allows (30 questions a minute)"},
		}},
		{"a channel refusal takes nothing from the person", Limits{UserQuestionsPerMinute: 1, ChannelQuestionsPerMinute: 2, Burst: 1}, []step{
			{0, who("a", "C1"), ""},
			{0, who("b", "C1"), "this channel allows (2 questions a minute)"},
			{0, who("b", "C2"), ""}, // b's own token was given back
			{0, who("b", "C3"), "from one person (1 question a minute). Please try again in about 60 seconds."},
		}},
	}
	// The same steps in memory (one process) and in the store replicas
	// share (bbolt here, MariaDB with MYSQL_TEST_DSN).
	where := []struct {
		name  string
		share func(t *testing.T, l *Limiter)
	}{{"memory", func(*testing.T, *Limiter) {}}}
	for _, target := range kvtest.Targets() {
		where = append(where, struct {
			name  string
			share func(t *testing.T, l *Limiter)
		}{"store " + target.Name, func(t *testing.T, l *Limiter) {
			l.Share(ratestore.New(target.Open(t)), slog.New(slog.DiscardHandler))
		}})
	}
	for _, w := range where {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
				c := &clock{t: start}
				l := New(tt.cfg, c.now)
				w.share(t, l)
				runLimiterSteps(t, l, c, start, tt.steps)
			})
		}
	}
}

// limiterStep is one question at a time since the start; want is "" for
// admitted, else a part of the refusal text.
type limiterStep struct {
	at   time.Duration
	who  dialog.Who
	want string
}

func runLimiterSteps(t *testing.T, l *Limiter, c *clock, start time.Time, steps []limiterStep) {
	t.Helper()
	for i, s := range steps {
		c.t = start.Add(s.at)
		// Precheck agrees with Admit and takes nothing (else the steps'
		// admissions would fail).
		pre := l.Precheck(context.Background(), s.who)
		if (pre == "") != (s.want == "") || s.want != "" && !strings.Contains(pre, s.want) {
			t.Fatalf("step %d (%s at %v): Precheck %q, want %q", i, s.who.User, s.at, pre, s.want)
		}
		r := l.Admit(context.Background(), s.who)
		switch {
		case s.want == "" && r != nil:
			t.Fatalf("step %d (%s at %v): refused: %s", i, s.who.User, s.at, r.Text)
		case s.want != "" && r == nil:
			t.Fatalf("step %d (%s at %v): admitted, want %q", i, s.who.User, s.at, s.want)
		case r != nil && (!strings.Contains(r.Text, s.want) || r.Reason != dialog.RefuseRateLimited):
			t.Fatalf("step %d: refusal %q (%s), want %q", i, r.Text, r.Reason, s.want)
		}
	}
}

func TestQuestionLimiterOff(t *testing.T) {
	if l := New(Limits{Burst: 3}, time.Now); l != nil || l.Gate() != nil {
		t.Fatal("no limits configured: want no limiter and a nil gate")
	}
}

// TestBucketsForgetIdleKeys: a bucket idle long enough to be full again is
// dropped, so memory follows recent askers, not everyone ever seen.
func TestBucketsForgetIdleKeys(t *testing.T) {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	l := New(Limits{UserQuestionsPerMinute: 6, Burst: 3}, c.now) // full again after 30 s
	for i := range 1000 {
		l.Admit(context.Background(), dialog.Who{Platform: "slack", User: fmt.Sprint("U", i), Channel: "C"})
	}
	if n := l.user.size(); n != 1000 {
		t.Fatalf("%d buckets, want 1000", n)
	}
	c.t = start.Add(29 * time.Second)
	l.Admit(context.Background(), dialog.Who{Platform: "slack", User: "late", Channel: "C"})
	if n := l.user.size(); n != 1001 {
		t.Fatalf("%d buckets before they are full again, want 1001", n)
	}
	c.t = start.Add(31 * time.Second)
	l.Admit(context.Background(), dialog.Who{Platform: "slack", User: "later", Channel: "C"})
	if n := l.user.size(); n != 2 { // "late" (2 s idle) and "later"
		t.Fatalf("%d buckets after the others went idle, want 2", n)
	}
}

// BenchmarkQuestionLimiter measures one admission over many keys.
func BenchmarkQuestionLimiter(b *testing.B) {
	l := New(Limits{UserQuestionsPerMinute: 6, ChannelQuestionsPerMinute: 30, Burst: 3}, time.Now)
	whos := make([]dialog.Who, 10_000)
	for i := range whos {
		whos[i] = dialog.Who{Platform: "slack", Workspace: "T", User: fmt.Sprint("U", i), Channel: fmt.Sprint("C", i%100)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		l.Admit(context.Background(), whos[i%len(whos)])
	}
	b.ReportMetric(float64(l.user.size()+l.channel.size()), "buckets")
}
