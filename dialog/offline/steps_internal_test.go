package offline

import (
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// fleetEngine is an engine over a small fleet of our own: trips refer to
// their vehicle.
func fleetEngine(t *testing.T) *Engine {
	t.Helper()
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{
		Tables: []warehouse.Table{
			{Name: "vehicles", PrimaryKey: []string{"vehicle_id"}, Columns: []warehouse.Column{{Table: "vehicles", Name: "vehicle_id", DataType: "int"}, {Table: "vehicles", Name: "plate", DataType: "varchar"}}},
			{Name: "trips", PrimaryKey: []string{"trip_id"}, Columns: []warehouse.Column{{Table: "trips", Name: "trip_id", DataType: "int"}, {Table: "trips", Name: "vehicle_id", DataType: "int"}, {Table: "trips", Name: "km", DataType: "int"}}},
		},
		Joins: []warehouse.Join{{FromTable: "trips", FromColumn: "vehicle_id", ToTable: "vehicles", ToColumn: "vehicle_id", Declared: true, Confidence: 1}},
	}}
	return New(catalog.New(snap, catalog.Options{}), Options{})
}

// TestRefTarget: a column that refers to another table's rows stands for
// that table; any other column for none.
func TestRefTarget(t *testing.T) {
	r := &reader{e: fleetEngine(t)}
	for in, want := range map[string]string{"trips.vehicle_id": "vehicles", "TRIPS.Vehicle_ID": "vehicles", "trips.km": "", "vehicles.vehicle_id": ""} {
		if got := r.refTarget(in); got != want {
			t.Errorf("refTarget(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestSpelledTerm: a phrase typed as a definition is found where the
// question spells it, as a mention qualifying the head table; not in
// feedback, and not without a head.
func TestSpelledTerm(t *testing.T) {
	e := fleetEngine(t)
	a := e.reader.Analyse("how many long haul trips last week?", nil, nil, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	head := e.m.ByName["trips"]
	tm := e.spelledTerm(a, "long haul", head)
	if tm == nil || tm.at != 2 || tm.end != 4 || tm.subject != head || tm.phrase != "long haul" {
		t.Fatalf("spelledTerm = %+v, want 'long haul' at 2..4 on trips", tm)
	}
	if e.spelledTerm(a, "short haul", head) != nil {
		t.Error("a phrase the question does not spell is no mention")
	}
	if e.spelledTerm(a, "long haul", nil) != nil {
		t.Error("with no head there is nothing to qualify")
	}
}
