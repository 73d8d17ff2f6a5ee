package dialog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// The examples of "what a person teaches must only help", on the demo.

// learnDates teaches c's person: 'revenue' = net revenue, 'in 2024' = the
// date the order left the warehouse.
func learnDates(t *testing.T, c *chat) {
	t.Helper()
	r, _ := c.answerUntil(c.ask("what was revenue in 2024?"), map[string]string{"measure": "net revenue", "filteron:2024": "left the warehouse"})
	mustAnswer(t, r)
}

// factOf is c's person's fact for phrase.
func factOf(t *testing.T, env *dialogtest.Env, user, phrase string) ontology.Fact {
	t.Helper()
	facts, err := env.Facts.List(context.Background(), ontology.Filter{Owner: "test:w1:" + user, Phrase: phrase, IncludeInactive: true})
	if err != nil || len(facts) != 1 {
		t.Fatalf("%s's facts for %q: %+v %v", user, phrase, facts, err)
	}
	return facts[0]
}

// A remembered ship date cannot answer a question about cancelled orders,
// which never ship: the bot asks, saying why, instead of answering 0, and
// the answer is for this question only.
func TestRememberedChoiceThatCannotHoldIsAsked(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")
	learnDates(t, ana)

	r := ana.ask("how many cancelled orders in 2025?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got: %s", r.Text)
	}
	if p := r.Clarification.Prompt; !strings.Contains(p, "'cancelled'") || !strings.Contains(p, "have no date the order left the warehouse") || !strings.Contains(p, "this time") {
		t.Fatalf("the question should say why: %q", p)
	}
	if first := r.Clarification.Options[0].Label; !strings.Contains(first, "placed") {
		t.Fatalf("the reading that gives rows comes first: %s", r.Text)
	}
	a := mustAnswer(t, ana.choose(r, "placed"))
	if want := scalar(t, env, "SELECT COUNT(*) FROM orders WHERE status = 'cancelled' AND YEAR(ordered_at) = 2025"); a.Rows[0][0] != want || want == "0" {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
	if !strings.Contains(strings.Join(a.Notes, " "), "For this question only") {
		t.Fatalf("the answer should say the choice was for this time: %v", a.Notes)
	}
	// The remembered choice stays.
	if f := factOf(t, env, "ana", "dates"); f.Target.Choice.Column != "orders.shipped_at" || !f.Active() {
		t.Fatalf("the date preference changed: %+v", f)
	}
	a = mustAnswer(t, ana.ask("how many orders did we have in 2023?"))
	if !strings.Contains(a.SQL, "shipped_at") {
		t.Fatalf("the usual choice should decide again: %s", a.SQL)
	}
}

// Each answer a remembered choice decides counts one use, and prefs show
// it with the phrase, the meaning, the scope and the source.
func TestUsesAreCountedAndShown(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	learnDates(t, ana)
	for _, q := range []string{"what was revenue in 2023?", "total shipping fees in 2024", "how many orders did we have in 2025?"} {
		mustAnswer(t, ana.ask(q))
	}
	if f := factOf(t, env, "ana", "dates"); f.Uses != 3 {
		t.Fatalf("the date choice decided 3 answers, uses %d", f.Uses)
	}
	p := ana.send(dialog.Event{Kind: dialog.EventPrefs})[0]
	for _, want := range []string{"'dates' = date the order left the warehouse — personal, your answer, used 3 times", "'revenue' = net revenue after discounts"} {
		if !strings.Contains(p.Text, want) {
			t.Fatalf("prefs lack %q:\n%s", want, p.Text)
		}
	}
}

// A date, measure or output choice is reused by follow-ups and later
// questions about the same things, and the answer says so.
func TestChoicesAreReused(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")
	learnDates(t, ana)
	// A follow-up in the same conversation.
	r := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "and by month?"})
	a := mustAnswer(t, r[len(r)-1])
	if !strings.Contains(a.SQL, "MONTH(orders.shipped_at)") {
		t.Fatalf("the follow-up should keep the chosen date: %s", a.SQL)
	}
	for _, q := range []string{"total shipping fees in 2024", "net revenue by month in 2025", "who was our best customer in 2024?"} {
		r := ana.ask(q)
		for r.Kind == dialog.ReplyClarification {
			if r.Clarification.Key.Name == sqlshape.SlotFilterOn {
				t.Fatalf("%q: the date was asked again: %s", q, r.Text)
			}
			r = ana.send(dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: 0})[0]
			if r.Resolved != nil && r.Kind != dialog.ReplyClarification && r.Kind != dialog.ReplyAnswer {
				t.Fatalf("%q: %s", q, r.Text)
			}
		}
		a := mustAnswer(t, r)
		if !strings.Contains(a.SQL, "shipped_at") || !strings.Contains(r.Text, "Using your earlier choice: 'dates'") {
			t.Fatalf("%q should use the date choice and say so:\n%s\n%s", q, r.Text, a.SQL)
		}
	}
}

