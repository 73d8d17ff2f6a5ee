package discord

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

const demoOrders = 300

func (h *harness) original(in interaction) string {
	return "/api/v9/webhooks/" + h.fake.AppID() + "/" + in.Token + "/messages/@original"
}

func (h *harness) followup(in interaction) string {
	return "/api/v9/webhooks/" + h.fake.AppID() + "/" + in.Token
}

// optionRows is the exact component layout of a clarification with n
// options: one row of n primary buttons and a secondary Other….
func optionRows(conv, clar string, labels []string) []row {
	r := row{Type: 1}
	for i, l := range labels {
		r.Components = append(r.Components, button{Type: 2, Style: 1, Label: l, CustomID: "choose|" + conv + "|" + clar + "|" + string(rune('0'+i))})
	}
	r.Components = append(r.Components, button{Type: 2, Style: 2, Label: dialog.OtherLabel, CustomID: "other|" + conv + "|" + clar})
	return []row{r}
}

// clarificationOf checks that a posted message is a clarification with
// exactly the expected layout and returns its id and option labels.
func clarificationOf(t *testing.T, m *discordtest.Message, conv string) (string, []string) {
	t.Helper()
	rows := rowsOfJSON(t, m.Components)
	if len(rows) != 1 || len(rows[0].Components) < 2 {
		t.Fatalf("clarification components = %s", m.Components)
	}
	r, err := parseRef(rows[0].Components[0].CustomID)
	if err != nil || r.Action != actChoose || r.Conv != conv {
		t.Fatalf("first button %q (conversation %q): %v", rows[0].Components[0].CustomID, conv, err)
	}
	var labels []string
	for _, b := range rows[0].Components[:len(rows[0].Components)-1] {
		labels = append(labels, b.Label)
	}
	if want := optionRows(conv, r.Target, labels); !reflect.DeepEqual(rows, want) {
		t.Fatalf("clarification components\n got %+v\nwant %+v", rows, want)
	}
	for i, l := range labels {
		mustContain(t, "clarification", m.Content, string(rune('1'+i))+". "+l)
	}
	if !strings.HasPrefix(m.Content, "**❓ ") {
		t.Fatalf("clarification content %q", m.Content)
	}
	return r.Target, labels
}

func answerRows(conv, answer string) []row {
	return []row{{Type: 1, Components: []button{
		{Type: 2, Style: 2, Label: "Show SQL", CustomID: "sql|" + conv + "|" + answer},
		{Type: 2, Style: 3, Label: "Correct", CustomID: "ok|" + conv + "|" + answer},
		{Type: 2, Style: 4, Label: "Not what I meant", CustomID: "wrong|" + conv + "|" + answer},
	}}}
}

// answerOf checks an answer's feedback buttons and returns its id.
func answerOf(t *testing.T, m *discordtest.Message, conv string) string {
	t.Helper()
	rows := rowsOfJSON(t, m.Components)
	if len(rows) == 0 || len(rows[0].Components) < 3 || len(rows[0].Components) > 4 {
		t.Fatalf("answer components = %s\ncontent: %s", m.Components, m.Content)
	}
	r, err := parseRef(rows[0].Components[0].CustomID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0].Components) == 4 {
		// Show more, while the answer has rows after the ones shown.
		more, err := parseRef(rows[0].Components[3].CustomID)
		if err != nil || more.Action != actMore || more.Conv != conv || more.Target != r.Target || more.Option <= 0 || rows[0].Components[3].Label != "Show more" {
			t.Fatalf("fourth answer button %+v (%v)", rows[0].Components[3], err)
		}
		rows = append([]row{{Type: rows[0].Type, Components: rows[0].Components[:3]}}, rows[1:]...)
	}
	if !reflect.DeepEqual(rows[:1], answerRows(conv, r.Target)) {
		t.Fatalf("answer buttons\n got %+v\nwant %+v", rows[:1], answerRows(conv, r.Target))
	}
	mustContain(t, "answer", m.Content, "```")
	return r.Target
}

