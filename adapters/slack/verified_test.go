package slack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// An answer someone marked correct shows admins one way to make it a
// verified query; other preferences keep the promote menu.
func TestHomeOffersToVerifyConfirmedAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fact      dialog.FactView
		want, not string
	}{
		{"confirmed answer", dialog.FactView{ID: "f1", Phrase: "how many order cancelled", Meaning: "Answer marked correct", Kind: "query", Scope: "user", Owner: "slack:T1:U1"}, "Make it a verified query", "Promote to a channel"},
		{"learned choice", dialog.FactView{ID: "f2", Phrase: "revenue", Meaning: "Net revenue", Kind: "column", Scope: "user", Owner: "slack:T1:U1"}, "Promote to the workspace", "Make it a verified query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(factBlock(tt.fact, "", 0, "T1", true, true, ref{}))
			if err != nil {
				t.Fatal(err)
			}
			if s := string(b); !strings.Contains(s, tt.want) || strings.Contains(s, tt.not) {
				t.Fatalf("block %s: want %q, not %q", s, tt.want, tt.not)
			}
		})
	}
}
