package llmengine

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/logbuf"
)

// A model that only writes SQL the parser rejects: the person gets the
// offline engine's answer and plain words, never the parser's; the log
// keeps the parser's message.
func TestModelSyntaxErrorsReadPlainly(t *testing.T) {
	var logs logbuf.Buffer
	logger := logs.Logger()
	f := newFixture(t, Options{Logger: logger}, true)
	const broken = "SELECT COUNT(* FROM orders WHERE"
	f.srv.Fallback(llmtest.Always(llmtest.SQL(broken), nil))
	facts, convs := dialogtest.Stores(t)
	mgr, err := dialog.New(dialog.Config{Warehouse: "demo", Logger: logger}, dialog.Deps{
		Engine: f.eng, Fallback: offline.New(f.demo.Catalog, offline.Options{}),
		Exec: f.demo.DB, Catalog: f.demo.Catalog, Facts: facts, Admin: facts, States: convs,
	})
	if err != nil {
		t.Fatal(err)
	}
	replies, err := mgr.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: "c1", Who: ana, Text: "how many orders are there?"})
	if err != nil || len(replies) == 0 {
		t.Fatalf("%v %v", replies, err)
	}
	var text strings.Builder
	for _, r := range replies {
		text.WriteString(r.Text + "\n")
	}
	t.Logf("reply:\n%s\nlog:\n%s", text.String(), logs.String())
	for _, w := range []string{"line 1", "near", "syntax", broken} {
		if strings.Contains(strings.ToLower(text.String()), strings.ToLower(w)) {
			t.Errorf("the reply shows the parser's words %q:\n%s", w, text.String())
		}
	}
	if !strings.Contains(text.String(), "(reference ") {
		t.Errorf("the reply gives no reference:\n%s", text.String())
	}
	if !strings.Contains(logs.String(), "near") {
		t.Errorf("the log lacks the parser's message:\n%s", logs.String())
	}
}
