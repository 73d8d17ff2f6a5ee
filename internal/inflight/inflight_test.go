package inflight

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

func TestOrphansAreOtherDeadReplicas(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			db := target.Open(t)
			a, err := New(ctx, db, "a", nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := New(ctx, db, "b", nil)
			c, _ := New(ctx, db, "c", nil)
			pa := Placeholder{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1.1", Message: "1.2"}
			pb := Placeholder{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "2.1", Message: "2.2", Click: true}
			pc := Placeholder{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "3.1", Message: "3.2"}
			for _, tr := range []struct {
				s *Store
				p Placeholder
			}{{a, pa}, {b, pb}, {c, pc}} {
				if err := tr.s.Track(ctx, tr.p); err != nil {
					t.Fatal(err)
				}
			}
			asked := map[string]int{}
			alive := func(_ context.Context, r string) (bool, error) { asked[r]++; return r == "c", nil }
			got, err := a.Orphans(ctx, alive)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Replica != "b" || !got[0].Click || got[0].Message != "2.2" {
				t.Fatalf("orphans seen from a: %+v", got)
			}
			if asked["a"] != 0 || asked["b"] != 1 || asked["c"] != 1 {
				t.Fatalf("liveness asked %v: once per other replica", asked)
			}
			if err := a.Done(ctx, got[0]); err != nil {
				t.Fatal(err)
			}
			if got, _ := a.Orphans(ctx, alive); len(got) != 0 {
				t.Fatalf("a replaced orphan is still listed: %+v", got)
			}
			if err := c.Done(ctx, pc); err != nil {
				t.Fatal(err)
			}
		})
	}
}
