package catalog

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// TestSynonymFileParses: the embedded file loads, explains itself in a
// comment before its first entry and is lower case, as the analyzer
// compares words.
func TestSynonymFileParses(t *testing.T) {
	m, err := parseSynonyms(synonymFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		t.Fatal("no entries")
	}
	if !strings.HasPrefix(synonymFile, "# ") {
		t.Error("synonyms.tsv: no comment line saying what the file holds")
	}
	for from, tos := range m {
		for _, w := range append([]string{from}, tos...) {
			if w != strings.ToLower(w) {
				t.Errorf("%q → %v: not lower case", from, tos)
			}
		}
	}
	// A fresh map each time: a catalog's change reaches no other.
	m["revenue"][0] = "changed"
	if builtinSynonyms()["revenue"][0] == "changed" {
		t.Error("a caller's change reached the built-in vocabulary")
	}
}

// TestParseSynonyms: the layout the file header describes.
func TestParseSynonyms(t *testing.T) {
	got, err := parseSynonyms("# loans\n\nborrower\tmember,  patron\r\n  # shelf marks\ncall  number\tshelfmark\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"borrower": {"member", "patron"}, "call number": {"shelfmark"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestParseSynonymsRejects: a broken file is an error naming its line.
func TestParseSynonymsRejects(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"one field", "# x\nborrower\tmember\nloan\n", "line 3: want 2 tab-separated fields (a phrase and its equivalents), got 1"},
		{"three fields", "# x\nloan\tlending\tborrowing\n", "line 2: want 2 tab-separated fields (a phrase and its equivalents), got 3"},
		{"empty phrase", "# x\n\tmember\n", "line 2: empty phrase"},
		{"blank phrase", "# x\n  \tmember\n", "line 2: empty phrase"},
		{"duplicate phrase", "# x\nborrower\tmember\n\nborrower\tpatron\n", `line 4: "borrower" has a line already (line 2)`},
		{"no equivalents", "# x\nborrower\t\n", `line 2: "borrower" has an empty equivalent`},
		{"empty equivalent", "# x\nborrower\tmember,,patron\n", `line 2: "borrower" has an empty equivalent`},
		{"equivalent twice", "# x\nborrower\tmember, patron, member\n", `line 2: "borrower" lists "member" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseSynonyms(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want an error saying %q", m, err, tc.want)
			}
		})
	}
}

// fleetSnapshot is a small vehicle-fleet warehouse whose names use the
// words of the synonym file's entries only on one side.
func fleetSnapshot() *warehouse.Snapshot {
	tables := []warehouse.Table{
		{Name: "vehicles", PrimaryKey: []string{"id"}, Columns: []warehouse.Column{
			col("vehicles", "id", "int", ""),
			col("vehicles", "plate", "varchar", "Registration plate"),
			col("vehicles", "dept", "varchar", "Owning unit"),
			col("vehicles", "purchase_price", "decimal", ""),
		}},
		{Name: "trips", PrimaryKey: []string{"id"}, Columns: []warehouse.Column{
			col("trips", "id", "int", ""),
			col("trips", "vehicle_id", "int", ""),
			col("trips", "km_driven", "int", ""),
			col("trips", "fuel_expense", "decimal", "Paid at the pump"),
		}},
	}
	for _, t := range tables {
		for i := range t.Columns {
			t.Columns[i].Position = i + 1
		}
	}
	return &warehouse.Snapshot{Schema: warehouse.Schema{Database: "fleet", Flavor: warehouse.FlavorMySQL, Tables: tables}}
}

// TestSynonymFileEntries: an entry of synonyms.tsv reaches a column through
// the catalog's column search, and only through it: each phrase shares no
// word with its column's names or comments.
func TestSynonymFileEntries(t *testing.T) {
	c := New(fleetSnapshot(), Options{})
	for _, tc := range []struct {
		name   string
		entry  string // the line of synonyms.tsv the case relies on
		phrase string
		want   string   // the first hit
		not    []string // columns the phrase must not reach
	}{
		{"abbreviation", "department\tdept", "department", "vehicles.dept", nil},
		// Not the purchase price: the file leaves price and cost apart.
		{"synonym", "cost\texpense, spend", "cost", "trips.fuel_expense", []string{"vehicles.purchase_price"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := c.SearchColumns(tc.phrase, 5)
			names := hitNames(hits)
			if len(hits) == 0 || names[0] != tc.want {
				t.Fatalf("SearchColumns(%q) = %v, want %s first (through the entry %q)", tc.phrase, names, tc.want, tc.entry)
			}
			if !slices.Equal(hits[0].Matched, []string{tc.phrase}) || !hits[0].ByName {
				t.Errorf("%s matched %v (by name %v), want %q by name", tc.want, hits[0].Matched, hits[0].ByName, tc.phrase)
			}
			for _, n := range tc.not {
				if slices.Contains(names, n) {
					t.Errorf("SearchColumns(%q) = %v, must not contain %s", tc.phrase, names, n)
				}
			}
		})
	}
}
