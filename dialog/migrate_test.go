package dialog_test

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// testdata/conversations-v1.db and ../ontology/testdata/ontology-v1.db were
// written together by the previous build (conversation format 1, string
// slot keys, values and steps; fact targets as strings) after real
// conversations on the demo warehouse with 3,000 orders:
//
//	ana-1 "what was revenue in 2024?"  net revenue, shipped date: answered
//	ana-2 "what was revenue in 2023?"  answered from ana's two facts (answer wkt3c32t)
//	ben-1 "what was revenue in 2023?"  gross chosen; "which date" pending (a43bj3i2)
//	ben-11 "what was revenue in 2022?" gross from ben's fact; "which date" pending (ojcot2ey)
//
// The current build resumes all of them.
func TestConversationsOfTheLastFormatResume(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	env.RestartWith(map[string]string{
		"conversations.db": "testdata/conversations-v1.db",
		"ontology.db":      "../ontology/testdata/ontology-v1.db",
	})
	ben := newChat(t, env, "ben")

	// A pending question after an earlier answer: the answer still holds.
	ben.conv = "ben-1"
	r := ben.send(dialog.Event{Kind: dialog.EventChoose, Target: "a43bj3i2", Option: 1})
	a := mustAnswer(t, r[len(r)-1])
	if want := scalar(t, env, "SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2023"); a.Rows[0][0] != want {
		t.Fatalf("ben-1: %v, want %s (gross, shipped)\n%s", a.Rows, want, a.SQL)
	}
	if r[0].Resolved == nil || r[0].Resolved.ClarificationID != "a43bj3i2" {
		t.Fatalf("the click should resolve the migrated question: %+v", r[0].Resolved)
	}
	// Clicking it again is answered as a stale click.
	if again := ben.send(dialog.Event{Kind: dialog.EventChoose, Target: "a43bj3i2", Option: 0}); !strings.Contains(again[0].Text, "already answered") {
		t.Fatalf("second click: %s", again[0].Text)
	}

	// A pending question after a remembered fact: the fact still decides.
	ben.conv = "ben-11"
	r = ben.send(dialog.Event{Kind: dialog.EventChoose, Target: "ojcot2ey", Option: 0})
	a = mustAnswer(t, r[len(r)-1])
	if want := scalar(t, env, "SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2022"); a.Rows[0][0] != want {
		t.Fatalf("ben-11: %v, want %s (gross, ordered)\n%s", a.Rows, want, a.SQL)
	}
	if len(a.UsedFacts) != 1 || a.UsedFacts[0].Phrase != "revenue" {
		t.Fatalf("ben-11 used %+v, want ben's revenue fact", a.UsedFacts)
	}

	ana := newChat(t, env, "ana")
	ana.n = 20 // new conversations, apart from the migrated ones
	// The migrated facts decide a new question without asking.
	a = mustAnswer(t, ana.ask("what was revenue in 2025?"))
	if want := scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2025"); a.Rows[0][0] != want {
		t.Fatalf("ana: %v, want %s (net, shipped)\n%s", a.Rows, want, a.SQL)
	}
	if len(a.UsedFacts) != 2 {
		t.Fatalf("ana used %+v, want revenue and dates", a.UsedFacts)
	}

	// "Not what I meant" on an answer decided by two migrated facts: the
	// facts are taken back and the question is asked again.
	ana.conv = "ana-2"
	r = ana.send(dialog.Event{Kind: dialog.EventWrong, Target: "wkt3c32t"})
	if last := r[len(r)-1]; last.Kind != dialog.ReplyClarification {
		t.Fatalf("after 'not what I meant' want a question, got: %s", last.Text)
	}
}
