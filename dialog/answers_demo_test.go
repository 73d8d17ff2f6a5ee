package dialog_test

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestDemoAnswersReadWell is the demo's transcript of issue 28, item by
// item: the figure beside the name, one number format with the
// warehouse's currency, plain headings, paging, questions about the data,
// and each used definition said once.
func TestDemoAnswersReadWell(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	loadDemoGlossary(t, env)
	ana := newChat(t, env, "ana")

	// 1. The superlative says its figure, and shows it beside the name.
	r, _ := ana.answerUntil(ana.ask("which state has the most customers?"), map[string]string{"output": "full state name"})
	a := mustAnswer(t, r)
	state := scalar(t, env, "SELECT state FROM customers GROUP BY state ORDER BY COUNT(*) DESC LIMIT 1")
	n := scalar(t, env, "SELECT COUNT(*) FROM customers GROUP BY state ORDER BY COUNT(*) DESC LIMIT 1")
	if a.Headline != state+", with "+n+" customers." || a.Columns[len(a.Columns)-1] != "Customers" {
		t.Fatalf("headline %q, columns %q; want %s with %s customers\n%s", a.Headline, a.Columns, state, n, r.Text)
	}

	// 1–3. A top five: net revenue beside each name, in dollars (the
	// warehouse's currency, said on its prices), under plain headings.
	r, _ = ana.answerUntil(ana.ask("top 5 customers by revenue in 2024"), map[string]string{"output": "customer name", "measure": "net revenue", "filteron:2024": "placed"})
	a = mustAnswer(t, r)
	if strings.Join(a.Columns, "|") != "Customer|Net revenue" || !strings.Contains(a.Headline, " comes first, with $") || len(a.Rows) != 5 {
		t.Fatalf("top five: %q %q %v", a.Columns, a.Headline, a.Rows)
	}
	// The figure is read past the limit (ties); the explanation keeps
	// the question's five.
	if !strings.Contains(a.Explanation, "top 5") {
		t.Fatalf("the explanation should say the top five: %s", a.Explanation)
	}
	top := scalar(t, env, "SELECT SUM(o.net_amount) FROM orders o WHERE YEAR(o.ordered_at) = 2024 GROUP BY o.customer_id ORDER BY 1 DESC LIMIT 1")
	if a.Rows[0][1] != top || !strings.Contains(a.Headline, top) {
		t.Fatalf("the first figure %s, want %s (%s)", a.Rows[0][1], top, a.Headline)
	}
	for _, row := range a.Rows {
		if !strings.HasPrefix(row[1], "$") {
			t.Fatalf("every money figure in dollars: %v", a.Rows)
		}
	}

	// 2. The same answer for a reader in Germany.
	ben := newChat(t, env, "ben")
	r = ben.send(dialog.Event{Kind: dialog.EventMessage, Conversation: "ben-de", Text: "how many orders are there?", Locale: "de-DE"})[0]
	for r.Kind == dialog.ReplyClarification {
		r = ben.send(dialog.Event{Kind: dialog.EventChoose, Conversation: "ben-de", Target: r.Clarification.ID, Locale: "de-DE"})[0]
	}
	if a = mustAnswer(t, r); a.Rows[0][0] != "3.000" {
		t.Fatalf("de-DE count %q", a.Rows[0][0])
	}

	// 4. More rows, all of them, a file.
	r, _ = ana.answerUntil(ana.ask("list customers in Ohio"), map[string]string{"output": "customer name", "filteron:ohio": "customer's address"})
	a = mustAnswer(t, r)
	if a.More() == 0 || !strings.Contains(r.Text, "'more' for the next 20") {
		t.Fatalf("the answer should offer more rows:\n%s", r.Text)
	}
	p := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "show more"})[0]
	if p.Kind != dialog.ReplyRows || p.Answer.Offset != 20 || p.Answer.Rows[0][0] != a.Result.Rows[20][0] {
		t.Fatalf("more: %v %+v", p.Kind, p.Answer)
	}
	f := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "csv"})[0]
	if f.Kind != dialog.ReplyFile || f.File.Rows != a.RowCount || !strings.HasPrefix(string(f.File.Data), "Customer\n") {
		t.Fatalf("csv: %+v", f.File)
	}

	// 5. What is here, and what a word means to this person and the team.
	over := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "what tables are there?"})[0]
	for _, want := range []string{"This warehouse holds 10 subjects", "• Orders — about 3,000 rows: count them, add up gross revenue", "The team's definitions: ", "'net revenue' (also 'net sales'", "Try: "} {
		if !strings.Contains(over.Text, want) {
			t.Errorf("the overview lacks %q:\n%s", want, over.Text)
		}
	}
	mean := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "what does revenue mean?"})[0]
	for _, want := range []string{"Your earlier choice: 'revenue' = net revenue after discounts", "In the data, 'revenue' could also be: ", "Gross revenue"} {
		if !strings.Contains(mean.Text, want) {
			t.Errorf("the meaning lacks %q:\n%s", want, mean.Text)
		}
	}
	team := ana.send(dialog.Event{Kind: dialog.EventMessage, Text: "what does net revenue mean?"})[0]
	if strings.Count(team.Text, "The team's definition: 'net revenue'") != 1 {
		t.Errorf("the team's definition once:\n%s", team.Text)
	}

	// No line twice: a definition that decided two points is said once.
	r, _ = ana.answerUntil(ana.ask("what was net revenue in 2024?"), map[string]string{"filteron:2024": "placed"})
	if c := strings.Count(r.Text, "Using the team's definition: 'net revenue'"); c != 1 {
		t.Fatalf("the team's definition said %d times:\n%s", c, r.Text)
	}
}