func TestGuildConversationWithButtons(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)

	// Start-up: the intents and the commands in the development guild.
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	if err := json.Unmarshal(h.identify, &id); err != nil || id.Token != "Bot test-token" || id.Intents != intentsWant {
		t.Fatalf("identify %s: %v", h.identify, err)
	}
	var cmds []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(fake.Commands("/api/v9/applications/"+fake.AppID()+"/guilds/"+guildID+"/commands"), &cmds); err != nil || len(cmds) != 3 ||
		cmds[0].Name != cmdAsk || cmds[1].Name != cmdPrefs || cmds[2].Name != cmdForget {
		t.Fatalf("registered commands %+v: %v", cmds, err)
	}

	// A mention in a data channel: a thread from the question, a clarification in it.
	h.quiet()
	q := h.post(msgOpts{Channel: dataCh, Content: "what was revenue in 2024?", From: alicePerson, Mention: true})
	th, _ := fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+dataCh+"/messages/"+q+"/threads"))
	var thread struct {
		Name string `json:"name"`
	}
	th.JSON(t, &thread)
	if th.Status != 200 || thread.Name != "what was revenue in 2024?" {
		t.Fatalf("thread: %s", th)
	}
	_, clar := h.posted("clarification", "POST", "/api/v9/channels/"+q+"/messages")
	clarID, labels := clarificationOf(t, clar, q)
	if labels[0] != "Net revenue after discounts (excludes shipping)" || len(labels) != 3 {
		t.Fatalf("options %q", labels)
	}
	mustContain(t, "clarification", clar.Content, "By 'revenue', which do you mean?", "(e.g. ")

	// Click the first option: deferred update, the question edited to show
	// the choice without buttons, the next question as a follow-up.
	h.quiet()
	in := h.click(clar, "choose|"+q+"|"+clarID+"|0", alicePerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("response type %d, want 6 (deferred update)", cb.Type)
	}
	h.posted("resolve", "PATCH", h.original(in))
	done, _ := fake.Message(clar.ID)
	mustContain(t, "answered question", done.Content, "By 'revenue', which do you mean?", "✅ Net revenue after discounts (excludes shipping) — <@"+alice+">")
	if len(rowsOfJSON(t, done.Components)) != 0 {
		t.Fatalf("the answered question keeps its buttons: %s", done.Components)
	}
	_, clar2 := h.posted("second clarification", "POST", h.followup(in))
	clar2ID, _ := clarificationOf(t, clar2, q)
	mustContain(t, "second clarification", clar2.Content, "By 'in 2024'")
	if clar2.Ephemeral() || clar2.ChannelID != q {
		t.Fatalf("second clarification: ephemeral %v in %s", clar2.Ephemeral(), clar2.ChannelID)
	}

	h.quiet()
	in = h.click(clar2, "choose|"+q+"|"+clar2ID+"|0", alicePerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("response type %d, want 6", cb.Type)
	}
	h.posted("resolve", "PATCH", h.original(in))
	_, ans := h.posted("answer", "POST", h.followup(in))
	answerID := answerOf(t, ans, q)
	// A plain heading, not the SQL's alias; money with its currency.
	mustContain(t, "answer", ans.Content, "Net revenue\n", "$")
	if strings.Contains(ans.Content, "total_net_amount") {
		t.Fatalf("the SQL's name leaked into the answer:\n%s", ans.Content)
	}

	// The same button again (a double click): an ephemeral note, no edit.
	h.quiet()
	mark := fake.Mark()
	in = h.click(clar2, "choose|"+q+"|"+clar2ID+"|0", alicePerson)
	h.firstResponse(in)
	_, note := h.posted("stale note", "POST", h.followup(in))
	if !note.Ephemeral() || !strings.Contains(note.Content, "already answered") {
		t.Fatalf("stale click: %+v", note)
	}
	h.quiet()
	if calls := fake.Since(mark); len(calls) != 2 {
		t.Fatalf("a stale click made %d calls, want 2: %v", len(calls), calls)
	}

	// Show SQL.
	in = h.click(ans, "sql|"+q+"|"+answerID, alicePerson)
	h.firstResponse(in)
	_, sql := h.posted("sql", "POST", h.followup(in))
	if !strings.HasPrefix(sql.Content, "```sql\nSELECT") {
		t.Fatalf("sql: %q", sql.Content)
	}

	// A follow-up in the bot's thread needs no mention.
	h.quiet()
	h.post(msgOpts{Channel: q, Content: "what about 2023?", From: alicePerson})
	h.posted("follow-up reply", "POST", "/api/v9/channels/"+q+"/messages")
}

