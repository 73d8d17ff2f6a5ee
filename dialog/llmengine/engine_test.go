package llmengine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

func TestLinkedPrompt(t *testing.T) {
	f := newFixture(t, Options{}, false)
	facts := []ontology.Fact{{Phrase: "revenue", Kind: ontology.KindColumn, Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}, Meaning: "Net revenue after discounts"}}
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
		u := c.User()
		mustContain(tb, "prompt", u,
			"CREATE TABLE orders", "net_amount DECIMAL(12,2)", "Net revenue after discounts", "gross_amount", "range ",
			"-- Joins:", "order_lines.order_id = orders.id",
			`"texas": customers.state = 'Texas'`, `orders.ship_state = 'TX' (abbreviation match)`,
			`for this person, "revenue" means orders.net_amount (Net revenue after discounts)`,
			"/* Question */\nwhat was revenue in texas in 2024?")
		for _, unrelated := range []string{"CREATE TABLE categories", "CREATE TABLE products", "CREATE TABLE sales_reps"} {
			if strings.Contains(u, unrelated) {
				tb.Errorf("the prompt links %s", unrelated)
			}
		}
		mustContain(tb, "system prompt", c.System(), "MySQL", `{"sql": "<the statement>"}`)
		if c.N() != 5 || c.Req.Temperature != 0.7 || c.Req.ResponseFormat == nil || c.Req.ResponseFormat.Type != openai.ChatCompletionResponseFormatTypeJSONObject || len(c.Req.Tools) != 0 {
			tb.Errorf("n=%d temperature=%v format=%+v tools=%d", c.N(), c.Req.Temperature, c.Req.ResponseFormat, len(c.Req.Tools))
		}
	}), expect("review", isReview, noAmbiguity(), nil))
	if _, err := f.ask(t, dialog.Request{Question: "what was revenue in texas in 2024?", Facts: facts}); err != nil {
		t.Fatal(err)
	}
}

func TestSamplesBecomeCandidates(t *testing.T) {
	f := newFixture(t, Options{}, false)
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.Text(
		`{"sql": "`+netSQL+`"}`,
		`{"sql": "`+grossSQL+`"}`,
		"Here is the query:\n```sql\n"+netSQL+";\n```\nIt sums net revenue.",
		`{"sql": "select sum(net_amount)\n  from orders where year(ordered_at) = 2024"}`,
		`{"sql": "`+netSQL+`"}`,
	), nil))
	p, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Candidates) != 2 || p.Ask != nil {
		t.Fatalf("candidates %+v ask %+v", p.Candidates, p.Ask)
	}
	net, gross := p.Candidates[0], p.Candidates[1]
	if net.SQL != netSQL || math.Abs(net.Prior-0.8) > 1e-9 || gross.SQL != grossSQL || math.Abs(gross.Prior-0.2) > 1e-9 {
		t.Fatalf("candidates %+v", p.Candidates)
	}
	if net.Phrases[sqlshape.Key(sqlshape.SlotMeasure)] != "revenue" || gross.Phrases[sqlshape.Key(sqlshape.SlotMeasure)] != "revenue" || net.Phrases[sqlshape.FilterOnKey([]string{"2024"}, nil)] != "2024" {
		t.Fatalf("phrases %v / %v", net.Phrases, gross.Phrases)
	}
	if n := len(f.srv.Calls()); n != 1 {
		t.Fatalf("%d calls: the samples disagree, so no review", n)
	}
}

