package dialog_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/logbuf"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// countingExec counts the statements that reach the warehouse.
type countingExec struct {
	db *warehouse.DB
	n  atomic.Int64
}

func (c *countingExec) Query(ctx context.Context, stmt string, lim warehouse.Limits) (*warehouse.Result, error) {
	c.n.Add(1)
	return c.db.Query(ctx, stmt, lim)
}

// TestWriteRequestsAreTold: a request to change data, typed as SQL or in
// words, gets "I only read data" and runs nothing; questions that merely
// mention such verbs are answered.
func TestWriteRequestsAreTold(t *testing.T) {
	t.Parallel()
	wh := testwh.NewDatabase(t, testwh.Targets()[0], plantsDump).Open(t, warehouse.Config{})
	exec := &countingExec{db: wh}
	var log logbuf.Buffer
	m := failingManager(t, wh, exec, &log)
	ctx := context.Background()
	who := dialog.Who{Platform: "console", Workspace: "local", Channel: "c", User: "ana"}
	writes := []string{
		"drop table plants",
		"DELETE FROM plants WHERE id = 1",
		"update plants set capacity=0",
		"insert into plants values (9, 'X', 'Peru', 1)",
		"TRUNCATE countries;",
		"grant all on plants to bob",
		"please delete the plants in Japan",
		"can you drop the countries table?",
		"erase every plant",
		"please remove plant 2",
		"remove the plants in Japan",
	}
	for i, q := range writes {
		t.Run(q, func(t *testing.T) {
			before := exec.n.Load()
			replies, err := m.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "w" + string(rune('a'+i)), Who: who, Text: q})
			if err != nil {
				t.Fatal(err)
			}
			if len(replies) != 1 || replies[0].Kind != dialog.ReplyNotice || !strings.Contains(replies[0].Text, "I only read data") {
				t.Fatalf("replies %+v", replies)
			}
			if n := exec.n.Load() - before; n != 0 {
				t.Errorf("%d statements reached the warehouse", n)
			}
		})
	}
	reads := []string{"how many plants were deleted?", "which plants were updated in 2024?", "create a list of plants in Japan", "what is the total capacity of plants in France?"}
	for i, q := range reads {
		t.Run(q, func(t *testing.T) {
			replies, err := m.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "r" + string(rune('a'+i)), Who: who, Text: q})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range replies {
				if strings.Contains(r.Text, "I only read data") {
					t.Fatalf("a question was taken for a change: %q", r.Text)
				}
			}
		})
	}
	// After an answer, "remove …" takes something out of it: a read.
	t.Run("remove after an answer", func(t *testing.T) {
		replies, err := m.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "f1", Who: who, Text: "how many plants are there?"})
		if err != nil || len(replies) == 0 || replies[len(replies)-1].Kind != dialog.ReplyAnswer {
			t.Fatalf("the first question: %+v %v", replies, err)
		}
		replies, err = m.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "f1", Who: who, Text: "remove Japan"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range replies {
			if strings.Contains(r.Text, "I only read data") {
				t.Fatalf("a follow-up was taken for a change: %q", r.Text)
			}
		}
	})
}
