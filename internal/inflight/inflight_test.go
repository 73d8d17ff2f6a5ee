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

// TestClaimIsExclusive: of two survivors claiming the same orphan at
// once, exactly one gets it, with its turn; it is then that survivor's
// (no orphan to anyone while it lives), and a release gives it back.
func TestClaimIsExclusive(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			db := target.Open(t)
			dead, _ := New(ctx, db, "dead", nil)
			b, _ := New(ctx, db, "b", nil)
			c, _ := New(ctx, db, "c", nil)
			orig := Placeholder{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1.1", Message: "1.2", Turn: []byte(`{"text":"how many loans?"}`)}
			if err := dead.Track(ctx, orig); err != nil {
				t.Fatal(err)
			}
			onlyDead := func(_ context.Context, r string) (bool, error) { return r != "dead", nil }
			orphans, err := b.Orphans(ctx, onlyDead)
			if err != nil || len(orphans) != 1 || string(orphans[0].Turn) != `{"text":"how many loans?"}` {
				t.Fatalf("orphans %+v %v", orphans, err)
			}
			type claim struct {
				p  Placeholder
				ok bool
			}
			results := make(chan claim, 2)
			start := make(chan struct{})
			for _, s := range []*Store{b, c} {
				go func() {
					<-start
					p, ok, err := s.Claim(ctx, orphans[0])
					if err != nil {
						t.Error(err)
					}
					results <- claim{p, ok}
				}()
			}
			close(start)
			r1, r2 := <-results, <-results
			if r1.ok == r2.ok {
				t.Fatalf("claims %v and %v: want exactly one", r1.ok, r2.ok)
			}
			won := r1
			if !won.ok {
				won = r2
			}
			if won.p.Replica != "b" && won.p.Replica != "c" || string(won.p.Turn) != string(orig.Turn) {
				t.Fatalf("claimed %+v", won.p)
			}
			for _, s := range []*Store{b, c} {
				if got, _ := s.Orphans(ctx, onlyDead); len(got) != 0 && got[0].Replica == "dead" {
					t.Fatalf("a claimed placeholder is still the dead replica's: %+v", got)
				}
			}
			owner := b
			if won.p.Replica == "c" {
				owner = c
			}
			if err := owner.Release(ctx, won.p, orphans[0]); err != nil {
				t.Fatal(err)
			}
			if got, _ := b.Orphans(ctx, onlyDead); len(got) != 1 || got[0].Replica != "dead" {
				t.Fatalf("after release: %+v", got)
			}
		})
	}
}

// TestTakeoversAreCounted: each claim of an orphan counts, and the count
// survives in the record, so that a survivor that dies running the turn
// hands the next one a turn already taken over once.
func TestTakeoversAreCounted(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			ctx := context.Background()
			db := target.Open(t)
			dead, _ := New(ctx, db, "dead", nil)
			b, _ := New(ctx, db, "b", nil)
			c, _ := New(ctx, db, "c", nil)
			if err := dead.Track(ctx, Placeholder{Platform: "slack", Workspace: "T1", Channel: "C1", Message: "1.2", Turn: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			gone := map[string]bool{"dead": true}
			alive := func(_ context.Context, r string) (bool, error) { return !gone[r], nil }
			orphans, err := b.Orphans(ctx, alive)
			if err != nil || len(orphans) != 1 || orphans[0].Takeovers != 0 {
				t.Fatalf("orphans %+v %v", orphans, err)
			}
			mine, ok, err := b.Claim(ctx, orphans[0])
			if err != nil || !ok || mine.Takeovers != 1 {
				t.Fatalf("first claim %+v %v %v", mine, ok, err)
			}
			gone["b"] = true // b dies running it
			orphans, err = c.Orphans(ctx, alive)
			if err != nil || len(orphans) != 1 || orphans[0].Replica != "b" || orphans[0].Takeovers != 1 {
				t.Fatalf("orphans after b died %+v %v", orphans, err)
			}
			mine, ok, err = c.Claim(ctx, orphans[0])
			if err != nil || !ok || mine.Takeovers != 2 {
				t.Fatalf("second claim %+v %v %v", mine, ok, err)
			}
		})
	}
}
