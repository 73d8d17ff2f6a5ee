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
		{"measure", "how many people live in texas", "SELECT SUM(population) FROM city WHERE state_name = 'texas'", "measure", "sum of population"},
		{"count of rows", "how many cities in texas", "SELECT COUNT(*) FROM city WHERE state_name = 'texas'", "measure", "number of city"},
		{"difference of measures", "how big is texas", "SELECT SUM(area) - SUM(density) FROM state WHERE state_name = 'texas'", "measure", "sum of area minus sum of density"},
		{"ranking", "which is the best state", "SELECT state_name FROM state ORDER BY SUM(population) DESC LIMIT 1", "order", "highest sum of population"},
		{"ranking asked as a measure", "which is the best state", "SELECT state_name FROM state GROUP BY state_name ORDER BY AVG(area) ASC LIMIT 1", "measure", "average of area"},
		{"column of a value", "cities in arizona", "SELECT city_name FROM city WHERE state_name = 'arizona'", "filteron:arizona", "city state name"},
		{"column only one table has", "cities bigger than 100", "SELECT city_name FROM city WHERE population > 100", "output", "city name"},
		{"columns to show", "list the big states", "SELECT state_name, capital, area FROM state WHERE area > 100000", "output", "state name, capital and area"},
		{"a total where rows were offered", "population of big states", "SELECT SUM(population) FROM state WHERE area > 100000", "output", "sum of population"},
		{"values the question does not name", "how many busy cities in texas", "SELECT COUNT(*) FROM city WHERE state_name = 'texas' AND city_name IN ('houston', 'dallas')", "definition:busy", "city name is houston or dallas"},
		{"negated values", "how many quiet states", "SELECT COUNT(*) FROM state WHERE capital NOT IN ('austin')", "definition:quiet", "capital is not austin"},
		{"related rows", "how many watered states", "SELECT COUNT(*) FROM state s WHERE EXISTS (SELECT 1 FROM river r WHERE r.traverse = s.state_name)", "definition:watered", "has river"},
		{"no related rows", "how many dry states", "SELECT COUNT(*) FROM state s WHERE NOT EXISTS (SELECT 1 FROM river r WHERE r.traverse = s.state_name)", "definition:dry", "has no river"},
		{"nothing to say", "how many cities in texas", "SELECT COUNT(*) FROM city WHERE state_name = 'texas'", "definition:any", ""},
		{"no typing for joins", "cities in arizona", "SELECT city_name FROM city WHERE state_name = 'arizona'", "tables", ""},
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
