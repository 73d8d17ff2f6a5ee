package ontology

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// A clinic's schema, in no evaluation set: "visits" are what people count
// by date.
func visitDate(owner string, over ...string) Fact {
	t := Target{Slot: "filteron", Arg: "2024", Choice: ColumnTerm("visits.booked_on")}
	for _, o := range over {
		t.Over = append(t.Over, ColumnTerm(o))
	}
	return Fact{Scope: ScopeUser, Owner: owner, Warehouse: "clinic", Phrase: "dates", Kind: KindTime, Target: t, Meaning: "Date the visit was booked"}
}

// The same choice made again over other options, or for another year, is
// one more confirmation: its uses are not forgotten and the options it was
// chosen over accumulate.
func TestLearnSameChoiceKeepsUses(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	f := MustLearn(t, s, visitDate(alice, "visits.seen_on"))
	for range 3 {
		if err := s.RecordUse(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
	}
	again := visitDate(alice, "visits.billed_on")
	again.Target.Arg = "2025"
	g := MustLearn(t, s, again)
	if g.ID != f.ID || g.Uses != 3 || g.Confirmations != 2 || g.Target.Arg != "2025" {
		t.Fatalf("after the same choice again: %+v", g)
	}
	want := []Term{ColumnTerm("visits.seen_on"), ColumnTerm("visits.billed_on")}
	if !slices.EqualFunc(g.Target.Over, want, Term.Equal) {
		t.Errorf("over = %v, want both alternatives %v", g.Target.Over, want)
	}
	// Another choice is a change of mind.
	other := visitDate(alice)
	other.Target.Choice = ColumnTerm("visits.seen_on")
	if h := MustLearn(t, s, other); h.Uses != 0 || h.Confirmations != 1 {
		t.Errorf("after a change of mind: %+v", h)
	}
}

// Only the asker's own facts are weakened by their "not what I meant"; a
// shared fact is set aside for them alone, audited for admins, and stays
// so across a glossary reload that keeps its meaning.
func TestRejectOwnership(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, newTestClock())
	own := MustLearn(t, s, visitDate(alice))
	ws := visitDate(team)
	ws.Scope = ScopeWorkspace
	ws.Target.Choice = ColumnTerm("visits.seen_on")
	if _, err := s.ReplaceSource(ctx, "glossary:clinic", []Fact{ws}, admin); err != nil {
		t.Fatal(err)
	}
	shared := func(user string) Fact {
		t.Helper()
		app, err := s.Applicable(ctx, Owners{User: user, Workspace: team}, "clinic")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range app {
			if f.Scope == ScopeWorkspace {
				return f
			}
		}
		t.Fatalf("no workspace fact for %s", user)
		return Fact{}
	}
	gid := shared(bob).ID

	t.Run("own fact", func(t *testing.T) {
		got, err := s.Reject(ctx, own.ID, alice)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rejections != 1 || got.Active() {
			t.Errorf("own fact after one rejection: %+v", got)
		}
	})
	t.Run("another person's fact", func(t *testing.T) {
		if _, err := s.Reject(ctx, own.ID, bob); !errors.Is(err, ErrForbidden) {
			t.Errorf("bob weakened alice's fact: %v", err)
		}
		if f, _ := s.Get(ctx, own.ID); f.Rejections != 1 {
			t.Errorf("alice's fact changed: %+v", f)
		}
	})
	t.Run("shared fact", func(t *testing.T) {
		got, err := s.Reject(ctx, gid, bob)
		if err != nil {
			t.Fatal(err)
		}
		if got.Overruled != 1 || got.Active() {
			t.Errorf("as bob sees it: %+v", got)
		}
		stored, _ := s.Get(ctx, gid)
		if stored.Rejections != 0 || !stored.Active() {
			t.Errorf("the stored fact changed for everyone: %+v", stored)
		}
		if f := shared(bob); f.Active() || len(Resolve([]Fact{f})) != 0 {
			t.Errorf("bob still gets the workspace meaning: %+v", f)
		}
		if f := shared(alice); !f.Active() || f.Overruled != 0 {
			t.Errorf("alice lost the workspace meaning: %+v", f)
		}
		audit, err := s.AuditOf(ctx, gid)
		if err != nil {
			t.Fatal(err)
		}
		if len(audit) == 0 || audit[0].Action != ActionReject || audit[0].Actor != bob || !strings.Contains(audit[0].Note, "set aside for them only") {
			t.Errorf("admins do not see the rejection: %+v", audit)
		}
		over, err := s.Overrides(ctx)
		if err != nil || over[gid][bob] != 1 {
			t.Errorf("overrides %v, %v", over, err)
		}
	})
	t.Run("glossary reload keeps it set aside, a new meaning does not", func(t *testing.T) {
		if _, err := s.ReplaceSource(ctx, "glossary:clinic", []Fact{ws}, admin); err != nil {
			t.Fatal(err)
		}
		if f := shared(bob); f.Active() {
			t.Errorf("the same meaning came back for bob after a reload: %+v", f)
		}
		if f := shared(alice); !f.Active() {
			t.Errorf("a reload turned the fact off: %+v", f)
		}
		changed := ws
		changed.Target.Choice = ColumnTerm("visits.billed_on")
		if _, err := s.ReplaceSource(ctx, "glossary:clinic", []Fact{changed}, admin); err != nil {
			t.Fatal(err)
		}
		if f := shared(bob); !f.Active() {
			t.Errorf("a new team meaning stays set aside for bob: %+v", f)
		}
	})
	t.Run("forget brings the shared meaning back", func(t *testing.T) {
		if _, err := s.Reject(ctx, gid, bob); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forget(ctx, bob, "clinic", "dates", Actor{ID: bob}); err != nil {
			t.Fatal(err)
		}
		if f := shared(bob); !f.Active() {
			t.Errorf("after forget: %+v", f)
		}
	})
	t.Run("no person", func(t *testing.T) {
		if _, err := s.Reject(ctx, gid, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("Reject without a person: %v", err)
		}
	})
}

