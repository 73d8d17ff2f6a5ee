package read

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
func (e *Reader) protectStoredValues(a *Analysis) {
	for i := range a.Toks {
		if _, ok := Superlatives[a.Toks[i].Low]; !ok || a.Toks[i].Used || a.Toks[i].Clause != 0 {
			continue
		}
		for n := 3; n >= 2; n-- {
			if i+n > len(a.Toks) || !token.Unbroken(a.Toks, i, i+n) || !a.free(i, i+n) {
				continue
			}
			phrase := a.Phrase(i, i+n)
			var alts []ValueAlt
			for _, h := range e.m.Cat.SearchValues(phrase, 24) {
				if (h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive) && strings.EqualFold(h.Value, phrase) {
					alts = append(alts, ValueAlt{Table: h.Table, Column: h.Column, Value: h.Value, Weight: 1})
				}
			}
			if len(alts) == 0 {
				continue
			}
			a.Values = append(a.Values, &ValueMention{Phrase: phrase, At: i, Alts: alts})
			a.MarkUsed(i, i+n)
			break
		}
	}
}

// free says whether the tokens [from, to) are unused plain words.
func (a *Analysis) free(from, to int) bool {
	for k := from; k < to; k++ {
		if a.Toks[k].Used || a.Toks[k].IsNum || a.Toks[k].Quoted {
			return false
		}
	}
	return true
}

// protectColumnPhrases links a two-word phrase that is exactly a column's
// name ("meal description") to that column when its last word alone would
// name another table (a description table).
func (e *Reader) protectColumnPhrases(a *Analysis) {
	for i := 0; i+2 <= len(a.Toks); i++ {
		if !a.free(i, i+2) || !token.Unbroken(a.Toks, i, i+2) || stopWords[a.Toks[i].Low] || stopWords[a.Toks[i+1].Low] || a.Toks[i].Clause != a.Toks[i+1].Clause {
			continue
		}
		last := e.m.ByTerm[strings.Join(e.m.Cat.Terms(a.Toks[i+1].Raw), " ")]
		if len(last) == 0 {
			continue
		}
		want := strings.Join(e.m.Cat.NameTerms(a.Phrase(i, i+2)), " ")
		for _, h := range e.m.Cat.SearchColumns(a.Phrase(i, i+2), 5) {
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
func (e *Reader) superlativeOfColumn(a *Analysis) {
	s := a.Sup
	if s == nil || s.ExplicitLimit || strings.Contains(s.Phrase, " ") {
		return
	}
	word := e.m.Cat.NameTerms(a.Toks[s.At].Raw)
	if len(word) != 1 {
		return
	}
	for _, cm := range a.Columns {
		if cm.At != s.At+1 || cm.Clause != 0 || len(cm.Alts) == 0 || cm.Alts[0].Computed() {
			continue
		}
		al := cm.Alts[0]
		c := e.m.Column(al.Table, al.Column)
		if c == nil || c.Kind() != warehouse.KindNumber || !a.valueIn(al.Table) {
			return
		}
		if name := e.m.Cat.NameTerms(al.Column); len(name) > 1 && name[0] == word[0] {
			a.Sup = nil
			cm.At, cm.Phrase = s.At, a.Phrase(s.At, cm.End)
		}
		return
	}
}

// valueIn says whether a value of the question may be stored in table.
func (a *Analysis) valueIn(table string) bool {
	for _, vm := range a.Values {
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, table) {
				return true
			}
		}
	}
	return false
}
