package warehouse

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeRuns counts executions and returns n numbered rows, truncated at the
// caller's cap as the server path would.
type fakeRuns struct {
	mu   sync.Mutex
	runs map[string]int
}

func (f *fakeRuns) run(stmt string, n int, lim Limits) func() (*Result, error) {
	return func() (*Result, error) {
		f.mu.Lock()
		f.runs[stmt]++
		f.mu.Unlock()
		res := &Result{Columns: []ResultColumn{{Name: "n", Type: "INT"}}, Elapsed: time.Second}
		for i := range n {
			if i == lim.MaxRows {
				res.Truncated = true
				break
			}
			res.Rows = append(res.Rows, []any{int64(i)})
		}
		return res, nil
	}
}

func mustCache(tb testing.TB, opts CacheOptions, now func() time.Time) (*resultCache, *fakeRuns) {
	tb.Helper()
	if now == nil {
		now = time.Now
	}
	c := newResultCache(opts, now)
	if c == nil {
		tb.Fatal("cache is off")
	}
	return c, &fakeRuns{runs: map[string]int{}}
}

func TestResultCacheServesRepeatsWithinTheRowCap(t *testing.T) {
	type call struct {
		stmt      string
		rows      int // rows the statement has
		maxRows   int
		wantRows  int
		wantTrunc bool
		wantRun   bool
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"a repeat is served", []call{
			{"SELECT a FROM t", 3, 10, 3, false, true},
			{"SELECT a FROM t", 3, 10, 3, false, false},
		}},
		{"layout does not matter", []call{
			{"SELECT a\nFROM t\n  WHERE b = 1", 3, 10, 3, false, true},
			{"SELECT a FROM t WHERE b = 1", 3, 10, 3, false, false},
		}},
		{"spaces inside a literal do", []call{
			{"SELECT a FROM t WHERE b = 'x  y'", 3, 10, 3, false, true},
			{"SELECT a FROM t WHERE b = 'x y'", 3, 10, 3, false, true},
		}},
		{"a comment with a quote does not hide a literal's spaces", []call{
			{"-- it's\nSELECT a FROM t WHERE b = 'x  y'", 3, 10, 3, false, true},
			{"-- it's\nSELECT a FROM t WHERE b = 'x y'", 3, 10, 3, false, true},
		}},
		{"a complete result answers a smaller cap, truncated", []call{
			{"SELECT a FROM t", 4, 10, 4, false, true},
			{"SELECT a FROM t", 4, 2, 2, true, false},
		}},
		{"a truncated result answers a cap it covers", []call{
			{"SELECT a FROM t", 9, 3, 3, true, true},
			{"SELECT a FROM t", 9, 3, 3, true, false},
			{"SELECT a FROM t", 9, 2, 2, true, false},
		}},
		{"a truncated result does not answer a larger cap", []call{
			{"SELECT a FROM t", 9, 3, 3, true, true},
			{"SELECT a FROM t", 9, 5, 5, true, true},
			{"SELECT a FROM t", 9, 4, 4, true, false},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, f := mustCache(t, CacheOptions{Entries: 8}, nil)
			runs := 0
			for i, cl := range tc.calls {
				lim := Limits{MaxRows: cl.maxRows}
				res, err := c.query(context.Background(), cl.stmt, lim, f.run(cl.stmt, cl.rows, lim))
				if err != nil {
					t.Fatal(err)
				}
				ran := total(f) > runs
				runs = total(f)
				if len(res.Rows) != cl.wantRows || res.Truncated != cl.wantTrunc || ran != cl.wantRun || res.Cached == cl.wantRun {
					t.Errorf("call %d: %d rows truncated=%v ran=%v cached=%v; want %d rows truncated=%v ran=%v",
						i+1, len(res.Rows), res.Truncated, ran, res.Cached, cl.wantRows, cl.wantTrunc, cl.wantRun)
				}
			}
		})
	}
}

func total(f *fakeRuns) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, v := range f.runs {
		n += v
	}
	return n
}

func TestResultCacheDoesNotKeepErrors(t *testing.T) {
	c, _ := mustCache(t, CacheOptions{Entries: 8}, nil)
	boom := errors.New("boom")
	runs := 0
	for range 2 {
		_, err := c.query(context.Background(), "SELECT 1", Limits{MaxRows: 5}, func() (*Result, error) {
			runs++
			return nil, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want the run's error", err)
		}
	}
	if runs != 2 {
		t.Fatalf("the failing statement ran %d times, want 2", runs)
	}
}

func TestResultCacheForgetsOldAndLeastRecentResults(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	lim := Limits{MaxRows: 10}
	t.Run("max age", func(t *testing.T) {
		c, f := mustCache(t, CacheOptions{Entries: 8, MaxAge: time.Minute}, clock)
		c.query(context.Background(), "SELECT 1", lim, f.run("SELECT 1", 1, lim))
		now = now.Add(59 * time.Second)
		c.query(context.Background(), "SELECT 1", lim, f.run("SELECT 1", 1, lim))
		now = now.Add(2 * time.Second)
		c.query(context.Background(), "SELECT 1", lim, f.run("SELECT 1", 1, lim))
		if got := f.runs["SELECT 1"]; got != 2 {
			t.Fatalf("ran %d times, want 2 (once, then again after a minute)", got)
		}
	})
	t.Run("entries", func(t *testing.T) {
		c, f := mustCache(t, CacheOptions{Entries: 2}, clock)
		for _, s := range []string{"SELECT 1", "SELECT 2", "SELECT 1", "SELECT 3", "SELECT 1", "SELECT 2"} {
			c.query(context.Background(), s, lim, f.run(s, 1, lim))
		}
		// SELECT 2 was the least recently used when SELECT 3 came in.
		want := map[string]int{"SELECT 1": 1, "SELECT 2": 2, "SELECT 3": 1}
		if fmt.Sprint(f.runs) != fmt.Sprint(want) {
			t.Fatalf("runs %v, want %v", f.runs, want)
		}
	})
}

func TestResultCacheSharesOneRunAmongConcurrentCallers(t *testing.T) {
	c, f := mustCache(t, CacheOptions{Entries: 8}, nil)
	lim := Limits{MaxRows: 10}
	started, release := make(chan struct{}), make(chan struct{})
	inner := f.run("SELECT 1", 3, lim)
	slow := func() (*Result, error) {
		close(started)
		<-release
		return inner()
	}
	var wg sync.WaitGroup
	results := make([]*Result, 5)
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0], _ = c.query(context.Background(), "SELECT 1", lim, slow)
	}()
	<-started
	for i := 1; i < len(results); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Waiting on the first run or served after it: never a second run.
			results[i], _ = c.query(context.Background(), "SELECT 1", lim, inner)
		}()
	}
	close(release)
	wg.Wait()
	if got := f.runs["SELECT 1"]; got != 1 {
		t.Fatalf("ran %d times, want 1", got)
	}
	for i, r := range results {
		if r == nil || len(r.Rows) != 3 {
			t.Fatalf("caller %d got %v", i, r)
		}
	}
}

func TestResultCacheWaiterGivesUpWithItsContext(t *testing.T) {
	c, f := mustCache(t, CacheOptions{Entries: 8}, nil)
	lim := Limits{MaxRows: 10, Timeout: time.Second}
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	go c.query(context.Background(), "SELECT 1", lim, func() (*Result, error) {
		close(started)
		<-release
		return f.run("SELECT 1", 1, lim)()
	})
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.query(ctx, "SELECT 1", lim, f.run("SELECT 1", 1, lim))
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("got %v, want a cancellation", err)
	}
}
