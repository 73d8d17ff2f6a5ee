package main

import (
	"time"

	"github.com/clarify-bot/clarify/bot/internal/healthz"
)

// Component states, as /healthz reports them (bot/internal/healthz).
const (
	stateStarting = healthz.Starting
	stateUp       = healthz.Up
	stateDown     = healthz.Down
	stateStopped  = healthz.Stopped
)

// healthzBody is what /healthz answers.
type healthzBody = healthz.Body

// health is the components' health under the names this package's
// monitors use.
type health struct{ *healthz.Registry }

func newHealth(now func() time.Time) *health { return &health{healthz.New(now)} }

func (h *health) set(name, state, detail string, failures int, retry time.Duration) {
	h.Set(name, state, detail, failures, retry)
}

func (h *health) get(name string) (healthz.Status, bool) { return h.Get(name) }