func TestUntrustedReplies(t *testing.T) {
	f := newFixture(t, Options{}, false)
	long := "SELECT " + strings.Repeat("1+", 4500) + "1 FROM orders"
	tests := []struct {
		name    string
		content string
		finish  string
		want    string // the accepted statement, or "" when refused
		wantErr string // part of the reason
	}{
		{"json", `{"sql": "SELECT COUNT(*) FROM orders"}`, "", "SELECT COUNT(*) FROM orders", ""},
		{"json then prose", `{"sql": "SELECT COUNT(*) FROM orders"} -- counts every order`, "", "SELECT COUNT(*) FROM orders", ""},
		{"fenced json", "```json\n{\"sql\": \"SELECT COUNT(*) FROM orders\"}\n```", "", "SELECT COUNT(*) FROM orders", ""},
		{"prose around SQL", "Sure! Here it is: SELECT COUNT(*) FROM orders; Let me know if you need more.", "", "SELECT COUNT(*) FROM orders", ""},
		{"prose after a blank line", "SELECT status, COUNT(*)\nFROM orders\n\nGROUP BY status\n\nThis groups the orders.", "", "SELECT status, COUNT(*)\nFROM orders\n\nGROUP BY status", ""},
		{"two statements in json", `{"sql": "SELECT 1 FROM orders; DROP TABLE orders"}`, "", "", "only one statement"},
		{"two statements in prose", "SELECT COUNT(*) FROM orders; DELETE FROM orders;", "", "", "only one statement"},
		{"delete", `{"sql": "DELETE FROM orders"}`, "", "", "refused"},
		{"ddl", `{"sql": "DROP TABLE orders"}`, "", "", "refused"},
		{"into outfile", `{"sql": "SELECT * FROM orders INTO OUTFILE '/tmp/x'"}`, "", "", "refused"},
		{"system table", `{"sql": "SELECT * FROM mysql.user"}`, "", "", "refused"},
		{"other database", `{"sql": "SELECT * FROM hr.salaries"}`, "", "", "unknown database hr"},
		{"invented column", `{"sql": "SELECT SUM(revenue) FROM orders"}`, "", "", "unknown column revenue"},
		{"invented qualified column", `{"sql": "SELECT o.revenue FROM orders o"}`, "", "", "unknown column orders.revenue"},
		{"invented table", `{"sql": "SELECT COUNT(*) FROM sales"}`, "", "", "unknown table sales"},
		{"cte and aliases", `{"sql": "WITH t AS (SELECT customer_id, SUM(net_amount) AS total FROM orders GROUP BY customer_id) SELECT MAX(t.total) FROM t"}`, "", "WITH t AS (SELECT customer_id, SUM(net_amount) AS total FROM orders GROUP BY customer_id) SELECT MAX(t.total) FROM t", ""},
		{"order by alias", `{"sql": "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY n DESC"}`, "", "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY n DESC", ""},
		{"no SQL at all", "I cannot answer questions about data.", "", "", "no SQL"},
		{"json without sql", `{"answer": 42}`, "", "", "no \"sql\" field"},
		{"absurdly long reply", strings.Repeat("blah ", 5000), "", "", "absurdly long"},
		{"absurdly long statement", `{"sql": "` + long + `"}`, "", "", "statement is too long"},
		{"cut off", `{"sql": "SELECT COUNT(*) FROM or`, "length", "", "cut off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{e: f.eng, req: dialog.Request{Question: "q"}}
			sm := r.fromChoice(llm.Choice{Message: llm.Message{Content: tt.content}, FinishReason: tt.finish}, 1)
			if err := r.validate(context.Background(), sm, nil); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want != "":
				if sm.err != nil || sm.sql != tt.want {
					t.Fatalf("got %q, %v; want %q", sm.sql, sm.err, tt.want)
				}
			case sm.err == nil || !strings.Contains(sm.err.Error(), tt.wantErr):
				t.Fatalf("got %q, %v; want a refusal mentioning %q", sm.sql, sm.err, tt.wantErr)
			}
		})
	}
}

