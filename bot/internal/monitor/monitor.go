// Package monitor keeps a warehouse of bot serve going: it starts it,
// retries it with back-off while it is down, checks it while it is up and
// retakes a partial profile, on a clock tests can move.
package monitor

import (
	"context"
	"time"

	"github.com/clarify-bot/clarify/internal/backoff"
)

// Timings are how often the warehouse is checked and retried.
type Timings struct {
	// CheckEvery is the interval between checks of a warehouse that is up.
	CheckEvery time.Duration
	// RetryMin and RetryMax space the attempts to start or reach a
	// warehouse that is down.
	RetryMin, RetryMax time.Duration
	// PartialMin and PartialMax space the retries of partial profiles.
	PartialMin, PartialMax time.Duration
	// Clock paces the checks and retries (nil: the real one).
	Clock Clock
}

// Clock is the time the loop waits on; tests move it by hand.
type Clock interface {
	Now() time.Time
	// NewTimer fires once after d; stop releases it.
	NewTimer(d time.Duration) (fired <-chan time.Time, stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Warehouse is what the loop drives.
type Warehouse interface {
	// Running reports whether the warehouse has started (it may be down);
	// Ready whether questions can go to it now; Partial whether its
	// profile has partial tables to retake.
	Running() bool
	Ready() bool
	Partial() bool
	Start(ctx context.Context) error
	Ping(ctx context.Context) error
	Reprofile(ctx context.Context)
	RetakePartial(ctx context.Context)
	// Down records a failure to start (starting) or reach it.
	Down(err error, failures int, retry time.Duration, starting bool)
	// Fatal reports whether a start error stops it for good, and records so.
	Fatal(err error, failures int) bool
	// StartedAfter records a start that succeeded after failures.
	StartedAfter(attempts int)
	// Up records a check that reached it (failures: those before).
	Up(failures int)
}

// Run keeps the warehouse going until ctx ends: starting it, checking it,
// retaking a partial profile, profiling again on request.
//
// Attempts are due at one time, next: a warehouse that is down is tried
// again only when its back-off has passed, whatever wakes the loop (a
// failing query, its own failing check, SIGHUP); one that is up is
// checked at once when a query finds it unreachable, at most once per
// RetryMin.
func Run(ctx context.Context, t Timings, w Warehouse, poke, refresh <-chan struct{}) {
	clk := t.Clock
	if clk == nil {
		clk = realClock{}
	}
	retry := backoff.Backoff{Min: t.RetryMin, Max: t.RetryMax}
	partial := backoff.Backoff{Min: t.PartialMin, Max: t.PartialMax}
	var next, last time.Time // the next attempt is due; the last one was made
	if !w.Running() {
		next = clk.Now().Add(retry.Next()) // NewMain's attempt failed: this is the second
	} else {
		next = clk.Now().Add(t.CheckEvery)
	}
	var partialAt time.Time
	schedulePartial := func() {
		if w.Partial() {
			partialAt = clk.Now().Add(partial.Next())
		} else {
			partialAt = time.Time{}
			partial.Reset()
		}
	}
	schedulePartial()
	refreshLater := false // SIGHUP while down: profile again when it is back
	for {
		due := next
		if w.Ready() && !partialAt.IsZero() && partialAt.Before(due) {
			due = partialAt
		}
		fired, stop := clk.NewTimer(max(due.Sub(clk.Now()), 0))
		select {
		case <-ctx.Done():
			stop()
			return
		case <-fired:
		case <-poke:
			stop()
			if w.Ready() {
				next = minTime(next, maxTime(last.Add(t.RetryMin), clk.Now()))
			}
			continue
		case <-refresh:
			stop()
			if w.Ready() {
				w.Reprofile(ctx)
				schedulePartial()
			} else if w.Running() {
				refreshLater = true
			}
			continue
		}
		now := clk.Now()
		if now.Before(next) {
			// Only a partial profile is due.
			if w.Ready() && !partialAt.IsZero() && !now.Before(partialAt) {
				w.RetakePartial(ctx)
				schedulePartial()
			}
			continue
		}
		last = now
		switch {
		case !w.Running():
			if err := w.Start(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				if w.Fatal(err, retry.Failures()) {
					return
				}
				wait := retry.Next()
				next = clk.Now().Add(wait)
				w.Down(err, retry.Failures(), wait, true)
				continue
			}
			w.StartedAfter(retry.Failures() + 1)
			retry.Reset()
			schedulePartial()
			next = clk.Now().Add(t.CheckEvery)
		default:
			if err := w.Ping(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				wait := retry.Next()
				next = clk.Now().Add(wait)
				w.Down(err, retry.Failures(), wait, false)
				continue
			}
			w.Up(retry.Failures())
			retry.Reset()
			next = clk.Now().Add(t.CheckEvery)
			if refreshLater {
				refreshLater = false
				w.Reprofile(ctx)
				schedulePartial()
			}
			if !partialAt.IsZero() && !clk.Now().Before(partialAt) {
				w.RetakePartial(ctx)
				schedulePartial()
			}
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
