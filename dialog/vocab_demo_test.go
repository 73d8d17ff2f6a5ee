package dialog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// untilAnswer answers a word question with pick (an option's label, or
// typed words when no option has it) and every other question with its
// first option; it reports how many word questions were asked.
func (c *chat) untilAnswer(r dialog.Reply, pick string) (dialog.Reply, int) {
	c.t.Helper()
	words := 0
	for n := 0; r.Kind == dialog.ReplyClarification; n++ {
		if n > 6 {
			c.t.Fatalf("too many questions: %s", r.Text)
		}
		if r.Clarification.Key.Name != "vocab" {
			r = c.choose(r, r.Clarification.Options[0].Label)
			continue
		}
		words++
		picked := false
		for _, o := range r.Clarification.Options {
			if strings.Contains(strings.ToLower(o.Label), strings.ToLower(pick)) {
				r, picked = c.choose(r, o.Label), true
				break
			}
		}
		if !picked {
			rs := c.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: pick})
			r = rs[len(rs)-1]
		}
	}
	return r, words
}

// TestDemoWordsAskedOnceAndRemembered: words the demo's schema does not
// use are asked about once, answered right, and after a restart (the bbolt
// stores reopened) used without asking, with "Using your word".
func TestDemoWordsAskedOnceAndRemembered(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	tests := []struct {
		question, again, pick string
		// want is the SQL whose result the answer must have ("" to check
		// only that it answered).
		want string
	}{
		{"how many clients do we have?", "how many clients are there?", "Customers", "SELECT COUNT(*) FROM customers"},
		{"list the salespeople", "list the salespeople", "Sales reps", ""},
		{"how many shipments did each courier handle?", "how many shipments per courier?", "carrier", ""},
		{"how many buyers do we have?", "how many buyers are there?", "Customers", "SELECT COUNT(*) FROM customers"},
		{"list the merchandise", "list the merchandise", "Products", ""},
		{"what is the typical basket size?", "what is the typical basket size?", "quantity", ""},
	}
	users := []string{"ana", "bo", "cy", "dee", "eve", "fay"}
	for i, tt := range tests {
		c := newChat(t, env, users[i])
		r, words := c.untilAnswer(c.ask(tt.question), tt.pick)
		if words != 1 {
			t.Errorf("%q: %d word questions, want 1", tt.question, words)
		}
		a := mustAnswer(t, r)
		if tt.want != "" && (len(a.Rows) != 1 || a.Rows[0][0] != scalar(t, env, tt.want)) {
			t.Errorf("%q: answer %v, want %s", tt.question, a.Rows, scalar(t, env, tt.want))
		}
		if tt.question == "how many shipments did each courier handle?" && (a.RowCount != 4 || !strings.Contains(strings.ToLower(strings.Join(a.Columns, " ")), "carrier")) {
			t.Errorf("%q: want shipments per carrier, got %v %v", tt.question, a.Columns, a.Rows)
		}
	}
	env.Restart()
	for i, tt := range tests {
		c := newChat(t, env, users[i])
		r, words := c.untilAnswer(c.ask(tt.again), "")
		if words != 0 {
			t.Errorf("%q after a restart: asked about the word again", tt.again)
			continue
		}
		a := mustAnswer(t, r)
		used := false
		for _, f := range a.UsedFacts {
			used = used || f.Word && f.Whose("workspace") == "your word"
		}
		if !used || !strings.Contains(r.Text, "Using your word") {
			t.Errorf("%q after a restart: the answer should say it used the person's word:\n%s", tt.again, r.Text)
		}
		if tt.want != "" && (len(a.Rows) != 1 || a.Rows[0][0] != scalar(t, env, tt.want)) {
			t.Errorf("%q after a restart: answer %v", tt.again, a.Rows)
		}
	}
	// Another person's words are theirs: the first question is asked of a
	// newcomer again.
	c := newChat(t, env, "gus")
	if _, words := c.untilAnswer(c.ask("how many clients do we have?"), "Customers"); words != 1 {
		t.Errorf("a newcomer should be asked about 'clients' (%d questions)", words)
	}
}

// TestDemoChangeAWord: "change" on a remembered word asks about it again,
// and the new answer is used from then on.
func TestDemoChangeAWord(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	c := newChat(t, env, "hal")
	r, _ := c.untilAnswer(c.ask("how many clients do we have?"), "Customers")
	r, _ = c.untilAnswer(c.ask("how many clients do we have?"), "")
	a := mustAnswer(t, r)
	var id string
	for _, f := range a.UsedFacts {
		if f.Word {
			id = f.FactID
		}
	}
	if id == "" {
		t.Fatalf("no word used:\n%s", r.Text)
	}
	rs := c.send(dialog.Event{Kind: dialog.EventChange, Target: a.ID, FactID: id})
	r = rs[len(rs)-1]
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != "vocab" {
		t.Fatalf("change should ask about the word again, got:\n%s", r.Text)
	}
}

// TestUnmatchedQuestionNamesUnknownWords: a question nothing links to the
// data says which words it did not know.
func TestUnmatchedQuestionNamesUnknownWords(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{MaxRounds: dialog.NeverAsk})
	c := newChat(t, env, "ivy")
	r := c.ask("what is the typical wibble of the glorps?")
	if r.Kind != dialog.ReplyNotice || !strings.Contains(r.Text, "I don't know these words in this data: 'wibble', 'glorps'.") {
		t.Fatalf("want a notice naming 'wibble' and 'glorps', got:\n%s", r.Text)
	}
}

// TestTeamSynonymsFromTheGlossary: the glossary's synonyms: are the team's
// words, used without asking and said as such; a person's own answer
// for the word wins over them.
func TestTeamSynonymsFromTheGlossary(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	g, err := glossary.Parse("team.yaml", []byte("synonyms:\n  customers: [clients]\n  shipments.carrier: [courier]\n"))
	if err != nil {
		t.Fatal(err)
	}
	facts, ps := glossary.Facts(g, glossary.Target{Warehouse: "demo", Workspaces: []string{"test:w1"}})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	if _, err := env.Facts.ReplaceSource(context.Background(), g.Source(), facts, ontology.Actor{ID: "admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	c := newChat(t, env, "jo")
	r, words := c.untilAnswer(c.ask("how many clients do we have?"), "")
	a := mustAnswer(t, r)
	if words != 0 || a.Rows[0][0] != scalar(t, env, "SELECT COUNT(*) FROM customers") || !strings.Contains(r.Text, "Using the team's word: 'clients' = customers") {
		t.Fatalf("the team's word should answer without asking:\n%s", r.Text)
	}
	r, words = c.untilAnswer(c.ask("how many shipments did each courier handle?"), "")
	if a = mustAnswer(t, r); words != 0 || a.RowCount != 4 {
		t.Fatalf("courier should be the carrier without asking:\n%s", r.Text)
	}
}
