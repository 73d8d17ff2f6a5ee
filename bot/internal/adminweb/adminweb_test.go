package adminweb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    Config
		want string
	}{
		{"ok", Config{URL: "https://clarify.example.com", Secret: strings.Repeat("s", 32)}, ""},
		{"not a URL", Config{URL: "clarify.example.com"}, "must be an http(s) address"},
		{"a path", Config{URL: "https://clarify.example.com/admin"}, "without a path"},
		{"short secret", Config{Secret: "short"}, "at least 32 characters"},
		{"negative", Config{ProposalPeople: -1}, "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Validate()
			if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ listen, want string }{
		{":8080", "http://localhost:8080"}, {"0.0.0.0:9000", "http://localhost:9000"}, {"127.0.0.1:41234", "http://127.0.0.1:41234"}, {"[::]:8080", "http://localhost:8080"},
	} {
		if got := (Config{}).BaseURL(tc.listen); got != tc.want {
			t.Errorf("BaseURL(%q) = %q, want %q", tc.listen, got, tc.want)
		}
	}
}

// TestPreviewFollowsTheRunningStack: before the warehouse first started a
// preview says so instead of failing obscurely; once it runs, the
// glossary check sees that stack's access rules.
func TestPreviewFollowsTheRunningStack(t *testing.T) {
	var cur *Stack
	p := newPreviewWarehouse(func() *Stack { return cur })
	ctx := context.Background()
	if _, err := p.Query(ctx, "SELECT 1", warehouse.Limits{}); !errors.Is(err, errNotStarted) {
		t.Fatalf("Query before start: %v, want errNotStarted", err)
	}
	if _, err := p.Preview(ctx, "how many patients", nil); !errors.Is(err, errNotStarted) {
		t.Fatalf("Preview before start: %v, want errNotStarted", err)
	}
	if p.Withholds("patients", "ssn") {
		t.Fatal("Withholds before start")
	}
	cur = &Stack{Rules: access.Rules{Hidden: []string{"patients.ssn"}}}
	if !p.Withholds("patients", "ssn") || p.Withholds("patients", "name") {
		t.Fatal("Withholds does not follow the running stack's rules")
	}
}
