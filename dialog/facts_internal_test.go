package dialog

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// A remembered column decides a point only while its reading stays
// plausible beside the best one the question's own words give.
func TestRememberedReadingMustStayPlausible(t *testing.T) {
	t.Parallel()
	value := func(col string, p float64) pointValue {
		return pointValue{Value: sqlshape.SlotValue{Parts: []sqlshape.Part{{Expr: col}}}, P: p}
	}
	tok := ontology.Term{Kind: ontology.TermColumn, Column: "depots.capacity"}
	for _, tc := range []struct {
		name      string
		values    []pointValue
		plausible bool
	}{
		{"close second", []pointValue{value("vans.capacity", 0.5), value("depots.capacity", 0.3)}, true},
		{"the best", []pointValue{value("depots.capacity", 0.6), value("vans.capacity", 0.3)}, true},
		{"far behind", []pointValue{value("vans.capacity", 0.8), value("depots.capacity", 0.1)}, false},
	} {
		remembered, best := heldShare(point{Values: tc.values}, tok)
		if got := remembered >= implausibleFact*best; got != tc.plausible {
			t.Errorf("%s: plausible %v, want %v (%.2f of %.2f)", tc.name, got, tc.plausible, remembered, best)
		}
	}
}

// A point whose other readings are the same column of other tables asks
// which thing's, not what the word means: a remembered meaning of the
// word does not decide it.
func TestRememberedColumnDoesNotChooseTheTable(t *testing.T) {
	t.Parallel()
	value := func(p float64, cols ...string) pointValue {
		var parts []sqlshape.Part
		for _, c := range cols {
			parts = append(parts, sqlshape.Part{Expr: c})
		}
		return pointValue{Value: sqlshape.SlotValue{Parts: parts}, P: p}
	}
	column := ontology.Term{Kind: ontology.TermColumn, Column: "depots.capacity"}
	list := ontology.Term{Kind: ontology.TermList, Items: []string{"depots.capacity"}}
	for _, tc := range []struct {
		name   string
		tok    ontology.Term
		values []pointValue
		entity bool
	}{
		{"another table's capacity", column, []pointValue{value(0.5, "vans.capacity"), value(0.4, "depots.capacity")}, true},
		{"shown, another table's", list, []pointValue{value(0.5, "depots.capacity"), value(0.4, "vans.capacity")}, true},
		{"another column", column, []pointValue{value(0.5, "depots.floor_area"), value(0.4, "depots.capacity")}, false},
		{"one of each", column, []pointValue{value(0.5, "vans.capacity"), value(0.3, "depots.floor_area"), value(0.2, "depots.capacity")}, false},
		{"nothing else offered", column, []pointValue{value(0.9, "depots.capacity")}, false},
		{"an unlikely other column is not offered", column, []pointValue{value(0.6, "vans.capacity"), value(0.35, "depots.capacity"), value(0.01, "depots.floor_area")}, true},
	} {
		if got := entityPoint(tc.tok, point{Values: tc.values}); got != tc.entity {
			t.Errorf("%s: entity point %v, want %v", tc.name, got, tc.entity)
		}
	}
}

// A definition learned for one kind of thing does not decide a phrase the
// question also puts before another kind.
func TestDefinitionNotForAnotherThing(t *testing.T) {
	t.Parallel()
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{
		{Name: "clinics", Columns: []warehouse.Column{{Name: "id"}, {Name: "beds"}}},
		{Name: "wards", Columns: []warehouse.Column{{Name: "id"}, {Name: "clinic_id"}, {Name: "beds"}}},
	}}}
	m := &Manager{deps: Deps{Catalog: catalog.New(snap, catalog.Options{})}}
	for _, tc := range []struct {
		text, subject string
		other         bool
	}{
		{"which major clinics have a maternity ward", "clinics", false},
		{"major wards in major clinics", "clinics", true},
		{"how many beds in major wards", "clinics", true},
		{"major wards in major clinics", "", false},
		{"major clinic ward counts", "clinics", false},
	} {
		if got := m.qualifiesOther(" "+tc.text+" ", "major", tc.subject); got != tc.other {
			t.Errorf("%q (defined for %q): another thing %v, want %v", tc.text, tc.subject, got, tc.other)
		}
	}
}

// A choice about a condition holds for the same column's condition only.
func TestConditionChoiceStaysOnItsColumn(t *testing.T) {
	t.Parallel()
	learned := ontology.Target{Slot: string(sqlshape.SlotWhere), Arg: "depots.floor_area"}
	for _, tc := range []struct {
		key       sqlshape.SlotKey
		elsewhere bool
	}{
		{sqlshape.SlotKey{Name: sqlshape.SlotWhere, Arg: "depots.floor_area"}, false},
		{sqlshape.SlotKey{Name: sqlshape.SlotWhere, Arg: "DEPOTS.FLOOR_AREA"}, false},
		{sqlshape.SlotKey{Name: sqlshape.SlotWhere, Arg: "depots.staff"}, true},
		{sqlshape.SlotKey{Name: sqlshape.SlotFilterOn, Arg: "ashby"}, false},
	} {
		if got := conditionElsewhere(learned, tc.key); got != tc.elsewhere {
			t.Errorf("%v: elsewhere %v, want %v", tc.key, got, tc.elsewhere)
		}
	}
}
