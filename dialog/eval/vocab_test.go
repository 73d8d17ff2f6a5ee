package eval

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// fleetSnapshot is a small vehicle fleet of our own: trips link drivers
// and trucks through a table of keys only.
func fleetSnapshot() *warehouse.Snapshot {
	col := func(t, c string) warehouse.Column { return warehouse.Column{Table: t, Name: c, DataType: "varchar"} }
	return &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{
		{Name: "drivers", Columns: []warehouse.Column{col("drivers", "id"), col("drivers", "name"), col("drivers", "depot")}},
		{Name: "trucks", Columns: []warehouse.Column{col("trucks", "id"), col("trucks", "plate"), col("trucks", "fuel_type")}},
		{Name: "assignments", Columns: []warehouse.Column{col("assignments", "driver_id"), col("assignments", "truck_id")}},
	}}}
}

// The simulated user answers a word question as a person who knows the
// data would, and never teaches a word a meaning it does not have.
func TestSimulatedUserAnswersWords(t *testing.T) {
	h := New(nil, fleetSnapshot(), Options{})
	opt := func(label, el string) dialog.Option { return dialog.Option{Label: label, Element: el} }
	tests := []struct {
		name, question, gold, phrase string
		options                      []dialog.Option
		picked                       int
		typed                        string
	}{
		{"picks the gold's table", "how many lorries are there?", "SELECT COUNT(*) FROM trucks", "lorries",
			[]dialog.Option{opt("Drivers", "drivers"), opt("Trucks", "trucks")}, 1, ""},
		{"not an element another word names", "which depot has the most drivers on duty?", "SELECT depot FROM drivers GROUP BY depot ORDER BY COUNT(*) DESC LIMIT 1", "duty",
			[]dialog.Option{opt("Depot", "drivers.depot")}, -1, ""},
		{"types the table no word names", "list the chauffeurs of trucks", "SELECT drivers.name FROM drivers JOIN assignments ON assignments.driver_id = drivers.id JOIN trucks ON trucks.id = assignments.truck_id", "chauffeurs",
			[]dialog.Option{opt("Plate", "trucks.plate")}, -1, "drivers"},
		{"an option named only by its column is still picked", "list the plates of the lorries", "SELECT plate FROM trucks", "lorries",
			[]dialog.Option{opt("Trucks", "trucks")}, 0, ""},
		{"a table named by its column is not typed", "which depot has the most chauffeurs?", "SELECT depot FROM drivers GROUP BY depot ORDER BY COUNT(*) DESC LIMIT 1", "chauffeurs",
			nil, -1, ""},
	}
	for _, tt := range tests {
		c := &dialog.Clarification{ID: "q", Prompt: "By '" + tt.phrase + "', do you mean:", Phrase: tt.phrase, Options: tt.options}
		ch := h.answerWord(context.Background(), &Gold{Question: Question{Question: tt.question, GoldSQL: tt.gold}}, c)
		if ch.Picked != tt.picked || ch.Typed != tt.typed {
			t.Errorf("%s: picked %d typed %q, want %d %q", tt.name, ch.Picked, ch.Typed, tt.picked, tt.typed)
		}
	}
}
