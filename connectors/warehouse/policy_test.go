package warehouse_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// TestPolicyRefusesBeforeTheServerAndTheCache: a view with access rules
// refuses a statement that reads a hidden column even when the same
// statement's result is in the shared cache, and runs the others.
func TestPolicyRefusesBeforeTheServerAndTheCache(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{Cache: warehouse.CacheOptions{Entries: 4}})
			ctx := context.Background()
			schema, err := w.Introspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pol, err := access.New(access.Rules{Hidden: []string{"items.price"}}, schema)
			if err != nil {
				t.Fatal(err)
			}
			const hidden = "SELECT name, price FROM items ORDER BY id"
			if _, err := w.Query(ctx, hidden, warehouse.Limits{}); err != nil {
				t.Fatalf("unrestricted: %v", err)
			}
			view := w.WithPolicy(pol)
			_, err = view.Query(ctx, hidden, warehouse.Limits{})
			if !errors.Is(err, warehouse.ErrRefused) || warehouse.KindOfError(err) != warehouse.KindRefused {
				t.Fatalf("want a refusal, got %v", err)
			}
			if r, ok := sqlguard.Refused(err); !ok || r.Kind != sqlguard.KindAccess || !strings.Contains(err.Error(), "hides some of what this statement reads") {
				t.Fatalf("refusal %v does not say what is hidden", err)
			}
			res, err := view.Query(ctx, "SELECT name FROM items WHERE price IS NOT NULL ORDER BY id", warehouse.Limits{})
			if err == nil {
				t.Fatalf("a filter on a hidden column ran: %v", res.Rows)
			}
			res, err = view.Query(ctx, "SELECT COUNT(*) AS n FROM items", warehouse.Limits{})
			if err != nil || len(res.Rows) != 1 {
				t.Fatalf("allowed statement: %v %v", res, err)
			}
		})
	}
}
