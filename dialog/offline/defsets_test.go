package offline_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// A fleet's vehicles, in no evaluation set: a few-valued status column
// with the negation of the word asked about ("inactive"), values the
// lexicon relates to that negation ("dormant", "retired") and values that
// neither relate to the word nor oppose it.
const fleetDump = `
CREATE TABLE vehicles (Id INT PRIMARY KEY, Plate VARCHAR(12), Status VARCHAR(20) COMMENT 'Vehicle status', Mileage INT);
INSERT INTO vehicles VALUES (1, 'AB-101', 'Running', 40100), (2, 'AB-102', 'Running', 30200), (3, 'AB-103', 'Inactive', 40000),
  (4, 'AB-104', 'Dormant', 20000), (5, 'AB-105', 'In Repair', 30000), (6, 'AB-106', 'Running', 41000), (7, 'AB-107', 'Retired', 90000),
  (8, 'AB-108', 'In Repair', 35000), (9, 'AB-109', 'Dormant', 21000);
`

// The plants of define_test.go with a negated status.
const plantsNegatedDump = `
CREATE TABLE power_plants (Id INT PRIMARY KEY, Name VARCHAR(80), Status VARCHAR(40));
INSERT INTO power_plants VALUES (1, 'Ohi-3', 'Operational'), (2, 'Ohi-4', 'Operational'), (3, 'Shimane-3', 'Under Construction'),
  (4, 'Monju', 'Non-operational'), (5, 'Gravelines-1', 'Operational'), (6, 'Hamaoka-6', 'Planned'), (7, 'Fessenheim-1', 'Non-operational');
`

// The meanings offered for a word over a status column leave out its
// opposites — its negation, and what the lexicon relates to the negation —
// and offer everything but them as a set; values unrelated to the word
// are never paired by an unclear likeness.
func TestDefinitionSetsLeaveOutOpposites(t *testing.T) {
	for _, tc := range []struct {
		name, dump, question, phrase string
		want, never                  []string
		first                        string
	}{
		{name: "fleet", dump: fleetDump, question: "How many active vehicles are there?", phrase: "active",
			want:  []string{"Status is Running", "Status is Running or In Repair"},
			never: []string{"Inactive", "Dormant", "Retired"}},
		{name: "plants", dump: plantsNegatedDump, question: "How many operating power plants are there?", phrase: "operating",
			want:  []string{"Status is Operational", "Status is Operational or Planned or Under Construction"},
			never: []string{"Non-operational"}, first: "Status is Operational"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := engineOn(t, tc.dump)
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("%v %+v", err, p)
			}
			var labels []string
			for _, c := range p.Candidates {
				for _, d := range c.Defines {
					if d.Phrase == tc.phrase && !slices.Contains(labels, d.Label) {
						labels = append(labels, d.Label)
					}
				}
			}
			for _, w := range tc.want {
				if !slices.Contains(labels, w) {
					t.Errorf("meanings %q lack %q", labels, w)
				}
			}
			for _, l := range labels {
				for _, n := range tc.never {
					if strings.Contains(l, n) {
						t.Errorf("an opposite of %q is offered as its meaning: %q", tc.phrase, l)
					}
				}
			}
			if first := p.Candidates[0]; tc.first != "" && (len(first.Defines) != 1 || first.Defines[0].Label != tc.first) {
				t.Errorf("the nearest value should come first: %+v", first.Defines)
			}
		})
	}
}
