package links

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// ValueMention is a phrase that names stored values.
type ValueMention struct {
	Phrase string
	At     int // first token
	Alts   []ValueAlt
	// Negated: "without", "not", "excluding" before it.
	Negated bool
	// Optional: the words also name a column, so ignoring the value is a reading too.
	Optional bool
	// Weak: an everyday word matched to a name without corroboration; not
	// filtering is the likelier reading (spurious.go).
	Weak bool
	// Named: the question names the value's column next to it ("the
	// ward of Intensive Care"), which corroborates it.
	Named bool
	// Event: a participle naming something that happened ("placed in
	// 2025"), whose event is the likelier reading (events.go).
	Event bool
}

// ValueAlt is a column that stores a value a phrase spells, weighted by
// how well it matches.
type ValueAlt struct {
	Table, Column, Value string
	Weight               float64
}

// FindNamedValues reads "the colorado river", "mount whitney", "lake
// erie": a value next to the name of its table is looked for in that
// table first, and the table word is taken as the entity.
func (e *Reader) FindNamedValues(a *Analysis) {
	for i := range a.Toks {
		t := a.Toks[i]
		if t.Used || t.IsNum || StopWords[t.Low] {
			continue
		}
		tables := e.M.ByTerm[strings.Join(e.M.Cat.Terms(t.Raw), " ")]
		if len(tables) == 0 {
			// a word the lexicon relates to a one-word table name (a
			// shortened or derived form of it) names the table too.
			tables = e.relatedTables(t.Low)
		}
		if len(tables) == 0 {
			continue
		}
		for _, span := range [][2]int{{i - 1, i}, {i - 2, i}, {i + 1, i + 2}, {i + 1, i + 3}} {
			from, to := span[0], span[1]
			if from < 0 || to > len(a.Toks) || from >= to {
				continue
			}
			ok := true
			for k := from; k < to; k++ {
				if a.Toks[k].Used || a.Toks[k].IsNum || StopWords[a.Toks[k].Low] {
					ok = false
				}
			}
			if !ok {
				continue
			}
			vm := e.valueMention(a, from, to, false)
			if vm == nil {
				continue
			}
			var in []ValueAlt
			for _, al := range vm.Alts {
				for _, tb := range tables {
					if strings.EqualFold(al.Table, tb.Name) {
						al.Weight *= 2
						in = append(in, al)
					}
				}
			}
			if len(in) == 0 {
				continue
			}
			vm.Alts, vm.Optional = in, false
			// Remembered as "colorado river", not "colorado": the state of
			// Colorado is another question.
			if i >= to {
				vm.Phrase = a.Phrase(from, i+1)
			} else {
				vm.Phrase = a.Phrase(i, to)
			}
			a.Values = append(a.Values, vm)
			for k := from; k < to; k++ {
				a.Toks[k].Used = true
			}
			a.Entities = append(a.Entities, &EntityMention{Phrase: t.Raw, At: i, Tables: tables})
			a.Toks[i].Used = true
			break
		}
	}
}

// FindValues links phrases to stored values, longest phrases first.
func (e *Reader) FindValues(a *Analysis) {
	for i := range a.Toks {
		if a.Toks[i].Quoted && !a.Toks[i].Used {
			if vm := e.valueMention(a, i, i+1, true); vm != nil {
				a.Values = append(a.Values, vm)
			}
			a.Toks[i].Used = true
		}
	}
	for n := 4; n >= 1; n-- {
		for i := 0; i+n <= len(a.Toks); i++ {
			ok := true
			content := 0
			for k := i; k < i+n; k++ {
				t := a.Toks[k]
				if t.Used || t.IsNum || t.Quoted || t.Clause != a.Toks[i].Clause {
					ok = false
					break
				}
				if !stopWord(t) {
					content++
				}
			}
			if !ok || content == 0 || stopWord(a.Toks[i]) || stopWord(a.Toks[i+n-1]) || !token.Unbroken(a.Toks, i, i+n) {
				continue
			}
			vm := e.valueMention(a, i, i+n, false)
			if nv := e.valueOfNamedColumn(a, i, i+n); nv != nil {
				if vm != nil {
					nv.Alts = append(nv.Alts, vm.Alts...)
				}
				vm = nv
			}
			if vm == nil {
				continue
			}
			a.Values = append(a.Values, vm)
			if !vm.Optional {
				for k := i; k < i+n; k++ {
					a.Toks[k].Used = true
				}
			}
		}
	}
	sort.SliceStable(a.Values, func(i, j int) bool { return a.Values[i].At < a.Values[j].At })
	a.mergeParenthesised()
	a.wholeStoredValues()
	e.withNumber(a)
}