func TestAskWithOtherModalAndCSV(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)

	in := h.command(otherCh, alicePerson, "data_ask.json", map[string]any{"Text": "list customers in Ohio"})
	if cb := h.firstResponse(in); cb.Type != 5 || cb.Data.Flags != 0 {
		t.Fatalf("/ask response %+v, want a public deferral (5)", cb)
	}
	_, echo := h.posted("question", "PATCH", h.original(in))
	if echo.Content != "<@"+alice+"> asked: list customers in Ohio" {
		t.Fatalf("question message %q", echo.Content)
	}
	fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+otherCh+"/messages/"+echo.ID+"/threads"))
	_, clar := h.posted("clarification", "POST", "/api/v9/channels/"+echo.ID+"/messages")
	clarID, _ := clarificationOf(t, clar, echo.ID)
	mustContain(t, "clarification", clar.Content, "For 'customers', what should I show?")

	// Other… opens a modal as the first response, and nothing else happens.
	h.quiet()
	mark := fake.Mark()
	in = h.click(clar, "other|"+echo.ID+"|"+clarID, alicePerson)
	cb := h.firstResponse(in)
	if cb.Type != 9 || cb.Data.CustomID != "othertx|"+echo.ID+"|"+clarID || cb.Data.Title != "Other… in your own words" {
		t.Fatalf("modal %+v", cb)
	}
	var modal []struct {
		Type       int `json:"type"`
		Components []struct {
			Type        int    `json:"type"`
			CustomID    string `json:"custom_id"`
			Label       string `json:"label"`
			Style       int    `json:"style"`
			Placeholder string `json:"placeholder"`
			Required    bool   `json:"required"`
			MaxLength   int    `json:"max_length"`
		} `json:"components"`
	}
	raw, _ := json.Marshal(cb.Data.Components)
	if err := json.Unmarshal(raw, &modal); err != nil || len(modal) != 1 || modal[0].Type != 1 || len(modal[0].Components) != 1 {
		t.Fatalf("modal components %s: %v", raw, err)
	}
	if ti := modal[0].Components[0]; ti.Type != 4 || ti.CustomID != "text" || ti.Style != 2 || !ti.Required || ti.MaxLength != 2000 ||
		ti.Label != "What do you mean?" || ti.Placeholder != "For 'customers', what should I show?" {
		t.Fatalf("text input %+v", ti)
	}
	h.quiet()
	if n := len(fake.Since(mark)); n != 1 {
		t.Fatalf("opening the modal made %d calls, want 1", n)
	}

	// The typed answer names an option: the question resolves, and 180-odd
	// rows come as a table of the first 20 plus a CSV of all.
	in = h.submit(clar, "othertx|"+echo.ID+"|"+clarID, "customer name", alicePerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("modal submit response %d, want 6", cb.Type)
	}
	h.posted("resolve", "PATCH", h.original(in))
	done, _ := fake.Message(clar.ID)
	mustContain(t, "answered question", strings.ToLower(done.Content), "✅ customer name")
	call, ans := h.posted("answer", "POST", h.followup(in))
	if strings.Contains(ans.Content, "'Ohio'") {
		// Which 'Ohio' may still be asked: the customer's state.
		ohioID, _ := clarificationOf(t, ans, echo.ID)
		in = h.click(ans, "choose|"+echo.ID+"|"+ohioID+"|0", alicePerson)
		h.firstResponse(in)
		h.posted("resolve", "PATCH", h.original(in))
		call, ans = h.posted("answer", "POST", h.followup(in))
	}
	answerOf(t, ans, echo.ID)
	if len(call.Files) != 1 || !strings.HasSuffix(call.Files[0].Name, ".csv") || call.Files[0].ContentType != "text/csv" {
		t.Fatalf("attachments %+v", call.Files)
	}
	recs, err := csv.NewReader(bytes.NewReader(call.Files[0].Data)).ReadAll()
	if err != nil || len(recs) < 22 || len(recs[0]) != 1 || recs[0][0] != "Customer" {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	mustContain(t, "answer", ans.Content, fmt.Sprintf("Showing 20 of %d rows", len(recs)-1))
	if n := tableRows(t, ans.Content); n != 20 {
		t.Fatalf("the table shows %d rows, want 20:\n%s", n, ans.Content)
	}
}

