package main

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Component states, as /healthz reports them.
const (
	stateStarting = "starting"
	stateUp       = "up"
	stateDown     = "down"    // failing; retried with backoff
	stateStopped  = "stopped" // refused for good (a token, an intent): fix the configuration and restart
)

// componentStatus is one component's health: a warehouse, a platform,
// the store. Detail is written for operators and never holds addresses,
// accounts or tokens (those go to the log).
type componentStatus struct {
	State     string     `json:"state"`
	Detail    string     `json:"detail,omitempty"`
	Since     time.Time  `json:"since"`
	Failures  int        `json:"failures,omitempty"`
	NextRetry *time.Time `json:"next_retry,omitempty"`
}

// health keeps every component's status; the components report, /healthz
// reads. Probes never reach a dependency: the monitors do, on their own
// schedule.
type health struct {
	mu   sync.Mutex
	m    map[string]componentStatus
	now  func() time.Time
	hear func(name, state string) // metrics; may be nil
	// changed is closed and replaced at every set (tests wait on it).
	changed chan struct{}
}

func newHealth(now func() time.Time) *health {
	if now == nil {
		now = time.Now
	}
	return &health{m: map[string]componentStatus{}, now: now, changed: make(chan struct{})}
}

// watch is a channel closed at the next change.
func (h *health) watch() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// set records a component's state; Since moves only when the state
// changes. failures and retry are for components that are retried.
func (h *health) set(name, state, detail string, failures int, retry time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	old, ok := h.m[name]
	st := componentStatus{State: state, Detail: detail, Since: now, Failures: failures}
	if ok && old.State == state {
		st.Since = old.Since
	}
	if retry > 0 {
		at := now.Add(retry).UTC().Truncate(time.Second)
		st.NextRetry = &at
	}
	h.m[name] = st
	close(h.changed)
	h.changed = make(chan struct{})
	if h.hear != nil && (!ok || old.State != state) {
		h.hear(name, state)
	}
}

func (h *health) get(name string) (componentStatus, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.m[name]
	return st, ok
}

// snapshot copies every status.
func (h *health) snapshot() map[string]componentStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]componentStatus, len(h.m))
	for k, v := range h.m {
		out[k] = v
	}
	return out
}

// healthzBody is what /healthz answers: "ok" when every component is up,
// else "degraded" (still HTTP 200: the bot serves what works, and a
// restart would not bring a warehouse back). warehouses keeps the older
// short form, name → "ok" or the trouble.
type healthzBody struct {
	Status     string                     `json:"status"`
	Components map[string]componentStatus `json:"components"`
	Warehouses map[string]string          `json:"warehouses"`
}

func (h *health) body() healthzBody {
	b := healthzBody{Status: "ok", Components: h.snapshot(), Warehouses: map[string]string{}}
	names := make([]string, 0, len(b.Components))
	for n := range b.Components {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := b.Components[n]
		if c.State != stateUp {
			b.Status = "degraded"
		}
		if wh, ok := strings.CutPrefix(n, "warehouse:"); ok {
			if c.State == stateUp {
				b.Warehouses[wh] = "ok"
			} else {
				b.Warehouses[wh] = c.State + ": " + c.Detail
			}
		}
	}
	return b
}

func (h *health) serveHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(h.body())
}
