package slack

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestAnswersReadWellInSlack: a superlative's answer says its figure in a
// sentence and shows it beside the name; a long answer has Show more,
// which brings the next rows into the thread, and a CSV; "csv" typed in
// the thread brings the whole result as a file with plain headings.
func TestAnswersReadWellInSlack(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const ana, sales = "U0ANA", "C0SALES"

	qts := newTS()
	since := fake.Mark()
	h.event(mention(t, ana, sales, qts, "", "which state has the most customers?"))
	ans := h.untilAnswer(since, ana, sales, qts)
	want := scalar(t, env, "SELECT COUNT(*) FROM customers GROUP BY state ORDER BY COUNT(*) DESC LIMIT 1")
	state := scalar(t, env, "SELECT state FROM customers GROUP BY state ORDER BY COUNT(*) DESC LIMIT 1")
	if !strings.Contains(ans.text(), "*"+state+", with "+want+" customers.*") {
		t.Fatalf("the answer should say %s and its %s customers in a sentence: %s", state, want, ans.text())
	}
	if !strings.Contains(ans.text(), "Customers") || strings.Contains(ans.text(), "COUNT(") {
		t.Fatalf("the figure's column should be named plainly: %s", ans.text())
	}

	qts = newTS()
	since = fake.Mark()
	h.event(mention(t, ana, sales, qts, "", "list customers in Ohio"))
	ans = h.untilAnswer(since, ana, sales, qts)
	if !ans.has(actMore) || !strings.Contains(ans.text(), "Showing 20 of ") || !strings.Contains(ans.text(), "attached as a CSV") {
		t.Fatalf("a long answer needs Show more and a CSV: %s", ans.text())
	}
	since = fake.Mark()
	h.interact(h.click(ans, ana, actMore, ""))
	page := h.reply(since, sales, qts, func(m msg) bool { return strings.Contains(m.text(), "Rows 21–40 of ") })
	if !page.has(actMore) || page.has(actCorrect) {
		t.Fatalf("a page shows the next rows with Show more, not the answer's buttons: %s", page.text())
	}
	el, _ := page.element(actMore)
	var r ref
	if err := json.Unmarshal([]byte(el["value"].(string)), &r); err != nil || r.Option != 40 {
		t.Fatalf("the next Show more should start at row 41: %+v (%v)", r, err)
	}

	// Typed in the thread: the whole result as a file.
	since = fake.Mark()
	h.event(mention(t, ana, sales, newTS(), qts, "csv"))
	h.reply(since, sales, qts, func(m msg) bool { return strings.Contains(m.text(), "The whole result as a CSV file") })
	done := fake.Wait(t, since, "files.completeUploadExternal", nil)
	var files []struct{ ID string }
	_ = json.Unmarshal([]byte(done.Get("files")), &files)
	if len(files) != 1 || done.Get("thread_ts") != qts {
		t.Fatalf("the CSV belongs in the thread: %v", done.Form)
	}
	recs, err := csv.NewReader(bytes.NewReader(fake.Upload(files[0].ID))).ReadAll()
	n := scalar(t, env, "SELECT COUNT(*) FROM customers WHERE state = 'Ohio'")
	if err != nil || len(recs) < 2 || recs[0][0] != "Customer" || (len(recs)-1) != atoi(n) {
		t.Fatalf("CSV: %d records (want header + %s): %v", len(recs), n, recs[:min(2, len(recs))])
	}
	noViolations(t, fake)
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n = n*10 + int(r-'0')
		}
	}
	return n
}

// TestDemoAnswersReadWellInSlack renders the final answer of every demo
// evaluation question as a Slack message: every figure written the one
// way, ids and years without separators, no heading that reads as SQL.
func TestDemoAnswersReadWellInSlack(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	// The quick tier renders a third of the questions here, the other
	// adapters the other thirds.
	part, parts := 1, 1
	if testing.Short() {
		parts = 3
	}
	answers := env.DemoAnswersPart("", part%parts, parts)
	if len(answers) < 50/parts {
		t.Fatalf("only %d answers", len(answers))
	}
	for _, da := range answers {
		m := answerMessage(da.Reply.Answer, ref{Channel: "C1", Thread: "1.2"}, da.Reply.Text)
		var table strings.Builder
		for _, b := range m.Blocks {
			if s, ok := b.(interface{ ID() string }); ok && strings.HasPrefix(s.ID(), "clarify.table") {
				raw, _ := json.Marshal(b)
				var sec struct {
					Text struct{ Text string } `json:"text"`
				}
				_ = json.Unmarshal(raw, &sec)
				table.WriteString(strings.Trim(sec.Text.Text, "`"))
			}
		}
		if bad := dialogtest.CheckRendered(da.Reply.Answer, unescape(table.String())); len(bad) > 0 {
			t.Errorf("%s %q:\n  %s\n%s", da.ID, da.Question, strings.Join(bad, "\n  "), table.String())
		}
	}
}

// unescape undoes mrkdwn's escapes of &, < and >.
func unescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(s)
}