// tableRows counts the rows of the code block (without header and rule).
func tableRows(t *testing.T, content string) int {
	t.Helper()
	_, rest, ok := strings.Cut(content, "```\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatalf("no closed code block in:\n%s", content)
	}
	return strings.Count(block, "\n") - 2
}

func TestDMConversation(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)
	conv := dmCh + ":"

	q := h.post(msgOpts{Channel: dmCh, Content: "what was revenue in 2024?", From: alicePerson})
	conv += q
	_, clar := h.posted("clarification", "POST", "/api/v9/channels/"+dmCh+"/messages")
	if clar.Reference != q {
		t.Fatalf("the DM answer replies to %q, want the question %s", clar.Reference, q)
	}
	clarID, _ := clarificationOf(t, clar, conv)

	// A click in a DM: no member, only user.
	h.quiet()
	in := h.click(clar, "choose|"+conv+"|"+clarID+"|1", alicePerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("response %d", cb.Type)
	}
	h.posted("resolve", "PATCH", h.original(in))
	_, clar2 := h.posted("second clarification", "POST", "/api/v9/channels/"+dmCh+"/messages")
	if clar2.Reference != q {
		t.Fatalf("the DM follow-up replies to %q, want %s", clar2.Reference, q)
	}
	clar2ID, _ := clarificationOf(t, clar2, conv)

	// Typing an option as a reply to the bot answers the pending question:
	// the question's message is found and edited, the answer replies to
	// the question.
	h.quiet()
	h.post(msgOpts{Channel: dmCh, Content: "date the order was placed", From: alicePerson, ReplyTo: clar2.ID})
	fake.Next(t, "history", discordtest.Is("GET", "/api/v9/channels/"+dmCh+"/messages"))
	h.posted("resolve", "PATCH", "/api/v9/channels/"+dmCh+"/messages/"+clar2.ID)
	_, ans := h.posted("answer", "POST", "/api/v9/channels/"+dmCh+"/messages")
	answerOf(t, ans, conv)
	if ans.Reference != q {
		t.Fatalf("answer replies to %q", ans.Reference)
	}
	done, _ := fake.Message(clar2.ID)
	if !strings.Contains(done.Content, "✅") || len(rowsOfJSON(t, done.Components)) != 0 {
		t.Fatalf("the typed answer did not resolve %s: %+v", clar2ID, done)
	}

	// DMs have no guild: the facts are the person's in workspace "".
	facts, err := env.Facts.List(context.Background(), ontology.Filter{Owner: "discord::" + alice})
	if err != nil || len(facts) != 2 {
		t.Fatalf("facts of the DM user: %+v, %v", facts, err)
	}
}

// learn answers "list customers in Ohio" for alice in the data channel
// through the manager, so that she has a preference for 'customers'.
func learn(t *testing.T, env *dialogtest.Env) ontology.Fact {
	t.Helper()
	ctx := context.Background()
	who := dialog.Who{Platform: Platform, Workspace: guildID, Channel: dataCh, User: alice}
	rs, err := env.Manager.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "setup", Who: who, Text: "list customers in Ohio"})
	if err != nil || len(rs) == 0 || rs[0].Clarification == nil {
		t.Fatalf("setup question: %+v %v", rs, err)
	}
	if _, err := env.Manager.Handle(ctx, dialog.Event{Kind: dialog.EventChoose, Conversation: "setup", Who: who, Target: rs[0].Clarification.ID}); err != nil {
		t.Fatal(err)
	}
	facts, err := env.Facts.List(ctx, ontology.Filter{Owner: "discord:" + guildID + ":" + alice})
	if err != nil || len(facts) != 1 {
		t.Fatalf("learned %+v, %v", facts, err)
	}
	return facts[0]
}