// Free text under Other… is applied exactly: "net revenue minus the amount
// refunded" is a measure minus another, confirmed in plain words, and the
// answer is that difference; the person's definition is used next time.
func TestTypedMeasureMinusAnother(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	for _, typed := range []string{"net revenue minus the amount refunded", "sum of net amount minus refunds"} {
		t.Run(typed, func(t *testing.T) {
			ana := newChat(t, env, "ana-"+strings.Fields(typed)[0])
			r := ana.ask("what was revenue in 2024?")
			rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: typed})
			if rs[0].Resolved == nil || !strings.Contains(rs[0].Resolved.Choice, "minus total amount refunded") {
				t.Fatalf("the confirmation should say what was understood: %+v", rs[0].Resolved)
			}
			a := mustAnswer(t, ana.choose(rs[len(rs)-1], "placed"))
			want := scalar(t, env, "SELECT SUM(o.net_amount) - (SELECT SUM(r.amount) FROM refunds r JOIN orders o2 ON o2.id = r.order_id WHERE YEAR(o2.ordered_at) = 2024) FROM orders o WHERE YEAR(o.ordered_at) = 2024")
			if a.Rows[0][0] != want {
				t.Fatalf("answer %v, want %s\n%s", a.Rows, want, a.SQL)
			}
			if !strings.Contains(a.Explanation, "'revenue' meaning total net revenue after discounts minus total amount refunded") {
				t.Fatalf("the explanation should say the meaning: %s", a.Explanation)
			}
			r = ana.ask("what was revenue in 2023?")
			a = mustAnswer(t, r)
			if !strings.Contains(a.SQL, "refunds") || !strings.Contains(r.Text, "'revenue' = total net revenue after discounts minus total amount refunded") {
				t.Fatalf("the definition should decide next time:\n%s\n%s", r.Text, a.SQL)
			}
		})
	}
}

// A word meant as two values of a status column: the person types them;
// "returned means …" after an answer is a definition, applied.
func TestTypedDefinitions(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many active orders are there?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("active") {
		t.Fatalf("want a question about 'active': %s", r.Text)
	}
	rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "status is placed or shipped"})
	a := mustAnswer(t, rs[len(rs)-1])
	if want := scalar(t, env, "SELECT COUNT(*) FROM orders WHERE status IN ('placed', 'shipped')"); a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
	if rs[0].Resolved == nil || rs[0].Resolved.Choice != "Orders whose order status is 'placed' or 'shipped' (in your words)" {
		t.Fatalf("confirmation %+v", rs[0].Resolved)
	}
	// Next time the definition answers, also for another question.
	r = ana.ask("how many active orders do Enterprise customers have?")
	if r.Kind == dialog.ReplyClarification && r.Clarification.Key == sqlshape.DefineKey("active") {
		t.Fatalf("asked about 'active' again: %s", r.Text)
	}

	// A definition as a follow-up.
	mustAnswer(t, ana.answerTo(ana.ask("how many lost orders are there?"), "Leave 'lost' out"))
	rs = ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "lost means the order status is returned"})
	if !strings.Contains(rs[0].Text, "✓ 'lost' = orders whose order status is 'returned'") {
		t.Fatalf("the follow-up should be confirmed: %s", rs[0].Text)
	}
	a = mustAnswer(t, rs[len(rs)-1])
	if want := scalar(t, env, "SELECT COUNT(*) FROM orders WHERE status = 'returned'"); a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
}

// Words that are no meaning of what was asked are declined plainly, and
// the question stays open; they are never acknowledged and then ignored.
func TestTypedWordsThatCannotBeUsedAreDeclined(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many active orders are there?")
	rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "sum of net amount"})
	if len(rs) != 1 || rs[0].Kind != dialog.ReplyNotice || rs[0].Resolved != nil || !strings.Contains(rs[0].Text, "couldn't read") {
		t.Fatalf("want a plain refusal that keeps the question open: %+v", rs)
	}
	// The question is still open: an option still answers it.
	mustAnswer(t, ana.choose(r, "Leave 'active' out"))

	r = ana.ask("what was revenue in 2024?")
	rs = ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "the number of refunds"})
	if rs[0].Kind != dialog.ReplyNotice || !strings.Contains(rs[0].Text, "have not applied it") {
		t.Fatalf("a meaning no reading can use should be declined: %s", rs[0].Text)
	}
}

