package slack

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// learnRevenue teaches user what "revenue" means through the dialog.
func learnRevenue(t *testing.T, env *dialogtest.Env, user string) {
	t.Helper()
	who := dialog.Who{Platform: platform, Workspace: slackfake.TeamID, Channel: "C0SALES", User: user}
	ctx := context.Background()
	conv := "C0SALES:" + newTS()
	replies, err := env.Manager.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: "what was revenue in 2024?"})
	for range 4 {
		if err != nil {
			t.Fatal(err)
		}
		last := replies[len(replies)-1]
		if last.Kind != dialog.ReplyClarification {
			return
		}
		replies, err = env.Manager.Handle(ctx, dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: who, Target: last.Clarification.ID, Option: 0})
	}
}

// openHome sends app_home_opened for user and returns the published view.
func (h *harness) openHome(user string) msg {
	h.t.Helper()
	p := fixture(h.t, "app_home_opened.json")
	set(p, "event_id", uniq("Ev"))
	set(p, "event.user", user)
	set(p, "event.channel", "D"+user)
	since := h.fake.Mark()
	h.event(p)
	return h.home(since, user)
}

// home waits for the Home tab published for user.
func (h *harness) home(since int, user string) msg {
	h.t.Helper()
	c := h.fake.Wait(h.t, since, "views.publish", func(c slackfake.Call) bool { return c.Get("user_id") == user })
	m := msg{call: c}
	raw, _ := json.Marshal(c.View()["blocks"])
	_ = json.Unmarshal(raw, &m.blocks)
	return m
}

// homeClick is a block_actions payload from the Home tab.
func (h *harness) homeClick(home msg, user, actionID, option string) map[string]any {
	h.t.Helper()
	p := h.click(home, user, actionID, option)
	base := fixture(h.t, "block_actions_home.json")
	base["user"], base["actions"], base["trigger_id"] = p["user"], p["actions"], p["trigger_id"]
	set(base, "view.blocks", home.blocks)
	return base
}

// firstAction finds the action id of the first fact row in a list ("own." or "all.").
func (m msg) firstAction(list, prefix string) string {
	for _, b := range m.blocks {
		id, _ := b["block_id"].(string)
		if !strings.HasPrefix(id, list+"fact.") {
			continue
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			if a, _ := acc["action_id"].(string); strings.HasPrefix(a, prefix) {
				return a
			}
		}
	}
	return ""
}

// factAction is the action id on the fact row about phrase.
func (m msg) factAction(phrase string) string {
	for _, b := range m.blocks {
		text, _ := b["text"].(map[string]any)
		if s, _ := text["text"].(string); strings.HasPrefix(s, "*"+phrase+"* →") {
			if acc, ok := b["accessory"].(map[string]any); ok {
				a, _ := acc["action_id"].(string)
				return a
			}
		}
	}
	return ""
}

