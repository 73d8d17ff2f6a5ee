package ontology

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// testClock is a settable clock, so tests assert exact times without
// sleeping.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// MustOpen opens a store in a temp dir, closed at cleanup.
func MustOpen(tb testing.TB, clk *testClock) *Store {
	tb.Helper()
	if kvtest.OnServer(tb) {
		opts := Options{}
		if clk != nil {
			opts.Now = clk.Now
		}
		s, err := New(context.Background(), kvtest.MustServer(tb).Namespace("ontology"), "test", opts)
		if err != nil {
			tb.Fatalf("New: %v", err)
		}
		return s
	}
	return MustOpenPath(tb, filepath.Join(tb.TempDir(), "ontology.db"), clk)
}

func MustOpenPath(tb testing.TB, path string, clk *testClock) *Store {
	tb.Helper()
	opts := Options{}
	if clk != nil {
		opts.Now = clk.Now
	}
	s, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func MustLearn(tb testing.TB, s *Store, f Fact) Fact {
	tb.Helper()
	got, err := s.Learn(context.Background(), f)
	if err != nil {
		tb.Fatalf("Learn(%+v): %v", f, err)
	}
	return got
}

const (
	alice   = "slack:T1:U1"
	bob     = "slack:T1:U2"
	general = "slack:T1:C1"
	team    = "slack:T1"
)

var admin = Actor{ID: "cli:root", Admin: true}

func revenue(owner string, target string) Fact {
	return Fact{Scope: ScopeUser, Owner: owner, Warehouse: "shop", Phrase: "Revenue", Kind: KindAggregate,
		Target: exprTarget(target), Meaning: "meaning of " + target, Question: "revenue by month"}
}

func TestNormalizePhrase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Revenue", "revenue"},
		{"  Best\tCustomer \n", "best customer"},
		{"TEXAS", "texas"},
		{"a\x00b", "ab"},
		{"", ""},
		{"Ünïcode  Straße", "ünïcode straße"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := NormalizePhrase(tc.in); got != tc.want {
				t.Errorf("NormalizePhrase(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLearn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		learn   []Fact
		want    Fact // ID, Created, LastUsed checked separately
		created int  // index of the Learn whose time is Created
	}{
		{
			name:  "new",
			learn: []Fact{revenue(alice, "measure=SUM(net)")},
			want: Fact{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate,
				Target: exprTarget("measure=SUM(net)"), Meaning: "meaning of measure=SUM(net)", Question: "revenue by month", Confirmations: 1},
		},
		{
			name:  "same target confirms",
			learn: []Fact{revenue(alice, "measure=SUM(net)"), revenue(alice, "measure=SUM(net)"), revenue(alice, "measure=SUM(net)")},
			want: Fact{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate,
				Target: exprTarget("measure=SUM(net)"), Meaning: "meaning of measure=SUM(net)", Question: "revenue by month", Confirmations: 3},
		},
		{
			name:  "different target replaces",
			learn: []Fact{revenue(alice, "measure=SUM(net)"), revenue(alice, "measure=SUM(net)"), revenue(alice, "measure=SUM(gross)")},
			want: Fact{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate,
				Target: exprTarget("measure=SUM(gross)"), Meaning: "meaning of measure=SUM(gross)", Question: "revenue by month", Confirmations: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newTestClock()
			s := MustOpen(t, clk)
			start := clk.Now()
			var got Fact
			var ids []string
			for _, f := range tc.learn {
				got = MustLearn(t, s, f)
				ids = append(ids, got.ID)
				clk.Advance(time.Minute)
			}
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("ids changed across upserts: %v", ids)
				}
			}
			if len(got.ID) != idLen || !validID(got.ID) {
				t.Errorf("ID %q: want %d URL-safe characters", got.ID, idLen)
			}
			if !got.Created.Equal(start) {
				t.Errorf("Created = %v, want %v", got.Created, start)
			}
			if want := start.Add(time.Duration(len(tc.learn)-1) * time.Minute); !got.LastUsed.Equal(want) {
				t.Errorf("LastUsed = %v, want %v", got.LastUsed, want)
			}
			cmp := got
			cmp.ID, cmp.Created, cmp.LastUsed = "", time.Time{}, time.Time{}
			if !sameFact(cmp, tc.want) {
				t.Errorf("Learn =\n %+v\nwant\n %+v", cmp, tc.want)
			}
			stored, err := s.Get(ctx, got.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFact(stored, got) {
				t.Errorf("Get = %+v, want %+v", stored, got)
			}
		})
	}
}

func TestLearnResetsUsesOnNewTarget(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	f := MustLearn(t, s, revenue(alice, "a"))
	for range 3 {
		if err := s.RecordUse(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reject(ctx, f.ID, alice); err != nil {
		t.Fatal(err)
	}
	g := MustLearn(t, s, revenue(alice, "b"))
	if g.Uses != 0 || g.Rejections != 0 || g.Confirmations != 1 || !g.Active() {
		t.Errorf("after a change of mind: %+v", g)
	}
}

func TestLearnInvalid(t *testing.T) {
	s := MustOpen(t, nil)
	good := revenue(alice, "x")
	for _, tc := range []struct {
		name   string
		mutate func(*Fact)
		want   string
	}{
		{"no scope", func(f *Fact) { f.Scope = "" }, "scope is empty"},
		{"bad scope", func(f *Fact) { f.Scope = "team" }, `unknown scope "team"`},
		{"no owner", func(f *Fact) { f.Owner = " " }, "owner is empty"},
		{"blank phrase", func(f *Fact) { f.Phrase = " \t" }, "phrase is empty"},
		{"bad kind", func(f *Fact) { f.Kind = "colour" }, `unknown kind "colour"`},
		{"no target", func(f *Fact) { f.Target = Target{} }, "target is empty"},
		{"bad term", func(f *Fact) { f.Target = Target{Slot: "measure", Choice: Term{Kind: "colour"}} }, `unknown term kind "colour"`},
		{"nul in owner", func(f *Fact) { f.Owner = "a\x00b" }, "NUL"},
		{"long phrase", func(f *Fact) { f.Phrase = strings.Repeat("x", maxKeyField+1) }, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			tc.mutate(&f)
			_, err := s.Learn(context.Background(), f)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Learn: %v, want ErrInvalid mentioning %q", err, tc.want)
			}
		})
	}
}

func TestConfirmRejectActive(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ops        string // c = Confirm, r = Reject, u = RecordUse
		wantActive bool
		wantUses   int
	}{
		{"learned", "", true, 0},
		{"one rejection", "r", false, 0},
		{"confirmed then rejected", "cr", true, 0},
		{"rejected twice after confirm", "crr", false, 0},
		{"used", "uuu", true, 3},
		{"used then rejected", "ur", false, 1},
		{"rejected then reconfirmed", "rc", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newTestClock()
			s := MustOpen(t, clk)
			f := MustLearn(t, s, revenue(alice, "t"))
			for _, op := range tc.ops {
				clk.Advance(time.Hour)
				var err error
				switch op {
				case 'c':
					err = s.Confirm(ctx, f.ID)
				case 'r':
					_, err = s.Reject(ctx, f.ID, alice)
				case 'u':
					err = s.RecordUse(ctx, f.ID)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Get(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Active() != tc.wantActive || got.Uses != tc.wantUses {
				t.Errorf("after %q: active %v uses %d (%+v), want %v %d", tc.ops, got.Active(), got.Uses, got, tc.wantActive, tc.wantUses)
			}
			if tc.ops == "uuu" && !got.LastUsed.Equal(clk.Now()) {
				t.Errorf("RecordUse did not update LastUsed: %v", got.LastUsed)
			}
			active, err := s.List(ctx, Filter{Owner: alice})
			if err != nil {
				t.Fatal(err)
			}
			if (len(active) == 1) != tc.wantActive {
				t.Errorf("List without inactive returned %d facts", len(active))
			}
		})
	}
	t.Run("unknown id", func(t *testing.T) {
		s := MustOpen(t, nil)
		reject := func(ctx context.Context, id string) error { _, err := s.Reject(ctx, id, alice); return err }
		for name, fn := range map[string]func(context.Context, string) error{"Confirm": s.Confirm, "Reject": reject, "RecordUse": s.RecordUse} {
			if err := fn(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestResolve(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fact := func(id string, sc Scope, phrase string, kind Kind, conf, rej int, age int) Fact {
		return Fact{ID: id, Scope: sc, Phrase: phrase, Kind: kind, Target: exprTarget(id), Confirmations: conf, Rejections: rej,
			LastUsed: t0.Add(-time.Duration(age) * time.Hour)}
	}
	for _, tc := range []struct {
		name  string
		facts []Fact
		want  []string
	}{
		{"empty", nil, nil},
		{"user over channel over workspace", []Fact{
			fact("w", ScopeWorkspace, "revenue", KindAggregate, 1, 0, 0),
			fact("c", ScopeChannel, "revenue", KindAggregate, 1, 0, 0),
			fact("u", ScopeUser, "revenue", KindAggregate, 1, 0, 5),
		}, []string{"u"}},
		{"channel over workspace", []Fact{
			fact("c", ScopeChannel, "revenue", KindAggregate, 1, 0, 9),
			fact("w", ScopeWorkspace, "revenue", KindAggregate, 1, 0, 0),
		}, []string{"c"}},
		{"inactive user fact skipped", []Fact{
			fact("u", ScopeUser, "revenue", KindAggregate, 1, 1, 0),
			fact("c", ScopeChannel, "revenue", KindAggregate, 1, 0, 0),
			fact("w", ScopeWorkspace, "revenue", KindAggregate, 1, 0, 0),
		}, []string{"c"}},
		{"all inactive", []Fact{
			fact("u", ScopeUser, "revenue", KindAggregate, 1, 2, 0),
			fact("w", ScopeWorkspace, "revenue", KindAggregate, 0, 0, 0),
		}, nil},
		{"kinds are separate", []Fact{
			fact("u-agg", ScopeUser, "revenue", KindAggregate, 1, 0, 0),
			fact("w-col", ScopeWorkspace, "revenue", KindColumn, 1, 0, 0),
			fact("w-agg", ScopeWorkspace, "revenue", KindAggregate, 1, 0, 0),
		}, []string{"u-agg", "w-col"}},
		{"phrases are separate", []Fact{
			fact("u1", ScopeUser, "texas", KindValue, 1, 0, 0),
			fact("u2", ScopeUser, "revenue", KindAggregate, 1, 0, 0),
			fact("c1", ScopeChannel, "texas", KindValue, 1, 0, 0),
		}, []string{"u1", "u2"}},
		{"same scope: most recently used", []Fact{
			fact("old", ScopeUser, "revenue", KindAggregate, 1, 0, 10),
			fact("new", ScopeUser, "revenue", KindAggregate, 1, 0, 1),
		}, []string{"new"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Resolve(tc.facts) {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestApplicable(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	s := MustOpen(t, clk)
	learn := func(sc Scope, owner, wh, phrase string) string {
		clk.Advance(time.Minute)
		return MustLearn(t, s, Fact{Scope: sc, Owner: owner, Warehouse: wh, Phrase: phrase, Kind: KindValue, Target: exprTarget("t:" + phrase)}).ID
	}
	w1 := learn(ScopeWorkspace, team, "shop", "texas")
	u1 := learn(ScopeUser, alice, "shop", "texas")
	c1 := learn(ScopeChannel, general, "shop", "texas")
	u2 := learn(ScopeUser, alice, "shop", "revenue")
	learn(ScopeUser, alice, "other", "texas")              // other warehouse
	learn(ScopeUser, alice+"0", "shop", "texas")           // owner whose key extends alice's
	learn(ScopeUser, bob, "shop", "texas")                 // other user
	learn(ScopeChannel, "slack:T1:C2", "shop", "texas")    // other channel
	learn(ScopeUser, general, "shop", "cross-scope owner") // same owner string, other scope
	w2 := learn(ScopeWorkspace, team, "shop", "best customer")
	// Using u1 makes it the most recent user fact.
	clk.Advance(time.Minute)
	if err := s.RecordUse(ctx, u1); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		owners Owners
		want   []string
	}{
		{"all three", Owners{User: alice, Channel: general, Workspace: team}, []string{u1, u2, c1, w2, w1}},
		{"no channel (DM)", Owners{User: alice, Workspace: team}, []string{u1, u2, w2, w1}},
		{"unknown user", Owners{User: "slack:T1:U9", Channel: general}, []string{c1}},
		{"nobody", Owners{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			facts, err := s.Applicable(ctx, tc.owners, "shop")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range facts {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Applicable = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestGetDelete(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get missing: %v", err)
	}
	for _, tc := range []struct {
		name    string
		actor   Actor
		wantErr error
	}{
		{"owner", Actor{ID: alice}, nil},
		{"admin", admin, nil},
		{"other user", Actor{ID: bob}, ErrForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := MustLearn(t, s, revenue(alice, "x"))
			err := s.Delete(ctx, f.ID, tc.actor)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Delete: %v, want %v", err, tc.wantErr)
			}
			_, err = s.Get(ctx, f.ID)
			if gone := errors.Is(err, ErrNotFound); gone != (tc.wantErr == nil) {
				t.Errorf("after Delete: Get %v", err)
			}
			if tc.wantErr != nil {
				if err := s.Delete(ctx, f.ID, admin); err != nil {
					t.Fatal(err)
				}
			}
			// The unique key is free again: learning gives a new fact.
			g := MustLearn(t, s, revenue(alice, "x"))
			if g.ID == f.ID || g.Confirmations != 1 {
				t.Errorf("relearn after delete = %+v", g)
			}
			if err := s.Delete(ctx, g.ID, admin); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := s.Delete(ctx, "missing", admin); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete missing: %v", err)
	}
}

func TestForget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		warehouse string
		phrase    string
		actor     Actor
		wantN     int
		wantErr   error
		wantLeft  int
	}{
		{"all warehouses, all kinds", "", "  REVENUE ", Actor{ID: alice}, 3, nil, 2},
		{"one warehouse", "shop", "revenue", Actor{ID: alice}, 2, nil, 3},
		{"nothing to forget", "", "profit", Actor{ID: alice}, 0, nil, 5},
		{"admin for someone", "", "revenue", admin, 3, nil, 2},
		{"someone else", "", "revenue", Actor{ID: bob}, 0, ErrForbidden, 5},
		{"empty phrase", "", " ", Actor{ID: alice}, 0, ErrInvalid, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := MustOpen(t, nil)
			for _, f := range []Fact{
				{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate, Target: exprTarget("a")},
				{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue", Kind: KindColumn, Target: exprTarget("b")},
				{Scope: ScopeUser, Owner: alice, Warehouse: "crm", Phrase: "revenue", Kind: KindAggregate, Target: exprTarget("c")},
				{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "revenue growth", Kind: KindAggregate, Target: exprTarget("d")},
				{Scope: ScopeUser, Owner: bob, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate, Target: exprTarget("e")},
			} {
				MustLearn(t, s, f)
			}
			n, err := s.Forget(ctx, alice, tc.warehouse, tc.phrase, tc.actor)
			if !errors.Is(err, tc.wantErr) || n != tc.wantN {
				t.Fatalf("Forget = %d, %v; want %d, %v", n, err, tc.wantN, tc.wantErr)
			}
			all, err := s.List(ctx, Filter{IncludeInactive: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != tc.wantLeft {
				t.Errorf("%d facts left, want %d", len(all), tc.wantLeft)
			}
			audit, err := s.Audit(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(audit) != tc.wantN {
				t.Errorf("%d audit entries, want %d", len(audit), tc.wantN)
			}
			for _, e := range audit {
				if e.Action != ActionForget || e.Actor != tc.actor.ID || e.Before == nil || e.Before.Owner != alice || e.After != nil {
					t.Errorf("audit entry %+v", e)
				}
			}
		})
	}
}

func TestPromote(t *testing.T) {
	for _, tc := range []struct {
		name     string
		actor    Actor
		to       Scope
		owner    string
		existing bool // the target scope already has the phrase+kind
		wantErr  error
	}{
		{"admin to channel", admin, ScopeChannel, general, false, nil},
		{"admin to workspace", admin, ScopeWorkspace, team, false, nil},
		{"admin replaces existing", admin, ScopeWorkspace, team, true, nil},
		{"non-admin", Actor{ID: alice}, ScopeChannel, general, false, ErrForbidden},
		{"to user scope", admin, ScopeUser, bob, false, ErrInvalid},
		{"no owner", admin, ScopeChannel, "", false, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newTestClock()
			s := MustOpen(t, clk)
			src := MustLearn(t, s, revenue(alice, "measure=SUM(net)"))
			var old Fact
			if tc.existing {
				old = MustLearn(t, s, Fact{Scope: tc.to, Owner: tc.owner, Warehouse: "shop", Phrase: "revenue", Kind: KindAggregate, Target: exprTarget("measure=SUM(gross)")})
				if _, err := s.Reject(ctx, old.ID, bob); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(time.Hour)
			got, err := s.Promote(ctx, src.ID, tc.to, tc.owner, tc.actor)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Promote: %v, want %v", err, tc.wantErr)
			}
			facts, lerr := s.List(ctx, Filter{IncludeInactive: true})
			if lerr != nil {
				t.Fatal(lerr)
			}
			if err != nil {
				want := 1
				if tc.existing {
					want = 2
				}
				if len(facts) != want {
					t.Errorf("refused promote changed the store: %d facts", len(facts))
				}
				return
			}
			if got.Scope != tc.to || got.Owner != tc.owner || got.PromotedFrom != src.ID || !got.Target.Equal(src.Target) ||
				got.Meaning != src.Meaning || !got.Active() || got.ID == src.ID {
				t.Errorf("Promote = %+v", got)
			}
			if tc.existing {
				if got.ID != old.ID || len(facts) != 2 {
					t.Errorf("want the existing fact %s replaced, got %s (%d facts)", old.ID, got.ID, len(facts))
				}
			} else if len(facts) != 2 || !got.Created.Equal(clk.Now()) {
				t.Errorf("want a new fact created now: %+v (%d facts)", got, len(facts))
			}
			// The source stays.
			if _, err := s.Get(ctx, src.ID); err != nil {
				t.Errorf("source: %v", err)
			}
			// The user's own fact still wins for them, the promoted one for others.
			for _, who := range []struct {
				user, want string
			}{{alice, src.ID}, {bob, got.ID}} {
				app, err := s.Applicable(ctx, Owners{User: who.user, Channel: general, Workspace: team}, "shop")
				if err != nil {
					t.Fatal(err)
				}
				if r := Resolve(app); len(r) != 1 || r[0].ID != who.want {
					t.Errorf("resolved for %s: %+v, want %s", who.user, r, who.want)
				}
			}
			audit, err := s.AuditOf(ctx, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(audit) != 1 || audit[0].Action != ActionPromote || audit[0].FactID != got.ID || audit[0].After == nil ||
				(audit[0].Before != nil) != tc.existing {
				t.Errorf("audit of source: %+v", audit)
			}
		})
	}
}

func TestEdit(t *testing.T) {
	for _, tc := range []struct {
		name            string
		scope           Scope
		actor           Actor
		target, meaning string
		wantErr         error
		wantTarget      string
		wantMeaning     string
		wantConf        int
	}{
		{"admin edits target and meaning", ScopeUser, admin, "t2", "m2", nil, "t2", "m2", 1},
		{"owner edits own", ScopeUser, Actor{ID: alice}, "t2", "", nil, "t2", "m1", 1},
		{"meaning only keeps counters", ScopeUser, admin, "", "better wording", nil, "t1", "better wording", 3},
		{"same target keeps counters", ScopeUser, admin, "t1", "m3", nil, "t1", "m3", 3},
		{"other user", ScopeUser, Actor{ID: bob}, "t2", "", ErrForbidden, "t1", "m1", 3},
		{"owner of channel fact is not admin", ScopeChannel, Actor{ID: alice}, "t2", "", ErrForbidden, "t1", "m1", 3},
		{"nothing to change", ScopeUser, admin, " ", "", ErrInvalid, "t1", "m1", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := MustOpen(t, nil)
			base := Fact{Scope: tc.scope, Owner: alice, Warehouse: "shop", Phrase: "texas", Kind: KindValue, Target: exprTarget("t1"), Meaning: "m1"}
			f := MustLearn(t, s, base)
			MustLearn(t, s, base)
			MustLearn(t, s, base)
			var target *Target
			if strings.TrimSpace(tc.target) != "" {
				tt := exprTarget(tc.target)
				target = &tt
			}
			_, err := s.Edit(ctx, f.ID, target, tc.meaning, tc.actor)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Edit: %v, want %v", err, tc.wantErr)
			}
			got, err := s.Get(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Target.Equal(exprTarget(tc.wantTarget)) || got.Meaning != tc.wantMeaning || got.Confirmations != tc.wantConf {
				t.Errorf("after Edit: %+v", got)
			}
		})
	}
	t.Run("unknown id", func(t *testing.T) {
		s := MustOpen(t, nil)
		if _, err := s.Edit(context.Background(), "nope", nil, "m", admin); !errors.Is(err, ErrNotFound) {
			t.Errorf("Edit: %v", err)
		}
	})
}

func TestAudit(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	s := MustOpen(t, clk)
	f := MustLearn(t, s, revenue(alice, "t1"))
	g := MustLearn(t, s, revenue(bob, "t1"))
	t1 := clk.Now().Add(time.Hour)
	clk.Advance(time.Hour)
	t2 := exprTarget("t2")
	edited, err := s.Edit(ctx, f.ID, &t2, "m2", admin)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	promoted, err := s.Promote(ctx, f.ID, ScopeChannel, general, admin)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if err := s.Delete(ctx, g.ID, Actor{ID: bob}); err != nil {
		t.Fatal(err)
	}
	// Learning, using and rejecting are the bot's ordinary work, not audited.
	if err := s.RecordUse(ctx, f.ID); err != nil {
		t.Fatal(err)
	}

	want := []struct {
		at             time.Time
		actor, action  string
		factID         string
		wantBeforeNil  bool
		wantAfterNil   bool
		checkBeforeTgt string
		checkAfterTgt  string
	}{
		{at: t1.Add(2 * time.Hour), actor: bob, action: ActionDelete, factID: g.ID, wantAfterNil: true, checkBeforeTgt: "t1"},
		{at: t1.Add(time.Hour), actor: admin.ID, action: ActionPromote, factID: promoted.ID, wantBeforeNil: true, checkAfterTgt: "t2"},
		{at: t1, actor: admin.ID, action: ActionEdit, factID: f.ID, checkBeforeTgt: "t1", checkAfterTgt: "t2"},
	}
	got, err := s.Audit(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("Audit returned %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		t.Run(w.action, func(t *testing.T) {
			e := got[i]
			if !e.At.Equal(w.at) || e.Actor != w.actor || e.Action != w.action || e.FactID != w.factID {
				t.Errorf("entry %d = at %v actor %s action %s fact %s; want %v %s %s %s", i, e.At, e.Actor, e.Action, e.FactID, w.at, w.actor, w.action, w.factID)
			}
			if (e.Before == nil) != w.wantBeforeNil || (e.After == nil) != w.wantAfterNil {
				t.Fatalf("entry %d before %v after %v", i, e.Before, e.After)
			}
			if w.checkBeforeTgt != "" && !e.Before.Target.Equal(exprTarget(w.checkBeforeTgt)) {
				t.Errorf("before target %v, want %q", e.Before.Target, w.checkBeforeTgt)
			}
			if w.checkAfterTgt != "" && !e.After.Target.Equal(exprTarget(w.checkAfterTgt)) {
				t.Errorf("after target %v, want %q", e.After.Target, w.checkAfterTgt)
			}
		})
	}
	if e := got[2]; e.After.Meaning != edited.Meaning || e.Before.Meaning != f.Meaning {
		t.Errorf("edit entry meanings: %q → %q", e.Before.Meaning, e.After.Meaning)
	}
	limited, err := s.Audit(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(limited) != 2 || limited[0].Action != ActionDelete {
		t.Errorf("Audit(2) = %+v", limited)
	}
	of, err := s.AuditOf(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(of) != 2 || of[0].Action != ActionPromote || of[1].Action != ActionEdit {
		t.Errorf("AuditOf(edited fact) = %+v", of)
	}
	// A deleted fact keeps its history.
	if of, err := s.AuditOf(ctx, g.ID); err != nil || len(of) != 1 {
		t.Errorf("AuditOf(deleted) = %+v, %v", of, err)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	src := MustOpen(t, clk)
	var ids []string
	for i, owner := range []string{alice, bob, general} {
		sc := ScopeUser
		if owner == general {
			sc = ScopeChannel
		}
		for j, phrase := range []string{"revenue", "texas", "best customer"} {
			clk.Advance(time.Minute)
			f := MustLearn(t, src, Fact{Scope: sc, Owner: owner, Warehouse: "shop", Phrase: phrase, Kind: Kinds()[j],
				Target: exprTarget(fmt.Sprintf("t%d%d", i, j)), Meaning: "m", Question: "q?"})
			ids = append(ids, f.ID)
		}
	}
	if err := src.RecordUse(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Reject(ctx, ids[1], alice); err != nil { // inactive facts are exported too
		t.Fatal(err)
	}
	if _, err := src.Promote(ctx, ids[2], ScopeWorkspace, team, admin); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := src.Export(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"version\": 2,\n  \"exported_at\": ") {
		t.Errorf("export does not start with the version: %.80s", buf.String())
	}
	want, err := src.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}

	dst := MustOpen(t, nil)
	st, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()), admin)
	if err != nil {
		t.Fatal(err)
	}
	if st != (ImportStats{Added: len(want)}) {
		t.Errorf("Import stats %+v, want %d added", st, len(want))
	}
	got, err := dst.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("imported %d facts, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameFact(got[i], want[i]) {
			t.Errorf("fact %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	// Applicable works on imported facts: the index was rebuilt.
	app, err := dst.Applicable(ctx, Owners{User: alice}, "shop")
	if err != nil || len(app) != 3 {
		t.Errorf("Applicable after import: %d facts, %v", len(app), err)
	}
	// Importing again changes nothing.
	st, err = dst.Import(ctx, bytes.NewReader(buf.Bytes()), admin)
	if err != nil || st != (ImportStats{Skipped: len(want)}) {
		t.Errorf("re-import: %+v, %v", st, err)
	}
	audit, err := dst.Audit(ctx, 0)
	if err != nil || len(audit) != len(want) || audit[0].Action != ActionImport || audit[0].Actor != admin.ID || audit[0].After == nil {
		t.Errorf("import audit: %d entries, %v", len(audit), err)
	}
	// Import by unique key updates, keeping the stored ID.
	doc := `{"version":1,"facts":[{"scope":"user","owner":"` + alice + `","warehouse":"shop","phrase":" Revenue ","kind":"column","target":"new"}]}`
	st, err = dst.Import(ctx, strings.NewReader(doc), admin)
	if err != nil || st != (ImportStats{Updated: 1}) {
		t.Fatalf("import by key: %+v, %v", st, err)
	}
	f, err := dst.Get(ctx, ids[0])
	if err != nil || !f.Target.Equal(parseLegacyTarget("new")) || !f.Active() {
		t.Errorf("updated by key: %+v, %v", f, err)
	}
	if _, err := dst.Import(ctx, strings.NewReader(doc), Actor{ID: alice}); !errors.Is(err, ErrForbidden) {
		t.Errorf("non-admin import: %v", err)
	}
}

func TestImportMalformed(t *testing.T) {
	good := `{"scope":"user","owner":"u","warehouse":"shop","phrase":"a","kind":"value","target":"t"}`
	for _, tc := range []struct {
		name string
		doc  string
		want []string
	}{
		{"bad JSON", `{"version":1,"facts":[` + good, []string{"malformed JSON"}},
		{"not an object", `[1,2]`, []string{"malformed JSON"}},
		{"no version", `{"facts":[]}`, []string{`no "version"`}},
		{"wrong version", `{"version":3,"facts":[]}`, []string{"export version 3 is not supported"}},
		{"trailing data", `{"version":1,"facts":[]} {}`, []string{"data after the document"}},
		{"unknown kind", `{"version":1,"facts":[` + good + `,` + good + `,{"scope":"user","owner":"u","phrase":"Colour","kind":"colour","target":"t"}]}`,
			[]string{`facts[2] ("colour"): unknown kind "colour"`}},
		{"unknown scope and empty target", `{"version":1,"facts":[{"scope":"team","owner":"u","phrase":"a","kind":"value","target":"t"},` + good +
			`,{"scope":"user","owner":"u","phrase":"b","kind":"value","target":""}]}`,
			[]string{`facts[0] ("a"): unknown scope "team"`, `facts[2] ("b"): target is empty`}},
		{"wrong type", `{"version":1,"facts":[` + good + `,{"scope":"user","uses":"many"}]}`, []string{"facts[1]: json: cannot unmarshal"}},
		{"negative counter", `{"version":1,"facts":[{"scope":"user","owner":"u","phrase":"a","kind":"value","target":"t","rejections":-1}]}`, []string{"facts[0]", "negative"}},
		{"bad id", `{"version":1,"facts":[{"id":"a/b","scope":"user","owner":"u","phrase":"a","kind":"value","target":"t"}]}`, []string{`facts[0] ("a"): id "a/b"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := MustOpen(t, nil)
			MustLearn(t, s, Fact{Scope: ScopeUser, Owner: "u", Warehouse: "shop", Phrase: "a", Kind: KindValue, Target: exprTarget("before")})
			var before bytes.Buffer
			if err := s.Export(ctx, &before); err != nil {
				t.Fatal(err)
			}
			_, err := s.Import(ctx, strings.NewReader(tc.doc), admin)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Import: %v, want ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("Import: %v, want an *ImportError", err)
			}
			if got := "import: " + strings.Join(ie.Problems(), "\n"); got != err.Error() {
				t.Errorf("Problems() = %q, want the lines of %q", ie.Problems(), err)
			}
			var fe *FactError
			if strings.Contains(tc.want[0], "facts[") != errors.As(err, &fe) {
				t.Errorf("errors.As(FactError) = %v for %v", fe, err)
			}
			var after bytes.Buffer
			if err := s.Export(ctx, &after); err != nil {
				t.Fatal(err)
			}
			if facts := func(b []byte) string { return string(b[bytes.Index(b, []byte(`"facts"`)):]) }; facts(before.Bytes()) != facts(after.Bytes()) {
				t.Errorf("a failed import changed the store")
			}
			if audit, _ := s.Audit(ctx, 0); len(audit) != 0 {
				t.Errorf("a failed import left %d audit entries", len(audit))
			}
		})
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "ontology.db")
	MustOpenPath(t, path, nil) // creates the parent directories and holds the lock
	done := make(chan error, 1)
	go func() {
		s, err := Open(path, Options{Timeout: 100 * time.Millisecond})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInUse) {
			t.Fatalf("second Open: %v, want ErrInUse", err)
		}
		for _, w := range []string{path, "is another Clarify process running?"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("second Open did not return: the lock wait is unbounded")
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ontology.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Learn(ctx, revenue(alice, "x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := MustOpenPath(t, path, nil)
	got, err := s2.Get(ctx, f.ID)
	if err != nil || !sameFact(got, f) {
		t.Errorf("after reopen: %+v, %v", got, err)
	}
}

func TestConcurrentLearn(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	const workers, each = 16, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Go(func() {
			owner := fmt.Sprintf("slack:T1:U%d", w)
			for i := range each {
				if _, err := s.Learn(ctx, Fact{Scope: ScopeUser, Owner: owner, Warehouse: "shop", Phrase: fmt.Sprintf("p%d", i), Kind: KindValue, Target: exprTarget("t")}); err != nil {
					errs <- err
				}
				// Everyone also confirms one shared channel fact.
				if _, err := s.Learn(ctx, Fact{Scope: ScopeChannel, Owner: general, Warehouse: "shop", Phrase: "shared", Kind: KindValue, Target: exprTarget("t")}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all, err := s.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != workers*each+1 {
		t.Errorf("%d facts, want %d", len(all), workers*each+1)
	}
	shared, err := s.List(ctx, Filter{Owner: general})
	if err != nil || len(shared) != 1 || shared[0].Confirmations != workers*each {
		t.Errorf("shared fact: %+v, %v; want %d confirmations", shared, err, workers*each)
	}
}

func TestImportMatchesByIDFirst(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	a := MustLearn(t, s, Fact{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "texas", Kind: KindValue, Target: exprTarget("a")})
	b := MustLearn(t, s, Fact{Scope: ScopeUser, Owner: alice, Warehouse: "shop", Phrase: "tx", Kind: KindValue, Target: exprTarget("b")})
	// Fact a, renamed to b's phrase: a keeps its ID and takes the key; b,
	// which held the key, goes.
	doc := fmt.Sprintf(`{"version":1,"facts":[{"id":%q,"scope":"user","owner":%q,"warehouse":"shop","phrase":"tx","kind":"value","target":"a2","confirmations":2}]}`, a.ID, alice)
	st, err := s.Import(ctx, strings.NewReader(doc), admin)
	if err != nil || st != (ImportStats{Updated: 1}) {
		t.Fatalf("Import = %+v, %v", st, err)
	}
	facts, err := s.List(ctx, Filter{Owner: alice, IncludeInactive: true})
	if err != nil || len(facts) != 1 || facts[0].ID != a.ID || facts[0].Phrase != "tx" || !facts[0].Target.Equal(parseLegacyTarget("a2")) || facts[0].Confirmations != 2 {
		t.Fatalf("after import: %+v, %v", facts, err)
	}
	if _, err := s.Get(ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("displaced fact: %v", err)
	}
	// A new ID that is free is kept.
	doc = fmt.Sprintf(`{"version":1,"facts":[{"id":"chosen-id","scope":"user","owner":%q,"phrase":"new","kind":"value","target":"n"}]}`, bob)
	if st, err := s.Import(ctx, strings.NewReader(doc), admin); err != nil || st.Added != 1 {
		t.Fatalf("Import = %+v, %v", st, err)
	}
	if f, err := s.Get(ctx, "chosen-id"); err != nil || f.Owner != bob || !f.Active() {
		t.Errorf("Get(chosen-id) = %+v, %v", f, err)
	}
}

// exprTarget is a target standing for one expression, for tests that only
// need targets to differ.
func exprTarget(expr string) Target {
	return Target{Slot: "measure", Choice: Term{Kind: TermExpr, Expr: expr}}
}
