package llmengine

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// Verified queries reach the model as examples (the related ones only),
// and team definitions are worded as the team's.
func TestVerifiedQueriesAreExamples(t *testing.T) {
	f := newFixture(t, Options{}, false)
	verified := func(q, sql, by string) ontology.Fact {
		return ontology.Fact{Scope: ontology.ScopeWorkspace, Phrase: strings.ToLower(q), Question: q, Kind: ontology.KindQuery, Source: "glossary:team", VerifiedBy: by,
			Target: ontology.Target{Slot: "query", Choice: ontology.Term{Kind: ontology.TermSQL, Expr: sql}}}
	}
	facts := []ontology.Fact{
		verified("net revenue by region", "SELECT r.name, SUM(o.net_amount) FROM orders o JOIN sales_reps s ON s.id = o.sales_rep_id JOIN regions r ON r.id = s.region_id GROUP BY r.name", "ana"),
		verified("how many products", "SELECT COUNT(*) FROM products", "ben"),
		{Scope: ontology.ScopeWorkspace, Phrase: "revenue", Kind: ontology.KindColumn, Source: "glossary:team", Meaning: "Net revenue",
			Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}},
	}
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
		u := c.User()
		mustContain(tb, "prompt", u,
			"/* Verified queries: questions the team checked, with their SQL; follow their conventions */",
			"-- Q: net revenue by region\nSELECT r.name, SUM(o.net_amount) FROM orders o JOIN sales_reps s",
			`for the team, "revenue" means orders.net_amount (Net revenue)`)
		if strings.Contains(u, "how many products") || strings.Contains(u, `"net revenue by region" means`) {
			tb.Errorf("an unrelated example, or an example as a definition:\n%s", u)
		}
		if strings.Index(u, "/* Verified queries") > strings.Index(u, "/* Question */") {
			tb.Errorf("the examples should come before the question:\n%s", u)
		}
	}), expect("review", isReview, noAmbiguity(), nil))
	if _, err := f.ask(t, dialog.Request{Question: "what was revenue by region in 2024?", Facts: facts}); err != nil {
		t.Fatal(err)
	}
}
