package ontology

import (
	"context"
	"errors"
	"testing"
)

// A person's word for a table of a library of our own ("readers" =
// patrons) is a typed fact: it validates, is kept, and a new answer for
// the same word replaces the old one.
func TestWordFacts(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	word := func(choice Term) Fact {
		return Fact{Scope: ScopeUser, Owner: alice, Warehouse: "library", Phrase: "readers", Kind: KindWord,
			Target: Target{Slot: SlotWord, Choice: choice}, Meaning: "patrons"}
	}
	f := MustLearn(t, s, word(TableTerm("patrons")))
	if f.Target.Summary() != "word: patrons" {
		t.Errorf("summary %q", f.Target.Summary())
	}
	MustLearn(t, s, word(ColumnTerm("loans.patron_name")))
	got, err := s.Applicable(ctx, Owners{User: alice}, "library")
	if err != nil {
		t.Fatal(err)
	}
	var words []Fact
	for _, g := range Resolve(got) {
		if g.Kind == KindWord && g.Active() {
			words = append(words, g)
		}
	}
	if len(words) != 1 || words[0].Target.Choice.Column != "loans.patron_name" {
		t.Fatalf("active words %+v, want the newer answer alone", words)
	}
	bad := word(Term{Kind: TermTable})
	if _, err := s.Learn(ctx, bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("a table term without a table: %v", err)
	}
}
