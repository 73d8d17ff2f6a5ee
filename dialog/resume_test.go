package dialog_test

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// A turn sent again by another process after the one working on it
// stopped: the clarification it already asked comes back (same question,
// not the question text read as its answer), and a click it already took
// is not "stale" but finished with what came after it.
func TestResumedTurnFinishesWhereItStopped(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	r, conv := l.ask("ada", "how many loans in 2024?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question: %s", r.Text)
	}
	first := r.Clarification.ID
	rs := l.send("ada", conv, dialog.Event{Kind: dialog.EventMessage, Text: "how many loans in 2024?", Resume: true})
	again := rs[len(rs)-1]
	if again.Kind != dialog.ReplyClarification || again.Clarification.ID != first {
		t.Fatalf("resumed question: want clarification %s again, got %v %s", first, again.Kind, again.Text)
	}
	// The person's click still answers it.
	r = l.pick("ada", conv, again, "came back")
	want := l.value("SELECT COUNT(*) FROM loans WHERE YEAR(returned_on) = 2024")
	if got := answerValue(t, r); got != want {
		t.Fatalf("after the resumed question: %s, want %s", got, want)
	}
	// A resumed question already answered is answered anew, not read as a
	// follow-up of itself.
	rs = l.send("ada", conv, dialog.Event{Kind: dialog.EventMessage, Text: "how many loans in 2024?", Resume: true})
	if got := rs[len(rs)-1]; got.Kind == dialog.ReplyClarification {
		l.pick("ada", conv, got, "came back")
	} else if v := answerValue(t, got); v != want {
		t.Fatalf("answered anew: %s, want %s", v, want)
	}
}
