package glossary

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/demotest"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
)

func TestParseProblemsHaveLines(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // FILE:LINE: message fragments, in order
	}{
		{
			name: "unknown key",
			yaml: "name: t\nmeasures:\n  - name: revenue\n    expr: SUM(orders.net_amount)\n    colour: blue\n",
			want: []string{`team.yml:5: measure: unknown key "colour"`},
		},
		{
			name: "unknown top-level key",
			yaml: "name: t\nmeasure:\n  - name: revenue\n",
			want: []string{`team.yml:2: glossary: unknown key "measure"`},
		},
		{
			name: "missing expr and verifier",
			yaml: "dimensions:\n  - name: region\nverified_queries:\n  - question: how many?\n    sql: SELECT 1\n",
			want: []string{`team.yml:2: dimension "region" has no expr`, `team.yml:4: verified query "how many?" has no verified_by`},
		},
		{
			name: "term means nothing defined",
			yaml: "terms:\n  - name: ARR\n    means: annual revenue\n",
			want: []string{`team.yml:3: term "ARR" means "annual revenue", which is no measure`},
		},
		{
			name: "duplicate names",
			yaml: "measures:\n  - {name: revenue, expr: SUM(orders.net_amount)}\n  - {name: Revenue, expr: SUM(orders.gross_amount)}\n",
			want: []string{`team.yml:3: "Revenue" is already defined on line 2`},
		},
		{
			name: "relationship not table.column",
			yaml: "relationships:\n  - from: orders\n    to: customers.id\n",
			want: []string{`team.yml:2: relationship: from must be table.column`},
		},
		{
			name: "bad yaml",
			yaml: "measures:\n  - name: [revenue\n",
			want: []string{`team.yml:`, `not valid YAML`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("team.yml", []byte(tt.yaml))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse error = %v, want ErrInvalid", err)
			}
			got := err.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("problems:\n%s\nwant (in order) %q", got, w)
				}
				at += i
			}
		})
	}
}

func TestCheckDemoGlossary(t *testing.T) {
	d := demotest.Start(t, 2000)
	g, err := Parse(demodata.GlossaryFile, demodata.Glossary)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Check(context.Background(), d.DB, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) > 0 {
		t.Fatalf("the shipped demo glossary has problems:\n%v", ps)
	}
}

// TestCheckReportsExpressionProblems runs bad expressions through the
// guarded warehouse path and expects each at its own line.
func TestCheckReportsExpressionProblems(t *testing.T) {
	d := demotest.Start(t, 200)
	src := `name: bad
measures:
  - name: revenue
    expr: SUM(orders.net_amt)
  - name: sneaky
    expr: SUM(orders.net_amount) FROM orders; DROP TABLE orders; SELECT 1
dimensions:
  - name: place
    expr: CONCAT(customers.city, orders.ship_state)
filters:
  - name: big order
    where: orders.net_amount > 1000
  - name: good customer
    table: customers
    where: customers.segment = 'Enterprise'
relationships:
  - from: orders.customer_id
    to: customers.nope
verified_queries:
  - question: ids
    sql: SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id
    verified_by: ana
  - question: delete
    sql: DELETE FROM orders
    verified_by: ana
`
	g, err := Parse("bad.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Check(context.Background(), d.DB, g)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		msg  string
	}{
		{4, "unknown column orders.net_amt"},
		{6, "not a read-only expression"},
		{9, "ambiguous table: the expression names customers and orders"},
		{12, "the engines read a filter only as"},
		{17, "unknown column customers.nope"},
		{21, "column id is ambiguous: name its table"},
		{24, "not a read-only expression"},
	}
	for _, w := range want {
		t.Run(w.msg, func(t *testing.T) {
			for _, p := range ps {
				if p.Line == w.line && strings.Contains(p.Msg, w.msg) && strings.HasPrefix(p.String(), "bad.yml:") {
					return
				}
			}
			t.Errorf("no problem %q at line %d in:\n%v", w.msg, w.line, ps)
		})
	}
	for _, p := range ps {
		if p.Line == 15 {
			t.Errorf("a valid filter was reported: %v", p)
		}
	}
}