func TestRepairSendsErrorAndSchema(t *testing.T) {
	bad := "SELECT SUM(revenue) FROM orders WHERE YEAR(ordered_at) = 2024"
	stillBad := "SELECT SUM(o.revenue_net) FROM orders o WHERE YEAR(o.ordered_at) = 2024"
	ambiguous := "SELECT SUM(net_amount) FROM orders JOIN customers ON orders.customer_id = customers.id WHERE YEAR(ordered_at) = 2024 AND id > 0"
	t.Run("schema check, two rounds", func(t *testing.T) {
		f := newFixture(t, Options{}, false)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(bad, bad, bad, bad, bad), nil),
			expect("repair", isRepair, llmtest.SQL(stillBad), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "repair prompt", c.User(), "/* Query that failed */\n"+bad, "/* Error */\nunknown column revenue", "net_amount DECIMAL(12,2)")
			}),
			expect("repair", isRepair, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "second repair prompt", c.User(), stillBad, "unknown column orders.revenue_net")
			}),
			expect("review", isReview, noAmbiguity(), nil),
		)
		p, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Candidates) != 1 || p.Candidates[0].SQL != netSQL || p.Candidates[0].Prior != 1 {
			t.Fatalf("%+v", p.Candidates)
		}
	})
	t.Run("warehouse error", func(t *testing.T) {
		f := newFixture(t, Options{}, true)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(ambiguous, netSQL), nil),
			expect("repair", isRepair, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "repair prompt", c.User(), "ambiguous column name", "CREATE TABLE orders")
			}),
			expect("review", isReview, noAmbiguity(), nil),
		)
		p, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Candidates) != 1 || p.Candidates[0].SQL != netSQL {
			t.Fatalf("%+v", p.Candidates)
		}
	})
	t.Run("gives up after two repairs and a fresh try", func(t *testing.T) {
		f := newFixture(t, Options{Samples: 2}, false)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(bad, bad), nil),
			expect("repair", isRepair, llmtest.SQL(stillBad), nil),
			expect("repair", isRepair, llmtest.SQL("UPDATE orders SET status = 'x'"), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "second repair", c.User(), stillBad)
			}),
			expect("generate", isGenerate, llmtest.Text("I'd rather not.", "Sorry, no."), nil),
		)
		_, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
		var ue *Error
		if !errors.As(err, &ue) || !errors.Is(err, llm.ErrBadOutput) || !strings.Contains(err.Error(), "usable query") {
			t.Fatalf("%v", err)
		}
	})
}

func TestRejectedReadingsAreNotProposed(t *testing.T) {
	f := newFixture(t, Options{Samples: 3}, false)
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(netSQL, grossSQL, grossSQL), func(tb testing.TB, c llmtest.Call) {
		mustContain(tb, "prompt", c.User(), "Readings the person rejected", netSQL)
	}), expect("review", isReview, noAmbiguity(), nil))
	p, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?", Exclude: []string{netSQL}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Candidates) != 1 || p.Candidates[0].SQL != grossSQL {
		t.Fatalf("%+v", p.Candidates)
	}
}