func TestPrefsAndAdminPromotion(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fact := learn(t, env)
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)
	ctx := context.Background()

	// Alice's own list: ephemeral, with a Delete button.
	in := h.command(dataCh, alicePerson, "data_prefs.json", map[string]any{})
	if cb := h.firstResponse(in); cb.Type != 5 || cb.Data.Flags != 64 {
		t.Fatalf("/prefs response %+v, want an ephemeral deferral", cb)
	}
	_, list := h.posted("prefs", "PATCH", h.original(in))
	mustContain(t, "prefs", list.Content, "**Your preferences** (1):", "1. 'customers' = Customer name")
	want := []row{{Type: 1, Components: []button{{Type: 2, Style: 4, Label: "Delete 1. 'customers'", CustomID: "del|" + fact.ID}}}}
	if got := rowsOfJSON(t, list.Components); !list.Ephemeral() || !reflect.DeepEqual(got, want) {
		t.Fatalf("prefs (ephemeral %v) components\n got %+v\nwant %+v", list.Ephemeral(), got, want)
	}

	// Bob (Manage Server) reviews alice's preferences.
	h.quiet()
	in = h.command(dataCh, bobPerson, "data_prefs.json", map[string]any{"Subject": alice})
	h.firstResponse(in)
	_, review := h.posted("review", "PATCH", h.original(in))
	mustContain(t, "review", review.Content, "Preferences of <@"+alice+">", "<@"+alice+">")
	want = []row{{Type: 1, Components: []button{
		{Type: 2, Style: 4, Label: "Delete 1. 'customers'", CustomID: "del|" + fact.ID},
		{Type: 2, Style: 2, Label: "Promote to channel", CustomID: "promote|" + fact.ID + "|channel"},
		{Type: 2, Style: 2, Label: "Promote to server", CustomID: "promote|" + fact.ID + "|workspace"},
		{Type: 2, Style: 2, Label: "Edit", CustomID: "edit|" + fact.ID},
	}}}
	if got := rowsOfJSON(t, review.Components); !reflect.DeepEqual(got, want) {
		t.Fatalf("admin components\n got %+v\nwant %+v", got, want)
	}

	// Alice is no admin: the same button is refused (Admin is decided on
	// every interaction, and the manager checks it).
	h.quiet()
	in = h.click(review, "promote|"+fact.ID+"|channel", alicePerson)
	h.firstResponse(in)
	_, refused := h.posted("refusal", "POST", h.followup(in))
	if !refused.Ephemeral() || refused.Content != "Only admins can promote preferences." {
		t.Fatalf("refusal %+v", refused)
	}

	// Bob promotes it to the channel; the ontology records who did it.
	h.quiet()
	in = h.click(review, "promote|"+fact.ID+"|channel", bobPerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("promote response %d", cb.Type)
	}
	_, ok := h.posted("promoted", "POST", h.followup(in))
	mustContain(t, "promotion", ok.Content, "Everyone in this channel now gets 'customers'")
	shared, err := env.Facts.List(ctx, ontology.Filter{Scope: "channel", Owner: "discord:" + guildID + ":" + dataCh})
	if err != nil || len(shared) != 1 || shared[0].PromotedFrom != fact.ID {
		t.Fatalf("channel facts %+v, %v", shared, err)
	}
	audit, err := env.Facts.Audit(ctx, 10)
	if err != nil || len(audit) == 0 || audit[0].Action != ontology.ActionPromote || audit[0].Actor != "discord:"+guildID+":"+bob {
		t.Fatalf("audit %+v, %v", audit, err)
	}

	// Carol is an admin by role: Edit opens a modal, the new wording is saved.
	h.quiet()
	in = h.click(review, "edit|"+fact.ID, carolPerson)
	cb := h.firstResponse(in)
	if cb.Type != 9 || cb.Data.CustomID != "edittx|"+fact.ID {
		t.Fatalf("edit modal %+v", cb)
	}
	h.quiet()
	in = h.submit(review, "edittx|"+fact.ID, "the customer's name", carolPerson)
	h.firstResponse(in)
	_, edited := h.posted("edited", "POST", h.followup(in))
	if !edited.Ephemeral() || !strings.Contains(edited.Content, "Updated: 'customers' = the customer's name") {
		t.Fatalf("edit reply %+v", edited)
	}
	if audit, _ := env.Facts.Audit(ctx, 1); len(audit) != 1 || audit[0].Action != ontology.ActionEdit || audit[0].Actor != "discord:"+guildID+":"+carol {
		t.Fatalf("audit after edit %+v", audit)
	}

	// /forget drops alice's own preference.
	h.quiet()
	in = h.command(dataCh, alicePerson, "data_forget.json", map[string]any{"Text": "customers"})
	if cb := h.firstResponse(in); cb.Type != 5 || cb.Data.Flags != 64 {
		t.Fatalf("/forget response %+v", cb)
	}
	_, forgot := h.posted("forget", "PATCH", h.original(in))
	mustContain(t, "forget", forgot.Content, "I forgot what 'customers' means to you")
}

