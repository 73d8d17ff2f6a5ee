package dialog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// loadDemoGlossary loads the shipped demo glossary as workspace facts of
// the test chats' workspace, as `bot glossary load` does.
func loadDemoGlossary(t *testing.T, env *dialogtest.Env) {
	t.Helper()
	g, err := glossary.Parse(demodata.GlossaryFile, demodata.Glossary)
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
}

func TestTeamGlossaryDecidesAndAPersonsOwnChoiceWins(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	loadDemoGlossary(t, env)
	ana := newChat(t, env, "ana")

	// 'turnover' is the team's net revenue: only the date is asked.
	r, asked := ana.answerUntil(ana.ask("what was turnover in 2024?"), map[string]string{"filteron:2024": "placed"})
	a := mustAnswer(t, r)
	if want := scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(ordered_at) = 2024"); a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s\n%s", a.Rows, want, a.SQL)
	}
	if asked != 1 || !strings.Contains(r.Text, "Using the team's definition: 'turnover' = net revenue after discounts") {
		t.Fatalf("asked %d, want 1 (the date) and the team's definition said:\n%s", asked, r.Text)
	}

	// 'active' customers are the team's: ordered in the last 90 days.
	since := dialogtest.Now().AddDate(0, 0, -90).Format("2006-01-02")
	r = ana.ask("number of active customers")
	a = mustAnswer(t, r)
	if want := scalar(t, env, "SELECT COUNT(*) FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.ordered_at >= '"+since+"')"); a.Rows[0][0] != want {
		t.Fatalf("active customers %v, want %s\n%s", a.Rows, want, a.SQL)
	}
	if !strings.Contains(r.Text, "Using the team's definition: 'active' = placed at least one order in the last 90 days") {
		t.Fatalf("the team's definition of 'active' should be said:\n%s", r.Text)
	}

	// Ben changes 'turnover' to gross: his own choice wins from then on,
	// and Ana keeps the team's.
	ben := newChat(t, env, "ben")
	r, _ = ben.answerUntil(ben.ask("what was turnover in 2023?"), map[string]string{"filteron:2023": "placed"})
	a = mustAnswer(t, r)
	var team string
	for _, f := range a.UsedFacts {
		if f.Phrase == "turnover" && f.Team {
			team = f.FactID
		}
	}
	if team == "" {
		t.Fatalf("the team's turnover should decide Ben's first question: %+v", a.UsedFacts)
	}
	r = ben.choose(ben.send(dialog.Event{Kind: dialog.EventChange, Target: a.ID, FactID: team})[0], "gross")
	mustAnswer(t, r)
	r, _ = ben.answerUntil(ben.ask("what was turnover in 2025?"), map[string]string{"filteron:2025": "placed"})
	a = mustAnswer(t, r)
	if want := scalar(t, env, "SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2025"); a.Rows[0][0] != want {
		t.Fatalf("Ben's own choice should win: %v, want %s\n%s", a.Rows, want, r.Text)
	}
	if !strings.Contains(r.Text, "Using your earlier choice: 'turnover'") || strings.Contains(r.Text, "team's definition: 'turnover'") {
		t.Fatalf("Ben's answer should say his own choice applied:\n%s", r.Text)
	}
	r, _ = ana.answerUntil(ana.ask("what was turnover in 2025?"), map[string]string{"filteron:2025": "placed"})
	if !strings.Contains(r.Text, "Using the team's definition: 'turnover'") {
		t.Fatalf("Ana should still get the team's turnover:\n%s", r.Text)
	}
}

func TestVerifiedQueryAnswersDirectly(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	loadDemoGlossary(t, env)
	c := newChat(t, env, "carl")
	tests := []struct{ name, question string }{
		{"as written", "How many active customers do we have?"},
		{"other case and punctuation", "how many ACTIVE customers do we have"},
		{"a synonym the catalog links", "How many active clients do we have?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.ask(tt.question)
			a := mustAnswer(t, r)
			if want := scalar(t, env, "SELECT COUNT(*) FROM customers WHERE EXISTS (SELECT 1 FROM orders WHERE orders.customer_id = customers.id AND orders.ordered_at >= CURRENT_DATE - INTERVAL 90 DAY)"); a.Rows[0][0] != want {
				t.Fatalf("%v, want %s", a.Rows, want)
			}
			if !strings.Contains(r.Text, "This is a verified query (verified by ana).") || !strings.HasPrefix(a.SQL, "SELECT COUNT(*) AS active_customers") {
				t.Fatalf("want the verified SQL and who verified it:\n%s\n%s", r.Text, a.SQL)
			}
		})
	}
	// Other words are other questions: the engine answers them.
	for _, q := range []string{"How many active customers do we lose?", "How many inactive customers do we have?"} {
		if r := c.ask(q); strings.Contains(r.Text, "verified query") {
			t.Fatalf("%q is not the verified question, but got its query:\n%s", q, r.Text)
		}
	}
	// Another workspace has no glossary: the engine answers.
	other := newChat(t, env, "dora")
	other.who.Workspace = "w2"
	if r := other.ask("How many active customers do we have?"); strings.Contains(r.Text, "verified query") {
		t.Fatalf("a workspace without the glossary got its verified query:\n%s", r.Text)
	}
}