func TestReview(t *testing.T) {
	ambiguousDate := map[string]any{
		"ambiguous": true, "kind": "question", "phrase": "2024",
		"question": "Which date should 2024 refer to?",
		"options": []map[string]string{
			{"label": "When the order was placed", "constraint": "use orders.ordered_at for the year", "sql": countSQL},
			{"label": "When it left the warehouse", "constraint": "use orders.shipped_at for the year", "sql": shipSQL},
			{"label": "When it was delivered", "constraint": "use shipments.delivered_on for the year", "sql": "SELECT COUNT(*) FROM orders o JOIN shipments s ON s.order_id = o.id WHERE YEAR(s.delivered_on) = 2024"},
		},
	}
	t.Run("asks", func(t *testing.T) {
		f := newFixture(t, Options{}, true)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(countSQL, countSQL, countSQL, countSQL, countSQL), nil),
			expect("review", isReview, llmtest.JSON(ambiguousDate), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "review prompt", c.User(), "/* Query */\n"+countSQL, "/* In words */")
				mustContain(tb, "review system prompt", c.System(), "column:", "output:", "question:", "value:", `{"ambiguous": false}`)
				if c.N() != 1 || c.Req.ResponseFormat == nil {
					tb.Errorf("review n=%d format %+v", c.N(), c.Req.ResponseFormat)
				}
			}),
		)
		p, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Ask == nil || p.Ask.Kind != dialog.AmbQuestion || p.Ask.Phrase != "2024" || len(p.Ask.Options) != 3 || p.Ask.Options[1].Feedback != "use orders.shipped_at for the year" {
			t.Fatalf("ask %+v", p.Ask)
		}
		c := bySQL(p)
		if len(p.Candidates) != 3 || c[countSQL].Prior <= c[shipSQL].Prior || c[shipSQL].Prior == 0 {
			t.Fatalf("candidates %+v", p.Candidates)
		}
		if c[shipSQL].Phrases[sqlshape.FilterOnKey([]string{"2024"}, nil)] != "2024" || c[countSQL].Phrases[sqlshape.FilterOnKey([]string{"2024"}, nil)] != "2024" {
			t.Fatalf("phrases %v %v", c[shipSQL].Phrases, c[countSQL].Phrases)
		}
	})
	t.Run("no ambiguity stops reviewing", func(t *testing.T) {
		f := newFixture(t, Options{Samples: 2}, false)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(countSQL, countSQL), nil),
			expect("review", isReview, noAmbiguity(), nil),
			expect("generate", isGenerate, llmtest.SQL(countSQL, countSQL), nil),
		)
		for range 2 {
			p, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?"})
			if err != nil || len(p.Candidates) != 1 || p.Ask != nil || p.Candidates[0].Prior != 1 {
				t.Fatalf("%v %+v", err, p)
			}
		}
	})
	t.Run("repeated question discarded", func(t *testing.T) {
		f := newFixture(t, Options{Samples: 1}, false)
		f.srv.Enqueue(
			expect("generate", isGenerate, llmtest.SQL(countSQL), nil),
			expect("review", isReview, llmtest.JSON(ambiguousDate), nil),
			// One revision per earlier reading (the question had three).
			expect("revise", isRevise, llmtest.SQL(countSQL), nil),
			expect("revise", isRevise, llmtest.SQL(countSQL), nil),
			expect("revise", isRevise, llmtest.SQL(countSQL), nil),
			expect("review", isReview, llmtest.JSON(map[string]any{
				"ambiguous": true, "kind": "question", "phrase": "in 2024", "question": "Which date should 2024 refer to, please?",
				"options": []map[string]string{{"label": "Order date", "constraint": "use ordered_at"}, {"label": "Ship date", "constraint": "use shipped_at"}},
			}), func(tb testing.TB, c llmtest.Call) {
				mustContain(tb, "review prompt", c.User(), "Already asked", "- Which date should 2024 refer to?")
			}),
		)
		if _, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?"}); err != nil {
			t.Fatal(err)
		}
		p, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?", Feedback: []dialog.Feedback{{Kind: dialog.FeedbackEdit, Text: "by order date, not counting returns", About: "2024"}}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Ask != nil || len(p.Candidates) != 1 {
			t.Fatalf("a repeated question got through: %+v", p)
		}
	})
	bad := []struct{ name, reply string }{
		{"prose", `I think the date is ambiguous. {"ambiguous": true}`},
		{"unknown field", `{"ambiguous": false, "confidence": 0.9}`},
		{"missing ambiguous", `{"kind": "column"}`},
		{"one option", `{"ambiguous": true, "kind": "column", "phrase": "orders", "question": "Which?", "options": [{"label": "a", "constraint": "b"}]}`},
		{"bad kind", `{"ambiguous": true, "kind": "vibes", "phrase": "orders", "question": "Which?", "options": [{"label": "a", "constraint": "b"}, {"label": "c", "constraint": "d"}]}`},
		{"empty label", `{"ambiguous": true, "kind": "column", "phrase": "orders", "question": "Which?", "options": [{"label": "", "constraint": "b"}, {"label": "c", "constraint": "d"}]}`},
		{"two objects", `{"ambiguous": false} {"ambiguous": true}`},
	}
	f := newFixture(t, Options{Samples: 1}, false)
	for i, tt := range bad {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(countSQL), nil), expect("review", isReview, llmtest.Text(tt.reply), nil))
			p, err := f.ask(t, dialog.Request{Question: fmt.Sprintf("how many orders in 2024? (%d)", i)})
			if err != nil || p.Ask != nil || len(p.Candidates) != 1 {
				t.Fatalf("%v %+v", err, p)
			}
		})
	}
}

