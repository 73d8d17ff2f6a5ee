package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// guideDump is a walking guide of its own: guesthouses rated on a 0–5
// scale (by star rating) and walks scored out of ten, in a few villages.
func guideDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE guesthouses (house_id INT PRIMARY KEY, house_name VARCHAR(60), village VARCHAR(40), style VARCHAR(20), star_rating DECIMAL(2,1));
CREATE TABLE walks (walk_id INT PRIMARY KEY, walk_name VARCHAR(60), village VARCHAR(40), miles DECIMAL(4,1), score DECIMAL(3,1));
`)
	villages := []string{"Ashby", "Brill", "Cole", "Dunmore"}
	styles := []string{"farmhouse", "seaside", "manor"}
	for i := 1; i <= 40; i++ {
		// Ratings from 1.2 to 4.8, mostly low, so the scale's middle and
		// the average cut differently.
		r := 1.2 + float64((i*7)%37)/10
		fmt.Fprintf(&b, "INSERT INTO guesthouses VALUES (%d, 'House %02d', '%s', '%s', %.1f);\n", i, i, villages[i%4], styles[i%3], r)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO walks VALUES (%d, 'Walk %02d', '%s', %.1f, %.1f);\n", i, i, villages[i%4], 2+float64(i%9), 2.0+float64((i*3)%72)/10)
	}
	return b.String()
}

// TestWordsJudgingQualityCutARating: "good", "poor" and their kin judge a
// thing; on a column that rates it they mean above (below) the middle of
// the scale its ratings are given on, or its average: two options of one
// question, and the word is no longer left out. Wherever the word stands:
// before the thing, before a value of it, or right after it.
func TestWordsJudgingQualityCutARating(t *testing.T) {
	e, _ := engineOn(t, guideDump())
	cases := []struct {
		question string
		cuts     []string // conditions some reading takes, the likeliest first
	}{
		{"list good guesthouses in Brill", []string{"guesthouses.star_rating > 2.5", "guesthouses.star_rating > (SELECT AVG(guesthouses.star_rating) FROM guesthouses)"}},
		{"show me a good farmhouse guesthouse in Cole", []string{"guesthouses.star_rating > 2.5"}},
		{"which guesthouses good for a weekend are in Ashby", []string{"guesthouses.star_rating > 2.5"}},
		{"how many poor guesthouses are there", []string{"guesthouses.star_rating < 2.5", "guesthouses.star_rating < (SELECT AVG"}},
		// Scores out of ten: the middle is 5.
		{"list great walks in Dunmore", []string{"walks.score > 5", "walks.score > (SELECT AVG(walks.score) FROM walks)"}},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.cuts[0]) || slices.ContainsFunc(first.Unused, func(w string) bool {
				return strings.Contains(w, "good") || strings.Contains(w, "poor") || strings.Contains(w, "great")
			}) {
				t.Fatalf("likeliest reading (unused %v):\n%s", first.Unused, first.SQL)
			}
			for _, cut := range tc.cuts[1:] {
				found := false
				for _, c := range p.Candidates {
					found = found || strings.Contains(c.SQL, cut) && len(c.Defines) > 0
				}
				if !found {
					t.Errorf("no reading takes %s", cut)
				}
			}
		})
	}
	// A column that rates nothing is no cut: miles are a length.
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "list good walks in Ashby"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "walks.miles >") {
			t.Errorf("a length read as a judgement:\n%s", c.SQL)
		}
	}
}

// TestAJudgedCutIsRemembered: the cut a person chose for "good" is their
// meaning next time, rebuilt on the column.
func TestAJudgedCutIsRemembered(t *testing.T) {
	e, _ := engineOn(t, guideDump())
	term := ontology.Term{Kind: ontology.TermPredicate, Subject: "guesthouses", Column: "guesthouses.star_rating", Op: ">", Values: []string{"4"}}
	f := ontology.Fact{ID: "g1", Scope: ontology.ScopeUser, Owner: "ann", Phrase: "good", Kind: ontology.KindDefinition,
		Target: ontology.Target{Slot: "definition", Choice: term}, Meaning: "Star rating above 4", Confirmations: 1}
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "list good guesthouses in Brill", Facts: []ontology.Fact{f}})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	if first := p.Candidates[0]; !strings.Contains(first.SQL, "guesthouses.star_rating > 4") {
		t.Fatalf("likeliest reading:\n%s", first.SQL)
	}
}
