package slack

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

func scalar(t *testing.T, env *dialogtest.Env, sql string) string {
	t.Helper()
	res, err := env.Demo.DB.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%s: %v", sql, err)
	}
	// As people see it: the gold's own name and type say how it reads (money
	// with two decimals, counts with separators).
	return colfmt.Detect(colfmt.Column{Name: res.Columns[0].Name, Type: res.Columns[0].Type}).Value(res.Rows[0][0])
}

func noViolations(t *testing.T, fake *slackfake.Server) {
	t.Helper()
	if v := fake.Violations(); len(v) > 0 {
		t.Fatalf("Slack would refuse these messages:\n  %s", strings.Join(v, "\n  "))
	}
}

// TestConversationInThread: mention → clarification buttons → click →
// answer in the thread → Correct; the same person asks again and is not
// asked; a second click on the answered question gets an ephemeral note.
func TestConversationInThread(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const ana, sales = "U0ANA", "C0SALES"

	qts := newTS()
	since := fake.Mark()
	h.event(mention(t, ana, sales, qts, "", "what was revenue in 2024?"))
	looking := h.reply(since, sales, qts, func(m msg) bool { return m.call.Method == "chat.postMessage" })
	if !strings.Contains(looking.text(), "Looking") {
		t.Fatalf("the first message in the thread should be the placeholder, got %s", looking.text())
	}
	q1 := h.reply(since, sales, qts, isClarification)
	if q1.call.Method != "chat.update" || q1.ts != looking.ts {
		t.Fatalf("the clarification should replace the placeholder: %s %s (placeholder %s)", q1.call.Method, q1.ts, looking.ts)
	}
	if !strings.Contains(q1.text(), "revenue") {
		t.Fatalf("want a question about revenue: %s", q1.text())
	}

	since = fake.Mark()
	h.choose(q1, ana, "net revenue")
	done := h.reply(since, sales, qts, func(m msg) bool { return m.ts == q1.ts && !m.has(indexed(actChoose, 0)) })
	if !strings.Contains(done.text(), "✓ Net revenue") || !strings.Contains(done.text(), "<@"+ana+">") {
		t.Fatalf("the answered question should show the choice: %s", done.text())
	}
	q2 := h.reply(since, sales, qts, isClarification)
	since = fake.Mark()
	h.choose(q2, ana, "left the warehouse")
	ans := h.reply(since, sales, qts, isAnswer)
	want := scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2024")
	if !strings.Contains(ans.text(), want) || !strings.Contains(ans.text(), "```") {
		t.Fatalf("the answer should show %s in a code block: %s", want, ans.text())
	}

	// A second click on the answered question: an ephemeral note, nothing else.
	since = fake.Mark()
	h.interact(h.click(q1, ana, indexed(actChoose, 1), ""))
	note := fake.Wait(t, since, "chat.postEphemeral", nil)
	if note.Get("user") != ana || note.Get("channel") != sales || note.Get("thread_ts") != qts || !strings.Contains(note.Get("text"), "already answered") {
		t.Fatalf("stale click: %v", note.Form)
	}

	since = fake.Mark()
	h.interact(h.click(ans, ana, actCorrect, ""))
	h.reply(since, sales, qts, func(m msg) bool { return strings.Contains(m.text(), "glad") })

	// Asked again in a new thread: answered at once, saying which choice it used.
	qts2 := newTS()
	since = fake.Mark()
	h.event(mention(t, ana, sales, qts2, "", "what was revenue in 2023?"))
	again := h.reply(since, sales, qts2, func(m msg) bool { return isAnswer(m) || isClarification(m) })
	if !isAnswer(again) {
		t.Fatalf("the same person must not be asked again: %s", again.text())
	}
	if !strings.Contains(again.text(), "Using your earlier choice") || !again.has(indexed(actChange, 0)) {
		t.Fatalf("the answer should say which choice it used, with a change button: %s", again.text())
	}
	want = scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2023")
	if !strings.Contains(again.text(), want) {
		t.Fatalf("want %s: %s", want, again.text())
	}

	// Show SQL posts the SQL in the thread.
	since = fake.Mark()
	h.interact(h.click(again, ana, actSQL, ""))
	h.reply(since, sales, qts2, func(m msg) bool { return strings.Contains(m.text(), "SELECT") })
	noViolations(t, fake)
}

