package sqlshape

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The schema of these tests is a small fleet: vehicles, trips, depots.

func TestScopedSlotKeysRoundTrip(t *testing.T) {
	keys := []SlotKey{
		Key(SlotMeasure),
		FilterOnKey([]string{"texas"}, nil),
		WhereKey("trips.km"),
		{Name: SlotMeasure, Scope: "in:vehicles.id"},
		{Name: SlotWhere, Arg: "trips.driver", Scope: "with:long_trips/cmp:trips.km"},
		{Name: SlotFilterOn, Arg: "a:b", Scope: "union#2"},
	}
	for _, k := range keys {
		if got := ParseSlotKey(k.String()); got != k {
			t.Errorf("%q → %+v, want %+v", k.String(), got, k)
		}
		b, err := json.Marshal(map[SlotKey]int{k: 1})
		if err != nil {
			t.Fatal(err)
		}
		var back map[SlotKey]int
		if err := json.Unmarshal(b, &back); err != nil || back[k] != 1 {
			t.Errorf("JSON round trip of %v: %s %v", k, b, err)
		}
	}
	if !(SlotKey{Name: SlotOrder, Scope: "x"}).Nested() || Key(SlotOrder).Nested() {
		t.Error("Nested")
	}
	if scopeName("in:a[1]") != "in:a(1)" {
		t.Error("scope names must not hold brackets")
	}
}

func TestNestedQueriesHaveSlotsOfTheirOwn(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		// want is the key (canonical form) that tells a from b.
		want string
	}{
		{
			name: "a subquery's measure, compared with the outer column",
			a:    "SELECT v.plate FROM vehicles v WHERE v.weight > (SELECT AVG(v2.weight) FROM vehicles v2 WHERE v2.depot = 'north')",
			b:    "SELECT v.plate FROM vehicles v WHERE v.weight > (SELECT AVG(v2.horsepower) FROM vehicles v2 WHERE v2.depot = 'north')",
			want: "measure[cmp:vehicles.weight]",
		},
		{
			name: "a subquery's filter, in an IN",
			a:    "SELECT d.name FROM depots d WHERE d.id IN (SELECT v.depot_id FROM vehicles v WHERE v.fuel = 'diesel')",
			b:    "SELECT d.name FROM depots d WHERE d.id IN (SELECT v.depot_id FROM vehicles v WHERE v.make = 'diesel')",
			want: "filteron[in:depots.id]:diesel",
		},
		{
			name: "a CTE",
			a:    "WITH long_trips AS (SELECT t.vehicle_id FROM trips t WHERE t.km > 500) SELECT COUNT(*) FROM long_trips",
			b:    "WITH long_trips AS (SELECT t.vehicle_id FROM trips t WHERE t.minutes > 500) SELECT COUNT(*) FROM long_trips",
			want: "filteron[with:long_trips]:500",
		},
		{
			name: "the second branch of a set operation",
			a:    "SELECT v.plate FROM vehicles v WHERE v.fuel = 'diesel' INTERSECT SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id WHERE t.km > 100",
			b:    "SELECT v.plate FROM vehicles v WHERE v.fuel = 'diesel' INTERSECT SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id WHERE t.minutes > 100",
			want: "filteron[intersect#2]:100",
		},
		{
			name: "a derived table",
			a:    "SELECT AVG(x.n) FROM (SELECT t.driver, COUNT(*) AS n FROM trips t GROUP BY t.driver) AS x",
			b:    "SELECT AVG(x.n) FROM (SELECT t.driver, COUNT(*) AS n FROM trips t GROUP BY t.vehicle_id) AS x",
			want: "group[from:x]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := mustParse(t, tc.a).Slots(nil), mustParse(t, tc.b).Slots(nil)
			var differ []string
			for k := range a {
				if !a.Get(k).Equal(b.Get(k)) {
					differ = append(differ, k.String())
				}
			}
			for k := range b {
				if _, ok := a[k]; !ok && !b.Get(k).IsEmpty() {
					differ = append(differ, k.String())
				}
			}
			if !slices.Contains(differ, tc.want) {
				t.Fatalf("differing keys %v, want %s among them", differ, tc.want)
			}
			for _, k := range differ {
				if !strings.Contains(k, "[") && k != "tables" {
					t.Errorf("the outer queries are the same, but %s differs", k)
				}
			}
		})
	}
}

func TestColumnsAtEveryDepth(t *testing.T) {
	s := mustParse(t, `WITH busy AS (SELECT t.vehicle_id FROM trips t GROUP BY t.vehicle_id HAVING COUNT(*) > 3)
SELECT d.name, v.* FROM depots d JOIN vehicles v ON v.depot_id = d.id
WHERE v.id IN (SELECT b.vehicle_id FROM busy b) ORDER BY d.opened`)
	for _, want := range []string{"trips.vehicle_id", "depots.name", "vehicles.*", "vehicles.depot_id", "depots.id", "vehicles.id", "depots.opened", "busy.vehicle_id"} {
		if !slices.Contains(s.Columns, want) {
			t.Errorf("columns %v lack %s", s.Columns, want)
		}
	}
	if !slices.IsSorted(s.Columns) {
		t.Error("columns not sorted")
	}
}

func TestNullsOrderingIsNotARanking(t *testing.T) {
	a := mustParse(t, "SELECT v.plate FROM vehicles v ORDER BY CASE WHEN v.km IS NULL THEN 1 ELSE 0 END, v.km DESC")
	b := mustParse(t, "SELECT v.plate FROM vehicles v ORDER BY v.km DESC")
	if !a.Slots(nil).Get(Key(SlotOrder)).Equal(b.Slots(nil).Get(Key(SlotOrder))) {
		t.Fatalf("orders %v and %v", a.OrderBy, b.OrderBy)
	}
}

func TestOtherConditionsAreASlot(t *testing.T) {
	a := mustParse(t, "SELECT v.plate FROM vehicles v WHERE LOWER(v.make) LIKE '%volvo%' OR LOWER(v.model) LIKE '%volvo%'")
	b := mustParse(t, "SELECT v.plate FROM vehicles v WHERE LOWER(v.fuel) LIKE '%volvo%' OR LOWER(v.model) LIKE '%volvo%'")
	ka, kb := a.Slots(nil).Get(Key(SlotCond)), b.Slots(nil).Get(Key(SlotCond))
	if ka.IsEmpty() || ka.Equal(kb) {
		t.Fatalf("cond slots %q and %q", ka, kb)
	}
	if strings.Contains(ka.String(), "utf8mb4") {
		t.Fatalf("a charset in the canonical form: %q", ka)
	}
}
