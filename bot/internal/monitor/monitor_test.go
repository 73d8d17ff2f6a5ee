package monitor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// stepClock fires every timer at once and moves its time to the
// deadline, so the loop runs without waiting.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch, func() bool { return false }
}

// fakeWarehouse fails its first starts, then runs; it stops the test's
// context once it is up.
type fakeWarehouse struct {
	startErrs []error
	fatal     error
	running   bool
	stop      context.CancelFunc

	downs   []int // failures reported by Down
	waits   []time.Duration
	started int // attempts reported by StartedAfter
	ups     int
}

func (w *fakeWarehouse) Running() bool { return w.running }
func (w *fakeWarehouse) Ready() bool   { return w.running }
func (w *fakeWarehouse) Partial() bool { return false }
func (w *fakeWarehouse) Start(context.Context) error {
	if len(w.startErrs) > 0 {
		err := w.startErrs[0]
		w.startErrs = w.startErrs[1:]
		return err
	}
	w.running = true
	return nil
}
func (w *fakeWarehouse) Ping(context.Context) error    { return nil }
func (w *fakeWarehouse) Reprofile(context.Context)     {}
func (w *fakeWarehouse) RetakePartial(context.Context) {}
func (w *fakeWarehouse) StartedAfter(attempts int)     { w.started = attempts }
func (w *fakeWarehouse) Fatal(err error, _ int) bool {
	return w.fatal != nil && errors.Is(err, w.fatal)
}
func (w *fakeWarehouse) Down(_ error, failures int, retry time.Duration, _ bool) {
	w.downs = append(w.downs, failures)
	w.waits = append(w.waits, retry)
}
func (w *fakeWarehouse) Up(int) {
	w.ups++
	w.stop()
}

func runUntilDone(t *testing.T, w *fakeWarehouse) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.stop = cancel
	timings := Timings{CheckEvery: time.Minute, RetryMin: time.Second, RetryMax: time.Hour, PartialMin: time.Minute, PartialMax: time.Hour,
		Clock: &stepClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, timings, w, nil, nil)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not stop")
	}
}

// TestRetriesWithBackoffUntilStarted: a warehouse down at start is
// retried with growing waits (the first attempt was the bot's own), then
// checked once it runs.
func TestRetriesWithBackoffUntilStarted(t *testing.T) {
	unreachable := errors.New("unreachable")
	w := &fakeWarehouse{startErrs: []error{unreachable, unreachable}}
	runUntilDone(t, w)
	if len(w.downs) != 2 || w.downs[0] != 2 || w.downs[1] != 3 {
		t.Fatalf("failures reported: %v, want [2 3]", w.downs)
	}
	if w.waits[1] < w.waits[0] {
		t.Fatalf("waits shrank: %v", w.waits)
	}
	if w.started != 4 || w.ups == 0 {
		t.Fatalf("started after %d attempts, %d checks; want 4 and a check", w.started, w.ups)
	}
}

// TestFatalStartStops: a start error the warehouse calls fatal (its
// configuration does not match its schema) ends the loop, not retried.
func TestFatalStartStops(t *testing.T) {
	mismatch := errors.New("configuration does not match")
	w := &fakeWarehouse{startErrs: []error{mismatch}, fatal: mismatch}
	runUntilDone(t, w)
	if len(w.downs) != 0 || w.started != 0 || w.running {
		t.Fatalf("a fatal error was retried: downs %v, started %d", w.downs, w.started)
	}
}