// A person marks an answer correct; it answers nothing by itself until an
// admin promotes it to the workspace, which makes it a verified query
// that answers everyone's same question directly, naming the verifier.
func TestConfirmedAnswerBecomesAVerifiedQuery(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ctx := context.Background()
	ana := newChat(t, env, "ana")
	const q = "how many orders were cancelled?"
	r := ana.ask(q)
	a := mustAnswer(t, r)
	ana.send(dialog.Event{Kind: dialog.EventCorrect, Target: a.ID})

	// Feedback, not a preference: ana's preferences do not list it.
	facts, err := env.Facts.List(ctx, ontology.Filter{Owner: "test:w1:ana", IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 0 {
		t.Fatalf("a confirmation became a preference: %+v", facts)
	}
	if p := ana.send(dialog.Event{Kind: dialog.EventPrefs})[0]; len(p.Prefs.Facts) != 0 {
		t.Fatalf("ana's preferences list the confirmation: %s", p.Text)
	}
	kept, err := env.Facts.ConfirmedAnswers(ctx, "test:w1:ana", "demo")
	if err != nil || len(kept) != 1 || kept[0].SQL != a.SQL || kept[0].VerifiedAs != "" {
		t.Fatalf("the confirmed answer should be kept, unverified: %+v %v", kept, err)
	}
	confirmed := kept[0]
	// Admins see it among everyone's, as a candidate.
	boss := newChat(t, env, "maria")
	boss.who.Admin = true
	all := boss.send(dialog.Event{Kind: dialog.EventPrefs, Subject: "*"})[0]
	if len(all.Prefs.Facts) != 1 || !all.Prefs.Facts[0].Candidate || all.Prefs.Facts[0].ID != confirmed.ID {
		t.Fatalf("admins should see the candidate: %s", all.Text)
	}
	// Not verified yet: the engine answers.
	if r := ana.ask(q); strings.Contains(r.Text, "verified query") {
		t.Fatalf("an unverified answer was presented as verified:\n%s", r.Text)
	}

	// A non-admin cannot verify it; an admin can.
	ben := newChat(t, env, "ben")
	if rs := ben.send(dialog.Event{Kind: dialog.EventPromote, FactID: confirmed.ID, Scope: ontology.ScopeWorkspace}); !strings.Contains(rs[0].Text, "Only admins") {
		t.Fatalf("a non-admin promoted: %s", rs[0].Text)
	}
	rs := boss.send(dialog.Event{Kind: dialog.EventPromote, FactID: confirmed.ID, Scope: ontology.ScopeWorkspace})
	if !strings.Contains(rs[0].Text, "is now a verified query for everyone in this workspace (verified by maria)") {
		t.Fatalf("promote reply: %s", rs[0].Text)
	}
	r = ben.ask("How many orders were cancelled")
	if b := mustAnswer(t, r); b.SQL != a.SQL || !strings.Contains(r.Text, "This is a verified query (verified by maria).") {
		t.Fatalf("Ben should get the verified query:\n%s\n%s", r.Text, b.SQL)
	}
}

// A team dimension whose words the schema does not name ("sales region")
// is linked whole: the answer groups by it and says it used the team's
// definition; 'change' sets it aside and reads the question again.
func TestTeamDimensionLinksItsPhrase(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	loadDemoGlossary(t, env)
	ana := newChat(t, env, "ana")
	r := ana.ask("number of open orders by sales region")
	a := mustAnswer(t, r)
	if !strings.Contains(a.SQL, "regions.name") || !strings.Contains(r.Text, "Using the team's definition: 'sales region'") {
		t.Fatalf("want the orders grouped by region and the team's 'sales region' said:\n%s\n%s", a.SQL, r.Text)
	}
	var linked string
	for _, f := range a.UsedFacts {
		if f.Phrase == "sales region" && f.Team {
			linked = f.FactID
		}
	}
	if linked == "" {
		t.Fatalf("the team's 'sales region' is not among the facts used: %+v", a.UsedFacts)
	}
	for _, r := range ana.send(dialog.Event{Kind: dialog.EventChange, Target: a.ID, FactID: linked}) {
		if strings.Contains(r.Text, "didn't use that preference") || strings.Contains(r.Text, "team's definition: 'sales region'") {
			t.Fatalf("change should set the team's 'sales region' aside:\n%s", r.Text)
		}
		if r.Answer != nil {
			for _, f := range r.Answer.UsedFacts {
				if f.FactID == linked {
					t.Fatalf("the set-aside fact decided the new answer:\n%s", r.Text)
				}
			}
		}
	}
}

// A confirmed answer becomes a verified query only if its statement passes
// what any statement passes now: one the guard refuses is declined and
// answers nobody.
func TestVerifyChecksTheStatement(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ctx := context.Background()
	const q = "which orders went out last week?"
	bad, err := env.Facts.RecordConfirmed(ctx, ontology.ConfirmedAnswer{Owner: "test:w1:ana", Warehouse: "demo",
		Phrase: q, Question: q, SQL: "SELECT * FROM orders INTO OUTFILE '/tmp/clarify-orders'"})
	if err != nil {
		t.Fatal(err)
	}
	boss := newChat(t, env, "maria")
	boss.who.Admin = true
	rs := boss.send(dialog.Event{Kind: dialog.EventPromote, FactID: bad.ID, Scope: ontology.ScopeWorkspace})
	if !strings.Contains(rs[0].Text, "can't be a verified query") {
		t.Fatalf("a refused statement was verified: %s", rs[0].Text)
	}
	vs, err := env.Facts.List(ctx, ontology.Filter{Scope: ontology.ScopeWorkspace, Owner: "test:w1", IncludeInactive: true})
	if err != nil || len(vs) != 0 {
		t.Fatalf("the workspace has verified queries: %+v %v", vs, err)
	}
}
