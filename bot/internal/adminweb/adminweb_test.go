package adminweb

import (
	"strings"
	"testing"
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
