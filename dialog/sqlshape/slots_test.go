package sqlshape

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestSlotValuesAreStructured(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		key   SlotKey
		text  string
		parts []Part
		joins []Join
	}{
		{
			name: "measures sorted, aggregates split",
			sql:  "SELECT SUM(o.net_amount), COUNT(DISTINCT o.customer_id) FROM orders o",
			key:  Key(SlotMeasure),
			text: "COUNT(DISTINCT orders.customer_id) | SUM(orders.net_amount)",
			parts: []Part{
				{Expr: "COUNT(DISTINCT orders.customer_id)", Fn: "COUNT", Arg: "orders.customer_id"},
				{Expr: "SUM(orders.net_amount)", Fn: "SUM", Arg: "orders.net_amount"},
			},
		},
		{
			name:  "a ratio of aggregates is one expression, not a call",
			sql:   "SELECT SUM(o.net_amount) / COUNT(*) FROM orders o",
			key:   Key(SlotMeasure),
			text:  "SUM(orders.net_amount) div COUNT(*)",
			parts: []Part{{Expr: "SUM(orders.net_amount) div COUNT(*)"}},
		},
		{
			name:  "outputs in select order",
			sql:   "SELECT c.id, c.name FROM customers c",
			key:   Key(SlotOutput),
			text:  "customers.id, customers.name",
			parts: []Part{{Expr: "customers.id"}, {Expr: "customers.name"}},
		},
		{
			name:  "a figure beside the labels is shown",
			sql:   "SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) DESC LIMIT 2",
			key:   Key(SlotOutput),
			text:  "customers.name, COUNT(*)",
			parts: []Part{{Expr: "customers.name"}, {Expr: "COUNT(*)", Fn: "COUNT", Arg: "*"}},
		},
		{
			name: "a figure alone is the answer, not an output",
			sql:  "SELECT COUNT(*) FROM orders o",
			key:  Key(SlotOutput),
			text: "",
		},
		{
			name:  "a value compared in two places",
			sql:   "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.state = 'TX' AND o.ship_state = 'TX'",
			key:   FilterOnKey([]string{"tx"}, nil),
			text:  "customers.state = & orders.ship_state =",
			parts: []Part{{Expr: "customers.state", Op: "="}, {Expr: "orders.ship_state", Op: "="}},
		},
		{
			name:  "literals with the old separators stay whole",
			sql:   "SELECT COUNT(*) FROM products p WHERE p.name = 'Nuts, Bolts | Washers'",
			key:   WhereKey("products.name"),
			text:  "= nuts, bolts | washers",
			parts: []Part{{Expr: "products.name", Op: "=", Values: []string{"nuts, bolts | washers"}}},
		},
		{
			name:  "ordering with direction",
			sql:   "SELECT c.name FROM customers c ORDER BY c.created_at DESC, c.name",
			key:   Key(SlotOrder),
			text:  "customers.created_at desc, customers.name asc",
			parts: []Part{{Expr: "customers.created_at", Op: "desc"}, {Expr: "customers.name", Op: "asc"}},
		},
		{
			name:  "tables and joins",
			sql:   "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id",
			key:   Key(SlotTables),
			text:  "customers, orders | customers.id = orders.customer_id",
			parts: []Part{{Expr: "customers"}, {Expr: "orders"}},
			joins: []Join{{Left: "customers.id", Right: "orders.customer_id"}},
		},
		{
			name: "no limit is an empty value",
			sql:  "SELECT c.name FROM customers c",
			key:  Key(SlotLimit),
			text: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustParse(t, tc.sql).Slots(nil).Get(tc.key)
			if v.String() != tc.text {
				t.Errorf("text %q, want %q", v.String(), tc.text)
			}
			if !slices.EqualFunc(v.Parts, tc.parts, func(a, b Part) bool {
				return a.Expr == b.Expr && a.Fn == b.Fn && a.Arg == b.Arg && a.Op == b.Op && slices.Equal(a.Values, b.Values)
			}) {
				t.Errorf("parts %+v, want %+v", v.Parts, tc.parts)
			}
			if !slices.Equal(v.Joins, tc.joins) {
				t.Errorf("joins %+v, want %+v", v.Joins, tc.joins)
			}
			// The stored form gives back the same value.
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var back SlotValue
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !back.Equal(v) || back.String() != v.String() || len(back.Parts) != len(v.Parts) {
				t.Errorf("round trip %+v, want %+v", back, v)
			}
		})
	}
}

func TestSlotKeysAreMapKeysInJSON(t *testing.T) {
	in := map[SlotKey]string{
		Key(SlotMeasure):                       "revenue",
		FilterOnKey([]string{"TX", "ca"}, nil): "texas",
		WhereKey("orders.ship_state"):          "shipped to",
		{Name: SlotFilterOn, Arg: "a:b"}:       "colons in the argument",
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out map[SlotKey]string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%v", out)
	}
	for k, v := range in {
		if out[k] != v {
			t.Errorf("%v: %q, want %q (json %s)", k, out[k], v, b)
		}
	}
	if got := FilterOnKey([]string{"TX", "ca"}, nil).String(); got != "filteron:TX,ca" {
		t.Errorf("key form %q", got)
	}
}

func TestSplitAggregate(t *testing.T) {
	tests := []struct{ expr, fn, arg string }{
		{"SUM(orders.net_amount)", "SUM", "orders.net_amount"},
		{"COUNT(*)", "COUNT", "*"},
		{"COUNT(DISTINCT orders.customer_id)", "COUNT", "orders.customer_id"},
		{"SUM(a.x * a.y)", "SUM", "a.x * a.y"},
		{"SUM(a.x) div SUM(a.y)", "", "SUM(a.x) div SUM(a.y)"},
		{"YEAR(orders.ordered_at)", "", "YEAR(orders.ordered_at)"},
		{"orders.total", "", "orders.total"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			if fn, arg := SplitAggregate(tc.expr); fn != tc.fn || arg != tc.arg {
				t.Fatalf("got %q %q, want %q %q", fn, arg, tc.fn, tc.arg)
			}
		})
	}
}
