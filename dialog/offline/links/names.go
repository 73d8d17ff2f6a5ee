package links

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/offline/token"
)

// ProtectStoredValues takes a phrase that starts with a superlative word
// and is, as a whole, a stored text value ("First Class", "Best Western")
// as that value before the superlative is read.
func (e *Reader) ProtectStoredValues(a *Analysis) {
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
			for _, h := range e.M.Cat.SearchValues(phrase, 24) {
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

// ProtectColumnPhrases links a two-word phrase that is exactly a column's
// name ("meal description") to that column when its last word alone would
// name another table (a description table).
func (e *Reader) ProtectColumnPhrases(a *Analysis) {
	for i := 0; i+2 <= len(a.Toks); i++ {
		if !a.free(i, i+2) || !token.Unbroken(a.Toks, i, i+2) || StopWords[a.Toks[i].Low] || StopWords[a.Toks[i+1].Low] || a.Toks[i].Clause != a.Toks[i+1].Clause {
			continue
		}
		last := e.M.ByTerm[strings.Join(e.M.Cat.Terms(a.Toks[i+1].Raw), " ")]
		if len(last) == 0 {
			continue
		}
		want := strings.Join(e.M.Cat.NameTerms(a.Phrase(i, i+2)), " ")
		for _, h := range e.M.Cat.SearchColumns(a.Phrase(i, i+2), 5) {
			if strings.Join(e.M.Cat.NameTerms(h.Column), " ") != want {
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