// TestOtherModalFreeTextAndCSV: in a direct message, Other… opens a modal;
// its text answers the question; a result too big for the message comes
// with a CSV file in the thread.
func TestOtherModalFreeTextAndCSV(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const ben, dm = "U0BEN", "D0BEN"

	p := fixture(t, "message_im.json")
	ts := newTS()
	set(p, "event_id", uniq("Ev"))
	set(p, "event.user", ben)
	set(p, "event.channel", dm)
	set(p, "event.ts", ts)
	since := fake.Mark()
	h.event(p)
	q := h.reply(since, dm, ts, isClarification)

	since = fake.Mark()
	if body := h.interact(h.click(q, ben, actOther, "")); body != "" {
		t.Fatalf("a click is acknowledged with an empty body, got %q", body)
	}
	open := fake.Wait(t, since, "views.open", nil)
	view := open.View()
	if view["callback_id"] != cbOther || open.Get("trigger_id") == "" {
		t.Fatalf("want the Other… modal: %v", open.JSON)
	}
	meta, err := decodeRef(view["private_metadata"].(string))
	if err != nil || meta.Channel != dm || meta.Thread != ts || meta.MessageTS != q.ts || meta.ID == "" {
		t.Fatalf("modal metadata %+v (%v)", meta, err)
	}

	submit := func(text string) string {
		s := fixture(t, "view_submission.json")
		set(s, "user.id", ben)
		set(s, "view.private_metadata", view["private_metadata"])
		set(s, "view.blocks", view["blocks"])
		set(s, "view.state.values.input.value.value", text)
		return h.interact(s)
	}
	// An empty answer is refused in the acknowledgement; the modal stays open.
	var refusal struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(submit("   ")), &refusal); err != nil || refusal.Action != "errors" || refusal.Errors[inputBlock] == "" {
		t.Fatalf("empty answer: %+v %v", refusal, err)
	}

	since = fake.Mark()
	if body := submit("customer name"); body != "" {
		t.Fatalf("a good answer closes the modal (empty ack), got %q", body)
	}
	done := h.reply(since, dm, ts, func(m msg) bool { return m.ts == q.ts && !m.has(actOther) })
	if !strings.Contains(done.text(), "✓ Customer name") {
		t.Fatalf("the question should show the option the typed answer named: %s", done.text())
	}
	// Which 'Ohio' may still be asked: the customer's state.
	ans := h.reply(since, dm, ts, func(m msg) bool { return isAnswer(m) || isClarification(m) && m.ts != q.ts })
	if isClarification(ans) {
		since = fake.Mark()
		h.choose(ans, ben, "state of the customer")
		ans = h.reply(since, dm, ts, isAnswer)
	}
	if !strings.Contains(ans.text(), "CSV") {
		t.Fatalf("a cut result should say a CSV is attached: %s", ans.text())
	}
	done2 := fake.Wait(t, since, "files.completeUploadExternal", nil)
	if done2.Get("channel_id") != dm || done2.Get("thread_ts") != ts {
		t.Fatalf("the CSV belongs in the thread: %v", done2.Form)
	}
	var files []struct{ ID string }
	_ = json.Unmarshal([]byte(done2.Get("files")), &files)
	if len(files) != 1 {
		t.Fatalf("files %s", done2.Get("files"))
	}
	recs, err := csv.NewReader(bytes.NewReader(fake.Upload(files[0].ID))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := scalar(t, env, "SELECT COUNT(*) FROM customers WHERE state = 'Ohio'")
	// Plain headings, raw values: the header is the answer's, not the SQL's.
	if len(recs) < 2 || recs[0][0] != "Customer" || (colfmt.Locale{}).Int(len(recs)-1) != want {
		t.Fatalf("CSV has %d records (want header + %s): %v", len(recs), want, recs[:min(3, len(recs))])
	}
	noViolations(t, fake)
}

// TestClickAfterRestart: the bot restarts between the question and the
// click; the click still answers (the button carries the conversation).
func TestClickAfterRestart(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const cy, ch = "U0CY", "C0OPS"
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, cy, ch, ts, "", "list customers in Ohio"))
	q := h.reply(since, ch, ts, isClarification)
	if err := h.stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}

	env.Restart()
	h2 := start(t, fake, env.Manager, ModeHTTP, nil)
	since = fake.Mark()
	h2.choose(q, cy, "customer name")
	h2.reply(since, ch, ts, func(m msg) bool { return m.ts == q.ts && !m.has(actOther) })
	ans := h2.untilAnswer(since, cy, ch, ts)
	if !strings.Contains(ans.text(), "name") {
		t.Fatalf("answer after restart: %s", ans.text())
	}
	noViolations(t, fake)
}

// TestFollowUpInThread: a mention in the thread continues the conversation.
func TestFollowUpInThread(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const dee, ch = "U0DEE", "C0OPS"
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, dee, ch, ts, "", "how many customers do we have?"))
	first := h.reply(since, ch, ts, isAnswer)

	since = fake.Mark()
	h.event(mention(t, dee, ch, newTS(), ts, "only Ohio"))
	second := h.reply(since, ch, ts, func(m msg) bool { return (isAnswer(m) || isClarification(m)) && m.ts != first.ts })
	want := scalar(t, env, "SELECT COUNT(*) FROM customers WHERE state = 'Ohio'")
	if isAnswer(second) && !strings.Contains(second.text(), want) {
		t.Fatalf("the follow-up should narrow to Ohio (%s): %s", want, second.text())
	}
	noViolations(t, fake)
}
