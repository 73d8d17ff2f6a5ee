package eval

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// What the simulated user types under Other… when no option is the
// gold's meaning: the part of the gold the question is about, in plain
// words, never SQL.
func TestTypedMeaningWordsTheGold(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	for _, tc := range []struct {
		name, question, gold, key, want string
	}{
		{"measure", "how much can northfield carry", "SELECT SUM(capacity) FROM truck WHERE depot_name = 'northfield'", "measure", "sum of capacity"},
		{"count of rows", "how many trucks in northfield", "SELECT COUNT(*) FROM truck WHERE depot_name = 'northfield'", "measure", "number of truck"},
		{"difference of measures", "how roomy is northfield", "SELECT SUM(area) - SUM(occupancy) FROM depot WHERE depot_name = 'northfield'", "measure", "sum of area minus sum of occupancy"},
		{"ranking", "which is the best depot", "SELECT depot_name FROM depot ORDER BY SUM(capacity) DESC LIMIT 1", "order", "highest sum of capacity"},
		{"ranking asked as a measure", "which is the best depot", "SELECT depot_name FROM depot GROUP BY depot_name ORDER BY AVG(area) ASC LIMIT 1", "measure", "average of area"},
		{"column of a value", "trucks in eastport", "SELECT truck_name FROM truck WHERE depot_name = 'eastport'", "filteron:eastport", "truck depot name"},
		{"column only one table has", "trucks bigger than 100", "SELECT truck_name FROM truck WHERE capacity > 100", "output", "truck name"},
		{"columns to show", "list the big depots", "SELECT depot_name, flagship, area FROM depot WHERE area > 12000", "output", "depot name, flagship and area"},
		{"a total where rows were offered", "capacity of big depots", "SELECT SUM(capacity) FROM depot WHERE area > 12000", "output", "sum of capacity"},
		{"values the question does not name", "how many busy trucks in northfield", "SELECT COUNT(*) FROM truck WHERE depot_name = 'northfield' AND truck_name IN ('drake', 'ember')", "definition:busy", "truck name is drake or ember"},
		{"negated values", "how many quiet depots", "SELECT COUNT(*) FROM depot WHERE flagship NOT IN ('falcon')", "definition:quiet", "flagship is not falcon"},
		{"related rows", "how many served depots", "SELECT COUNT(*) FROM depot s WHERE EXISTS (SELECT 1 FROM route r WHERE r.passes = s.depot_name)", "definition:served", "has route"},
		{"no related rows", "how many idle depots", "SELECT COUNT(*) FROM depot s WHERE NOT EXISTS (SELECT 1 FROM route r WHERE r.passes = s.depot_name)", "definition:idle", "has no route"},
		{"nothing to say", "how many trucks in northfield", "SELECT COUNT(*) FROM truck WHERE depot_name = 'northfield'", "definition:any", ""},
		{"no typing for joins", "trucks in eastport", "SELECT truck_name FROM truck WHERE depot_name = 'eastport'", "tables", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := e.gold(t, Question{ID: tc.name, Question: tc.question, GoldSQL: tc.gold})
			c := &dialog.Clarification{Key: sqlshape.ParseSlotKey(tc.key)}
			if got := e.harness.typedMeaning(g, c); got != tc.want {
				t.Fatalf("typed %q, want %q", got, tc.want)
			}
		})
	}
}
