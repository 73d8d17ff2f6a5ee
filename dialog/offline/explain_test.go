package offline_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
)

// TestExplain: the explanation says what the reading stage linked each
// word to, names a word no recogniser took, and ends with exactly the
// candidates the engine proposes.
func TestExplain(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	req := dialog.Request{Question: "how many singers in Brill have a fee paid over 50 zorbled"}
	x, err := e.Explain(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	has := func(kind, phrase, means string) bool {
		return slices.ContainsFunc(x.Mentions, func(m links.Mention) bool {
			return m.Kind == kind && m.Phrase == phrase && (means == "" || slices.Contains(m.Means, means))
		})
	}
	for _, want := range []struct{ kind, phrase, means string }{
		{"table", "singers", "singers"},
		{"comparison", "over 50", "> 50"},
		{"value", "Brill", `venues.town = "Brill"`},
		{"unread", "zorbled", ""},
	} {
		if !has(want.kind, want.phrase, want.means) {
			t.Errorf("no %s mention %q → %q in %v", want.kind, want.phrase, want.means, x.Mentions)
		}
	}
	if len(x.Words) < 10 || x.Words[2] != "singers" {
		t.Errorf("words %q", x.Words)
	}
	if x.Plans == 0 {
		t.Error("no plans counted")
	}
	p, err := e.Candidates(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Candidates) == 0 || !reflect.DeepEqual(x.Candidates, p.Candidates) {
		t.Errorf("explained candidates differ from the engine's: %d vs %d", len(x.Candidates), len(p.Candidates))
	}
}
