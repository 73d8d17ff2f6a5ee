package ratestore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

func TestTakeRefillsAndSweeps(t *testing.T) {
	perTen := Limit{Every: 10 * time.Second, Burst: 2} // 6 a minute, 2 at once
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			s := New(target.Open(t))
			t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			steps := []struct {
				name    string
				at      time.Duration
				reqs    []Request
				refused int
				wait    time.Duration
			}{
				{"first of the burst", 0, []Request{{"u1", perTen}}, -1, 0},
				{"second of the burst", 0, []Request{{"u1", perTen}}, -1, 0},
				{"burst used", time.Second, []Request{{"u1", perTen}}, 0, 9 * time.Second},
				{"another key is apart", time.Second, []Request{{"u2", perTen}}, -1, 0},
				{"one token back", 10 * time.Second, []Request{{"u1", perTen}}, -1, 0},
				{"empty again", 11 * time.Second, []Request{{"u1", perTen}}, 0, 9 * time.Second},
				// All or none: u3 is full, u1 empty; u3 keeps its token.
				{"all or none", 12 * time.Second, []Request{{"u3", perTen}, {"u1", perTen}}, 1, 8 * time.Second},
				{"u3 untouched", 12 * time.Second, []Request{{"u3", perTen}}, -1, 0},
				{"u3 second", 12 * time.Second, []Request{{"u3", perTen}}, -1, 0},
				{"u3 empty", 12 * time.Second, []Request{{"u3", perTen}}, 0, 10 * time.Second},
			}
			for _, st := range steps {
				refused, wait, err := s.Take(ctx, t0.Add(st.at), st.reqs...)
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				if refused != st.refused || wait != st.wait {
					t.Fatalf("%s: refused %d after %s, want %d after %s", st.name, refused, wait, st.refused, st.wait)
				}
			}
			if n, _ := s.Len(ctx); n != 3 {
				t.Fatalf("%d buckets, want 3", n)
			}
			// Long after, every bucket is full again: swept, and a new
			// question is taken.
			later := t0.Add(time.Hour)
			if n, err := s.Sweep(ctx, later); err != nil || n != 3 {
				t.Fatalf("sweep: %d, %v; want 3", n, err)
			}
			if refused, _, _ := s.Take(ctx, later, Request{"u1", perTen}); refused != -1 {
				t.Fatal("a swept bucket should be full")
			}
		})
	}
}

// Two processes on one store share a bucket: of a burst of 3 taken by
// both at once, exactly 3 questions pass.
func TestTakeAcrossProcesses(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	a := New(kvtest.MustServerOn(t, dsn).Namespace("rate"))
	b := New(kvtest.MustServerOn(t, dsn).Namespace("rate"))
	limit := Limit{Every: time.Minute, Burst: 3}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var passed atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			refused, _, err := s.Take(context.Background(), now, Request{"slack:T1:C1", limit})
			if err != nil {
				t.Error(err)
				return
			}
			if refused < 0 {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := passed.Load(); n != 3 {
		t.Fatalf("%d questions passed, want the burst of 3", n)
	}
}
