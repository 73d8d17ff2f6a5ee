package read

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/ontology"
)

// Phrases a person or the team defined as one column — a glossary
// dimension ("sales region" = regions.name) or measure ("net sales" =
// orders.net_amount), a person's earlier choice for a phrase — are linked
// as one mention before the question's words are searched one by one: the
// schema may not name the phrase, and its words alone can name other
// columns ("sales" is a revenue word). The phrase then means that column
// only, as the person or the team decided; the readings that use it name
// the fact (Candidate.Linked), so the answer says so, and 'change' sets
// the fact aside and reads the question again without it.

// definedColumn is a multi-word phrase a fact ties to one column.
type definedColumn struct {
	factID        string
	words         []string
	table, column string
}

// definedColumns are the facts that tie a phrase of two or more words to
// one column the engine knows, on the measure or the grouping.
func definedColumns(e *links.Reader, facts []ontology.Fact) []definedColumn {
	var out []definedColumn
	for _, f := range facts {
		if !f.Active() || f.Target.Choice.Kind != ontology.TermColumn {
			continue
		}
		switch {
		case f.Kind == ontology.KindAggregate && f.Target.Slot == "group":
		case f.Kind == ontology.KindColumn && f.Target.Slot == "measure":
		default:
			continue
		}
		words := strings.Fields(f.Phrase)
		table, column, ok := strings.Cut(f.Target.Choice.Column, ".")
		if len(words) < 2 || !ok || e.M.Column(table, column) == nil {
			continue
		}
		out = append(out, definedColumn{factID: f.ID, words: words, table: table, column: column})
	}
	return out
}

// findDefinedPhrases links each defined phrase the question spells (its
// last word possibly plural: "sales regions"), longest first.
func findDefinedPhrases(e *links.Reader, a *links.Analysis, facts []ontology.Fact) {
	defs := definedColumns(e, facts)
	if len(defs) == 0 {
		return
	}
	for n := 5; n >= 2; n-- {
		for _, d := range defs {
			if len(d.words) != n {
				continue
			}
			for i := 0; i+n <= len(a.Toks); i++ {
				if !spells(a, i, d.words) {
					continue
				}
				cm := &links.ColMention{Phrase: a.Phrase(i, i+n), At: i, End: i + n, Clause: a.Toks[i].Clause,
					Alts: []links.ColAlt{{Table: d.table, Column: d.column, Weight: 1}}}
				a.Columns = append(a.Columns, cm)
				a.Linked = append(a.Linked, links.LinkedFact{FactID: d.factID, Column: d.table + "." + d.column})
				a.MarkUsed(i, i+n)
			}
		}
	}
}

// spells reports whether the free tokens from i spell words, in one
// clause and without punctuation between them.
func spells(a *links.Analysis, i int, words []string) bool {
	n := len(words)
	if !token.Unbroken(a.Toks, i, i+n) {
		return false
	}
	for k, w := range words {
		t := a.Toks[i+k]
		if t.Used || t.IsNum || t.Quoted || t.Clause != a.Toks[i].Clause {
			return false
		}
		if t.Low != w && !(k == n-1 && (t.Low == w+"s" || t.Low == w+"es")) {
			return false
		}
	}
	return true
}