func TestClickAfterRestart(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)

	q := h.post(msgOpts{Channel: dataCh, Content: "what was revenue in 2024?", From: alicePerson, Mention: true})
	_, clar := h.posted("clarification", "POST", "/api/v9/channels/"+q+"/messages")
	clarID, _ := clarificationOf(t, clar, q)
	h.quiet()
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}

	// A new process: new stores over the same files, a new adapter and
	// gateway connection. The old message's button still works.
	env.Restart()
	fake.Skip()
	h2 := start(t, fake, testConfig(t, fake), env.Manager)
	h2.quiet()
	in := h2.click(clar, "choose|"+q+"|"+clarID+"|2", alicePerson)
	if cb := h2.firstResponse(in); cb.Type != 6 {
		t.Fatalf("response %d", cb.Type)
	}
	h2.posted("resolve", "PATCH", h2.original(in))
	done, _ := fake.Message(clar.ID)
	mustContain(t, "answered question", done.Content, "✅ Line revenue")
	_, next := h2.posted("next", "POST", h2.followup(in))
	clarificationOf(t, next, q)
}

func TestIgnoresWhatIsNotForTheBot(t *testing.T) {
	t.Parallel()
	fake := newFake(t, discordtest.Options{})
	var asked []dialog.Event
	d := dialogFunc(func(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		asked = append(asked, ev) // workers: guarded by the test's quiet() ordering below
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "heard: " + ev.Text}}, nil
	})
	cfg := testConfig(t, fake)
	cfg.Workers = 1
	h := start(t, fake, cfg, d)

	ignored := []msgOpts{
		{Channel: dataCh, Content: "from a bot", From: person{ID: otherBot, Name: "otherbot", Bot: true}, Mention: true},
		{Channel: dataCh, Content: "from myself", From: person{ID: fake.BotID(), Name: "Clarify", Bot: true}, Mention: true},
		{Channel: dataCh, Content: "from a webhook", From: alicePerson, Mention: true, WebhookID: "1290000000000000001"},
		{Channel: dataCh, Content: "no mention in a mention-only data channel", From: alicePerson},
		{Channel: otherCh, Content: "a mention outside the data channels", From: alicePerson, Mention: true},
		{Channel: dataCh, Content: "a system message", From: alicePerson, Mention: true, Type: 7},
	}
	for _, m := range ignored {
		h.post(m)
	}
	// Any message in an any-message data channel is a question: it is the
	// first thing the bot acts on.
	q := h.post(msgOpts{Channel: anyCh, Content: "how many orders?", From: alicePerson})
	first, skipped := fake.Next(t, "thread", notTyping)
	if onlyTyping(skipped, anyCh) != nil || first.Path != "/api/v9/channels/"+anyCh+"/messages/"+q+"/threads" {
		t.Fatalf("first call after the ignored messages: %s (skipped %v)", first, skipped)
	}
	h.posted("reply", "POST", "/api/v9/channels/"+q+"/messages")
	h.quiet()
	if len(asked) != 1 || asked[0].Text != "how many orders?" || asked[0].Who != (dialog.Who{Platform: "discord", Workspace: guildID, Channel: anyCh, User: alice}) || asked[0].Conversation != q {
		t.Fatalf("events %+v", asked)
	}
}

// dialogFunc is a hand-written fake dialog.
type dialogFunc func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)

func (f dialogFunc) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	return f(ctx, ev)
}

