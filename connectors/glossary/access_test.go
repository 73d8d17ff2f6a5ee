package glossary

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/internal/demotest"
)

// TestCheckAppliesAccessRules: a glossary checked against a warehouse with
// access rules may not use a hidden column anywhere, show a sensitive one,
// or write the values of either (they would reach prompts and answers).
func TestCheckAppliesAccessRules(t *testing.T) {
	d := demotest.Start(t, 200)
	ctx := context.Background()
	schema, err := d.DB.Introspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rules := access.Rules{Hidden: []string{"customers.email"}, Sensitive: []string{"customers.segment", "products.unit_cost"}}
	pol, err := access.New(rules, schema)
	if err != nil {
		t.Fatal(err)
	}
	src := `name: team
measures:
  - name: reach
    expr: COUNT(DISTINCT customers.email)
  - name: customer count
    expr: COUNT(DISTINCT customers.id)
  - name: cost
    expr: SUM(products.unit_cost)
dimensions:
  - name: segment
    expr: customers.segment
    samples: [Enterprise, Consumer]
filters:
  - name: secret customer
    table: customers
    where: customers.email IN ('a@x.org', 'b@x.org')
  - name: enterprise customer
    table: customers
    where: customers.segment = 'Enterprise'
  - name: cheap product
    table: products
    where: products.name = 'Pen'
relationships:
  - from: orders.customer_id
    to: customers.email
verified_queries:
  - question: who are the customers
    sql: SELECT name, email FROM customers
    verified_by: ana
  - question: how many customers
    sql: SELECT COUNT(*) FROM customers
    verified_by: ana
`
	g, err := Parse("team.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := CheckWith(ctx, d.DB.WithPolicy(pol), g, CheckOptions{Withholds: rules.Withholds})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		msg  string
	}{
		{4, "the access rules refuse it: This warehouse hides some of what"},
		{8, "keeps products.unit_cost sensitive"},
		{11, "keeps customers.segment sensitive"},
		{10, "samples are values of customers.segment"},
		{16, "hides some of what this statement reads"},
		{16, "writes values of customers.email"},
		{19, "writes values of customers.segment"},
		{24, "hides some of what this statement reads"},
		{28, "hides some of what this statement reads"},
	}
	for _, w := range want {
		found := false
		for _, p := range ps {
			found = found || p.Line == w.line && strings.Contains(p.Msg, w.msg)
		}
		if !found {
			t.Errorf("no problem %q at line %d in:\n%v", w.msg, w.line, ps)
		}
	}
	for _, p := range ps {
		if p.Line == 6 || p.Line == 22 || p.Line == 31 {
			t.Errorf("an allowed item was reported: %v", p)
		}
	}
}