// withNumber extends a value mention over the number right after it when
// its words and the number spell a stored value of a column it matched
// ("Bed 07", "Room 101"): a name with a number is one value, and its
// words alone match only the start of several values.
func (e *Reader) withNumber(a *Analysis) {
	for _, vm := range a.Values {
		end := a.SpanOf(vm.At, vm.Phrase)
		if a.Phrase(vm.At, end) != vm.Phrase || end >= len(a.Toks) || !a.Toks[end].IsNum || a.Toks[end].Used ||
			a.Toks[end].Clause != a.Toks[vm.At].Clause || !token.Unbroken(a.Toks, vm.At, end+1) {
			continue
		}
		cols := map[string]bool{}
		for _, al := range vm.Alts {
			cols[strings.ToLower(al.Table+"."+al.Column)] = true
		}
		// The value may start after the mention's first words ("named
		// Bed 07" is the value "Bed 07").
		for from := vm.At; from < end; from++ {
			var alts []ValueAlt
			for _, h := range e.M.Cat.SearchValues(a.Phrase(from, end+1), 8) {
				if exactHit(h) && cols[strings.ToLower(h.Table+"."+h.Column)] {
					alts = append(alts, ValueAlt{Table: h.Table, Column: h.Column, Value: h.Value, Weight: 2})
				}
			}
			if len(alts) > 0 {
				vm.Phrase, vm.Alts, vm.Weak, vm.Optional = a.Phrase(vm.At, end+1), alts, false, false
				a.MarkUsed(vm.At, end+1)
				break
			}
		}
	}
}

// wholeStoredValues extends a value mention over the words after it when
// a stored value it matched is spelled by them too, punctuation aside
// ("Ballpoint Pens, 12-Pack" is one product, not "Ballpoint Pens" and a
// value "Pack" matches elsewhere): the longer stored value is what was
// typed, and the mentions inside it are dropped.
func (a *Analysis) wholeStoredValues() {
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ")
	}
	var dropped []*ValueMention
	for _, vm := range a.Values {
		end := a.SpanOf(vm.At, vm.Phrase)
		if a.Phrase(vm.At, end) != vm.Phrase {
			continue // a mention merged from parts ("Los Angeles (LAX)")
		}
		best, bestEnd := []ValueAlt(nil), end
		for _, al := range vm.Alts {
			want := norm(al.Value)
			for k := end + 1; k <= len(a.Toks) && k <= end+6; k++ {
				if a.Toks[k-1].Clause != a.Toks[vm.At].Clause {
					break
				}
				got := norm(a.Phrase(vm.At, k))
				if !strings.HasPrefix(want, got) {
					break
				}
				if got == want && k >= bestEnd {
					if k > bestEnd {
						best = nil
					}
					best, bestEnd = append(best, al), k
				}
			}
		}
		if bestEnd == end {
			continue
		}
		vm.Phrase, vm.Alts, vm.Weak, vm.Optional = a.Phrase(vm.At, bestEnd), best, false, false
		a.MarkUsed(vm.At, bestEnd)
		for _, other := range a.Values {
			if other != vm && other.At >= vm.At && other.At < bestEnd {
				dropped = append(dropped, other)
			}
		}
	}
	if len(dropped) == 0 {
		return
	}
	var kept []*ValueMention
	for _, vm := range a.Values {
		if !slices.Contains(dropped, vm) {
			kept = append(kept, vm)
		}
	}
	a.Values = kept
}

// mergeParenthesised reads "Los Angeles (LAX)" as one value: the name and
// its code in brackets are the same thing, either may be what is stored.
func (a *Analysis) mergeParenthesised() {
	var out []*ValueMention
	for _, vm := range a.Values {
		if n := len(out); n > 0 {
			prev := out[n-1]
			end := a.SpanOf(prev.At, prev.Phrase)
			if vm.At == end && end > 0 && a.Toks[end-1].Break == '(' {
				vm.Alts = append(vm.Alts, prev.Alts...)
				vm.At, vm.Phrase = prev.At, prev.Phrase+" ("+vm.Phrase+")"
				vm.Negated = vm.Negated || prev.Negated
				out[n-1] = vm
				continue
			}
		}
		out = append(out, vm)
	}
	a.Values = out
}

// universal before a plural noun take all of a kind, no value (grammar.tsv).
var universal = words.Set("universal")

