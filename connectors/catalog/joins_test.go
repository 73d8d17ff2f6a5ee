package catalog

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// edgeNames renders the edges of a tree as "from.col=to.col" (+"?" when inferred).
func edgeNames(edges []warehouse.Join) []string {
	out := make([]string, len(edges))
	for i, e := range edges {
		out[i] = e.FromTable + "." + e.FromColumn + "=" + e.ToTable + "." + e.ToColumn
		if !e.Declared {
			out[i] += "?"
		}
	}
	return out
}

func TestJoinPath(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		name       string
		refs       []string
		wantTables []string
		wantEdges  []string
		wantCost   float64
	}{
		{
			name:       "through orders, declared key over its inferred twin",
			refs:       []string{"order_lines", "customers"},
			wantTables: []string{"order_lines", "orders", "customers"},
			wantEdges:  []string{"order_lines.order_id=orders.id", "orders.customer_id=customers.id?"},
			wantCost:   1 + 1 + 0.2 + inferredPenalty,
		},
		{
			name:       "column refs and case",
			refs:       []string{"ORDER_LINES.line_amount", "customers.state", "`orders`.`id`"},
			wantTables: []string{"order_lines", "orders", "customers"},
			wantEdges:  []string{"order_lines.order_id=orders.id", "orders.customer_id=customers.id?"},
			wantCost:   1 + 1 + 0.2 + inferredPenalty,
		},
		{
			name:       "database-qualified ref",
			refs:       []string{"shop.orders.id", "order_lines"},
			wantTables: []string{"orders", "order_lines"},
			wantEdges:  []string{"order_lines.order_id=orders.id"},
			wantCost:   1,
		},
		{
			name:       "one table",
			refs:       []string{"orders"},
			wantTables: []string{"orders"},
		},
		{
			name:       "same table twice",
			refs:       []string{"orders", "orders.id"},
			wantTables: []string{"orders"},
		},
		{
			name:       "long chain",
			refs:       []string{"categories", "customers"},
			wantTables: []string{"categories", "products", "order_lines", "orders", "customers"},
			wantEdges: []string{
				"products.category_id=categories.id",
				"order_lines.product_id=products.id",
				"order_lines.order_id=orders.id",
				"orders.customer_id=customers.id?",
			},
			wantCost: 4 + 0.2 + inferredPenalty,
		},
		{
			name:       "three terminals attach nearest first",
			refs:       []string{"orders", "customers", "states"},
			wantTables: []string{"orders", "states", "customers"},
			wantEdges:  []string{"orders.ship_state=states.code?", "orders.customer_id=customers.id?"},
			wantCost:   2 + 0.1 + 0.2 + 2*inferredPenalty,
		},
		{
			name:       "a terminal on the path is not attached twice",
			refs:       []string{"order_lines", "customers", "orders"},
			wantTables: []string{"order_lines", "orders", "customers"},
			wantEdges:  []string{"order_lines.order_id=orders.id", "orders.customer_id=customers.id?"},
			wantCost:   1 + 1 + 0.2 + inferredPenalty,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := c.JoinPath(tt.refs...)
			if err != nil {
				t.Fatalf("JoinPath(%q): %v", tt.refs, err)
			}
			if !reflect.DeepEqual(tree.Tables, tt.wantTables) {
				t.Errorf("Tables = %q, want %q", tree.Tables, tt.wantTables)
			}
			if got := edgeNames(tree.Edges); len(got) != len(tt.wantEdges) || (len(got) > 0 && !reflect.DeepEqual(got, tt.wantEdges)) {
				t.Errorf("Edges = %q, want %q", got, tt.wantEdges)
			}
			if math.Abs(tree.Cost-tt.wantCost) > 1e-9 {
				t.Errorf("Cost = %v, want %v", tree.Cost, tt.wantCost)
			}
			if len(tree.Edges) != len(tree.Tables)-1 {
				t.Errorf("%d edges for %d tables: not a tree", len(tree.Edges), len(tree.Tables))
			}
		})
	}
}