// TestAppHomeReviewAndAudit: people see and delete their preferences in
// the App Home; admins also see everyone's and promote, edit and delete
// them, and every admin change is recorded (who, when, before, after).
func TestAppHomeReviewAndAudit(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	fake.SetAdmin("U0BOSS")
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	learnRevenue(t, env, "U0ANA")
	ctx := context.Background()

	ana := h.openHome("U0ANA")
	if !strings.Contains(ana.text(), "*revenue* →") || strings.Contains(ana.text(), "Everyone's preferences") {
		t.Fatalf("Ana's home should list her preference and no admin section: %s", ana.text())
	}
	if ana.firstAction("own.", actDelete) == "" || ana.firstAction("own.", actFactMenu) != "" {
		t.Fatalf("Ana gets delete buttons, not the admin menu: %s", ana.text())
	}

	// Ana cannot promote, even by forging the admin menu's value.
	facts, err := env.Facts.List(ctx, ontology.Filter{Owner: "slack:" + slackfake.TeamID + ":U0ANA"})
	if err != nil || len(facts) == 0 {
		t.Fatalf("no facts learned: %v", err)
	}
	var revenue ontology.Fact
	for _, f := range facts {
		if f.Phrase == "revenue" {
			revenue = f
		}
	}
	forged := fixture(t, "block_actions_home.json")
	set(forged, "user.id", "U0ANA")
	forged["actions"] = []any{map[string]any{"type": "overflow", "action_id": "clarify.fact.menu.0", "block_id": "own.fact." + revenue.ID,
		"selected_option": map[string]any{"text": map[string]any{"type": "plain_text", "text": "Promote"}, "value": ref{Fact: revenue.ID, Do: doPromoteWorkspace, Home: true}.encode()}}}
	since := fake.Mark()
	h.interact(forged)
	if got := h.home(since, "U0ANA"); !strings.Contains(got.text(), "Only admins") {
		t.Fatalf("a forged promotion must be refused: %s", got.text())
	}

	boss := h.openHome("U0BOSS")
	if !strings.Contains(boss.text(), "Everyone's preferences") || !strings.Contains(boss.text(), "<@U0ANA>") {
		t.Fatalf("the admin's home should list everyone's preferences with owners: %s", boss.text())
	}
	menu := boss.firstAction("all.", actFactMenu)
	if menu == "" {
		t.Fatalf("no admin menu: %s", boss.text())
	}

	// Promote to the workspace.
	since = fake.Mark()
	h.interact(h.homeClick(boss, "U0BOSS", menu, doPromoteWorkspace))
	boss = h.home(since, "U0BOSS")
	if !strings.Contains(boss.text(), "Everyone in this workspace now gets") {
		t.Fatalf("promotion status: %s", boss.text())
	}

	// Edit through the modal.
	menu = boss.firstAction("all.", actFactMenu)
	since = fake.Mark()
	h.interact(h.homeClick(boss, "U0BOSS", menu, doEdit))
	open := fake.Wait(t, since, "views.open", nil)
	if open.View()["callback_id"] != cbEdit || !strings.Contains(string(open.Raw), "→") {
		t.Fatalf("edit modal: %s", open.Raw)
	}
	sub := fixture(t, "view_submission.json")
	set(sub, "user.id", "U0BOSS")
	set(sub, "view.callback_id", cbEdit)
	set(sub, "view.private_metadata", open.View()["private_metadata"])
	set(sub, "view.state.values.input.value.value", "Revenue net of discounts, without shipping")
	since = fake.Mark()
	if body := h.interact(sub); body != "" {
		t.Fatalf("edit ack: %q", body)
	}
	boss = h.home(since, "U0BOSS")
	if !strings.Contains(boss.text(), "Updated:") {
		t.Fatalf("edit status: %s", boss.text())
	}

	// Promote to a channel, picked in a modal.
	menu = boss.firstAction("all.", actFactMenu)
	since = fake.Mark()
	h.interact(h.homeClick(boss, "U0BOSS", menu, doPromoteChannel))
	open = fake.Wait(t, since, "views.open", nil)
	sub = fixture(t, "view_submission.json")
	set(sub, "user.id", "U0BOSS")
	set(sub, "view.callback_id", cbPromote)
	set(sub, "view.private_metadata", open.View()["private_metadata"])
	sub["view"].(map[string]any)["state"] = map[string]any{"values": map[string]any{channelBlock: map[string]any{channelInput: map[string]any{
		"type": "conversations_select", "selected_conversation": "C0SALES"}}}}
	since = fake.Mark()
	h.interact(sub)
	boss = h.home(since, "U0BOSS")
	if !strings.Contains(boss.text(), "Everyone in this channel now gets") {
		t.Fatalf("channel promotion status: %s", boss.text())
	}

	// Ana deletes her own preference from her home.
	ana = h.openHome("U0ANA")
	del := ""
	for _, b := range ana.blocks {
		if id, _ := b["block_id"].(string); id == "own.fact."+revenue.ID {
			del, _ = b["accessory"].(map[string]any)["action_id"].(string)
		}
	}
	if del == "" {
		t.Fatalf("no delete button for %s: %s", revenue.ID, ana.text())
	}
	since = fake.Mark()
	h.interact(h.homeClick(ana, "U0ANA", del, ""))
	if got := h.home(since, "U0ANA"); !strings.Contains(got.text(), "Deleted:") {
		t.Fatalf("delete status: %s", got.text())
	}

	// The audit trail: who, when, before and after.
	audit, err := env.Facts.Audit(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	byAction := map[string]ontology.AuditEntry{}
	for _, e := range audit {
		byAction[e.Action+" "+e.Actor] = e
	}
	bossID := "slack:" + slackfake.TeamID + ":U0BOSS"
	anaID := "slack:" + slackfake.TeamID + ":U0ANA"
	edit, ok := byAction[ontology.ActionEdit+" "+bossID]
	if !ok || edit.Before == nil || edit.After == nil || edit.After.Meaning != "Revenue net of discounts, without shipping" || edit.Before.Meaning == edit.After.Meaning || edit.At.IsZero() {
		t.Fatalf("edit audit: %+v", edit)
	}
	promote, ok := byAction[ontology.ActionPromote+" "+bossID]
	if !ok || promote.After == nil {
		t.Fatalf("promote audit missing: %+v", audit)
	}
	scopes := map[ontology.Scope]bool{}
	for _, e := range audit {
		if e.Action == ontology.ActionPromote && e.Actor == bossID && e.After != nil {
			scopes[e.After.Scope] = true
		}
	}
	if !scopes[ontology.ScopeWorkspace] || !scopes[ontology.ScopeChannel] {
		t.Fatalf("want workspace and channel promotions audited: %v", scopes)
	}
	if d, ok := byAction[ontology.ActionDelete+" "+anaID]; !ok || d.Before == nil || d.Before.ID != revenue.ID {
		t.Fatalf("delete audit: %+v", d)
	}
	noViolations(t, fake)
}

// TestPrefsCommandWithDeleteButtons: /clarify prefs lists the person's
// preferences ephemerally with delete buttons that work.
func TestPrefsCommandWithDeleteButtons(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	learnRevenue(t, env, "U0ANA")

	form := formQuery(t, "slash_command.form")
	form.Set("response_url", fake.ResponseURL("prefs"))
	since := fake.Mark()
	h.send(CommandsPath, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
	c := fake.Wait(t, since, "response_url", nil)
	m := msg{call: c}
	_ = json.Unmarshal([]byte(c.BlocksJSON()), &m.blocks)
	del := m.factAction("revenue")
	if !strings.HasPrefix(del, actDelete) {
		t.Fatalf("prefs should list revenue with a delete button: %s", m.text())
	}
	// The delete button on the ephemeral message answers through its response_url.
	click := h.click(m, "U0ANA", del, "")
	set(click, "container.is_ephemeral", true)
	set(click, "container.type", "message")
	hook := uniq("ephemeral-")
	set(click, "response_url", fake.ResponseURL(hook))
	since = fake.Mark()
	h.interact(click)
	done := fake.Wait(t, since, "response_url", func(c slackfake.Call) bool { return c.Get("hook") == hook })
	if !strings.Contains(done.Get("text"), "Deleted") {
		t.Fatalf("delete: %s", done.Raw)
	}
	left, err := env.Facts.List(context.Background(), ontology.Filter{Owner: "slack:" + slackfake.TeamID + ":U0ANA", Phrase: "revenue"})
	if err != nil || len(left) != 0 {
		t.Fatalf("the preference should be gone: %+v %v", left, err)
	}
	noViolations(t, fake)
}