// valueOfNamedColumn reads "chinese food" as the value 'chinese' of the
// column the last word names (food_type), beside any stored value that is
// the whole phrase (a shop called "Green Grocer").
func (e *Reader) valueOfNamedColumn(a *Analysis, from, to int) *ValueMention {
	if to-from < 2 {
		return nil
	}
	word := e.M.Cat.Terms(a.Toks[to-1].Raw)
	if len(word) != 1 {
		return nil
	}
	// "all transaction types": every value, none in particular.
	if universal[a.Word(from-1)] && SingularOf(a.Toks[to-1].Low) != a.Toks[to-1].Low {
		return nil
	}
	var alts []ValueAlt
	var values []catalog.ValueHit
	for _, h := range e.M.Cat.SearchColumns(a.Toks[to-1].Raw, 5) {
		if !slices.Contains(e.M.Cat.NameTerms(h.Column), word[0]) {
			continue
		}
		if values == nil {
			values = e.M.Cat.SearchValues(a.Phrase(from, to-1), 24)
		}
		for _, v := range values {
			if (v.Match == catalog.Exact || v.Match == catalog.CaseInsensitive) && strings.EqualFold(v.Table, h.Table) && strings.EqualFold(v.Column, h.Column) {
				alts = append(alts, ValueAlt{Table: v.Table, Column: v.Column, Value: v.Value, Weight: 1.2})
			}
		}
	}
	if len(alts) == 0 {
		return nil
	}
	return &ValueMention{Phrase: a.Phrase(from, to), At: from, Alts: alts}
}

// schemaWord says whether a phrase names a table or a column outright.
func (e *Reader) schemaWord(phrase string) (table, column bool) {
	terms := e.M.Cat.Terms(phrase)
	if len(terms) == 0 {
		return false, false
	}
	key := strings.Join(terms, " ")
	if len(e.M.ByTerm[key]) > 0 {
		return true, false
	}
	for _, h := range e.M.Cat.SearchColumns(phrase, 3) {
		ct := e.M.Cat.NameTerms(h.Column)
		if strings.Join(ct, " ") == key || len(terms) == 1 && slices.Contains(ct, terms[0]) {
			return false, true
		}
		// "placed" in "the date the order was placed": a word the schema
		// uses to describe a column, not only a stored status.
		// But not when the comment only cites one of the column's own
		// values ("full state name, such as Texas"): then it is a value.
		if c := e.M.Column(h.Table, h.Column); c != nil && len(terms) == 1 && slices.Contains(e.M.Cat.Terms(c.Comment), terms[0]) && !e.storedIn(phrase, h.Table, h.Column) {
			return false, true
		}
	}
	return false, false
}

// wholeWordPrefix says whether value starts with phrase followed by the
// end of a word.
func wholeWordPrefix(phrase, value string) bool {
	p, v := []rune(strings.ToLower(phrase)), []rune(strings.ToLower(value))
	if len(p) > len(v) || string(v[:len(p)]) != string(p) {
		return false
	}
	return len(v) == len(p) || !unicode.IsLetter(v[len(p)]) && !unicode.IsDigit(v[len(p)])
}

// storedIn says whether phrase is one of the column's stored values.
func (e *Reader) storedIn(phrase, table, column string) bool {
	for _, h := range e.M.Cat.SearchValues(phrase, 24) {
		if (h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive) && strings.EqualFold(h.Table, table) && strings.EqualFold(h.Column, column) {
			return true
		}
	}
	return false
}

// auxiliaries come before a verb: "did not write", "does lend", "never
// visited".
var auxiliaries = words.Set("auxiliary")

func (e *Reader) valueMention(a *Analysis, from, to int, quoted bool) *ValueMention {
	phrase := a.Phrase(from, to)
	if len([]rune(phrase)) < 2 {
		return nil
	}
	isTable, isColumn := false, false
	if !quoted {
		isTable, isColumn = e.schemaWord(phrase)
		if isTable {
			return nil
		}
	}
	hits := e.M.Cat.SearchValues(phrase, 24)
	// "cats and dogs": a plural of a stored 'cat', when nothing is stored
	// as written.
	if last := a.Toks[to-1].Low; !quoted && SingularOf(last) != last && !slices.ContainsFunc(hits, exactHit) {
		for _, h := range e.M.Cat.SearchValues(strings.TrimSpace(a.Phrase(from, to-1)+" "+SingularOf(last)), 24) {
			if exactHit(h) {
				h.Match = catalog.Abbreviation // as sure as an abbreviation, less than the word itself
				hits = append(hits, h)
			}
		}
	}
	vm := &ValueMention{Phrase: phrase, At: from, Optional: isColumn}
	// "did not write", "never visited": a verb after an auxiliary is the
	// predicate; only the same word stored ('write') can be a value.
	predicate := !quoted && to-from == 1 && from > 0 && auxiliaries[a.Word(from-1)] && e.words != nil && e.words.MostlyVerb(a.Word(from))
	byCol := e.valueHits(hits, phrase, quoted, isColumn, predicate)
	if len(byCol) == 0 {
		return nil
	}
	vm.Alts = bestValueAlts(byCol)
	e.valueNegation(a, vm, from)
	return vm
}

