package discord

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// Two people in a data channel: nobody changes another person's meanings.
// Bob's "Not what I meant" on Alice's answer leaves Alice's choices as
// they were; Alice's own weakens hers; a definition Bob types in Alice's
// thread is Bob's; a server-wide meaning Alice turns down is set aside
// for her only.
func TestNobodyChangesAnotherPersonsMeanings(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	server := Platform + ":" + guildID
	team := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: server, Warehouse: "demo", Phrase: "turnover", Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}, Meaning: "Net revenue after discounts"}
	if _, err := env.Facts.ReplaceSource(context.Background(), "glossary:team", []ontology.Fact{team}, ontology.Actor{ID: "admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)
	aliceKey, bobKey := Platform+":"+guildID+":"+alice, Platform+":"+guildID+":"+bob
	facts := func(owner string) []ontology.Fact {
		t.Helper()
		fs, err := env.Facts.List(context.Background(), ontology.Filter{Owner: owner, IncludeInactive: true})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	// ask starts a thread from a mention and answers every question with
	// its first option; it returns the thread and the answer.
	ask := func(from person, q string) (string, *discordtest.Message) {
		t.Helper()
		h.quiet()
		thread := h.post(msgOpts{Channel: dataCh, Content: q, From: from, Mention: true})
		_, m := h.posted("first reply", "POST", "/api/v9/channels/"+thread+"/messages")
		for range 5 {
			if !strings.Contains(string(m.Components), "choose|") {
				return thread, m
			}
			id, _ := clarificationOf(t, m, thread)
			h.quiet()
			in := h.click(m, "choose|"+thread+"|"+id+"|0", from)
			h.firstResponse(in)
			h.posted("resolve", "PATCH", h.original(in))
			_, m = h.posted("next", "POST", h.followup(in))
		}
		t.Fatalf("no answer to %q", q)
		return "", nil
	}
	wrong := func(thread string, ans *discordtest.Message, from person) {
		t.Helper()
		id := answerOf(t, ans, thread)
		h.quiet()
		in := h.click(ans, "wrong|"+thread+"|"+id, from)
		h.firstResponse(in)
		h.quiet()
	}

	th, ans := ask(alicePerson, "what was revenue in 2024?")
	if len(facts(aliceKey)) != 2 {
		t.Fatalf("alice's facts: %+v", facts(aliceKey))
	}
	wrong(th, ans, bobPerson)
	for _, f := range facts(aliceKey) {
		if f.Rejections != 0 || !f.Active() {
			t.Fatalf("bob weakened alice's %q: %+v", f.Phrase, f)
		}
	}
	th, ans = ask(alicePerson, "what was revenue in 2023?")
	wrong(th, ans, alicePerson)
	for _, f := range facts(aliceKey) {
		if f.Rejections != 1 {
			t.Fatalf("alice's own rejection should weaken her %q: %+v", f.Phrase, f)
		}
	}

	// Bob types a definition in Alice's thread: it is Bob's.
	h.quiet()
	thread := h.post(msgOpts{Channel: dataCh, Content: "how many lost orders are there?", From: alicePerson, Mention: true})
	h.posted("question", "POST", "/api/v9/channels/"+thread+"/messages")
	h.quiet()
	h.post(msgOpts{Channel: thread, Content: "lost means the order status is returned", From: bobPerson})
	_, got := h.posted("answer", "POST", "/api/v9/channels/"+thread+"/messages")
	if want := scalarOf(t, env, "SELECT COUNT(*) FROM orders WHERE status = 'returned'"); !strings.Contains(got.Content, want) {
		t.Fatalf("the answer should use bob's words (%s): %s", want, got.Content)
	}
	lost := 0
	for _, f := range facts(bobKey) {
		if f.Phrase == "lost" {
			lost++
		}
	}
	if lost != 1 {
		t.Fatalf("bob's definition should be his: %+v", facts(bobKey))
	}
	for _, f := range facts(aliceKey) {
		if f.Phrase == "lost" {
			t.Fatalf("bob's words were stored as alice's: %+v", f)
		}
	}

	// The server's meaning of 'turnover', turned down by Alice: set aside
	// for her, kept for Bob, seen by admins.
	th, ans = ask(alicePerson, "what was turnover in 2024?")
	if !strings.Contains(ans.Content, "'turnover'") {
		t.Fatalf("the server's meaning should decide: %s", ans.Content)
	}
	wrong(th, ans, alicePerson)
	stored := facts(server)
	if len(stored) != 1 || stored[0].Rejections != 0 || !stored[0].Active() {
		t.Fatalf("the server's meaning changed for everyone: %+v", stored)
	}
	if _, b := ask(bobPerson, "what was turnover in 2025?"); !strings.Contains(b.Content, "'turnover'") {
		t.Fatalf("bob should keep the server's meaning: %s", b.Content)
	}
	audit, err := env.Facts.AuditOf(context.Background(), stored[0].ID)
	if err != nil || len(audit) == 0 || audit[0].Action != ontology.ActionReject || audit[0].Actor != aliceKey {
		t.Fatalf("admins should see alice's rejection: %+v %v", audit, err)
	}
}

// scalarOf reads one value from the demo warehouse, formatted as answers
// show it.
func scalarOf(t *testing.T, env *dialogtest.Env, sql string) string {
	t.Helper()
	res, err := env.Demo.DB.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%s: %v", sql, err)
	}
	return colfmt.Detect(colfmt.Column{Name: res.Columns[0].Name, Type: res.Columns[0].Type}).Value(res.Rows[0][0])
}
