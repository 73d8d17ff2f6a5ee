package ontology

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// onEachStore runs a test on a fresh store of every kv implementation:
// bbolt always, a MySQL-protocol server when MYSQL_TEST_DSN is set.
func onEachStore(t *testing.T, test func(t *testing.T, s *Store, clk *testClock)) {
	for _, tgt := range kvtest.Targets() {
		t.Run(tgt.Name, func(t *testing.T) {
			clk := newTestClock()
			s, err := New(context.Background(), tgt.Open(t), "test", Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			test(t, s, clk)
		})
	}
}

func mustGet(t *testing.T, s *Store, id string) Fact {
	t.Helper()
	f, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return f
}

// lastChange is the newest change History lists.
func lastChange(t *testing.T, s *Store) Change {
	t.Helper()
	hs, err := s.History(context.Background(), HistoryFilter{Limit: 1})
	if err != nil || len(hs) == 0 {
		t.Fatalf("History: %v, %d changes", err, len(hs))
	}
	return hs[0]
}

func TestHistoryListsChangesWithWhereAndPages(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		f := MustLearn(t, s, revenue(alice, "a"))
		if err := s.RecordQuestion(ctx, QuestionRecord{User: alice, Question: "revenue by month", Outcome: "answered"}); err != nil {
			t.Fatal(err)
		}
		web := WithVia(ctx, "admin console from 192.0.2.7")
		p, err := s.Promote(web, f.ID, ScopeWorkspace, team, Actor{ID: "slack:T1:U9", Admin: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Edit(ctx, p.ID, nil, "net revenue", admin); err != nil {
			t.Fatal(err)
		}
		hs, err := s.History(ctx, HistoryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 2 {
			t.Fatalf("history holds %d changes, want the promote and the edit (questions are not changes): %+v", len(hs), hs)
		}
		edit, promote := hs[0], hs[1]
		if edit.Action != ActionEdit || promote.Action != ActionPromote || edit.Seq <= promote.Seq {
			t.Fatalf("history is not newest first: %+v", hs)
		}
		if promote.Via != "admin console from 192.0.2.7" || promote.Actor != "slack:T1:U9" {
			t.Errorf("promote recorded as by %q via %q", promote.Actor, promote.Via)
		}
		if edit.Via != "" {
			t.Errorf("a change made without WithVia says it came from %q", edit.Via)
		}
		older, err := s.History(ctx, HistoryFilter{Before: edit.Seq})
		if err != nil || len(older) != 1 || older[0].Seq != promote.Seq {
			t.Fatalf("the page before #%d: %+v, %v", edit.Seq, older, err)
		}
		kept, _ := s.History(ctx, HistoryFilter{Keep: func(c Change) bool { return c.Action == ActionEdit }})
		if len(kept) != 1 || kept[0].Seq != edit.Seq {
			t.Errorf("Keep selected %+v", kept)
		}
		qs, err := s.History(ctx, HistoryFilter{Questions: true})
		if err != nil || len(qs) != 1 || qs[0].Question == nil || qs[0].Question.Question != "revenue by month" || qs[0].Seq >= promote.Seq {
			t.Errorf("question records: %+v, %v", qs, err)
		}
		got, err := s.ChangeAt(ctx, promote.Seq)
		if err != nil || got.FactID != p.ID {
			t.Errorf("ChangeAt(%d) = %+v, %v", promote.Seq, got, err)
		}
		if _, err := s.ChangeAt(ctx, 9999); !errors.Is(err, ErrNotFound) {
			t.Errorf("ChangeAt of a missing number: %v, want ErrNotFound", err)
		}
	})
}

func TestRevertUndoesEachKindOfChange(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		f := MustLearn(t, s, revenue(alice, "a"))
		if err := s.RecordUse(ctx, f.ID); err != nil {
			t.Fatal(err)
		}

		// An edit goes back to the earlier target and wording.
		newTarget := exprTarget("b")
		if _, err := s.Edit(ctx, f.ID, &newTarget, "changed", admin); err != nil {
			t.Fatal(err)
		}
		edit := lastChange(t, s)
		st, err := s.Revert(WithVia(ctx, "admin console"), []uint64{edit.Seq}, admin, nil)
		if err != nil || st.Restored != 1 {
			t.Fatalf("Revert(edit) = %+v, %v", st, err)
		}
		back := mustGet(t, s, f.ID)
		if !back.Target.Equal(f.Target) || back.Meaning != f.Meaning || back.Uses != 1 {
			t.Errorf("after rolling back the edit: %+v, want the fact as it was (target a, 1 use)", back)
		}
		rb := lastChange(t, s)
		if rb.Action != ActionRollback || rb.Undoes != edit.Seq || rb.Via != "admin console" || rb.Actor != admin.ID {
			t.Errorf("roll back audited as %+v", rb)
		}
		// A roll back is a change like any other: undoing it redoes the edit.
		if _, err := s.Revert(ctx, []uint64{rb.Seq}, admin, nil); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, f.ID); got.Meaning != "changed" {
			t.Errorf("rolling back the roll back left %q", got.Meaning)
		}

		// A promotion's copy goes away.
		p, err := s.Promote(ctx, f.ID, ScopeChannel, general, admin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Revert(ctx, []uint64{lastChange(t, s).Seq}, admin, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, p.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the promoted copy survived the roll back: %v", err)
		}

		// A deleted fact comes back with its id and counters.
		if err := s.Delete(ctx, f.ID, admin); err != nil {
			t.Fatal(err)
		}
		del := lastChange(t, s)
		if _, err := s.Revert(ctx, []uint64{del.Seq}, admin, nil); err != nil {
			t.Fatal(err)
		}
		// (As the redone edit left it: target b, counters restarted.)
		if got := mustGet(t, s, f.ID); got.Meaning != "changed" || got.Owner != alice || got.Confirmations != 1 {
			t.Errorf("restored fact: %+v", got)
		}
		apps, _ := s.Applicable(ctx, Owners{User: alice}, "shop")
		if len(apps) != 1 || apps[0].ID != f.ID {
			t.Errorf("the restored fact is not found by its owner's questions: %+v", apps)
		}
		// Nothing left to undo: the same roll back again changes nothing.
		if st, err := s.Revert(ctx, []uint64{del.Seq}, admin, nil); err != nil || st.Unchanged != 1 || st.Restored != 0 {
			t.Errorf("second roll back of the delete: %+v, %v", st, err)
		}
	})
}

