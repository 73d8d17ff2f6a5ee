package main

import (
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/testwh"
)

// fakeClock is a monitor.Clock moved by hand: its timers fire when Advance
// passes their deadline; each new timer is announced on armed.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]bool
	armed  chan time.Time // the deadline of each timer made
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), timers: map[*fakeTimer]bool{}, armed: make(chan time.Time, 1<<16)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{at: f.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- f.now
	} else {
		f.timers[t] = true
	}
	f.armed <- t.at
	return t.c, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		was := f.timers[t]
		delete(f.timers, t)
		return was
	}
}

// Advance moves the clock and fires the timers that are due.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	for t := range f.timers {
		if !t.at.After(f.now) {
			t.c <- f.now
			delete(f.timers, t)
		}
	}
}

// nextArmed waits for the loop to arm its next timer.
func (f *fakeClock) nextArmed(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-f.armed:
		return at
	case <-time.After(30 * time.Second):
		t.Fatal("the warehouse loop armed no timer")
		return time.Time{}
	}
}

// TestDownWarehouseKeepsItsBackoff: a warehouse that goes down while
// serving is tried again only as its back-off falls due (2 s doubling),
// however often failing queries, its own failing check or SIGHUP wake
// the loop. The figure: attempts while down are one per back-off step,
// not one per wake-up (before, each failing check woke the loop again at
// once and a core spun).
func TestDownWarehouseKeepsItsBackoff(t *testing.T) {
	d := testwh.NewDatabase(t, testwh.Targets()[0], shopDumpForServe)
	proxy := newSwitchProxy(t, d.Config.Addr)
	proxy.set(true)
	mc := d.Config.Clone()
	mc.Addr = proxy.ln.Addr().String()
	mc.Timeout = time.Second
	clk := newFakeClock()
	timings := defaultTimings()
	timings.Janitor, timings.clock = time.Hour, clk
	m, _, _ := startMainWith(t, Config{Warehouses: []WarehouseConfig{{Name: "shop", DSN: mc.FormatDSN()}}}, MainOptions{Timings: timings})
	sl := m.slots[0]
	failures := func() int {
		st, _ := m.health.get("warehouse:shop")
		return st.Failures
	}

	if at := clk.nextArmed(t); !at.Equal(clk.Now().Add(timings.CheckEvery)) {
		t.Fatalf("first check due %s, want after %s", at, timings.CheckEvery)
	}
	proxy.set(false)
	prev := clk.Now().Add(timings.CheckEvery)
	clk.Advance(timings.CheckEvery) // the regular check finds it down
	want := 1
	step := timings.RetryMin
	for range 7 {
		// The attempt arms the next deadline after it recorded its failure.
		due := clk.nextArmed(t)
		for !due.After(prev) {
			due = clk.nextArmed(t)
		}
		if got := failures(); got != want {
			t.Fatalf("%d attempts while down, want %d", got, want)
		}
		// Wake the loop every way there is (its own failing check woke
		// it too): it may arm the same deadline again, never try early.
		for range 3 {
			sl.Poke()
			sl.Refresh()
			for sl.Pending() > 0 || len(clk.armed) > 0 {
				if at := clk.nextArmed(t); !at.Equal(due) {
					t.Fatalf("woken while down, the loop tried again (%d attempts, want %d) instead of waiting %s", failures(), want, step)
				}
			}
		}
		wait := due.Sub(clk.Now())
		if wait < step*4/5 || wait > step*6/5 {
			t.Fatalf("attempt %d: next retry in %s, want %s ±20%%", want, wait, step)
		}
		if st, _ := m.health.get("warehouse:shop"); st.State != stateDown || st.NextRetry == nil {
			t.Fatalf("health while down: %+v", st)
		}
		clk.Advance(wait - time.Millisecond)
		clk.Advance(time.Millisecond)
		prev = due
		want++
		step *= 2
	}
	// Back up: the next attempt finds it and checks return to every 30 s.
	proxy.set(true)
	due := clk.nextArmed(t)
	for !due.After(prev) {
		due = clk.nextArmed(t)
	}
	clk.Advance(due.Sub(clk.Now()))
	waitHealth(t, m, func(h healthzBody) bool { return h.Components["warehouse:shop"].State == stateUp })
}
