package enforce

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/doctor"
	"github.com/clarify-bot/clarify/connectors/access"
)

// TestResults: each way a level's account can stand is worded for bot
// doctor with its status; a fleet's drivers table hides the licence.
func TestResults(t *testing.T) {
	rules := access.Rules{Hidden: []string{"drivers.licence"}}
	for _, tc := range []struct {
		name   string
		e      Level
		status doctor.Status
		detail string
	}{
		{"unknown", Level{Err: errors.New("lost connection")}, doctor.StatusWarn, "cannot tell whether the server enforces the access rules: lost connection"},
		{"readable", Level{Probe: access.Enforcement{Readable: []string{"drivers.licence"}}}, doctor.StatusError, "NOT ENFORCED: the account can read what the level hides (reads drivers.licence)"},
		{"enforced", Level{Probe: access.Enforcement{Refused: []string{"drivers.licence"}}}, doctor.StatusOK, "enforced: the server refuses the account drivers.licence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Results("access fleet (level default)", "fleet", rules, tc.e)
			if len(got) != 1 || got[0].Status != tc.status || !strings.Contains(got[0].Detail, tc.detail) {
				t.Fatalf("Results = %+v, want one %v result with %q", got, tc.status, tc.detail)
			}
		})
	}
}

// TestCheckWithNothingProtected: a level that protects nothing is not
// probed (the querier would fail the test).
func TestCheckWithNothingProtected(t *testing.T) {
	e := Check(context.Background(), "default", nil, access.Rules{})
	if e.Err != nil || !e.Enforced() || len(e.Leaks()) != 0 {
		t.Fatalf("Check = %+v, want enforced with nothing to probe", e)
	}
}

// TestHealthNote names the levels only, never what they hide.
func TestHealthNote(t *testing.T) {
	if n := (*Report)(nil).HealthNote(); n != "" {
		t.Fatalf("nil report: %q", n)
	}
	r := &Report{Levels: []string{"default", "dispatch"}, Details: []string{"level default: reads drivers.licence"}}
	n := r.HealthNote()
	if !strings.Contains(n, "level default, dispatch") || strings.Contains(n, "licence") {
		t.Fatalf("HealthNote = %q", n)
	}
}