// When every meaning offered for a word is turned down, the answer leaves
// the word out and says so: it never uses a meaning the person was not
// shown.
func TestNoMeaningThePersonWasNotShown(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many active orders are there?")
	var shown []string
	for r.Kind == dialog.ReplyClarification {
		if r.Clarification.Key != sqlshape.DefineKey("active") {
			t.Fatalf("unexpected question: %s", r.Text)
		}
		for _, o := range r.Clarification.Options {
			shown = append(shown, o.Label)
		}
		rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "none of these"})
		r = rs[len(rs)-1]
	}
	a := mustAnswer(t, r)
	if strings.Contains(a.SQL, "WHERE") {
		t.Fatalf("after every meaning was turned down the answer used one (shown: %q):\n%s", shown, a.SQL)
	}
	if !strings.Contains(r.Text, "'active'") {
		t.Fatalf("the answer should say it left 'active' out: %s", r.Text)
	}
	if want := scalar(t, env, "SELECT COUNT(*) FROM orders"); a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
}

// Options are worded for people: no SQL in them.
func TestOptionsAreWordedForPeople(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("revenue by month in 2025")
	if r.Kind != dialog.ReplyClarification || len(r.Clarification.Options) < 2 {
		t.Fatalf("want a question with options: %s", r.Text)
	}
	for _, o := range r.Clarification.Options {
		if why := ontology.BadWording(o.Label); why != "" {
			t.Errorf("option %q: %s", o.Label, why)
		}
	}
}

// One row per glossary meaning: a measure the glossary stores as two
// facts is listed once, with its source.
func TestPrefsListAGlossaryMeaningOnce(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1000, dialog.Config{})
	loadDemoGlossary(t, env)
	ana := newChat(t, env, "ana")
	p := ana.send(dialog.Event{Kind: dialog.EventPrefs})[0]
	if n := strings.Count(p.Text, "'net revenue' ="); n != 1 {
		t.Fatalf("'net revenue' is listed %d times:\n%s", n, p.Text)
	}
	if !strings.Contains(p.Text, "workspace-wide, team glossary 'demo'") {
		t.Fatalf("prefs should name the glossary:\n%s", p.Text)
	}
}

