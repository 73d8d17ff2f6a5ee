package plan

import (
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// fleetBuilder builds plans over a small fleet of our own: trips refer
// to their vehicle.
func fleetBuilder(t *testing.T) *Builder {
	t.Helper()
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{
		Tables: []warehouse.Table{
			{Name: "vehicles", PrimaryKey: []string{"vehicle_id"}, Columns: []warehouse.Column{{Table: "vehicles", Name: "vehicle_id", DataType: "int"}, {Table: "vehicles", Name: "plate", DataType: "varchar"}}},
			{Name: "trips", PrimaryKey: []string{"trip_id"}, Columns: []warehouse.Column{{Table: "trips", Name: "trip_id", DataType: "int"}, {Table: "trips", Name: "vehicle_id", DataType: "int"}, {Table: "trips", Name: "km", DataType: "int"}, {Table: "trips", Name: "started_at", DataType: "date"}}},
		},
		Joins: []warehouse.Join{{FromTable: "trips", FromColumn: "vehicle_id", ToTable: "vehicles", ToColumn: "vehicle_id", Declared: true, Confidence: 1}},
	}}
	m := schema.New(catalog.New(snap, catalog.Options{}))
	return NewBuilder(m, nil, links.NewReader(m, nil), time.Now)
}

// TestRefTarget: a column that refers to another table's rows stands for
// that table; any other column for none.
func TestRefTarget(t *testing.T) {
	r := &reader{e: fleetBuilder(t)}
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
	e := fleetBuilder(t)
	a := read.Analyse(e.reader, "how many long haul trips last week?", nil, nil, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
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

// TestTimeBucket: a date's period renders as the engine has always
// written it, so that results and slot keys stay the same.
func TestTimeBucket(t *testing.T) {
	m := &schema.Model{}
	d := sqlexpr.Col("trips", "started_at")
	for _, c := range []struct {
		unit       string
		withinYear bool
		want       string
	}{
		{"quarter", false, "CONCAT(YEAR(trips.started_at), '-Q', QUARTER(trips.started_at))"},
		{"year", false, "YEAR(trips.started_at)"},
		{"month", true, "MONTH(trips.started_at)"},
	} {
		if got := timeBucket(d, c.unit, c.withinYear).Render(m); got != c.want {
			t.Errorf("timeBucket(%s, within year %v) = %q, want %q", c.unit, c.withinYear, got, c.want)
		}
	}
}