func TestFacts(t *testing.T) {
	g, err := Parse(demodata.GlossaryFile, demodata.Glossary)
	if err != nil {
		t.Fatal(err)
	}
	facts, ps := Facts(g, Target{Warehouse: "demo-2000", Workspaces: []string{"console:local", "slack:T1"}})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	find := func(owner, phrase string, kind ontology.Kind) *ontology.Fact {
		for i, f := range facts {
			if f.Owner == owner && f.Phrase == phrase && f.Kind == kind {
				return &facts[i]
			}
		}
		return nil
	}
	tests := []struct {
		name   string
		owner  string
		phrase string
		kind   ontology.Kind
		target string
	}{
		{"measure column", "console:local", "net sales", ontology.KindColumn, "measure: orders.net_amount"},
		{"measure aggregate", "slack:T1", "net sales", ontology.KindDefinition, "measure: SUM(orders.net_amount)"},
		{"term synonym of a measure", "console:local", "turnover", ontology.KindColumn, "measure: orders.net_amount"},
		{"filter on its qualifier", "console:local", "active", ontology.KindDefinition, "definition active: EXISTS (SELECT 1 FROM orders WHERE orders.customer_id = customers.id AND orders.ordered_at >= CURRENT_DATE - INTERVAL 90 DAY)"},
		{"filter synonym", "console:local", "engaged", ontology.KindDefinition, "definition engaged: EXISTS"},
		{"values filter", "console:local", "open", ontology.KindDefinition, "definition open: orders.status IN ('placed', 'shipped')"},
		{"dimension", "console:local", "segment", ontology.KindAggregate, "group: customers.segment"},
		{"relationship", "console:local", "customer of an order", ontology.KindJoin, "tables: orders, customers ON orders.customer_id = customers.id"},
		{"verified query", "console:local", "how many active customer have", ontology.KindQuery, "query: SELECT COUNT(*) AS active_customers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := find(tt.owner, tt.phrase, tt.kind)
			if f == nil {
				t.Fatalf("no %s fact for %q of %s", tt.kind, tt.phrase, tt.owner)
			}
			if got := f.Target.Summary(); !strings.HasPrefix(got, tt.target) {
				t.Errorf("target = %s, want prefix %s", got, tt.target)
			}
			if f.Scope != ontology.ScopeWorkspace || f.Source != "glossary:demo" || f.Warehouse != "demo-2000" {
				t.Errorf("fact = %+v, want a workspace fact of glossary:demo on demo-2000", f)
			}
		})
	}
	if f := find("console:local", "how many active customer have", ontology.KindQuery); f != nil && f.VerifiedBy != "ana" {
		t.Errorf("verified query by %q, want ana", f.VerifiedBy)
	}
	if got := len(g.Joins()); got != 2 {
		t.Errorf("Joins() = %d, want 2", got)
	}
}

// The same problems are found, and worded the same, on every server the
// tests can reach (the embedded one; MariaDB/MySQL with MYSQL_TEST_DSN).
func TestCheckOnEveryServer(t *testing.T) {
	const dump = `CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), status VARCHAR(10));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, net_amount DECIMAL(10,2));
INSERT INTO customers VALUES (1, 'Ada', 'active');
INSERT INTO orders VALUES (1, 1, 10.00)`
	src := `measures:
  - name: revenue
    expr: SUM(orders.net_amt)
  - name: net
    expr: SUM(orders.net_amount)
filters:
  - name: active customer
    where: customers.status = 'active'
verified_queries:
  - question: ids
    sql: SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id
    verified_by: ana
`
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			db := testwh.NewDatabase(t, target, dump).Open(t, warehouse.Config{})
			g, err := Parse("team.yml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			ps, err := Check(context.Background(), db, g)
			if err != nil {
				t.Fatal(err)
			}
			want := "team.yml:3: measure \"revenue\": unknown column orders.net_amt\nteam.yml:11: verified query \"ids\": column id is ambiguous: name its table"
			if got := ps.Error(); got != want {
				t.Fatalf("problems:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
