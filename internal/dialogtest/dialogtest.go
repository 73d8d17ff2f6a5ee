// Package dialogtest builds a real dialog manager over the demo warehouse
// for tests of adapters and flows: offline engine, bbolt stores in a temp
// dir, and a way to "restart" (a new manager over the same files).
package dialogtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/eval"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/demotest"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// Now is the fixed clock of test managers.
var Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

// Env is a demo warehouse with persistent stores.
type Env struct {
	Demo    *demotest.Demo
	Dir     string
	Facts   *ontology.Store
	Convs   *convstore.Store
	Manager *dialog.Manager
	Config  dialog.Config
	tb      testing.TB
}

// New starts the demo warehouse with orders orders and a manager over it.
func New(tb testing.TB, orders int, cfg dialog.Config) *Env {
	tb.Helper()
	e := &Env{Demo: demotest.Start(tb, orders), Dir: tb.TempDir(), Config: cfg, tb: tb}
	e.open()
	tb.Cleanup(e.close)
	return e
}

func (e *Env) open() {
	e.tb.Helper()
	var err error
	e.Facts, err = ontologyfile.Open(filepath.Join(e.Dir, "ontology.db"), ontology.Options{Now: Now})
	if err != nil {
		e.tb.Fatal(err)
	}
	e.Convs, err = convstore.Open(filepath.Join(e.Dir, "conversations.db"), convstore.Options{Now: Now})
	if err != nil {
		e.tb.Fatal(err)
	}
	cfg := e.Config
	if cfg.Warehouse == "" {
		cfg.Warehouse = "demo"
	}
	cfg.Now = Now
	e.Manager, err = dialog.New(cfg, dialog.Deps{
		Engine: offline.New(e.Demo.Catalog, offline.Options{Now: Now}),
		Exec:   e.Demo.DB, Catalog: e.Demo.Catalog, Facts: e.Facts, Admin: e.Facts, States: e.Convs,
	})
	if err != nil {
		e.tb.Fatal(err)
	}
}

func (e *Env) close() {
	if e.Convs != nil {
		e.Convs.Close()
	}
	if e.Facts != nil {
		e.Facts.Close()
	}
}

// Restart closes the stores and builds a new manager over the same files,
// as a process restart would.
func (e *Env) Restart() {
	e.tb.Helper()
	e.close()
	e.open()
}

// RestartWith is Restart with some store files replaced first: files maps
// a store's file name ("ontology.db", "conversations.db") to a file to
// copy over it, such as one written by an earlier build.
func (e *Env) RestartWith(files map[string]string) {
	e.tb.Helper()
	e.close()
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			e.tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.Dir, name), b, 0o600); err != nil {
			e.tb.Fatal(err)
		}
	}
	e.open()
}

// Stores opens an ontology and a conversation store in a temp dir, closed
// at cleanup, for tests that build a manager of their own.
func Stores(tb testing.TB) (*ontology.Store, *convstore.Store) {
	tb.Helper()
	dir := tb.TempDir()
	facts, err := ontologyfile.Open(filepath.Join(dir, "ontology.db"), ontology.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { facts.Close() })
	convs, err := convstore.Open(filepath.Join(dir, "conversations.db"), convstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { convs.Close() })
	return facts, convs
}

// DemoAnswer is the final answer to one of the demo's evaluation
// questions, reached by the evaluation's simulated user.
type DemoAnswer struct {
	ID, Question string
	Reply        dialog.Reply
}

// DemoAnswers asks every evaluation question of the demo (demodata's
// questions.jsonl) in its own conversation, answers the clarifications as
// the evaluation's simulated user does, and returns the answers given
// (questions that end without one are left out). locale is the asker's
// platform locale ("" for en-US).
func (e *Env) DemoAnswers(locale string) []DemoAnswer {
	e.tb.Helper()
	return e.DemoAnswersPart(locale, 0, 1)
}

// DemoAnswersPart is DemoAnswers for every parts-th question from the
// part-th (0-based): the quick tier spreads the demo's questions over the
// adapters that render them, so each is answered once per run.
func (e *Env) DemoAnswersPart(locale string, part, parts int) []DemoAnswer {
	e.tb.Helper()
	ctx := context.Background()
	qs, probs := eval.ParseQuestions("questions.jsonl", bytes.NewReader(demodata.Questions()))
	if len(probs) > 0 {
		e.tb.Fatalf("demo questions: %v", probs)
	}
	h := eval.New(e.Demo.DB, e.Demo.Snapshot, eval.Options{})
	var out []DemoAnswer
	for i, q := range qs {
		if i%parts != part {
			continue
		}
		g, _ := h.PrepareGold(ctx, "questions.jsonl", q)
		who := dialog.Who{Platform: "test", Workspace: "demo", Channel: "c", User: "u-" + q.ID}
		conv := "answers/" + q.ID
		replies, err := e.Manager.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: q.Question, Locale: locale})
		for turn := 0; err == nil && turn < 8; turn++ {
			var clar *dialog.Clarification
			var ans *dialog.Reply
			for i, r := range replies {
				switch {
				case r.Kind == dialog.ReplyAnswer && r.Answer != nil:
					ans = &replies[i]
				case r.Kind == dialog.ReplyClarification && r.Clarification != nil:
					clar = r.Clarification
				}
			}
			if ans != nil {
				out = append(out, DemoAnswer{ID: q.ID, Question: q.Question, Reply: *ans})
				break
			}
			if clar == nil || g.Err != nil {
				break
			}
			ch := h.Answer(ctx, g, clar)
			ev := dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: who, Target: clar.ID, Option: ch.Picked, Locale: locale}
			if ch.Picked < 0 {
				ev = dialog.Event{Kind: dialog.EventOther, Conversation: conv, Who: who, Target: clar.ID, Text: eval.NoneOfThese, Locale: locale}
			}
			replies, err = e.Manager.Handle(ctx, ev)
		}
		if err != nil {
			e.tb.Fatalf("%s: %v", q.ID, err)
		}
	}
	return out
}
