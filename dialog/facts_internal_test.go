package dialog

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// A remembered column decides a point only while its reading stays
// plausible beside the best one the question's own words give.
func TestRememberedReadingMustStayPlausible(t *testing.T) {
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
