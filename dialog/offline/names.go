package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/token"
)

// Phrases that name a stored value or a column outright keep that meaning
// before their words are read one by one: "first class" is a stored
// class, not a ranking by "first"; "meal description" is
// catering.meal_description, not a table named description that
// "description" alone would name.

// protectStoredValues takes a phrase that starts with a superlative word
// and is, as a whole, a stored text value ("First Class", "Best Western")
// as that value before the superlative is read.
func (e *Engine) protectStoredValues(a *analysis) {
	for i := range a.toks {
		if _, ok := superlatives[a.toks[i].Low]; !ok || a.toks[i].Used || a.toks[i].Clause != 0 {
			continue
		}
		for n := 3; n >= 2; n-- {
			if i+n > len(a.toks) || !token.Unbroken(a.toks, i, i+n) || !a.free(i, i+n) {
				continue
			}
			phrase := a.phrase(i, i+n)
			var alts []valueAlt
			for _, h := range e.m.Cat.SearchValues(phrase, 24) {
				if (h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive) && strings.EqualFold(h.Value, phrase) {
					alts = append(alts, valueAlt{table: h.Table, column: h.Column, value: h.Value, weight: 1})
				}
			}
			if len(alts) == 0 {
				continue
			}
			a.values = append(a.values, &valueMention{phrase: phrase, at: i, alts: alts})
			a.markUsed(i, i+n)
			break
		}
	}
}

// free says whether the tokens [from, to) are unused plain words.
func (a *analysis) free(from, to int) bool {
	for k := from; k < to; k++ {
		if a.toks[k].Used || a.toks[k].IsNum || a.toks[k].Quoted {
			return false
		}
	}
	return true
}

// protectColumnPhrases links a two-word phrase that is exactly a column's
// name ("meal description") to that column when its last word alone would
// name another table (a description table).
func (e *Engine) protectColumnPhrases(a *analysis) {
	for i := 0; i+2 <= len(a.toks); i++ {
		if !a.free(i, i+2) || !token.Unbroken(a.toks, i, i+2) || stopWords[a.toks[i].Low] || stopWords[a.toks[i+1].Low] || a.toks[i].Clause != a.toks[i+1].Clause {
			continue
		}
		last := e.m.ByTerm[strings.Join(e.m.Cat.Terms(a.toks[i+1].Raw), " ")]
		if len(last) == 0 {
			continue
		}
		want := strings.Join(e.m.Cat.NameTerms(a.phrase(i, i+2)), " ")
		for _, h := range e.m.Cat.SearchColumns(a.phrase(i, i+2), 5) {
			if strings.Join(e.m.Cat.NameTerms(h.Column), " ") != want {
				continue
			}
			other := true
			for _, t := range last {
				other = other && !strings.EqualFold(t.Name, h.Table)
			}
			if other {
				e.addColumnMention(a, i, i+2)
			}
			break
		}
	}
}

// superlativeOfColumn reads "the minimum time needed for a transfer at
// Hub A" as the column minimum_transfer_time the words
// after "minimum" name: a superlative that is the first word of the name
// of the measure named right after it is part of that name, not a
// ranking, when a value picks out the row it is read from. ("The highest
// peak", a name, still ranks.)
func (e *Engine) superlativeOfColumn(a *analysis) {
	s := a.sup
	if s == nil || s.explicitLimit || strings.Contains(s.phrase, " ") {
		return
	}
	word := e.m.Cat.NameTerms(a.toks[s.at].Raw)
	if len(word) != 1 {
		return
	}
	for _, cm := range a.columns {
		if cm.at != s.at+1 || cm.clause != 0 || len(cm.alts) == 0 || cm.alts[0].computed() {
			continue
		}
		al := cm.alts[0]
		c := e.m.Column(al.table, al.column)
		if c == nil || c.Kind() != warehouse.KindNumber || !a.valueIn(al.table) {
			return
		}
		if name := e.m.Cat.NameTerms(al.column); len(name) > 1 && name[0] == word[0] {
			a.sup = nil
			cm.at, cm.phrase = s.at, a.phrase(s.at, cm.end)
		}
		return
	}
}

// valueIn says whether a value of the question may be stored in table.
func (a *analysis) valueIn(table string) bool {
	for _, vm := range a.values {
		for _, al := range vm.alts {
			if strings.EqualFold(al.table, table) {
				return true
			}
		}
	}
	return false
}
