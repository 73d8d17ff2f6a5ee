package offline

import (
	"testing"

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
