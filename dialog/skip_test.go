package dialog_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// TestSkipClarification: "skip" typed while a clarification waits skips
// that clarification, not the question: it is answered with the likeliest
// option, the answer says what was assumed, the question's message shows
// the assumption, and nothing is remembered as the person's choice.
func TestSkipClarification(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	for _, word := range []string{"skip", "Skip.", "not sure", "you choose"} {
		t.Run(word, func(t *testing.T) {
			r, conv := l.ask("cleo", "how many loans in 2024?")
			if r.Kind != dialog.ReplyClarification {
				t.Fatalf("want a question about the date: %s", r.Text)
			}
			var notes []string
			for range 4 {
				q := r.Clarification
				rs := l.send("cleo", conv, dialog.Event{Kind: dialog.EventMessage, Text: word})
				var resolved *dialog.Resolved
				for _, x := range rs {
					if x.Resolved != nil {
						resolved = x.Resolved
					}
				}
				if resolved == nil || resolved.ClarificationID != q.ID || !strings.HasPrefix(resolved.Choice, "skipped; assumed ") {
					t.Fatalf("the skipped question's message: %+v", rs)
				}
				notes = append(notes, dialog.AssumedNote(q.Prompt, strings.TrimPrefix(resolved.Choice, "skipped; assumed ")))
				r = rs[len(rs)-1]
				if r.Kind != dialog.ReplyClarification {
					break
				}
			}
			a := mustAnswer(t, r)
			for _, n := range notes {
				if !slices.Contains(a.Notes, n) {
					t.Fatalf("the answer's notes %q do not say %q", a.Notes, n)
				}
			}
			facts, err := l.facts.List(context.Background(), ontology.Filter{Owner: "test:lib:cleo"})
			if err != nil || len(facts) != 0 {
				t.Fatalf("a skipped question was remembered: %+v %v", facts, err)
			}
		})
	}
}
