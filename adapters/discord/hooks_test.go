package discord

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestHookedTransportClassifiesResponses: failures are API errors, the
// statuses discordgo sends again are retries, and the route leaves out ids.
func TestHookedTransportClassifiesResponses(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("status"))
		w.WriteHeader(code)
	}))
	defer srv.Close()
	tests := []struct {
		name, method, path string
		status             int
		wantError          string
		wantRetry          string
	}{
		{"ok", "POST", "/api/v9/channels/1200000000000000010/messages", 200, "", ""},
		{"not found", "PATCH", "/api/v9/webhooks/1/tok/messages/@original", 404, "PATCH /webhooks", ""},
		{"rate limited", "POST", "/api/v9/channels/1/messages", 429, "", "POST /channels"},
		{"bad gateway", "POST", "/api/v9/interactions/1/tok/callback", 502, "", "POST /interactions"},
		{"unreachable", "GET", "/api/v9/gateway", 0, "GET /gateway", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotError, gotRetry []string
			c := withHooks(srv.Client(), Hooks{
				APIError: func(r string) { gotError = append(gotError, r) },
				Retry:    func(r string) { gotRetry = append(gotRetry, r) },
			})
			base := srv.URL
			if tt.status == 0 {
				base = "http://127.0.0.1:1" // nothing listens there
			}
			req, _ := http.NewRequest(tt.method, base+tt.path+"?status="+strconv.Itoa(tt.status), nil)
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
			}
			if strings.Join(gotError, ",") != tt.wantError || strings.Join(gotRetry, ",") != tt.wantRetry {
				t.Fatalf("errors %v retries %v; want %q %q", gotError, gotRetry, tt.wantError, tt.wantRetry)
			}
		})
	}
}