func TestFeedbackRevisesPreviousReadings(t *testing.T) {
	f := newFixture(t, Options{Samples: 4}, false)
	f.srv.Enqueue(
		expect("generate", isGenerate, llmtest.SQL(countSQL, countSQL, countSQL, countSQL), nil),
		expect("review", isReview, noAmbiguity(), nil),
		expect("revise", isRevise, llmtest.SQL(shipSQL, shipSQL, shipSQL, shipSQL), func(tb testing.TB, c llmtest.Call) {
			u := c.User()
			mustContain(tb, "revision prompt", u, "/* Previous query */\n"+countSQL, "- [edit] use ship date", "Example (edit)")
			if strings.Contains(u, "Example (add)") || strings.Contains(u, "Example (remove)") {
				tb.Errorf("examples of other kinds of feedback:\n%s", u)
			}
			mustContain(tb, "revision system prompt", c.System(), "add (", "remove (", "edit (")
			if c.N() != 4 {
				tb.Errorf("n=%d", c.N())
			}
		}),
		expect("revise", isRevise, llmtest.SQL(shipSQL+" AND status <> 'cancelled'"), func(tb testing.TB, c llmtest.Call) {
			mustContain(tb, "second revision", c.User(), "/* Previous query */\n"+shipSQL, "- [remove] without cancelled orders", "Example (remove)")
			if strings.Contains(c.User(), "use ship date") {
				tb.Errorf("feedback already applied was sent again")
			}
		}),
	)
	q := "how many orders in 2024?"
	if _, err := f.ask(t, dialog.Request{Question: q}); err != nil {
		t.Fatal(err)
	}
	fb := []dialog.Feedback{{Kind: dialog.FeedbackEdit, Text: "use ship date"}}
	p, err := f.ask(t, dialog.Request{Question: q, Feedback: fb})
	if err != nil || len(p.Candidates) != 1 || p.Candidates[0].SQL != shipSQL {
		t.Fatalf("%v %+v", err, p)
	}
	fb = append(fb, dialog.Feedback{Kind: dialog.FeedbackRemove, Text: "without cancelled orders"})
	f.eng.opts.Samples = 1
	p, err = f.ask(t, dialog.Request{Question: q, Feedback: fb})
	if err != nil || len(p.Candidates) != 1 || !strings.Contains(p.Candidates[0].SQL, "cancelled") {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestFeedbackWithoutMemoryGenerates(t *testing.T) {
	f := newFixture(t, Options{Samples: 1}, false)
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(shipSQL), func(tb testing.TB, c llmtest.Call) {
		mustContain(tb, "prompt", c.User(), "What the person added since", "- use ship date (about \"2024\")")
	}), expect("review", isReview, noAmbiguity(), nil))
	p, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?", Feedback: []dialog.Feedback{{Kind: dialog.FeedbackEdit, Text: "use ship date", About: "2024"}}})
	if err != nil || p.Candidates[0].SQL != shipSQL {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestValueCheck(t *testing.T) {
	t.Run("one stored value: used, and said", func(t *testing.T) {
		f := newFixture(t, Options{Samples: 1}, true)
		typo := "SELECT SUM(net_amount) FROM orders WHERE status = 'canceled'"
		f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(typo), nil), expect("review", isReview, noAmbiguity(), nil))
		p, err := f.ask(t, dialog.Request{Question: "revenue of canceled orders"})
		if err != nil {
			t.Fatal(err)
		}
		want := "SELECT SUM(net_amount) FROM orders WHERE status = 'cancelled'"
		if len(p.Candidates) != 1 || p.Candidates[0].SQL != want || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "'cancelled'") {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("several stored values: a value question", func(t *testing.T) {
		f := newFixture(t, Options{Samples: 1}, true)
		f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL("SELECT region_id FROM states WHERE name = 'New'"), nil))
		p, err := f.ask(t, dialog.Request{Question: "which region is New in?"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Ask == nil || p.Ask.Kind != dialog.AmbValue || p.Ask.Phrase != "New" || len(p.Ask.Options) != 3 || len(p.Candidates) != 3 {
			t.Fatalf("ask %+v candidates %+v", p.Ask, p.Candidates)
		}
		for _, c := range p.Candidates {
			if !strings.Contains(c.SQL, "'New ") || c.Phrases[sqlshape.WhereKey("states.name")] != "New" {
				t.Fatalf("candidate %+v", c)
			}
		}
		mustContain(t, "option", p.Ask.Options[0].Feedback, "use the stored value 'New ", "states.name")
	})
}

func TestToolMode(t *testing.T) {
	f := newFixture(t, Options{Tools: true, Samples: 3}, true)
	f.srv.Enqueue(
		expect("generate", isGenerate, llmtest.Tools(
			llmtest.ToolCall{Name: "search_columns", Args: map[string]any{"phrase": "revenue", "limit": 3}},
			llmtest.ToolCall{Name: "search_values", Args: map[string]any{"phrase": "texas"}},
			llmtest.ToolCall{Name: "join_path", Args: map[string]any{"tables": []string{"orders", "customers"}}},
			llmtest.ToolCall{Name: "execute_sql", Args: map[string]any{"sql": "SELECT COUNT(*) FROM orders WHERE ship_state = 'TX'"}},
			llmtest.ToolCall{Name: "execute_sql", Args: map[string]any{"sql": "DELETE FROM orders"}},
			llmtest.ToolCall{Name: "search_values", Args: "not an object"},
		), func(tb testing.TB, c llmtest.Call) {
			names := strings.Join(c.ToolNames(), ",")
			if names != "search_columns,search_values,join_path,execute_sql" || c.Req.ToolChoice != "auto" || c.N() != 1 {
				tb.Errorf("tools %s choice %v n=%d", names, c.Req.ToolChoice, c.N())
			}
		}),
		expect("generate", isGenerate, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
			var results []string
			for _, m := range c.Req.Messages {
				if m.Role == openai.ChatMessageRoleTool {
					results = append(results, m.Content)
				}
			}
			if len(results) != 6 {
				tb.Fatalf("%d tool results", len(results))
			}
			mustContain(tb, "search_columns result", results[0], `"Column":"net_amount"`, "Net revenue")
			mustContain(tb, "search_values result", results[1], `"Value":"Texas"`, `"Value":"TX"`)
			mustContain(tb, "join_path result", results[2], "orders.customer_id = customers.id")
			mustContain(tb, "execute_sql result", results[3], "COUNT(*)")
			mustContain(tb, "refused execute_sql", results[4], "error:")
			mustContain(tb, "bad arguments", results[5], "error: the arguments are not valid JSON")
		}),
		expect("generate", isGenerate, llmtest.SQL(netSQL, netSQL), func(tb testing.TB, c llmtest.Call) {
			if c.N() != 2 || c.Req.ToolChoice != "none" {
				tb.Errorf("final sampling n=%d choice=%v", c.N(), c.Req.ToolChoice)
			}
		}),
		expect("review", isReview, noAmbiguity(), nil),
	)
	count := func() any {
		res, err := f.demo.DB.Query(context.Background(), "SELECT COUNT(*) FROM orders", warehouse.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	before := count()
	p, err := f.ask(t, dialog.Request{Question: "what was revenue in texas?"})
	if err != nil || len(p.Candidates) != 1 || p.Candidates[0].SQL != netSQL {
		t.Fatalf("%v %+v", err, p)
	}
	if after := count(); after != before {
		t.Fatalf("orders went from %v to %v", before, after)
	}
}

func TestToolModeIsBounded(t *testing.T) {
	f := newFixture(t, Options{Tools: true, Samples: 2, MaxToolSteps: 2}, false)
	again := llmtest.Tools(llmtest.ToolCall{Name: "search_columns", Args: map[string]any{"phrase": "revenue"}})
	f.srv.Enqueue(
		expect("generate", isGenerate, again, func(tb testing.TB, c llmtest.Call) {
			if strings.Contains(strings.Join(c.ToolNames(), ","), "execute_sql") {
				tb.Errorf("execute_sql offered without an executor")
			}
		}),
		expect("generate", isGenerate, again, nil),
		expect("generate", isGenerate, llmtest.SQL(netSQL, netSQL), func(tb testing.TB, c llmtest.Call) {
			if c.Req.ToolChoice != "none" || c.N() != 2 {
				tb.Errorf("after the steps: choice %v n=%d", c.Req.ToolChoice, c.N())
			}
		}),
		expect("review", isReview, noAmbiguity(), nil),
	)
	if _, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"}); err != nil {
		t.Fatal(err)
	}
}

func TestServerWithoutToolsOrJSON(t *testing.T) {
	f := newFixture(t, Options{Tools: true, Samples: 1}, false)
	f.srv.Enqueue(
		llmtest.Always(llmtest.Error(400, "invalid_request_error", "tools are not supported by this model", nil), nil),
		llmtest.Always(llmtest.Error(400, "invalid_request_error", "response_format is not supported", nil), func(tb testing.TB, c llmtest.Call) {
			if len(c.Req.Tools) != 0 {
				tb.Errorf("tools sent again")
			}
		}),
		expect("generate", isGenerate, llmtest.Text("```sql\n"+netSQL+"\n```"), func(tb testing.TB, c llmtest.Call) {
			if c.Req.ResponseFormat != nil || len(c.Req.Tools) != 0 {
				tb.Errorf("format %+v tools %d", c.Req.ResponseFormat, len(c.Req.Tools))
			}
		}),
		expect("review", isReview, noAmbiguity(), nil),
	)
	p, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
	if err != nil || p.Candidates[0].SQL != netSQL {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestModelFailuresAreWorded(t *testing.T) {
	tests := []struct {
		name   string
		reply  llmtest.Reply
		target error
		words  string
	}{
		{"401", llmtest.Error(401, "invalid_api_key", "Incorrect API key provided: sk-test", nil), llm.ErrAuth, "credentials"},
		{"quota", llmtest.Error(429, "insufficient_quota", "You exceeded your current quota", nil), llm.ErrQuota, "quota"},
		{"rate limit", llmtest.Error(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "600"}), llm.ErrRateLimited, "rate-limited"},
		{"down", llmtest.Error(503, "server_error", "overloaded", nil), llm.ErrUnavailable, "unavailable"},
		{"model", llmtest.Error(404, "model_not_found", "no such model", nil), llm.ErrNotFound, "model name"},
	}
	f := newFixture(t, Options{}, false)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.srv.Enqueue(llmtest.Always(tt.reply, nil))
			_, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.words) || strings.Contains(err.Error(), "sk-test") {
				t.Fatalf("%v", err)
			}
		})
	}
}