// An answer marked correct is feedback: it is kept apart from the
// preferences, counted, and an admin can make it a verified query.
func TestConfirmedAnswers(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	s := MustOpen(t, clk)
	a := ConfirmedAnswer{Owner: alice, Warehouse: "clinic", Phrase: "how many visit", Question: "How many visits?", SQL: "SELECT COUNT(*) FROM visits"}
	first, err := s.RecordConfirmed(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	second, err := s.RecordConfirmed(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Count != 2 || !second.Last.Equal(clk.Now()) {
		t.Errorf("confirmed twice: %+v", second)
	}
	if facts, _ := s.List(ctx, Filter{IncludeInactive: true}); len(facts) != 0 {
		t.Errorf("a confirmation became a preference: %+v", facts)
	}
	changed := a
	changed.SQL = "SELECT COUNT(DISTINCT id) FROM visits"
	if c, _ := s.RecordConfirmed(ctx, changed); c.Count != 1 || c.SQL != changed.SQL {
		t.Errorf("new SQL for the question: %+v", c)
	}
	list, err := s.ConfirmedAnswers(ctx, "", "clinic")
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v %v", list, err)
	}
	if _, err := s.Verify(ctx, first.ID, team, "maria", Actor{ID: alice}); !errors.Is(err, ErrForbidden) {
		t.Errorf("a non-admin verified: %v", err)
	}
	v, err := s.Verify(ctx, first.ID, team, "maria", admin)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindQuery || v.Scope != ScopeWorkspace || v.VerifiedBy != "maria" || v.Target.Choice.Expr != changed.SQL {
		t.Errorf("verified query: %+v", v)
	}
	if c, _ := s.ConfirmedAnswer(ctx, first.ID); c.VerifiedAs != v.ID || c.Count != 1 {
		t.Errorf("after verifying: %+v", c)
	}
	if _, err := s.RecordConfirmed(ctx, ConfirmedAnswer{Owner: alice}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty confirmation: %v", err)
	}
}

func TestBadWording(t *testing.T) {
	for _, tc := range []struct {
		meaning string
		bad     bool
	}{
		{"Net revenue after discounts (excludes shipping)", false},
		{"Date the order left the warehouse", false},
		{"Status is placed or shipped", false},
		{"Customer's email, e.g. ana@example.com", false},
		{"Shipped on) of datediff(…", true},
		{"SUM(visits.fee)", true},
		{"visits.booked_on", true},
		{"Date the visit was booked (e.g. 2024", true},
		{"Booked on…", true},
		{"SELECT fee FROM visits", true},
		{"", true},
		{"--", true},
	} {
		if got := BadWording(tc.meaning) != ""; got != tc.bad {
			t.Errorf("BadWording(%q) = %q, want bad=%v", tc.meaning, BadWording(tc.meaning), tc.bad)
		}
	}
}

// A store of schema 2 holds what earlier builds kept: answers marked
// correct as preferences and facts worded as SQL. Opening it moves the
// first to the confirmed answers and removes the second, audited, and
// leaves everything else as it was.
func TestMigrationCleansJunk(t *testing.T) {
	ctx := context.Background()
	var db kv.DB
	if kvtest.OnServer(t) {
		db = kvtest.MustServer(t).Namespace("ontology")
	} else {
		db = kvtest.MustBolt(t)
	}
	good := visitDate(alice)
	good.ID = "goodfact01"
	junk := visitDate(bob)
	junk.ID, junk.Meaning = "junkfact01", "Booked on) of datediff(…"
	negated := Fact{ID: "junkfact02", Scope: ScopeUser, Owner: alice, Warehouse: "clinic", Phrase: "never booked", Kind: KindColumn,
		Target: Target{Slot: "measure", Choice: ColumnTerm("visits.patient_id")}, Meaning: "Patient who booked the visit"}
	confirmed := Fact{ID: "confirmed1", Scope: ScopeUser, Owner: alice, Warehouse: "clinic", Phrase: "how many visit", Kind: KindQuery,
		Question: "How many visits?", Meaning: "Answer marked correct: How many visits?", Confirmations: 2,
		Target: Target{Slot: "query", Choice: Term{Kind: TermSQL, Expr: "SELECT COUNT(*) FROM visits"}}}
	glossary := visitDate(team)
	glossary.ID, glossary.Scope, glossary.Source, glossary.Meaning = "glossary01", ScopeWorkspace, "glossary:clinic", "SUM(visits.fee)"
	def := activeDef(alice, "patients", "patients.status", "admitted")
	def.ID = "definition"
	err := kv.Prepare(ctx, db, "2", nil, bucketFacts, bucketIDs, bucketAudit, bucketAuditByFact)
	if err == nil {
		err = db.Update(ctx, func(tx kv.Tx) error {
			for _, f := range []Fact{good, junk, negated, confirmed, glossary, def} {
				f.Created, f.LastUsed = time.Unix(1700000000, 0).UTC(), time.Unix(1700000000, 0).UTC()
				if f.Confirmations == 0 {
					f.Confirmations = 1
				}
				// Schema 2 keyed every fact without a subject.
				key := joinKey(string(f.Scope), f.Owner, f.Warehouse, NormalizePhrase(f.Phrase), string(f.Kind))
				if err := tx.Bucket(bucketFacts).Put(key, encodeFact(f)); err != nil {
					return err
				}
				if err := tx.Bucket(bucketIDs).Put([]byte(f.ID), key); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, db, "old", Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts, err := s.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range facts {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"definition", "glossary01", "goodfact01"}) {
		t.Errorf("facts after the migration: %v", ids)
	}
	c, err := s.ConfirmedAnswer(ctx, "confirmed1")
	if err != nil || c.SQL != "SELECT COUNT(*) FROM visits" || c.Count != 2 || c.Owner != alice {
		t.Errorf("confirmed answer: %+v %v", c, err)
	}
	// The definition is keyed by its subject now: learning it again finds it.
	if again := MustLearn(t, s, activeDef(alice, "patients", "patients.status", "admitted")); again.ID != "definition" || again.Confirmations != 2 {
		t.Errorf("the migrated definition was not found by its new key: %+v", again)
	}
	for _, id := range []string{"junkfact01", "junkfact02", "confirmed1"} {
		audit, err := s.AuditOf(ctx, id)
		if err != nil || len(audit) != 1 || audit[0].Action != ActionMigrate || audit[0].Before == nil {
			t.Errorf("audit of %s: %+v %v", id, audit, err)
		}
	}
}

func activeDef(owner, subject, column string, values ...string) Fact {
	return Fact{Scope: ScopeUser, Owner: owner, Warehouse: "clinic", Phrase: "active", Kind: KindDefinition, Meaning: "active " + subject,
		Target: Target{Slot: "definition", Arg: "active", Choice: Term{Kind: TermValues, Subject: subject, Column: column, Op: "in", Values: values}}}
}

// One word, two subjects: "active" patients and "active" rooms are two
// definitions of one person, both kept and both resolved; the same
// subject again is the same definition.
func TestDefinitionsPerSubject(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	p := MustLearn(t, s, activeDef(alice, "patients", "patients.status", "admitted"))
	r := MustLearn(t, s, activeDef(alice, "rooms", "rooms.state", "open", "cleaning"))
	if p.ID == r.ID {
		t.Fatalf("the rooms' definition replaced the patients': %+v", r)
	}
	again := MustLearn(t, s, activeDef(alice, "Patients", "patients.status", "admitted"))
	if again.ID != p.ID || again.Confirmations != 2 {
		t.Fatalf("the same definition again: %+v", again)
	}
	app, err := s.Applicable(ctx, Owners{User: alice}, "clinic")
	if err != nil {
		t.Fatal(err)
	}
	if got := Resolve(app); len(got) != 2 {
		t.Fatalf("resolved %+v, want both definitions", got)
	}
	// Editing one onto the other's subject is refused.
	moved := r.Target
	moved.Choice.Subject = "patients"
	if _, err := s.Edit(ctx, r.ID, &moved, "", admin); !errors.Is(err, ErrInvalid) {
		t.Fatalf("edit onto another definition's subject: %v", err)
	}
	if n, _ := s.List(ctx, Filter{Owner: alice}); len(n) != 2 {
		t.Fatalf("facts after a refused edit: %+v", n)
	}
}
