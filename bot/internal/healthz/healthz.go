// Package healthz keeps the health of bot serve's components (the store,
// each warehouse, each platform) and serves it on /healthz.
package healthz

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
	Starting = "starting"
	Up       = "up"
	Down     = "down"    // failing; retried with backoff
	Stopped  = "stopped" // refused for good (a token, an intent): fix the configuration and restart
)

// Status is one component's health: a warehouse, a platform,
// the store. Detail is written for operators and never holds addresses,
// accounts or tokens (those go to the log).
type Status struct {
	State     string     `json:"state"`
	Detail    string     `json:"detail,omitempty"`
	Since     time.Time  `json:"since"`
	Failures  int        `json:"failures,omitempty"`
	NextRetry *time.Time `json:"next_retry,omitempty"`
}

// Registry keeps every component's status; the components report,
// /healthz reads. Probes never reach a dependency: the monitors do, on
// their own schedule.
type Registry struct {
	mu  sync.Mutex
	m   map[string]Status
	now func() time.Time
	// Hear is told of each change of state (metrics); may be nil.
	Hear func(name, state string)
	// changed is closed and replaced at every set (tests wait on it).
	changed chan struct{}
}

// New is an empty registry reading the clock now (time.Now when nil).
func New(now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{m: map[string]Status{}, now: now, changed: make(chan struct{})}
}

// Watch is a channel closed at the next change.
func (h *Registry) Watch() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Set records a component's state; Since moves only when the state
// changes. failures and retry are for components that are retried.
func (h *Registry) Set(name, state, detail string, failures int, retry time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	old, ok := h.m[name]
	st := Status{State: state, Detail: detail, Since: now, Failures: failures}
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
	if h.Hear != nil && (!ok || old.State != state) {
		h.Hear(name, state)
	}
}

// Get is a component's status, if it reported.
func (h *Registry) Get(name string) (Status, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.m[name]
	return st, ok
}

// Snapshot copies every status.
func (h *Registry) Snapshot() map[string]Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]Status, len(h.m))
	for k, v := range h.m {
		out[k] = v
	}
	return out
}

// Body is what /healthz answers: "ok" when every component is up,
// else "degraded" (still HTTP 200: the bot serves what works, and a
// restart would not bring a warehouse back). warehouses keeps the older
// short form, name → "ok" or the trouble.
type Body struct {
	Status     string            `json:"status"`
	Components map[string]Status `json:"components"`
	Warehouses map[string]string `json:"warehouses"`
}

// Body is the answer of /healthz now.
func (h *Registry) Body() Body {
	b := Body{Status: "ok", Components: h.Snapshot(), Warehouses: map[string]string{}}
	names := make([]string, 0, len(b.Components))
	for n := range b.Components {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := b.Components[n]
		if c.State != Up {
			b.Status = "degraded"
		}
		if wh, ok := strings.CutPrefix(n, "warehouse:"); ok {
			if c.State == Up {
				b.Warehouses[wh] = "ok"
			} else {
				b.Warehouses[wh] = c.State + ": " + c.Detail
			}
		}
	}
	return b
}

// ServeHTTP answers /healthz.
func (h *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(h.Body())
}