// valueHits weighs the catalog's hits by how they match (exact, an
// abbreviation, a whole-word prefix, a typo), the best per text column;
// a predicate verb matches only as stored.
func (e *Reader) valueHits(hits []catalog.ValueHit, phrase string, quoted, isColumn, predicate bool) map[string]*ValueAlt {
	byCol := map[string]*ValueAlt{}
	for _, h := range hits {
		w := 0.0
		switch h.Match {
		case catalog.Exact, catalog.CaseInsensitive:
			w = 1
		case catalog.Abbreviation:
			w = 0.9
		case catalog.Prefix:
			// "paper" is no start of 'paperback': an unquoted word
			// begins a value only as a whole word of it.
			if quoted || len([]rune(phrase)) >= 4 && !isColumn && wholeWordPrefix(phrase, h.Value) {
				w = 0.25
			}
		case catalog.Typo:
			if quoted || len([]rune(phrase)) >= 5 && !isColumn {
				w = 0.2
			}
		}
		if w == 0 || predicate && w < 0.9 {
			continue
		}
		if c := e.M.Column(h.Table, h.Column); c == nil || c.Kind() != warehouse.KindText {
			continue
		}
		k := strings.ToLower(h.Table + "." + h.Column)
		if prev, ok := byCol[k]; ok {
			if w <= prev.Weight {
				continue
			}
		}
		byCol[k] = &ValueAlt{Table: h.Table, Column: h.Column, Value: h.Value, Weight: w}
	}
	return byCol
}

// bestValueAlts keeps only matches as good as the best kind found (an
// exact 'Texas' makes a typo 'Texos' noise), likeliest first.
func bestValueAlts(byCol map[string]*ValueAlt) []ValueAlt {
	var out []ValueAlt
	best := 0.0
	for _, v := range byCol {
		best = math.Max(best, v.Weight)
	}
	for _, v := range byCol {
		if v.Weight >= best*0.9 {
			out = append(out, *v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		return out[i].Table+"."+out[i].Column < out[j].Table+"."+out[j].Column
	})
	return out
}

// valueNegations right before a value exclude it (negations.tsv).
var valueNegations = words.Set("valuenegation")

// valueNegation: "not", "without", "excluding" right before a value, or
// the negation of its verb a few words before ("do not have the specialty
// 'Cardiology'", "are not in Leeds").
func (e *Reader) valueNegation(a *Analysis, vm *ValueMention, from int) {
	if from > 0 {
		switch {
		case valueNegations[a.Word(from-1)]:
			vm.Negated = true
			a.Toks[from-1].Used = true
		default:
			// "do not have the specialty 'Cardiology'", "are not in Leeds":
			// the negation of the verb, a few words before the value.
			if k := e.negatedBefore(a, from, vm.Alts); k >= 0 {
				vm.Negated = true
				a.Toks[k].Used = true
			}
		}
	}
}

// exactHit says whether a value hit is the phrase itself, case aside.
func exactHit(h catalog.ValueHit) bool {
	return h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive
}

// negationLinks may stand between a negated verb and its value: "not
// in", "is not from".
var negationLinks = words.Set("negationlink")

// verbNegations negate a verb before the value (negations.tsv); haveVerbs
// are the forms of "have" (grammar.tsv).
var verbNegations = words.Set("verbnegation")

var haveVerbs = words.Set("have")

// negatedBefore finds a "not" or "never" at most five words before token
// from that negates the value: with only linking words between ("are not
// in Brill"), or "have" and words of the value's own column ("do not have
// the voice tenor"). "do not own a van" (rows of a related table) and
// "does not border Texas" are absences, read elsewhere. -1 when there is
// none.
func (e *Reader) negatedBefore(a *Analysis, from int, alts []ValueAlt) int {
	names := map[string]bool{}
	for _, al := range alts {
		for _, w := range e.M.Cat.NameTerms(al.Column) {
			names[w] = true
		}
	}
	have, named := false, false
	for k := from - 1; k >= 0 && k >= from-5 && a.Toks[k].Clause == a.Toks[from].Clause; k-- {
		w := a.Word(k)
		switch {
		case verbNegations[w]:
			if k < from-1 && have == named {
				return k
			}
			return -1
		case haveVerbs[w]:
			have = true
		case negationLinks[w]:
		case a.Toks[k].Break == 0 && slices.ContainsFunc(e.M.Cat.NameTerms(w), func(t string) bool { return names[t] }):
			named = true
		default:
			return -1
		}
	}
	return -1
}
