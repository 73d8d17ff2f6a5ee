package offline

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// TestContradicts: equality with two different literals on one column is
// a contradiction; the same literal twice, or two columns, is not.
func TestContradicts(t *testing.T) {
	m := &schema.Model{Reserved: map[string]bool{}}
	name, town := col("patients", "full_name"), col("patients", "town")
	cases := []struct {
		conds []expr
		want  bool
	}{
		{[]expr{cmp(name, "=", strLit("Ann")), cmp(name, "=", strLit("Bob"))}, true},
		{[]expr{cmp(name, "=", strLit("Ann")), cmp(name, "=", strLit("ann"))}, false},
		{[]expr{cmp(name, "=", strLit("Ann")), cmp(town, "=", strLit("Bob"))}, false},
		{[]expr{cmp(name, "=", strLit("Ann")), cmp(name, "<>", strLit("Bob"))}, false},
		{[]expr{cmp(col("visits", "units"), "=", numLit("2")), cmp(col("visits", "units"), "=", numLit("3"))}, true},
	}
	for _, tc := range cases {
		p := &plan.Plan{}
		for _, c := range tc.conds {
			p.Filters = append(p.Filters, plan.Cond{X: c})
		}
		if got := plan.Contradicts(m, p); got != tc.want {
			t.Errorf("%v: contradicts = %v, want %v", tc.conds, got, tc.want)
		}
	}
}

// TestTypedPartsRender: the typed parts render to the SQL the engine has
// always written, so that results and slot keys stay the same.
func TestTypedPartsRender(t *testing.T) {
	m := &schema.Model{Reserved: map[string]bool{"order": true}}
	cases := []struct {
		x    expr
		want string
	}{
		{aggOver("SUM", col("orders", "net_amount")), "SUM(orders.net_amount)"},
		{countAll, "COUNT(*)"},
		{aggExpr{Fn: "COUNT", Distinct: true, Arg: col("order", "id")}, "COUNT(DISTINCT `order`.id)"},
		{cmp(fn1("LOWER", col("t", "c")), "LIKE", strLit("%o'k%")), "LOWER(t.c) LIKE '%o''k%'"},
		{read.Ratio(col("t", "a"), col("t", "b")), "t.a * 1e0 / NULLIF(t.b, 0)"},
		{inList{X: col("t", "s"), Vals: []expr{strLit("a"), strLit("b")}}, "t.s IN ('a', 'b')"},
		{caseWhen{Cond: cmp(col("t", "s"), "=", strLit("x")), Then: numLit("1")}, "CASE WHEN t.s = 'x' THEN 1 END"},
	}
	for _, tc := range cases {
		if got := tc.x.Render(m); got != tc.want {
			t.Errorf("render = %q, want %q", got, tc.want)
		}
	}
}

// TestRankedWithoutGroups: a ranking by a count needs groups to count in
// when it shows plain columns; totals alone, or groups, are fine.
func TestRankedWithoutGroups(t *testing.T) {
	code := col("vehicles", "model_code")
	for _, tc := range []struct {
		name string
		p    plan.Plan
		want bool
	}{
		{"plain column by a count, no groups", plan.Plan{Selects: []plan.Sel{{X: code}}, Order: &plan.Sel{X: countAll}}, true},
		{"grouped", plan.Plan{Selects: []plan.Sel{{X: code}}, Groups: []plan.Sel{{X: code}}, Order: &plan.Sel{X: countAll}}, false},
		{"totals only", plan.Plan{Selects: []plan.Sel{{X: countAll}}, Order: &plan.Sel{X: countAll}}, false},
		{"ordered by a column", plan.Plan{Selects: []plan.Sel{{X: code}}, Order: &plan.Sel{X: code}}, false},
	} {
		if got := rankedWithoutGroups(&tc.p); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// "the exists-and-joined" contradiction: a negated relation over a
	// table the reading also joins.
	p := &plan.Plan{Tables: map[string]bool{"trips": true, "vehicles": true}}
	p.Filters = []plan.Cond{{X: exists{Not: true, Sub: selectQuery{Selects: []expr{numLit("1")}, From: fromList{First: source{Table: "trips"}},
		Where: []expr{cmp(col("trips", "vehicle_id"), "=", col("vehicles", "vehicle_id"))}}, Tables: []string{"trips"}}}}
	if !plan.Contradicts(&schema.Model{Reserved: map[string]bool{}}, p) {
		t.Error("no trips and a join to trips should contradict")
	}
	p.Tables = map[string]bool{"vehicles": true}
	if plan.Contradicts(&schema.Model{Reserved: map[string]bool{}}, p) {
		t.Error("no trips alone is no contradiction")
	}
}

// TestRepeatsShown: a join from a shown table to its parent by the
// parent's key repeats none of its rows; a join to its children does, and
// a shown column that refers to another table shows that table's rows,
// which many of its own share.
func TestRepeatsShown(t *testing.T) {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{
		Tables: []warehouse.Table{
			{Name: "wards", PrimaryKey: []string{"ward_id"}, Columns: []warehouse.Column{{Table: "wards", Name: "ward_id", DataType: "int"}, {Table: "wards", Name: "ward_name", DataType: "varchar"}}},
			{Name: "beds", PrimaryKey: []string{"bed_id"}, Columns: []warehouse.Column{{Table: "beds", Name: "bed_id", DataType: "int"}, {Table: "beds", Name: "ward_id", DataType: "int"}, {Table: "beds", Name: "bed_label", DataType: "varchar"}}},
		},
		Joins: []warehouse.Join{{FromTable: "beds", FromColumn: "ward_id", ToTable: "wards", ToColumn: "ward_id", Declared: true, Confidence: 1}},
	}}
	e := New(catalog.New(snap, catalog.Options{}), Options{})
	tree, err := e.m.Cat.JoinPath("beds", "wards")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		shown   colRef
		repeats bool
	}{
		{col("beds", "bed_label"), false},
		{col("beds", "ward_id"), true},
		{col("wards", "ward_name"), true},
	} {
		p := &plan.Plan{Selects: []plan.Sel{{X: tc.shown}}}
		if got := e.repeatsShown(p, tree); got != tc.repeats {
			t.Errorf("%v: repeats %v, want %v", tc.shown, got, tc.repeats)
		}
	}
}
