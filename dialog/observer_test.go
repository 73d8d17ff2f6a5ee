package dialog_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// recorder is an Observer that remembers what it heard.
type recorder struct {
	dialog.NopObserver
	mu    sync.Mutex
	heard []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.heard = append(r.heard, s); r.mu.Unlock() }

func (r *recorder) Question()                            { r.add("question") }
func (r *recorder) Clarification(k dialog.AmbiguityKind) { r.add("clarification") }
func (r *recorder) ClarificationAnswered()               { r.add("clarification answered") }
func (r *recorder) Answer()                              { r.add("answer") }
func (r *recorder) Refused(reason string)                { r.add("refused " + reason) }
func (r *recorder) EngineDone(engine string, _ time.Duration, _ error) {
	r.add("engine " + engine)
}

func (r *recorder) count(s string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, h := range r.heard {
		if h == s {
			n++
		}
	}
	return n
}

// oneQuestion admits a single new question, then refuses.
type oneQuestion struct{ asked int }

func (g *oneQuestion) Admit(context.Context, dialog.Who) *dialog.Refusal {
	g.asked++
	if g.asked > 1 {
		return &dialog.Refusal{Reason: dialog.RefuseRateLimited, Text: "Please try again in about 10 seconds."}
	}
	return nil
}

// TestGateOnlyHoldsNewQuestions: once the gate is closed, answers to the
// open clarification (typed or clicked) still go through, a new question
// is refused with the gate's words, and the observer hears each step.
func TestGateOnlyHoldsNewQuestions(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	rec, gate := &recorder{}, &oneQuestion{}
	m, err := dialog.New(dialog.Config{Now: dialogtest.Now, MaxQuestionLength: 200}, dialog.Deps{
		Engine: offline.New(env.Demo.Catalog, offline.Options{Now: dialogtest.Now}),
		Exec:   env.Demo.DB, Catalog: env.Demo.Catalog, Facts: env.Facts, States: env.Convs,
		Observe: rec, Gate: gate,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "u"}
	send := func(ev dialog.Event) dialog.Reply {
		t.Helper()
		ev.Who = who
		replies, err := m.Handle(ctx, ev)
		if err != nil || len(replies) == 0 {
			t.Fatalf("%+v: %v %v", ev, replies, err)
		}
		return replies[len(replies)-1]
	}

	r := send(dialog.Event{Kind: dialog.EventMessage, Conversation: "a", Text: "what was revenue in 2024?"})
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a clarification: %s", r.Text)
	}
	// Typed while the clarification waits: an answer, not a new question.
	r = send(dialog.Event{Kind: dialog.EventMessage, Conversation: "a", Text: "1"})
	for i := 0; r.Kind == dialog.ReplyClarification; i++ {
		if i == 5 {
			t.Fatal("still asking")
		}
		r = send(dialog.Event{Kind: dialog.EventChoose, Conversation: "a", Target: r.Clarification.ID, Option: 0})
	}
	if r.Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer: %s", r.Text)
	}
	refused := send(dialog.Event{Kind: dialog.EventMessage, Conversation: "b", Text: "how many customers do we have?"})
	if !refused.Ephemeral || !strings.Contains(refused.Text, "about 10 seconds") {
		t.Fatalf("want the gate's ephemeral notice: %+v", refused)
	}
	tooLong := send(dialog.Event{Kind: dialog.EventMessage, Conversation: "c", Text: strings.Repeat("revenue ", 40)})
	if tooLong.Kind != dialog.ReplyNotice {
		t.Fatalf("want a notice for a long message: %s", tooLong.Text)
	}

	checks := []struct {
		what string
		want func(int) bool
	}{
		{"question", func(n int) bool { return n == 1 }},
		{"clarification", func(n int) bool { return n >= 1 }},
		{"clarification answered", func(n int) bool { return n >= 1 }},
		{"answer", func(n int) bool { return n == 1 }},
		{"refused rate_limited", func(n int) bool { return n == 1 }},
		{"refused too_long", func(n int) bool { return n == 1 }},
		{"engine offline", func(n int) bool { return n >= 1 }},
	}
	for _, c := range checks {
		t.Run(c.what, func(t *testing.T) {
			if n := rec.count(c.what); !c.want(n) {
				t.Errorf("heard %q %d times (all: %v)", c.what, n, rec.heard)
			}
		})
	}
	if gate.asked != 2 {
		t.Errorf("the gate was asked %d times, want 2 (the two new questions)", gate.asked)
	}
}
