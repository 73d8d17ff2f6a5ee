package sqlshape

import (
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, sql string) *Shape {
	t.Helper()
	s, err := Parse(sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseReadsEveryPart(t *testing.T) {
	s := mustParse(t, `SELECT r.name AS region, SUM(o.net_amount) AS revenue
FROM orders AS o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id
WHERE o.ship_state = 'TX' AND YEAR(o.ordered_at) = 2024 AND o.status IN ('shipped', 'delivered')
GROUP BY r.name HAVING SUM(o.net_amount) > 1000 ORDER BY revenue DESC LIMIT 3`)
	if !reflect.DeepEqual(s.Tables, []string{"orders", "regions", "states"}) {
		t.Errorf("tables %v", s.Tables)
	}
	want := []Output{{Expr: "regions.name", Column: "regions.name", Alias: "region"}, {Expr: "SUM(orders.net_amount)", Agg: "SUM", Column: "orders.net_amount", Alias: "revenue"}}
	if !reflect.DeepEqual(s.Outputs, want) {
		t.Errorf("outputs %+v", s.Outputs)
	}
	wantF := []Filter{
		{Expr: "orders.ship_state", Column: "orders.ship_state", Op: "=", Values: []string{"tx"}, Display: []string{"TX"}},
		{Expr: "orders.ordered_at", Column: "orders.ordered_at", Op: "year", Values: []string{"2024"}, Display: []string{"2024"}},
		{Expr: "orders.status", Column: "orders.status", Op: "in", Values: []string{"delivered", "shipped"}, Display: []string{"shipped", "delivered"}},
		{Expr: "SUM(orders.net_amount)", Column: "orders.net_amount", Op: ">", Values: []string{"1000"}, Display: []string{"1000"}, Having: true},
	}
	if !reflect.DeepEqual(s.Filters, wantF) {
		t.Errorf("filters %+v", s.Filters)
	}
	if !reflect.DeepEqual(s.GroupBy, []string{"regions.name"}) || !reflect.DeepEqual(s.OrderBy, []Order{{Expr: "SUM(orders.net_amount)", Desc: true}}) || s.Limit != 3 {
		t.Errorf("group %v order %v limit %d", s.GroupBy, s.OrderBy, s.Limit)
	}
}

func TestYearWrittenAnyWayReadsTheSame(t *testing.T) {
	forms := []string{
		"SELECT COUNT(*) FROM orders WHERE YEAR(ordered_at) = 2024",
		"SELECT COUNT(*) FROM orders WHERE ordered_at BETWEEN '2024-01-01' AND '2024-12-31'",
		"SELECT COUNT(*) FROM orders WHERE ordered_at >= '2024-01-01' AND ordered_at < '2025-01-01'",
		"SELECT COUNT(*) FROM orders WHERE ordered_at < '2025-01-01' AND ordered_at >= '2024-01-01'",
		"SELECT COUNT(*) FROM orders o WHERE o.ordered_at >= '2024-01-01' AND o.ordered_at <= '2024-12-31'",
	}
	for _, f := range forms {
		s := mustParse(t, f)
		if len(s.Filters) != 1 || s.Filters[0].Op != "year" || s.Filters[0].Values[0] != "2024" || s.Filters[0].Expr != "orders.ordered_at" {
			t.Errorf("%s → %+v", f, s.Filters)
		}
	}
}

func TestSubqueriesAndDoubleQuotes(t *testing.T) {
	s := mustParse(t, `SELECT CITYalias0.CITY_NAME FROM city AS CITYalias0 WHERE CITYalias0.POPULATION = ( SELECT MAX( CITYalias1.POPULATION ) FROM city AS CITYalias1 WHERE CITYalias1.STATE_NAME = "arizona" ) AND CITYalias0.STATE_NAME = "arizona"`)
	if !s.Nested || len(s.Outputs) != 1 || s.Outputs[0].Expr != "city.city_name" {
		t.Fatalf("%+v", s)
	}
	var top, inner int
	for _, f := range s.Filters {
		if f.Expr == "city.state_name" && f.Values[0] == "arizona" {
			if f.Depth == 0 {
				top++
			} else {
				inner++
			}
		}
	}
	if top != 1 || inner != 1 {
		t.Fatalf("filters %+v", s.Filters)
	}
	slots := s.Slots(nil)
	if at(slots, "filteron:arizona") != "city.state_name =" {
		t.Fatalf("slots %v", slots)
	}
}

func TestSlotsSeparateTheReadings(t *testing.T) {
	alias := func(v string) string {
		if v == "tx" {
			return "texas"
		}
		return v
	}
	a := mustParse(t, "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.state = 'Texas' AND YEAR(o.ordered_at) = 2024").Slots(alias)
	b := mustParse(t, "SELECT COUNT(*) FROM orders WHERE ship_state = 'TX' AND YEAR(shipped_at) = 2024").Slots(alias)
	if at(a, "filteron:texas") != "customers.state =" || at(b, "filteron:texas") != "orders.ship_state =" {
		t.Fatalf("value slot: %q vs %q", at(a, "filteron:texas"), at(b, "filteron:texas"))
	}
	if at(a, "filteron:2024") != "orders.ordered_at year" || at(b, "filteron:2024") != "orders.shipped_at year" {
		t.Fatalf("year slot: %q vs %q", at(a, "filteron:2024"), at(b, "filteron:2024"))
	}
	if at(a, string(SlotMeasure)) != "COUNT(*)" || at(a, string(SlotMeasure)) != at(b, string(SlotMeasure)) {
		t.Fatalf("measure: %q vs %q", at(a, string(SlotMeasure)), at(b, string(SlotMeasure)))
	}
	if at(a, string(SlotTables)) == at(b, string(SlotTables)) {
		t.Fatal("join paths should differ")
	}
	c := mustParse(t, "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY SUM(o.net_amount) DESC LIMIT 1").Slots(nil)
	if at(c, string(SlotMeasure)) != "SUM(orders.net_amount)" || at(c, string(SlotOutput)) != "customers.name" || at(c, string(SlotOrder)) != "SUM(orders.net_amount) desc" || at(c, string(SlotLimit)) != "1" {
		t.Fatalf("superlative slots: %v", c)
	}
}

func TestOrderByPositionAndAlias(t *testing.T) {
	s := mustParse(t, "SELECT p.name, SUM(l.quantity) AS units FROM order_lines l JOIN products p ON p.id = l.product_id GROUP BY 1 ORDER BY units DESC, 1")
	if s.GroupBy[0] != "products.name" || s.OrderBy[0].Expr != "SUM(order_lines.quantity)" || !s.OrderBy[0].Desc || s.OrderBy[1].Expr != "products.name" {
		t.Fatalf("%+v %+v", s.GroupBy, s.OrderBy)
	}
}

func TestUnqualifiedColumnsUseTheResolver(t *testing.T) {
	res := func(col string, tables []string) string {
		if col == "email" {
			return "customers"
		}
		return ""
	}
	s, err := Parse("SELECT email FROM orders JOIN customers ON customers.id = orders.customer_id", res)
	if err != nil {
		t.Fatal(err)
	}
	if s.Outputs[0].Expr != "customers.email" {
		t.Fatalf("%+v", s.Outputs)
	}
}

func TestParseRefusesWrites(t *testing.T) {
	if _, err := Parse("DELETE FROM orders", nil); err == nil || !strings.Contains(err.Error(), "DELETE") {
		t.Fatalf("got %v", err)
	}
}

func TestExtremumSubqueryReadsAsOrderLimit(t *testing.T) {
	a := mustParse(t, `SELECT RIVERalias0.RIVER_NAME FROM river AS RIVERalias0 WHERE RIVERalias0.LENGTH = ( SELECT MAX( RIVERalias1.LENGTH ) FROM river AS RIVERalias1 )`).Slots(nil)
	b := mustParse(t, `SELECT river.river_name FROM river ORDER BY river.length DESC LIMIT 1`).Slots(nil)
	for _, k := range []SlotName{SlotOrder, SlotLimit, SlotOutput, SlotMeasure} {
		if at(a, string(k)) != at(b, string(k)) {
			t.Errorf("%s: %q vs %q", k, at(a, string(k)), at(b, string(k)))
		}
	}
	c := mustParse(t, `SELECT name FROM city WHERE population = (SELECT MIN(population) FROM city WHERE state = 'ohio') AND state = 'ohio'`)
	if c.Limit != 1 || c.OrderBy[0].Desc || c.OrderBy[0].Expr != "city.population" {
		t.Fatalf("%+v", c)
	}
	// A subquery on another column is a filter, not a superlative.
	d := mustParse(t, `SELECT name FROM city WHERE population = (SELECT MAX(area) FROM state)`)
	if d.Limit != -1 || len(d.OrderBy) != 0 {
		t.Fatalf("%+v", d)
	}
}

// at is the canonical form of the value under a canonical key.
func at(s Slots, key string) string { return s.Get(ParseSlotKey(key)).String() }
