package discord

import (
	"net/http"
	"strings"
	"time"
)

// Hooks hear the adapter's REST calls to Discord, for metrics. Nil fields
// are skipped; they must not block. route is the HTTP method and the
// first part of the path ("POST /channels", "PATCH /webhooks"): ids are
// left out so that the set stays small.
type Hooks struct {
	// APIError: a call failed (no response, or a status of 400 or more
	// other than the ones discordgo retries).
	APIError func(route string)
	// Retry: Discord answered 429 or 502, which discordgo waits out and
	// sends again.
	Retry func(route string)
	// FirstMessage: the time from receiving an interaction or question to
	// the first thing the person sees (the deferral, or "typing…").
	FirstMessage func(time.Duration)
	// Answered: the time from receiving it to its replies delivered.
	Answered func(time.Duration)
}

func (h Hooks) firstMessage(d time.Duration) {
	if h.FirstMessage != nil {
		h.FirstMessage(d)
	}
}

func (h Hooks) answered(d time.Duration) {
	if h.Answered != nil {
		h.Answered(d)
	}
}

func (h Hooks) set() bool { return h.APIError != nil || h.Retry != nil }

// Routes are the REST routes (restRoute) the adapter calls, so that
// metrics can start every series at zero.
var Routes = []string{
	"GET /users", "GET /applications", "PUT /applications", "GET /gateway", "GET /channels",
	"POST /channels", "PATCH /channels", "POST /interactions", "POST /webhooks", "PATCH /webhooks",
}

// hookedTransport reports each REST response to Hooks. Every discordgo
// REST call goes through the session's http.Client, so this one place
// sees them all.
type hookedTransport struct {
	base  http.RoundTripper
	hooks Hooks
}

func (t hookedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	route := restRoute(req)
	switch {
	case err != nil:
		if t.hooks.APIError != nil {
			t.hooks.APIError(route)
		}
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway:
		if t.hooks.Retry != nil {
			t.hooks.Retry(route)
		}
	case resp.StatusCode >= 400:
		if t.hooks.APIError != nil {
			t.hooks.APIError(route)
		}
	}
	return resp, err
}

// withHooks returns a copy of c whose transport reports to h.
func withHooks(c *http.Client, h Hooks) *http.Client {
	cp := *c
	base := cp.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = hookedTransport{base: base, hooks: h}
	return &cp
}

// restRoute is "METHOD /resource" of a request to /api/vN/resource/…
func restRoute(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	for i, p := range parts {
		if p == "api" && i+2 < len(parts) && strings.HasPrefix(parts[i+1], "v") {
			return req.Method + " /" + parts[i+2]
		}
	}
	return req.Method + " other"
}
