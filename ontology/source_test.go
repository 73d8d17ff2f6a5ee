package ontology

import (
	"context"
	"errors"
	"testing"
	"time"
)

func glossaryFact(phrase, expr string) Fact {
	return Fact{Scope: ScopeWorkspace, Owner: team, Warehouse: "shop", Phrase: phrase, Kind: KindDefinition,
		Target: exprTarget(expr), Meaning: phrase + " means " + expr}
}

func TestReplaceSourceReplacesTheWholeLoad(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	s := MustOpen(t, clk)
	const src = SourceGlossary + "team.yml"

	st, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("active customer", "a"), glossaryFact("arr", "b")}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if st != (ImportStats{Added: 2}) {
		t.Fatalf("first load: %+v, want 2 added", st)
	}
	first, _ := s.List(ctx, Filter{Owner: team})
	arrID := ""
	for _, f := range first {
		if !f.FromGlossary() || f.Source != src {
			t.Errorf("fact %s has source %q, want %q", f.Phrase, f.Source, src)
		}
		if f.Phrase == "arr" {
			arrID = f.ID
		}
	}
	if err := s.RecordUse(ctx, arrID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)

	// Second load: one dropped, one changed, one new, one unchanged.
	st, err = s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "b"), glossaryFact("emea", "c"), glossaryFact("churn", "d")}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if st != (ImportStats{Added: 2, Skipped: 1, Removed: 1}) {
		t.Fatalf("second load: %+v", st)
	}
	st, err = s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "b2"), glossaryFact("emea", "c"), glossaryFact("churn", "d")}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if st != (ImportStats{Updated: 1, Skipped: 2}) {
		t.Fatalf("third load: %+v", st)
	}
	got, _ := s.List(ctx, Filter{Owner: team})
	phrases := map[string]Fact{}
	for _, f := range got {
		phrases[f.Phrase] = f
	}
	if _, ok := phrases["active customer"]; ok || len(got) != 3 {
		t.Fatalf("after reload: %v", phrases)
	}
	if arr := phrases["arr"]; arr.ID != arrID || arr.Uses != 1 || arr.Target.Choice.Expr != "b2" {
		t.Errorf("changed fact lost its id or counters: %+v", arr)
	}
	// A different glossary is untouched by this one's reload.
	if _, err := s.ReplaceSource(ctx, SourceGlossary+"other.yml", []Fact{glossaryFact("nps", "e")}, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceSource(ctx, src, nil, admin); err != nil {
		t.Fatal(err)
	}
	got, _ = s.List(ctx, Filter{Owner: team})
	if len(got) != 1 || got[0].Phrase != "nps" {
		t.Fatalf("emptying one glossary: %+v", got)
	}
	entries, err := s.AuditQuery(ctx, AuditFilter{Actions: []string{ActionGlossary}})
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	for _, e := range entries {
		if e.FactID == "" && e.Note != "" {
			loads++
		}
	}
	if loads != 5 {
		t.Errorf("%d load entries in the audit, want 5", loads)
	}
}

func TestReplaceSourceRefuses(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	src := GlossarySource("g.yml")
	if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "b")}, Actor{ID: alice}); !errors.Is(err, ErrForbidden) {
		t.Errorf("non-admin: %v, want ErrForbidden", err)
	}
	bad := glossaryFact("arr", "b")
	bad.Kind = "colour"
	if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("emea", "c"), bad}, admin); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid fact: %v, want ErrInvalid", err)
	}
	if _, err := s.ReplaceSource(ctx, src, []Fact{glossaryFact("arr", "b"), glossaryFact("ARR", "c")}, admin); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate: %v, want ErrInvalid", err)
	}
	// Nothing of a refused load is stored.
	if got, _ := s.List(ctx, Filter{}); len(got) != 0 {
		t.Errorf("refused loads stored %d facts", len(got))
	}
}

func TestQuestionRecordsAreAuditedAndPruned(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock()
	s := MustOpen(t, clk)
	ask := func(user, q string) {
		t.Helper()
		rec := QuestionRecord{AskedAt: clk.Now(), Platform: "slack", User: user, Warehouse: "shop", Question: q,
			Steps: []QuestionStep{{At: clk.Now(), Kind: "clarification", Asked: "By 'revenue'…", Options: []string{"net", "gross"}, Answer: "net"}},
			SQL:   []string{"SELECT 1"}, Rows: 1, Duration: 40 * time.Millisecond, Engine: "offline", Outcome: "answered"}
		if err := s.RecordQuestion(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	ask(alice, "revenue in 2024")
	clk.Advance(48 * time.Hour)
	ask(bob, "orders by month")
	clk.Advance(time.Hour)
	ask(alice, "top customers")

	got, err := s.AuditQuery(ctx, AuditFilter{Actor: alice, Actions: []string{ActionQuestion}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Question.Question != "top customers" || got[1].Question.Steps[0].Answer != "net" {
		t.Fatalf("alice's questions: %+v", got)
	}
	recent, _ := s.AuditQuery(ctx, AuditFilter{Since: clk.Now().Add(-2 * time.Hour)})
	if len(recent) != 2 {
		t.Fatalf("entries of the last two hours: %d, want 2", len(recent))
	}
	n, err := s.PruneAudit(ctx, clk.Now().Add(-24*time.Hour), ActionQuestion)
	if err != nil || n != 1 {
		t.Fatalf("prune: %d, %v; want 1", n, err)
	}
	all, _ := s.AuditQuery(ctx, AuditFilter{})
	if len(all) != 2 || all[1].Question.Question != "orders by month" {
		t.Fatalf("after prune: %+v, want the two recent questions", all)
	}
	// Pruning questions leaves fact history alone.
	f := MustLearn(t, s, revenue(alice, "x"))
	if err := s.Delete(ctx, f.ID, admin); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.PruneAudit(ctx, clk.Now().Add(time.Hour), ActionQuestion); n != 2 {
		t.Errorf("pruned %d questions, want 2", n)
	}
	if hist, _ := s.AuditOf(ctx, f.ID); len(hist) != 1 {
		t.Errorf("fact history after pruning questions: %d entries, want 1", len(hist))
	}
	if err := s.RecordQuestion(ctx, QuestionRecord{Question: "x"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("record without user: %v", err)
	}
}

// Sources are stored as they read; the kind is read from the value.
func TestSource(t *testing.T) {
	for _, tc := range []struct {
		src      Source
		stored   string
		glossary bool
		name     string
	}{
		{GlossarySource("team.yml"), "glossary:team.yml", true, "team.yml"},
		{GlossarySource("demo"), "glossary:demo", true, "demo"},
		{"", "", false, ""},
		{"import", "import", false, ""},
	} {
		if string(tc.src) != tc.stored {
			t.Errorf("%q stored as %q, want %q", tc.src, string(tc.src), tc.stored)
		}
		if tc.src.IsGlossary() != tc.glossary || (Fact{Source: tc.src}).FromGlossary() != tc.glossary {
			t.Errorf("%q: IsGlossary = %v, want %v", tc.src, tc.src.IsGlossary(), tc.glossary)
		}
		if got := tc.src.Glossary(); got != tc.name {
			t.Errorf("%q: Glossary() = %q, want %q", tc.src, got, tc.name)
		}
	}
}
