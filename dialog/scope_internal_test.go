package dialog

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// TestScopeWordsNameTheStep: a nested step is named after its alias only
// when the alias names a thing; an engine's "grouped" or a "t1" is worded
// as the step worked out first.
func TestScopeWordsNameTheStep(t *testing.T) {
	t.Parallel()
	l := NewLabels(&warehouse.Snapshot{})
	for scope, want := range map[string]string{
		"from:grouped":       "in the step worked out first",
		"from:t1":            "in the step worked out first",
		"with:member_totals": "in the step that first works out the member totals",
		"exists":             "in the part that checks for related rows",
	} {
		if got := l.scopeWords(scope); got != want {
			t.Errorf("%s: %q, want %q", scope, got, want)
		}
	}
}
