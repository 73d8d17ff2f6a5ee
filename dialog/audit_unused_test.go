package dialog_test

import (
	"slices"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// An answer that left words out is recorded with them, so that the
// admin console can list caveated answers.
func TestAuditRecordsLeftOutWords(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	const conv = "C7:1700000000.000200"
	r := e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "list the customers chronologically"})
	for r.Kind == dialog.ReplyClarification {
		r = e.choose(conv, r, "customer name")
	}
	if r.Kind != dialog.ReplyAnswer || len(r.Answer.Unused) == 0 {
		t.Fatalf("want an answer that leaves a word out, got: %s", r.Text)
	}
	recs := e.questions()
	if len(recs) != 1 || !slices.Equal(recs[0].Unused, r.Answer.Unused) {
		t.Fatalf("record: %+v, want unused %v", recs, r.Answer.Unused)
	}
	// The next answer of the conversation starts a fresh record.
	r = e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "how many customers are there?"})
	if recs = e.questions(); len(recs) == 2 && len(recs[1].Unused) != 0 && r.Kind == dialog.ReplyAnswer && len(r.Answer.Unused) == 0 {
		t.Errorf("a later answer inherited the left-out words: %+v", recs[1])
	}
}
