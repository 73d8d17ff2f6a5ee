package router

import (
	"context"
	"log/slog"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestMoveChoices: choices kept where an earlier release kept them move
// to the conversations' store; a newer choice there wins, and moving
// again changes nothing.
func TestMoveChoices(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			old, cur := NewChoices(target.Open(t), slog.New(slog.DiscardHandler)), NewChoices(target.Open(t), slog.New(slog.DiscardHandler))
			for ch, wh := range map[string]string{"slack:T1:C1": "finance", "slack:T1:C2": "finance"} {
				if err := old.set(ch, wh); err != nil {
					t.Fatal(err)
				}
			}
			if err := cur.set("slack:T1:C2", "fleet"); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := MoveChoices(ctx, old.db, cur.db); err != nil {
					t.Fatal(err)
				}
				for ch, want := range map[string]string{"slack:T1:C1": "finance", "slack:T1:C2": "fleet"} {
					if got, _ := cur.get(ch); got != want {
						t.Fatalf("%s chose %q after the move, want %q", ch, got, want)
					}
				}
				if got, ok := old.get("slack:T1:C1"); ok {
					t.Fatalf("the old place still holds %q", got)
				}
			}
		})
	}
}
