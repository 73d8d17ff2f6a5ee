package links_test

import (
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// fleet is a small schema of our own: vans belong to depots in towns.
func fleet(t *testing.T) *links.Reader {
	t.Helper()
	cols := testwh.Columns
	snap := &warehouse.Snapshot{
		Schema: warehouse.Schema{
			Tables: []warehouse.Table{
				{Name: "depots", PrimaryKey: []string{"depot_id"}, RowCount: 4, Columns: cols("depots", "depot_id", "int", "town", "varchar")},
				{Name: "vans", PrimaryKey: []string{"van_id"}, RowCount: 40, Columns: cols("vans", "van_id", "int", "depot_id", "int", "plate", "varchar", "bought_on", "date")},
			},
			Joins: []warehouse.Join{{FromTable: "vans", FromColumn: "depot_id", ToTable: "depots", ToColumn: "depot_id", Declared: true, Confidence: 1}},
		},
		Profiles: []warehouse.Profile{{Table: "depots", Column: "town", Rows: 4, Distinct: 4, Values: []string{"Ashby", "Brill", "Cole", "Dunmore"}, ValuesComplete: true}},
	}
	return links.NewReader(schema.New(catalog.New(snap, catalog.Options{})), nil)
}

// TestLinks: each linker links its words and marks them taken; a word no
// linker takes is left for the later stages.
func TestLinks(t *testing.T) {
	r := fleet(t)
	a := &links.Analysis{CountAt: -1, AggAt: -1, Toks: token.JoinNumbers(token.Lex("vans bought in 2024 at Brill with a plate", 0))}
	a.FindTimes(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	r.FindValues(a)
	r.FindEntities(a)
	r.FindColumns(a)
	if len(a.Times) != 1 || a.Times[0].From != "2024-01-01" || a.Times[0].To != "2025-01-01" {
		t.Errorf("times %v, want 2024", a.Mentions())
	}
	if len(a.Values) != 1 || a.Values[0].Alts[0].Column != "town" || a.Values[0].Alts[0].Value != "Brill" {
		t.Errorf("values %v, want depots.town = Brill", a.Mentions())
	}
	if len(a.Entities) == 0 || a.Entities[0].Tables[0].Name != "vans" {
		t.Errorf("entities %v, want vans", a.Mentions())
	}
	if len(a.Columns) != 2 || a.Columns[0].Alts[0].Column != "bought_on" || a.Columns[1].Alts[0].Column != "plate" {
		t.Errorf("columns %v, want vans.bought_on for the verb and vans.plate", a.Mentions())
	}
	for _, w := range []int{0, 3, 5, 8} { // vans, 2024, Brill, plate
		if !a.Toks[w].Used {
			t.Errorf("%q not marked taken", a.Toks[w].Raw)
		}
	}
	if a.Toks[6].Used {
		t.Errorf("%q taken by a linker", a.Toks[6].Raw)
	}
}
