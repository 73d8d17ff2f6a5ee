package plan

import (
	"slices"
	"unicode"

	"github.com/clarify-bot/clarify/dialog/offline/links"
)

// An ordinary word that happens to be a stored name — "pounds" a last
// name, "league" a surname, "pays" the start of a town — is weak evidence
// of a filter. It is a filter only with corroboration: the word quoted or
// capitalised in the question, the column's own word next to it, or no
// everyday reading of the word. Otherwise it is at most an option in a
// question, and not filtering is the likelier reading.

// commonWord is the commonness (see Words) from which a word is an
// everyday word rather than a name: place and person names score below it
// ("texas" 2.8, "washington" 3.7 is the highest of the US states),
// everyday words above ("pounds" 4.3, "pays" 5.4).
const commonWord = 3.5

// weakValueFactor scales a weak value's readings; not filtering weighs 1.
const weakValueFactor = 0.3

// weakValue says whether a value mention lacks corroboration.
func (r *reader) weakValue(vm *links.ValueMention) bool {
	if r.e.words == nil || len(vm.Alts) == 0 || vm.Named {
		return false
	}
	a := r.a
	end := a.SpanOf(vm.At, vm.Phrase)
	everyday := true
	for k := vm.At; k < end; k++ {
		t := a.Toks[k]
		if t.Quoted || k > 0 && startsUpper(t.Raw) && !titleCase(a) {
			return false
		}
		if !links.IsFunctionWord(t) && r.e.words.Commonness(t.Low) < commonWord {
			everyday = false
		}
	}
	loose := true // matched only by prefix or a typo
	for _, al := range vm.Alts {
		if !r.freeText(al.Table, al.Column) || r.columnWordNear(vm.At, end, al.Table, al.Column) {
			return false
		}
		loose = loose && al.Weight < 0.9
	}
	return everyday || loose
}

// freeText says whether a column holds many different texts (names,
// cities, titles), where some stored value matches almost any word.
func (r *reader) freeText(table, column string) bool {
	p := r.e.m.Profile(table, column)
	return p != nil && p.Distinct >= 50 && p.Distinct*5 >= p.Rows
}

// columnWordNear says whether a word of the column's name stands within
// two words of the value ("the city of Payson", "last name Pounds").
func (r *reader) columnWordNear(from, to int, table, column string) bool {
	terms := r.e.m.Cat.NameTerms(column)
	for k := max(from-2, 0); k < min(to+2, len(r.a.Toks)); k++ {
		if k >= from && k < to {
			continue
		}
		for _, t := range r.e.m.Cat.Terms(r.a.Toks[k].Raw) {
			if t != "" && slices.Contains(terms, t) {
				return true
			}
		}
	}
	return false
}

// titleCase says whether the question capitalises most of its words, so
// that capitals say nothing about names.
func titleCase(a *links.Analysis) bool {
	upper, words := 0, 0
	for _, t := range a.Toks {
		if t.Clause != 0 || t.IsNum || len(t.Raw) < 4 {
			continue
		}
		words++
		if startsUpper(t.Raw) {
			upper++
		}
	}
	return words >= 3 && upper*2 > words
}

func startsUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}
