package discord

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// askUntilAnswer asks with /ask in otherCh, clicks the first option of
// every clarification, and returns the thread and the answer message.
func askUntilAnswer(t *testing.T, h *harness, question string) (string, *discordtest.Message) {
	t.Helper()
	in := h.command(otherCh, alicePerson, "data_ask.json", map[string]any{"Text": question})
	h.firstResponse(in)
	_, echo := h.posted("question", "PATCH", h.original(in))
	h.fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+otherCh+"/messages/"+echo.ID+"/threads"))
	_, m := h.posted("first reply", "POST", "/api/v9/channels/"+echo.ID+"/messages")
	for range 6 {
		rows := rowsOfJSON(t, m.Components)
		if len(rows) == 0 {
			t.Fatalf("neither a question nor an answer: %s", m.Content)
		}
		r, err := parseRef(rows[0].Components[0].CustomID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != actChoose {
			return echo.ID, m
		}
		h.quiet()
		in = h.click(m, rows[0].Components[0].CustomID, alicePerson)
		h.firstResponse(in)
		h.posted("resolve", "PATCH", h.original(in))
		_, m = h.posted("reply", "POST", h.followup(in))
	}
	t.Fatal("no answer after six questions")
	return "", nil
}

// TestAnswersReadWellInDiscord: a superlative says its figure in a bold
// sentence and shows it beside the name; a long answer has Show more,
// whose click brings the next rows; "csv" typed in the thread brings the
// whole result as a file with plain headings.
func TestAnswersReadWellInDiscord(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	h := start(t, fake, testConfig(t, fake), env.Manager)

	_, ans := askUntilAnswer(t, h, "which state has the most customers?")
	mustContain(t, "superlative", ans.Content, "**", " customers.**", "Customers")
	if strings.Contains(ans.Content, "COUNT(") {
		t.Fatalf("SQL in the answer:\n%s", ans.Content)
	}

	thread, ans := askUntilAnswer(t, h, "list customers in Ohio")
	rows := rowsOfJSON(t, ans.Components)
	more := rows[0].Components[len(rows[0].Components)-1]
	if more.Label != "Show more" {
		t.Fatalf("a long answer needs Show more: %+v", rows[0].Components)
	}
	r, err := parseRef(more.CustomID)
	if err != nil || r.Option != tableRows(t, ans.Content) {
		t.Fatalf("Show more should start after the rows shown (%d): %+v %v", tableRows(t, ans.Content), r, err)
	}
	h.quiet()
	in := h.click(ans, more.CustomID, alicePerson)
	if cb := h.firstResponse(in); cb.Type != 6 {
		t.Fatalf("response type %d, want 6", cb.Type)
	}
	_, page := h.posted("more rows", "POST", h.followup(in))
	mustContain(t, "page", page.Content, "Rows 21–40 of ")
	if len(rowsOfJSON(t, page.Components)) != 1 {
		t.Fatalf("a page keeps only Show more: %s", page.Components)
	}

	h.quiet()
	h.post(msgOpts{Channel: thread, Content: "csv", From: alicePerson})
	call, file := h.posted("csv", "POST", "/api/v9/channels/"+thread+"/messages")
	mustContain(t, "csv reply", file.Content, "The whole result as a CSV file")
	if len(call.Files) != 1 || call.Files[0].ContentType != "text/csv" {
		t.Fatalf("attachments %+v", call.Files)
	}
	recs, err := csv.NewReader(bytes.NewReader(call.Files[0].Data)).ReadAll()
	if err != nil || len(recs) < 22 || recs[0][0] != "Customer" {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
}

// TestDemoAnswersReadWellInDiscord renders the final answer of every demo
// evaluation question as a Discord message: every figure written the one
// way, ids and years without separators, no heading that reads as SQL.
func TestDemoAnswersReadWellInDiscord(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	// The quick tier renders a third of the questions here, the other
	// adapters the other thirds.
	part, parts := 0, 1
	if testing.Short() {
		parts = 3
	}
	answers := env.DemoAnswersPart("", part%parts, parts)
	if len(answers) < 50/parts {
		t.Fatalf("only %d answers", len(answers))
	}
	a := &Adapter{log: testLogger(t)}
	for _, da := range answers {
		m := a.renderAnswer("1300000000000000009", da.Reply.Answer)
		if bad := dialogtest.CheckRendered(da.Reply.Answer, m.content); len(bad) > 0 {
			t.Errorf("%s %q:\n  %s\n%s", da.ID, da.Question, strings.Join(bad, "\n  "), m.content)
		}
	}
}
