package main

import (
	"time"

	"github.com/clarify-bot/clarify/bot/internal/monitor"
)

// serveTimings are how often warehouses are checked and retried; tests
// shorten them.
type serveTimings struct {
	// CheckEvery is the interval between checks of a warehouse that is up.
	CheckEvery time.Duration
	// Retry spaces the attempts to start or reach a warehouse that is down.
	RetryMin, RetryMax time.Duration
	// PartialMin and PartialMax space the retries of partial profiles.
	PartialMin, PartialMax time.Duration
	// Janitor is how often orphaned placeholders are looked for (0: a
	// third of the store's lease).
	Janitor time.Duration
	// clock paces the warehouses' checks and retries (nil: the real one).
	clock monitor.Clock
}

func defaultTimings() serveTimings {
	return serveTimings{
		CheckEvery: 30 * time.Second,
		RetryMin:   2 * time.Second, RetryMax: 5 * time.Minute,
		PartialMin: time.Minute, PartialMax: time.Hour,
	}
}

// monitorTimings are the warehouses' part of t.
func (t serveTimings) monitorTimings() monitor.Timings {
	return monitor.Timings{CheckEvery: t.CheckEvery, RetryMin: t.RetryMin, RetryMax: t.RetryMax,
		PartialMin: t.PartialMin, PartialMax: t.PartialMax, Clock: t.clock}
}
