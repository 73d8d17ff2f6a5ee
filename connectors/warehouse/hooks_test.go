package warehouse_test

import (
	"context"
	"sync"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// TestOnQueryReportsRunsAndRefusals: a statement that runs is reported with
// its rows and a duration, a refused one with its kind, and a repeat the
// cache answers is not reported (it cost the warehouse nothing).
func TestOnQueryReportsRunsAndRefusals(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			var (
				mu     sync.Mutex
				events []warehouse.QueryEvent
			)
			w := d.Open(t, warehouse.Config{
				Cache:   warehouse.CacheOptions{Entries: 8},
				OnQuery: func(ev warehouse.QueryEvent) { mu.Lock(); events = append(events, ev); mu.Unlock() },
			})
			ctx := context.Background()
			steps := []struct {
				name, sql string
				wantNew   int // events this step adds
				wantKind  warehouse.ErrorKind
				wantRows  int
			}{
				{"runs", "SELECT id FROM items", 1, warehouse.KindUnknown, 3},
				{"cached repeat", "SELECT id FROM items", 0, warehouse.KindUnknown, 0},
				{"refused write", "DELETE FROM items", 1, warehouse.KindRefused, 0},
				{"unknown column", "SELECT nope FROM items", 1, warehouse.KindUnknownColumn, 0},
			}
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					mu.Lock()
					before := len(events)
					mu.Unlock()
					w.Query(ctx, s.sql, warehouse.Limits{})
					mu.Lock()
					defer mu.Unlock()
					if got := len(events) - before; got != s.wantNew {
						t.Fatalf("%d events, want %d", got, s.wantNew)
					}
					if s.wantNew == 0 {
						return
					}
					ev := events[len(events)-1]
					if s.wantKind == warehouse.KindUnknown {
						if ev.Err != nil || ev.Rows != s.wantRows || ev.Elapsed <= 0 {
							t.Fatalf("want a success with %d rows and a duration: %+v", s.wantRows, ev)
						}
						return
					}
					if k := warehouse.KindOfError(ev.Err); k != s.wantKind {
						t.Fatalf("kind %v, want %v (%v)", k, s.wantKind, ev.Err)
					}
				})
			}
		})
	}
}