func TestRevertRefusesToOverwriteALaterChange(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		f := MustLearn(t, s, revenue(alice, "a"))
		if _, err := s.Edit(ctx, f.ID, nil, "first", admin); err != nil {
			t.Fatal(err)
		}
		first := lastChange(t, s)
		if _, err := s.Edit(ctx, f.ID, nil, "second", admin); err != nil {
			t.Fatal(err)
		}
		second := lastChange(t, s)
		_, err := s.Revert(ctx, []uint64{first.Seq}, admin, nil)
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `"revenue"`) {
			t.Fatalf("rolling back an edit that was edited again: %v, want ErrConflict naming the phrase", err)
		}
		if got := mustGet(t, s, f.ID); got.Meaning != "second" {
			t.Fatalf("a refused roll back changed the fact: %q", got.Meaning)
		}
		// Both at once, newest first, is fine.
		if _, err := s.Revert(ctx, []uint64{first.Seq, second.Seq}, admin, nil); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, f.ID); got.Meaning != f.Meaning {
			t.Errorf("after rolling back both edits: %q, want %q", got.Meaning, f.Meaning)
		}
	})
}

func TestRevertChecksWhoAndWhat(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		f := MustLearn(t, s, revenue(alice, "a"))
		if _, err := s.Edit(ctx, f.ID, nil, "x", admin); err != nil {
			t.Fatal(err)
		}
		edit := lastChange(t, s)
		if _, err := s.Revert(ctx, []uint64{edit.Seq}, Actor{ID: alice}, nil); !errors.Is(err, ErrForbidden) {
			t.Errorf("a non-admin rolled back: %v", err)
		}
		otherWorkspace := func(f Fact) bool { return strings.HasPrefix(f.Owner, "slack:T2:") }
		if _, err := s.Revert(ctx, []uint64{edit.Seq}, admin, otherWorkspace); !errors.Is(err, ErrForbidden) {
			t.Errorf("a roll back outside what is allowed: %v", err)
		}
		if err := s.RecordQuestion(ctx, QuestionRecord{User: alice, Question: "q", Outcome: "answered"}); err != nil {
			t.Fatal(err)
		}
		var qseq uint64
		for seq := edit.Seq + 1; seq < edit.Seq+5; seq++ {
			if ch, err := s.ChangeAt(ctx, seq); err == nil && ch.Action == ActionQuestion {
				qseq = seq
			}
		}
		if _, err := s.Revert(ctx, []uint64{qseq}, admin, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("rolling back a question record: %v, want ErrInvalid", err)
		}
		if got := mustGet(t, s, f.ID); got.Meaning != "x" {
			t.Errorf("a refused roll back changed the fact: %q", got.Meaning)
		}
	})
}