// Only the asker's "not what I meant" weakens their facts; someone else's
// in the asker's thread reopens the question but changes nobody's meaning.
func TestNotWhatIMeantWeakensOnlyTheAskersFacts(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	learnDates(t, ana)
	r := ana.ask("what was revenue in 2023?")
	a := mustAnswer(t, r)

	ben := newChat(t, env, "ben")
	ben.conv = ana.conv // ben, in ana's thread
	ben.send(dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	for _, phrase := range []string{"dates", "revenue"} {
		if f := factOf(t, env, "ana", phrase); f.Rejections != 0 || !f.Active() {
			t.Fatalf("ben weakened ana's %q: %+v", phrase, f)
		}
	}

	a = mustAnswer(t, ana.ask("what was revenue in 2022?"))
	ana.send(dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	f := factOf(t, env, "ana", "dates")
	if f.Rejections != 1 || f.Active() {
		t.Fatalf("ana's own 'not what I meant' should weaken her choice: %+v", f)
	}
	audit, err := env.Facts.AuditOf(context.Background(), f.ID)
	if err != nil || len(audit) == 0 || audit[0].Action != ontology.ActionReject || audit[0].Actor != "test:w1:ana" {
		t.Fatalf("admins should see the rejection: %+v %v", audit, err)
	}
	p := ana.send(dialog.Event{Kind: dialog.EventPrefs})[0]
	if !strings.Contains(p.Text, "inactive: I'll ask again") {
		t.Fatalf("prefs should show the weakened choice:\n%s", p.Text)
	}
}

// A team (glossary) meaning turned down by one person is set aside for
// them only: everyone else keeps it, and admins see it.
func TestTeamMeaningSetAsideForOnePerson(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	loadDemoGlossary(t, env)
	ana, ben := newChat(t, env, "ana"), newChat(t, env, "ben")
	r, _ := ana.answerUntil(ana.ask("what was turnover in 2024?"), map[string]string{"filteron:2024": "placed"})
	a := mustAnswer(t, r)
	var team dialog.UsedFact
	for _, f := range a.UsedFacts {
		if f.Team {
			team = f
		}
	}
	if team.FactID == "" {
		t.Fatalf("the team's definition should decide: %s", r.Text)
	}
	ana.send(dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	stored, err := env.Facts.Get(context.Background(), team.FactID)
	if err != nil || stored.Rejections != 0 || !stored.Active() {
		t.Fatalf("the team's fact changed for everyone: %+v %v", stored, err)
	}
	// Ben still gets the team's meaning; ana is asked.
	rb, _ := ben.answerUntil(ben.ask("what was turnover in 2023?"), map[string]string{"filteron:2023": "placed"})
	if !strings.Contains(rb.Text, "Using the team's definition: 'turnover'") {
		t.Fatalf("ben should keep the team's meaning: %s", rb.Text)
	}
	if ra := ana.ask("what was turnover in 2023?"); strings.Contains(ra.Text, "Using the team's definition: 'turnover'") {
		t.Fatalf("the meaning ana turned down decided her answer: %s", ra.Text)
	}
	audit, err := env.Facts.AuditOf(context.Background(), team.FactID)
	if err != nil || len(audit) == 0 || audit[0].Action != ontology.ActionReject || audit[0].Actor != "test:w1:ana" {
		t.Fatalf("admins should see ana's rejection: %+v %v", audit, err)
	}
}

// What someone types in another person's thread is theirs: a definition
// ben gives in ana's conversation is ben's, never announced to ana.
func TestTextInSomeoneElsesThreadIsItsAuthors(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many lost orders are there?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question about 'lost': %s", r.Text)
	}
	ben := newChat(t, env, "ben")
	ben.conv = ana.conv
	rs := ben.send(dialog.Event{Kind: dialog.EventMessage, Text: "lost means the order status is returned"})
	mustAnswer(t, rs[len(rs)-1])
	if f := factOf(t, env, "ben", "lost"); f.Kind != ontology.KindDefinition {
		t.Fatalf("ben's definition: %+v", f)
	}
	if facts, _ := env.Facts.List(context.Background(), ontology.Filter{Owner: "test:w1:ana", IncludeInactive: true}); len(facts) != 0 {
		t.Fatalf("ben's words were stored as ana's: %+v", facts)
	}
	if r := ana.ask("how many lost orders are there?"); strings.Contains(r.Text, "Using your definition") {
		t.Fatalf("ana was told ben's definition is hers: %s", r.Text)
	}
}

// answerTo picks the option whose label contains label.
func (c *chat) answerTo(r dialog.Reply, label string) dialog.Reply {
	c.t.Helper()
	return c.choose(r, label)
}

// One word, two subjects: 'active' orders and 'active' customers are two
// definitions of the same person, each used for its own rows.
func TestOneWordTwoSubjects(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many active orders are there?")
	rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "status is placed or shipped"})
	mustAnswer(t, rs[len(rs)-1])
	mustAnswer(t, ana.choose(ana.ask("how many active customers are there?"), "has at least one order"))
	a := mustAnswer(t, ana.ask("how many active orders are there?"))
	if !strings.Contains(a.SQL, "'placed', 'shipped'") {
		t.Fatalf("active orders: %s", a.SQL)
	}
	a = mustAnswer(t, ana.ask("how many active customers are there?"))
	if !strings.Contains(a.SQL, "EXISTS") {
		t.Fatalf("active customers: %s", a.SQL)
	}
}

// Words that read as a meaning of what is asked answer it, even when they
// start like a question ("average …"); two measures typed together are
// read as two.
func TestTypedAnswerThatLooksLikeAQuestion(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("what was revenue in 2024?")
	rs := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "average net amount and average gross amount"})
	if rs[0].Kind != dialog.ReplyNotice || !strings.Contains(rs[0].Text, "total net revenue after discounts and total gross revenue") && !strings.Contains(rs[0].Text, "average net revenue after discounts and average gross revenue") {
		t.Fatalf("the words should be read as two measures of 'revenue': %+v", rs[0])
	}
	if !strings.Contains(rs[0].Text, r.Clarification.Prompt) {
		t.Fatalf("the question should stay open: %s", rs[0].Text)
	}
}

// A remembered 'revenue' = net revenue does not decide a question whose
// own words only the other reading takes into account.
func TestAFactNeverLeavesTheQuestionsWordsOut(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	bo := newChat(t, env, "bo")
	learnDates(t, bo)
	r := bo.ask("what was revenue before discounts in 2025?")
	if r.Kind == dialog.ReplyClarification {
		return // asking is right
	}
	a := mustAnswer(t, r)
	for _, f := range a.UsedFacts {
		if f.Phrase == "revenue" && len(a.Unused) > 0 {
			t.Fatalf("'revenue' = net revenue decided, leaving %v out:\n%s", a.Unused, a.SQL)
		}
	}
}
