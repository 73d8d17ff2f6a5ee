package sqlshape

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// statements reads testdata/statements.sql: the statements of the
// repository's own tests, one a line.
func statements(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("testdata/statements.sql")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "--") {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) < 100 {
		tb.Fatalf("only %d statements read", len(out))
	}
	return out
}

// withoutTrees is s as read from storage: its strings only.
func withoutTrees(s *Shape) *Shape {
	c := *s
	c.exprs = nil
	return &c
}

// differs are the statements explained differently from trees than from
// strings, in the words of their trees (shapeLabels):
//   - canonical strings that cannot be read back (a literal canon writes
//     bare that is no SQL name, a call canon prints wrongly), which strings
//     explain by the columns they use or in broken text;
//   - aliases in the parts canon prints as SQL (LIKE, CASE, IS NULL…),
//     which the string keeps ("o.net_amount": "net amount") and the tree
//     resolves ("orders.net_amount": "net revenue").
var differs = map[string]string{
	"SELECT o.id FROM orders o WHERE o.ship_state = 'TX' OR o.net_amount LIKE '1%'":         "Order number of orders, where ship state is tx or net revenue starts with '1'.",
	"SELECT 'COUNT (x)' AS s, `count` FROM t -- SUM (x)":                                    "Count (x) and  of t.",
	"SELECT * FROM orders WHERE ts >= {d '2020-01-01'} AND ts < {ts '2021-01-01 00:00:00'}": "All columns of orders, where ts is at least date 2020-01-01 and where ts is below timestamp 2021-01-01 00:00:00.",
	"SELECT * FROM t WHERE a = '' OR b = 'x'":                                               "All columns of t, where a is  or b is x.",
	"SELECT name AS e FROM members ORDER BY (SELECT email) = 'a@x.org'":                     " of members, sorted by subquery=a@x.org, lowest first.",
}

// TestExplainFromTrees explains every statement from its parsed trees and
// from its canonical strings (the way of a Shape read from storage): the
// words are the same, but for the statements whose strings cannot be read
// back or keep an alias (differs).
func TestExplainFromTrees(t *testing.T) {
	resolve := func(col string, tables []string) string {
		if len(tables) > 0 {
			return tables[len(tables)-1]
		}
		return ""
	}
	for _, q := range statements(t) {
		for _, r := range []Resolver{nil, resolve} {
			s, err := Parse(q, r)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var shapes []*Shape
			var walk func(*Shape)
			walk = func(s *Shape) {
				shapes = append(shapes, s)
				for _, sub := range s.Subs {
					walk(sub.Shape)
				}
			}
			walk(s)
			if want, ok := differs[q]; ok {
				if got := Explain(s, shapeLabels{}); got != want {
					t.Errorf("%s\n got: %q\nwant: %q", q, got, want)
				}
				continue
			}
			for _, sh := range shapes {
				for _, l := range []Labels{shapeLabels{}, testLabels{}} {
					if got, want := Explain(sh, l), Explain(withoutTrees(sh), l); got != want {
						t.Errorf("%s\n trees: %q\nstrings: %q", q, got, want)
					}
				}
			}
		}
	}
}

// TestShapeKeepsTrees checks that each expression a Shape keeps has its
// tree, with aliases resolved to table names, and that reading a
// statement leaves its own tree as it was.
func TestShapeKeepsTrees(t *testing.T) {
	q := "SELECT o.ship_state, SUM(o.net_amount * 2) AS total, SUM(CASE WHEN C.Region = 'South' THEN o.net_amount END) " +
		"FROM orders o JOIN customers c ON c.id = o.customer_id " +
		"WHERE c.region = 'North' OR o.status LIKE 'Ship%' GROUP BY o.ship_state ORDER BY total DESC"
	st, err := sqlguard.Check(q)
	if err != nil {
		t.Fatal(err)
	}
	var before strings.Builder
	if err := restore(&before, st.Node); err != nil {
		t.Fatal(err)
	}
	s := FromNode(st.Node, nil)
	var after strings.Builder
	if err := restore(&after, st.Node); err != nil {
		t.Fatal(err)
	}
	if before.String() != after.String() {
		t.Errorf("statement changed:\n%s\n%s", before.String(), after.String())
	}
	var exprs []string
	for _, o := range s.Outputs {
		exprs = append(exprs, o.Expr)
	}
	for _, f := range s.Filters {
		exprs = append(exprs, f.Expr)
	}
	exprs = append(exprs, s.GroupBy...)
	for _, o := range s.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	for _, e := range exprs {
		n := s.ExprNode(e)
		if n == nil {
			t.Errorf("no tree for %q", e)
			continue
		}
		n.Accept(&columnFinder{found: func(c *ast.ColumnName) {
			if c.Table.L != "" && c.Table.L != "orders" && c.Table.L != "customers" { // "": a literal canon writes bare
				t.Errorf("%q: column %s.%s not resolved to its table", e, c.Table.O, c.Name.O)
			}
		}})
	}
	if n := withoutTrees(s).ExprNode(s.GroupBy[0]); n != nil {
		t.Errorf("a Shape without trees gave one: %v", n)
	}
}

// benchStatement is a grouped, filtered, ordered query of the kind the
// engines write.
const benchStatement = "SELECT r.name, SUM(CASE WHEN o.ship_state = 'TX' THEN o.net_amount END) * 100 / NULLIF(SUM(o.net_amount), 0) AS share " +
	"FROM orders o JOIN regions r ON r.id = o.region_id WHERE YEAR(o.ordered_at) = 2024 AND (o.status = 'done' OR o.status LIKE 'ship%') " +
	"GROUP BY r.name ORDER BY share DESC LIMIT 3"

// BenchmarkExplain explains a shape from its trees and, as for a shape
// read from storage, from its strings.
func BenchmarkExplain(b *testing.B) {
	s, err := Parse(benchStatement, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		shape *Shape
	}{{"trees", s}, {"strings", withoutTrees(s)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Explain(c.shape, testLabels{})
			}
		})
	}
}

// BenchmarkFromNode reads the shape of a parsed statement, with the
// trees of its expressions.
func BenchmarkFromNode(b *testing.B) {
	st, err := sqlguard.Check(benchStatement)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		FromNode(st.Node, nil)
	}
}