// TestJoinPathPrefersDeclared checks the cost model on a diamond a–b–d /
// a–c–d where only the kinds and confidences of the edges change.
func TestJoinPathPrefersDeclared(t *testing.T) {
	join := func(from, to string, declared bool, conf float64) warehouse.Join {
		return warehouse.Join{FromTable: from, FromColumn: to + "_id", ToTable: to, ToColumn: "id", Declared: declared, Confidence: conf}
	}
	tables := func(names ...string) []warehouse.Table {
		var out []warehouse.Table
		for _, n := range names {
			out = append(out, warehouse.Table{Name: n, Columns: []warehouse.Column{col(n, "id", "int", "")}})
		}
		return out
	}
	tests := []struct {
		name  string
		joins []warehouse.Join
		want  []string
	}{
		{
			name: "declared path beats fully confident inferred path of equal length",
			joins: []warehouse.Join{
				join("a", "c", false, 1), join("c", "d", false, 1),
				join("a", "b", true, 1), join("b", "d", true, 1),
			},
			want: []string{"a", "b", "d"},
		},
		{
			name: "declared path beats a mixed one",
			joins: []warehouse.Join{
				join("a", "c", true, 1), join("c", "d", false, 1),
				join("a", "b", true, 1), join("b", "d", true, 1),
			},
			want: []string{"a", "b", "d"},
		},
		{
			name: "more confident inferred path wins among inferred",
			joins: []warehouse.Join{
				join("a", "b", false, 0.6), join("b", "d", false, 0.6),
				join("a", "c", false, 0.9), join("c", "d", false, 0.9),
			},
			want: []string{"a", "c", "d"},
		},
		{
			name: "a short inferred path beats a long declared one",
			joins: []warehouse.Join{
				join("a", "b", true, 1), join("b", "c", true, 1), join("c", "d", true, 1),
				join("a", "d", false, 0.9),
			},
			want: []string{"a", "d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(&warehouse.Snapshot{Schema: warehouse.Schema{Tables: tables("a", "b", "c", "d"), Joins: tt.joins}}, Options{})
			tree, err := c.JoinPath("a", "d")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tree.Tables, tt.want) {
				t.Errorf("Tables = %q, want %q (edges %q)", tree.Tables, tt.want, edgeNames(tree.Edges))
			}
		})
	}
}

func TestJoinPathErrors(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		name     string
		refs     []string
		wantIs   error
		wantText []string
	}{
		{"unknown table", []string{"orders", "nope"}, ErrUnknownTable, []string{`"nope"`}},
		{"unknown tables all named", []string{"nope", "orders.id", "ghost.id"}, ErrUnknownTable, []string{`"nope"`, `"ghost.id"`}},
		{"too many dots", []string{"a.b.c.d"}, ErrUnknownTable, []string{`"a.b.c.d"`}},
		{"disconnected", []string{"orders", "audit_log"}, ErrNoJoinPath, []string{"orders", "audit_log"}},
		{"disconnected among several", []string{"customers", "states", "audit_log"}, ErrNoJoinPath, []string{"audit_log"}},
		{"no refs", nil, nil, []string{"no tables"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := c.JoinPath(tt.refs...)
			if err == nil {
				t.Fatalf("JoinPath(%q) = %+v, want an error", tt.refs, tree)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %s", err, s)
				}
			}
		})
	}
}

func TestJoinPathsOffersTheOtherRoute(t *testing.T) {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{
		Tables: []warehouse.Table{{Name: "orders"}, {Name: "sales_reps"}, {Name: "states"}, {Name: "regions"}},
		Joins: []warehouse.Join{
			{FromTable: "orders", FromColumn: "sales_rep_id", ToTable: "sales_reps", ToColumn: "id", Confidence: 0.9},
			{FromTable: "sales_reps", FromColumn: "region_id", ToTable: "regions", ToColumn: "id", Declared: true, Confidence: 1},
			{FromTable: "orders", FromColumn: "ship_state", ToTable: "states", ToColumn: "code", Confidence: 0.7},
			{FromTable: "states", FromColumn: "region_id", ToTable: "regions", ToColumn: "id", Declared: true, Confidence: 1},
		},
	}}
	c := New(snap, Options{})
	trees, err := c.JoinPaths(3, "orders", "regions")
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) != 2 {
		t.Fatalf("want both routes, got %d", len(trees))
	}
	if trees[0].Cost > trees[1].Cost || !slices.Contains(trees[0].Tables, "sales_reps") || !slices.Contains(trees[1].Tables, "states") {
		t.Fatalf("routes %v (%.2f) and %v (%.2f)", trees[0].Tables, trees[0].Cost, trees[1].Tables, trees[1].Cost)
	}
	one, err := c.JoinPaths(3, "orders")
	if err != nil || len(one) != 1 || len(one[0].Edges) != 0 {
		t.Fatalf("single table: %+v %v", one, err)
	}
}