func TestHugeRepliesPassDiscordsChecks(t *testing.T) {
	t.Parallel()
	fake := newFake(t, discordtest.Options{})
	long := strings.Repeat("ŵörd ", 60)
	d := dialogFunc(func(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		if ev.Kind == dialog.EventPrefs {
			p := &dialog.Prefs{CanAdmin: ev.Who.Admin, Subject: "everyone"}
			for i := range 60 {
				p.Facts = append(p.Facts, dialog.FactView{ID: fmt.Sprintf("f%09d", i), Phrase: long, Meaning: long, Scope: "user", Owner: "discord:" + guildID + ":" + alice})
			}
			return []dialog.Reply{{Kind: dialog.ReplyPrefs, Ephemeral: true, Prefs: p}}, nil
		}
		switch ev.Text {
		case "options":
			c := &dialog.Clarification{ID: "tapptcau", Prompt: long}
			for i := range 30 {
				c.Options = append(c.Options, dialog.Option{Label: fmt.Sprintf("%d %s", i, long), Example: long})
			}
			return []dialog.Reply{{Kind: dialog.ReplyClarification, Conversation: ev.Conversation, Clarification: c}}, nil
		case "huge":
			ans := &dialog.Answer{ID: "4hm2yg6k", Explanation: long, Result: &warehouse.Result{}}
			for c := range 12 {
				ans.Columns = append(ans.Columns, fmt.Sprintf("c%d", c))
				ans.Result.Columns = append(ans.Result.Columns, warehouse.ResultColumn{Name: ans.Columns[c], Type: "VARCHAR"})
			}
			for r := range 5000 {
				row := make([]any, 12)
				for c := range row {
					row[c] = fmt.Sprintf("%d-%s", r, strings.Repeat("v", 40))
				}
				ans.Result.Rows = append(ans.Result.Rows, row)
			}
			for _, r := range ans.Result.Rows[:20] {
				var s []string
				for _, v := range r {
					s = append(s, v.(string))
				}
				ans.Rows = append(ans.Rows, s)
			}
			ans.RowCount = 5000
			for i := range 30 {
				ans.UsedFacts = append(ans.UsedFacts, dialog.UsedFact{FactID: fmt.Sprintf("fact%06d", i), Phrase: long, Meaning: long})
			}
			return []dialog.Reply{{Kind: dialog.ReplyAnswer, Conversation: ev.Conversation, Answer: ans}}, nil
		case "panic":
			panic("boom")
		case "fail":
			return nil, errors.New("read conversation: SELECT secret FROM vault")
		}
		return nil, nil
	})
	cfg := testConfig(t, fake)
	cfg.Workers = 1
	h := start(t, fake, cfg, d)

	q := h.post(msgOpts{Channel: anyCh, Content: "options", From: alicePerson})
	_, clar := h.posted("clarification", "POST", "/api/v9/channels/"+q+"/messages")
	if rows := discordtest.Rows(t, clar.Components); len(rows) != 5 || rows[4] != 5 {
		t.Fatalf("rows %v", rows)
	}
	q = h.post(msgOpts{Channel: anyCh, Content: "huge", From: alicePerson})
	call, _ := h.posted("answer", "POST", "/api/v9/channels/"+q+"/messages")
	if len(call.Files) != 1 || len(call.Files[0].Data) < 5000*12*40 {
		t.Fatalf("files %d", len(call.Files))
	}

	// A panic is recovered (nothing is posted for it); an error becomes a
	// plain apology without its details.
	h.quiet()
	h.post(msgOpts{Channel: anyCh, Content: "panic", From: alicePerson})
	q = h.post(msgOpts{Channel: anyCh, Content: "fail", From: alicePerson})
	first, skipped := fake.Next(t, "thread", notTyping)
	if onlyTyping(skipped, anyCh) != nil || first.Path != "/api/v9/channels/"+anyCh+"/messages/"+q+"/threads" {
		t.Fatalf("after the panic: %s", first)
	}
	_, sorry := h.posted("apology", "POST", "/api/v9/channels/"+q+"/messages")
	if !strings.HasPrefix(sorry.Content, "Sorry, something went wrong on my side") || !strings.Contains(sorry.Content, "reference") || strings.Contains(sorry.Content, "SELECT") {
		t.Fatalf("apology %q", sorry.Content)
	}

	// Sixty preferences: five ephemeral messages within the limits.
	h.quiet()
	in := h.command(dataCh, bobPerson, "data_prefs.json", map[string]any{"Everyone": true})
	h.firstResponse(in)
	_, page := h.posted("first page", "PATCH", h.original(in))
	mustContain(t, "first page", page.Content, "**Everyone's preferences** (60):")
	for range maxPrefsPages - 1 {
		_, page = h.posted("next page", "POST", h.followup(in))
		if !page.Ephemeral() {
			t.Fatal("a page of preferences is not ephemeral")
		}
	}
	mustContain(t, "last page", page.Content, "more not shown")
}

