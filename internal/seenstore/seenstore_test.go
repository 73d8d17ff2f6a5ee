package seenstore

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestFirstExpiresForgetsAndSweeps(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			s := New(target.Open(t), clk.now)
			steps := []struct {
				name    string
				advance time.Duration
				forget  bool
				want    bool
			}{
				{"new", 0, false, true},
				{"again", 0, false, false},
				{"within ttl", 59 * time.Minute, false, false},
				{"after ttl", 2 * time.Minute, false, true},
				{"forgotten", 0, true, true},
			}
			for _, st := range steps {
				clk.add(st.advance)
				if st.forget {
					if err := s.Forget(ctx, "Ev1"); err != nil {
						t.Fatal(err)
					}
				}
				got, err := s.First(ctx, "Ev1", time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				if got != st.want {
					t.Errorf("%s: First = %v, want %v", st.name, got, st.want)
				}
			}
			if _, err := s.First(ctx, "Ev2", time.Minute); err != nil {
				t.Fatal(err)
			}
			clk.add(2 * time.Hour)
			n, err := s.Sweep(ctx, clk.now())
			if err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Errorf("Sweep removed %d, want 2", n)
			}
			_ = s.db.View(ctx, func(tx kv.Tx) error {
				if k, _ := tx.Bucket(bucketSeen).Cursor().First(); k != nil {
					t.Errorf("a swept key remains: %q", k)
				}
				return nil
			})
		})
	}
}

// Two processes (two connection pools) racing on the same event ids:
// each id is first exactly once.
func TestFirstAcrossProcesses(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	a := New(kvtest.MustServerOn(t, dsn).Namespace("seen"), nil)
	b := New(kvtest.MustServerOn(t, dsn).Namespace("seen"), nil)
	ctx := context.Background()
	const ids = 20
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for _, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			for i := range ids {
				ok, err := s.First(ctx, string(rune('A'+i)), time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					firsts.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := firsts.Load(); got != ids {
		t.Errorf("%d firsts for %d ids", got, ids)
	}
}

// A burst of new ids on two processes: no error (the old locking read
// deadlocked, error 1213, and the caller then skipped the check), and
// every id is first exactly once across 4 racing writers.
func TestBurstOfNewIDsNeverFails(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	a := New(kvtest.MustServerOn(t, dsn).Namespace("seen"), nil)
	b := New(kvtest.MustServerOn(t, dsn).Namespace("seen"), nil)
	ctx := context.Background()
	const ids = 200
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for w, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			for i := range ids {
				// Writers go through the ids in different orders.
				id := (i*7 + w*53) % ids
				ok, err := s.First(ctx, "Ev"+strconv.Itoa(id), time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					firsts.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := firsts.Load(); got != ids {
		t.Errorf("%d firsts for %d ids", got, ids)
	}
}
