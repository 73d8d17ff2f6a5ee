package main

import (
	"context"
	"slices"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/router"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestChannelChoiceSurvivesRestart: a channel's choice of warehouse is
// kept in the store with the conversations (the files, or the server), so
// that after a restart its questions still go to the warehouse it chose;
// and every answer from a warehouse other than the default names it.
func TestChannelChoiceSurvivesRestart(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"files", func(*testing.T) string { return "" }},
		{"server", func(t *testing.T) string { return kvtest.MustDatabase(t) }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			cfg := Config{
				DataDir: t.TempDir(),
				Store:   StoreConfig{DSN: st.dsn(t)},
				Warehouses: []WarehouseConfig{
					{Name: "demo", Demo: true, DemoOrders: 300},
					{Name: "finance", Demo: true, DemoOrders: 200},
				},
			}
			who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c-finance", User: "u"}
			ctx := context.Background()
			ask := func(m *Main, conv string) dialog.Reply {
				t.Helper()
				replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: "how many orders are there?"})
				if err != nil || len(replies) == 0 || replies[0].Answer == nil {
					t.Fatalf("%+v %v", replies, err)
				}
				return replies[0]
			}

			m, cancel, wait := startMain(t, cfg)
			if a := ask(m, "q0").Answer; slices.Contains(a.Notes, router.FromNote("demo")) {
				t.Fatalf("an answer from the default warehouse names it: %q", a.Notes)
			}
			if _, err := m.router.Choose(who, "finance"); err != nil {
				t.Fatal(err)
			}
			before := ask(m, "q1").Answer
			if !slices.Contains(before.Notes, router.FromNote("finance")) {
				t.Fatalf("an answer from finance does not say so: %q", before.Notes)
			}
			cancel()
			wait()
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}

			m2, _, _ := startMain(t, cfg)
			if got := m2.router.Current(who); got != "finance" {
				t.Fatalf("after the restart the channel asks %q, want finance", got)
			}
			after := ask(m2, "q2").Answer
			if !slices.EqualFunc(after.Rows, before.Rows, slices.Equal[[]string]) || !slices.Contains(after.Notes, router.FromNote("finance")) {
				t.Fatalf("after the restart: rows %q notes %q, want rows %q from finance", after.Rows, after.Notes, before.Rows)
			}
		})
	}
}
