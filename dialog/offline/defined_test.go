package offline_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// A phrase a fact defines as a column is linked to it whole, even where
// the schema does not name it and its words alone name other things.
func TestDefinedPhrasesLinkToTheirColumns(t *testing.T) {
	e, _ := libraryEngine(t)
	group := func(id, phrase, column string) ontology.Fact {
		return ontology.Fact{ID: id, Scope: ontology.ScopeWorkspace, Phrase: phrase, Kind: ontology.KindAggregate,
			Target: ontology.Target{Slot: "group", Choice: ontology.ColumnTerm(column)}, Confirmations: 1}
	}
	measure := func(id, phrase, column string) ontology.Fact {
		return ontology.Fact{ID: id, Scope: ontology.ScopeWorkspace, Phrase: phrase, Kind: ontology.KindColumn,
			Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm(column)}, Confirmations: 1}
	}
	inactive := group("f9", "reader town", "members.city")
	inactive.Rejections = 1
	cases := []struct {
		name     string
		question string
		facts    []ontology.Fact
		// want is in the likeliest reading's SQL and linked the fact, or
		// (with linked "") the fact must not be linked.
		want, linked string
	}{
		{"a grouping", "number of loans by reader town", []ontology.Fact{group("f1", "reader town", "members.city")}, "GROUP BY members.city", "f1"},
		{"plural", "number of loans by reader towns", []ontology.Fact{group("f1", "reader town", "members.city")}, "GROUP BY members.city", "f1"},
		{"a measure", "total late charge per genre", []ontology.Fact{measure("f2", "late charge", "loans.fee")}, "SUM(loans.fee)", "f2"},
		{"an inactive fact", "number of loans by reader town", []ontology.Fact{inactive}, "", ""},
		{"one word is left to the engine", "number of loans by town", []ontology.Fact{group("f3", "town", "members.city")}, "", ""},
		{"a column the schema does not have", "number of loans by reader town", []ontology.Fact{group("f4", "reader town", "members.town")}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question, Facts: tc.facts})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("%v %+v", err, p)
			}
			first := p.Candidates[0]
			if tc.linked == "" {
				for _, c := range p.Candidates {
					if len(c.Linked) > 0 {
						t.Fatalf("linked %v in %s", c.Linked, c.SQL)
					}
				}
				return
			}
			if !strings.Contains(first.SQL, tc.want) || !slices.Equal(first.Linked, []string{tc.linked}) {
				t.Fatalf("likeliest reading (linked %v): %s", first.Linked, first.SQL)
			}
			if len(first.Unused) > 0 {
				t.Errorf("words left out: %v", first.Unused)
			}
		})
	}
}