func TestCancellationReachesTheModel(t *testing.T) {
	f := newFixture(t, Options{}, false)
	f.srv.Enqueue(llmtest.Always(llmtest.Reply{Block: true}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.eng.Candidates(ctx, dialog.Request{Question: "what was revenue in 2024?", Who: ana})
		done <- err
	}()
	select {
	case <-f.srv.Blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never arrived")
	}
	cancel()
	select {
	case <-f.srv.Released:
	case <-time.After(10 * time.Second):
		t.Fatal("the HTTP call was not cancelled")
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Candidates did not return")
	}
}

func TestBudgetsAndUsage(t *testing.T) {
	f := newFixture(t, Options{Samples: 2}, false)
	clk := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	store, err := llmusage.Open(filepath.Join(t.TempDir(), llmusage.File), llmusage.Options{
		Now: func() time.Time { return clk }, Budget: llmusage.Budget{DailyUser: 100},
		Prices: map[string]llmusage.Price{testModel: {Prompt: 0.15, Completion: 0.6}},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.eng.opts.Usage = store
	usage := &openai.Usage{PromptTokens: 70, CompletionTokens: 20, TotalTokens: 90}
	gen := llmtest.SQL(netSQL, netSQL)
	gen.Usage = usage
	rev := noAmbiguity()
	rev.Usage = &openai.Usage{PromptTokens: 30, CompletionTokens: 5, TotalTokens: 35}
	f.srv.Enqueue(expect("generate", isGenerate, gen, nil), expect("review", isReview, rev, nil))
	prop, err := f.ask(t, dialog.Request{Question: "what was revenue in 2024?"})
	if err != nil {
		t.Fatal(err)
	}
	// The proposal reports the same tokens, for the question's audit record.
	if prop.PromptTokens != 100 || prop.CompletionTokens != 25 {
		t.Fatalf("proposal tokens %d + %d, want 100 + 25", prop.PromptTokens, prop.CompletionTokens)
	}
	rep, err := store.Report(context.Background(), llmusage.Query{Records: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 1 {
		t.Fatalf("%+v", rep)
	}
	r := rep.Records[0]
	if r.User != "test:w1:ana" || r.Workspace != "test:w1" || r.Warehouse != "demo" || r.PromptTokens != 100 || r.CompletionTokens != 25 || r.Calls != 2 || !r.Priced || r.Question != "what was revenue in 2024?" {
		t.Fatalf("%+v", r)
	}
	// 125 tokens spent of 100: the next question is refused before any call.
	calls := len(f.srv.Calls())
	_, err = f.ask(t, dialog.Request{Question: "how many orders?"})
	if !errors.Is(err, llm.ErrBudget) || !strings.Contains(err.Error(), "your daily language model budget of 100 tokens is used up") {
		t.Fatalf("%v", err)
	}
	if len(f.srv.Calls()) != calls {
		t.Fatal("a call was made over budget")
	}
	// Another person still has budget.
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(countSQL, countSQL), nil), expect("review", isReview, noAmbiguity(), nil))
	if _, err := f.ask(t, dialog.Request{Question: "how many orders in 2024?", Who: dialog.Who{Platform: "test", Workspace: "w1", User: "ben"}}); err != nil {
		t.Fatal(err)
	}
}