func TestNoThreadPermissionRepliesInChannel(t *testing.T) {
	t.Parallel()
	fake := newFake(t, discordtest.Options{NoThreads: true})
	d := dialogFunc(func(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "one"}, {Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "two"}}, nil
	})
	h := start(t, fake, testConfig(t, fake), d)
	q := h.post(msgOpts{Channel: dataCh, Content: "revenue?", From: alicePerson, Mention: true})
	th, _ := fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+dataCh+"/messages/"+q+"/threads"))
	if th.Status != 403 {
		t.Fatalf("thread: %s", th)
	}
	for _, want := range []string{"one", "two"} {
		_, m := h.posted("reply", "POST", "/api/v9/channels/"+dataCh+"/messages")
		if m.Content != want || m.Reference != q {
			t.Fatalf("reply %q to %q, want %q to the question", m.Content, m.Reference, want)
		}
	}
	h.quiet()
	var typing, other int
	for _, c := range fake.Since(0) {
		if notTyping(c) {
			other++
		} else {
			typing++
		}
	}
	if other != 5 || typing != 1 { // gateway, commands, one thread attempt, two replies; "typing…" once
		t.Fatalf("%d calls and %d typing: the thread should be tried once", other, typing)
	}
}

// notTyping: any call but "typing…" (sent beside the work, in any order).
func notTyping(c *discordtest.Call) bool { return !strings.HasSuffix(c.Path, "/typing") }

// onlyTyping returns the first call that is not "typing…" in channel.
func onlyTyping(calls []*discordtest.Call, channel string) *discordtest.Call {
	for _, c := range calls {
		if c.Method != "POST" || c.Path != "/api/v9/channels/"+channel+"/typing" {
			return c
		}
	}
	return nil
}

func TestShutdownDrainsInFlightWork(t *testing.T) {
	t.Parallel()
	fake := newFake(t, discordtest.Options{})
	started, release := make(chan string, 2), make(chan struct{})
	d := dialogFunc(func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		started <- ev.Text
		if ev.Text == "slow" {
			<-release // finishes after shutdown began
			return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "done anyway"}}, nil
		}
		<-ctx.Done() // never finishes by itself: cancelled after the drain timeout
		return nil, ctx.Err()
	})
	cfg := testConfig(t, fake)
	cfg.DrainTimeout = 2 * time.Second
	h := start(t, fake, cfg, d)
	q1 := h.post(msgOpts{Channel: anyCh, Content: "slow", From: alicePerson})
	q2 := h.post(msgOpts{Channel: anyCh, Content: "stuck", From: alicePerson})
	<-started
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- h.stop() }()
	close(release)
	_, done := h.posted("drained reply", "POST", "/api/v9/channels/"+q1+"/messages")
	if done.Content != "done anyway" {
		t.Fatalf("reply %q", done.Content)
	}
	_, sorry := h.posted("cancelled reply", "POST", "/api/v9/channels/"+q2+"/messages")
	if !strings.Contains(sorry.Content, "interrupted") {
		t.Fatalf("reply %q", sorry.Content)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// A shutdown while the slash commands are still being registered ends Run
// cleanly: it is a shutdown, not a failed start.
func TestShutdownDuringCommandRegistration(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	fake := newFake(t, discordtest.Options{HoldCommands: hold})
	h := start(t, fake, testConfig(t, fake), dialogFunc(func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		return nil, nil
	}))
	if err := h.stop(); err != nil {
		t.Fatalf("Run after a shutdown during registration: %v", err)
	}
}