func TestRevertAWholeGlossaryLoad(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		const src = SourceGlossary + "team"
		if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "a"), glossaryFact("churn", "b")}, admin); err != nil {
			t.Fatal(err)
		}
		before, _ := s.List(ctx, Filter{Owner: team})
		// Second load: churn changed, arr removed, nps added.
		if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("churn", "b2"), glossaryFact("nps", "c")}, admin); err != nil {
			t.Fatal(err)
		}
		note := lastChange(t, s)
		if note.FactID != "" || !strings.Contains(note.Note, "1 added, 1 updated, 0 unchanged, 1 removed") {
			t.Fatalf("the load's summary: %+v", note)
		}
		changes, err := s.LoadChanges(ctx, note.Seq)
		if err != nil || len(changes) != 3 {
			t.Fatalf("LoadChanges = %d changes, %v; want 3", len(changes), err)
		}
		seqs := make([]uint64, len(changes))
		for i, c := range changes {
			seqs[i] = c.Seq
		}
		st, err := s.Revert(ctx, seqs, admin, nil)
		if err != nil || st.Restored != 3 {
			t.Fatalf("Revert(load) = %+v, %v", st, err)
		}
		after, _ := s.List(ctx, Filter{Owner: team})
		if len(after) != len(before) {
			t.Fatalf("after rolling back the load: %d facts, want %d", len(after), len(before))
		}
		for i := range before {
			if !sameState(before[i], after[i]) || before[i].ID != after[i].ID {
				t.Errorf("fact %d: %+v, want %+v", i, after[i], before[i])
			}
		}
		if _, err := s.LoadChanges(ctx, changes[0].Seq); !errors.Is(err, ErrInvalid) {
			t.Errorf("LoadChanges of a fact change: %v, want ErrInvalid", err)
		}
	})
}

func TestReplaceSourceForLeavesOtherOwners(t *testing.T) {
	onEachStore(t, func(t *testing.T, s *Store, clk *testClock) {
		ctx := context.Background()
		const src = SourceGlossary + "team"
		const other = "discord:G1"
		theirs := glossaryFact("arr", "a")
		theirs.Owner = other
		if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "a"), theirs}, admin); err != nil {
			t.Fatal(err)
		}
		st, err := s.ReplaceSourceFor(ctx, src, []string{team}, []Fact{glossaryFact("nps", "n")}, admin)
		if err != nil || st != (ImportStats{Added: 1, Removed: 1}) {
			t.Fatalf("ReplaceSourceFor = %+v, %v", st, err)
		}
		if got, _ := s.List(ctx, Filter{Owner: other}); len(got) != 1 || got[0].Phrase != "arr" {
			t.Errorf("the other workspace's load changed: %+v", got)
		}
		if got, _ := s.List(ctx, Filter{Owner: team}); len(got) != 1 || got[0].Phrase != "nps" {
			t.Errorf("this workspace's facts: %+v", got)
		}
		if _, err := s.ReplaceSourceFor(ctx, src, []string{team}, []Fact{theirs}, admin); !errors.Is(err, ErrInvalid) {
			t.Errorf("a fact of another owner in a scoped load: %v, want ErrInvalid", err)
		}
	})
}
