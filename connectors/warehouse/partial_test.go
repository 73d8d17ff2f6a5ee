package warehouse_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// TestPartialProfileRetaken: a table whose profile ran out of time is
// marked partial, stays marked in the cache (never passed off as
// complete), and RetakePartial profiles it again while keeping the other
// tables' profiles.
func TestPartialProfileRetaken(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, shopDump)
			w := d.Open(t, warehouse.Config{})
			ctx := context.Background()
			s, err := w.Introspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// A budget already spent: nothing is measured, all is partial.
			for _, p := range w.ProfileTable(ctx, s.Table("customers"), warehouse.ProfileOptions{TableBudget: time.Nanosecond}) {
				if !p.Partial || len(p.Values) > 0 {
					t.Fatalf("an exhausted budget gave a complete profile: %+v", p)
				}
			}

			full, err := w.TakeSnapshot(ctx, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := full.PartialTables(); len(got) != 0 {
				t.Fatalf("a full snapshot has partial tables %v", got)
			}
			// The snapshot as it was taken under load: customers partial,
			// and a marker in regions to see that it is kept, not retaken.
			partial := *full
			partial.Profiles = slices.Clone(full.Profiles)
			for i := range partial.Profiles {
				p := &partial.Profiles[i]
				switch p.Table {
				case "customers":
					p.Partial, p.Values, p.Top, p.Samples, p.ValuesComplete = true, nil, nil, nil, false
				case "regions":
					p.Samples = []string{"kept"}
				}
			}
			if got := partial.PartialTables(); !slices.Equal(got, []string{"customers"}) {
				t.Fatalf("partial tables %v", got)
			}
			path := filepath.Join(t.TempDir(), "snap.json.gz")
			if err := warehouse.SaveSnapshot(path, &partial); err != nil {
				t.Fatal(err)
			}
			cached, err := w.CachedSnapshot(ctx, path, 0, false, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := cached.PartialTables(); !slices.Equal(got, []string{"customers"}) {
				t.Fatalf("the cache lost the partial mark: %v", got)
			}

			again, err := w.RetakePartial(ctx, cached, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := again.PartialTables(); len(got) != 0 {
				t.Fatalf("still partial after the retry: %v", got)
			}
			st := again.Profile("customers", "state")
			if st == nil || !slices.Equal(st.Values, []string{"California", "Texas"}) {
				t.Fatalf("customers.state after the retry: %+v", st)
			}
			if r := again.Profile("regions", "name"); r == nil || !slices.Equal(r.Samples, []string{"kept"}) {
				t.Fatalf("a complete table was profiled again: %+v", r)
			}
			n := 0
			for _, j := range again.Schema.Joins {
				if strings.EqualFold(j.FromTable, "orders") && strings.EqualFold(j.FromColumn, "ship_state") {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("orders.ship_state joins %d times after the retry, want once", n)
			}
		})
	}
}
