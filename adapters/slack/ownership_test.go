package slack

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// Two people in one channel: nobody changes another person's meanings.
// Ben's "Not what I meant" on Ana's answer leaves Ana's choices as they
// were; Ana's own weakens hers; a definition Ben types in Ana's thread is
// Ben's, and is never announced to Ana as hers.
func TestNobodyChangesAnotherPersonsMeanings(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const ana, ben, sales = "U0ANA", "U0BEN", "C0SALES"
	anaKey, benKey := "slack:"+slackfake.TeamID+":"+ana, "slack:"+slackfake.TeamID+":"+ben
	facts := func(owner string) []ontology.Fact {
		t.Helper()
		fs, err := env.Facts.List(context.Background(), ontology.Filter{Owner: owner, IncludeInactive: true})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}

	// Ana teaches 'revenue' and 'in 2024'.
	qts := newTS()
	since := fake.Mark()
	h.event(mention(t, ana, sales, qts, "", "what was revenue in 2024?"))
	q := h.reply(since, sales, qts, isClarification)
	since = fake.Mark()
	h.choose(q, ana, "net revenue")
	q = h.reply(since, sales, qts, isClarification)
	since = fake.Mark()
	h.choose(q, ana, "left the warehouse")
	ans := h.reply(since, sales, qts, isAnswer)
	if len(facts(anaKey)) != 2 {
		t.Fatalf("ana's facts: %+v", facts(anaKey))
	}

	// Ben, in Ana's thread: "Not what I meant" on her answer.
	since = fake.Mark()
	h.interact(h.click(ans, ben, actWrong, ""))
	h.reply(since, sales, qts, func(m msg) bool { return isClarification(m) || isAnswer(m) })
	for _, f := range facts(anaKey) {
		if f.Rejections != 0 || !f.Active() {
			t.Fatalf("ben weakened ana's %q: %+v", f.Phrase, f)
		}
	}

	// Ana's own "Not what I meant" on a later answer weakens her choices.
	qts2 := newTS()
	since = fake.Mark()
	h.event(mention(t, ana, sales, qts2, "", "what was revenue in 2023?"))
	ans2 := h.reply(since, sales, qts2, isAnswer)
	since = fake.Mark()
	h.interact(h.click(ans2, ana, actWrong, ""))
	h.reply(since, sales, qts2, func(m msg) bool { return isClarification(m) || isAnswer(m) })
	weakened := 0
	for _, f := range facts(anaKey) {
		if f.Rejections == 1 {
			weakened++
		}
	}
	if weakened != 2 {
		t.Fatalf("ana's own rejection should weaken both her choices: %+v", facts(anaKey))
	}

	// Ben types a definition in Ana's thread: it is Ben's.
	qts3 := newTS()
	since = fake.Mark()
	h.event(mention(t, ana, sales, qts3, "", "how many lost orders are there?"))
	h.reply(since, sales, qts3, isClarification)
	since = fake.Mark()
	h.event(mention(t, ben, sales, newTS(), qts3, "lost means the order status is returned"))
	got := h.reply(since, sales, qts3, isAnswer)
	if want := scalar(t, env, "SELECT COUNT(*) FROM orders WHERE status = 'returned'"); !strings.Contains(got.text(), want) {
		t.Fatalf("the answer should use ben's words (%s): %s", want, got.text())
	}
	var lost []ontology.Fact
	for _, f := range facts(benKey) {
		if f.Phrase == "lost" {
			lost = append(lost, f)
		}
	}
	if len(lost) != 1 {
		t.Fatalf("ben's definition should be his: %+v", facts(benKey))
	}
	for _, f := range facts(anaKey) {
		if f.Phrase == "lost" {
			t.Fatalf("ben's words were stored as ana's: %+v", f)
		}
	}
	qts4 := newTS()
	since = fake.Mark()
	h.event(mention(t, ana, sales, qts4, "", "how many lost orders are there?"))
	again := h.reply(since, sales, qts4, func(m msg) bool { return isClarification(m) || isAnswer(m) })
	if strings.Contains(again.text(), "Using your definition") {
		t.Fatalf("ana was told ben's definition is hers: %s", again.text())
	}
	noViolations(t, fake)
}

// A workspace (glossary) meaning that one person says is not what they
// meant is set aside for them only, and admins see it.
func TestSharedMeaningSetAsideForOnePerson(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	ws := "slack:" + slackfake.TeamID
	team := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: "demo", Phrase: "revenue", Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}, Meaning: "Net revenue after discounts"}
	if _, err := env.Facts.ReplaceSource(context.Background(), "glossary:team", []ontology.Fact{team}, ontology.Actor{ID: "admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const ana, ben, sales = "U0ANA", "U0BEN", "C0SALES"

	answerOf := func(user, q string) (msg, string) {
		t.Helper()
		ts := newTS()
		since := fake.Mark()
		h.event(mention(t, user, sales, ts, "", q))
		return h.untilAnswer(since, user, sales, ts), ts
	}
	a, ats := answerOf(ana, "what was revenue in 2024?")
	if !strings.Contains(a.text(), "team") {
		t.Fatalf("the team's meaning should decide: %s", a.text())
	}
	since := fake.Mark()
	h.interact(h.click(a, ana, actWrong, ""))
	h.reply(since, sales, ats, func(m msg) bool { return isClarification(m) || isAnswer(m) })

	stored, err := env.Facts.List(context.Background(), ontology.Filter{Owner: ws, IncludeInactive: true})
	if err != nil || len(stored) != 1 || stored[0].Rejections != 0 || !stored[0].Active() {
		t.Fatalf("the team's meaning changed for everyone: %+v %v", stored, err)
	}
	if b, _ := answerOf(ben, "what was revenue in 2023?"); !strings.Contains(b.text(), "team") {
		t.Fatalf("ben should keep the team's meaning: %s", b.text())
	}
	audit, err := env.Facts.AuditOf(context.Background(), stored[0].ID)
	if err != nil || len(audit) == 0 || audit[0].Action != ontology.ActionReject || audit[0].Actor != "slack:"+slackfake.TeamID+":"+ana {
		t.Fatalf("admins should see ana's rejection: %+v %v", audit, err)
	}
	noViolations(t, fake)
}
