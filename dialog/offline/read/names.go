package read

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Phrases that name a stored value or a column outright keep that meaning
// before their words are read one by one: "first class" is a stored
// class, not a ranking by "first"; "meal description" is
// catering.meal_description, not a table named description that
// "description" alone would name.

// superlativeOfColumn reads "the minimum time needed for a transfer at
// Hub A" as the column minimum_transfer_time the words
// after "minimum" name: a superlative that is the first word of the name
// of the measure named right after it is part of that name, not a
// ranking, when a value picks out the row it is read from. ("The highest
// peak", a name, still ranks.)
func superlativeOfColumn(e *links.Reader, a *links.Analysis) {
	s := a.Sup
	if s == nil || s.ExplicitLimit || strings.Contains(s.Phrase, " ") {
		return
	}
	word := e.M.Cat.NameTerms(a.Toks[s.At].Raw)
	if len(word) != 1 {
		return
	}
	for _, cm := range a.Columns {
		if cm.At != s.At+1 || cm.Clause != 0 || len(cm.Alts) == 0 || cm.Alts[0].Computed() {
			continue
		}
		al := cm.Alts[0]
		c := e.M.Column(al.Table, al.Column)
		if c == nil || c.Kind() != warehouse.KindNumber || !valueIn(a, al.Table) {
			return
		}
		if name := e.M.Cat.NameTerms(al.Column); len(name) > 1 && name[0] == word[0] {
			a.Sup = nil
			cm.At, cm.Phrase = s.At, a.Phrase(s.At, cm.End)
		}
		return
	}
}

// valueIn says whether a value of the question may be stored in table.
func valueIn(a *links.Analysis, table string) bool {
	for _, vm := range a.Values {
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, table) {
				return true
			}
		}
	}
	return false
}

// TableNamed is the table token j names, as an entity mention or by its
// stem ("ordered" → orders).
func TableNamed(e *links.Reader, a *links.Analysis, j int) *schema.Table {
	for _, em := range a.Entities {
		if em.At == j {
			return em.Tables[0]
		}
	}
	if ts := e.M.ByTerm[strings.Join(e.M.Cat.Terms(a.Toks[j].Raw), " ")]; len(ts) > 0 {
		return ts[0]
	}
	return nil
}
