package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestDemoAnswersReadWell renders the final answer of every evaluation
// question of the demo (reached by the evaluation's simulated user) the
// way the console shows it: every figure is written the one way, ids and
// years without separators, and no heading reads as SQL.
func TestDemoAnswersReadWell(t *testing.T) {
	env := dialogtest.New(t, 2000, dialog.Config{})
	// The quick tier renders a third of the questions here, the other
	// adapters the other thirds.
	part, parts := 2, 1
	if testing.Short() {
		parts = 3
	}
	answers := env.DemoAnswersPart("", part%parts, parts)
	if len(answers) < 50/parts {
		t.Fatalf("only %d of the demo's questions were answered", len(answers))
	}
	figures := 0
	for _, da := range answers {
		var out bytes.Buffer
		c := New(nil, strings.NewReader(""), &out, Options{User: "ana"})
		c.render(da.Reply)
		a := da.Reply.Answer
		if bad := dialogtest.CheckRendered(a, out.String()); len(bad) > 0 {
			t.Errorf("%s %q:\n  %s\n%s", da.ID, da.Question, strings.Join(bad, "\n  "), out.String())
		}
		if strings.Contains(out.String(), a.SQL) || strings.Contains(strings.Join(a.Columns, " "), "_") {
			t.Errorf("%s: SQL names in the answer: %v", da.ID, a.Columns)
		}
		if a.Headline != "" {
			figures++
		}
	}
	if figures == 0 {
		t.Error("no ranking of the demo said its figure in a sentence")
	}
}
