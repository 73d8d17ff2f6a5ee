package console

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestPendingClarificationSurvivesRestart: the console is stopped while a
// clarification is open; after a restart (a new process: a new manager
// over the same stores, a new console over the same session file) the
// question is shown again and "1" answers it, instead of asking example 1.
func TestPendingClarificationSurvivesRestart(t *testing.T) {
	env := dialogtest.New(t, 300, dialog.Config{})
	store := FileSession(filepath.Join(t.TempDir(), "console-ana.json"))
	opts := Options{User: "ana", Examples: []string{"how many orders do we have?"}, Store: store, Session: "first"}

	out := MustRun(t, env.Manager, "list customers in Ohio\n", opts)
	if !strings.Contains(out, "1) ") {
		t.Fatalf("no clarification before the restart:\n%s", out)
	}
	env.Restart()
	opts.Session = "second" // a new run gets a new session id; the saved one wins
	out = MustRun(t, env.Manager, "1\n", opts)
	if !strings.Contains(out, "You had an open question before the restart:") {
		t.Fatalf("the open question was not shown again:\n%s", out)
	}
	if strings.Contains(out, "Asking: how many orders") {
		t.Fatalf("'1' asked example 1 instead of answering the open question:\n%s", out)
	}
	if !strings.Contains(out, "✓ ") {
		t.Fatalf("'1' did not answer the open question:\n%s", out)
	}

	// The question is dropped ('cancel', or answered to the end): the next
	// run starts afresh, and '1' is the example again.
	env.Restart()
	MustRun(t, env.Manager, "cancel\n", opts)
	env.Restart()
	out = MustRun(t, env.Manager, "1\n", opts)
	if strings.Contains(out, "before the restart") || !strings.Contains(out, "Asking: how many orders") {
		t.Fatalf("a dropped question came back, or '1' is not the example:\n%s", out)
	}
}

// TestNoStoreNoResume: without a store nothing is kept (tests, pipes).
func TestNoStoreNoResume(t *testing.T) {
	env := dialogtest.New(t, 300, dialog.Config{})
	MustRun(t, env.Manager, "list customers in Ohio\n", Options{User: "ana"})
	out := MustRun(t, env.Manager, "1\n", Options{User: "ana", Examples: []string{"how many orders do we have?"}})
	if strings.Contains(out, "before the restart") || !strings.Contains(out, "Asking: how many orders") {
		t.Fatalf("%s", out)
	}
}
