package read

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Events at their own dates and participants. A past participle that
// names something that happened to the subject — "orders placed in
// 2025", "shipped by UPS", "shipped to California", "delivered last
// month" — is first that event: its date, its agent, its destination.
// A status column often stores the same word ('placed', 'shipped') for the
// rows whose latest step it was, so filtering on it answers another
// question (an order shipped and since delivered is no longer 'shipped').
// The status stays an option, asked about when the two differ; it is never
// applied silently.
//
// Evidence that a word names an event of the data: the schema has a
// column the word names — a date column "shipped_at", a comment "Date the
// order was placed", a "Shipping carrier" — besides the stored value.

// findEvents marks the value mentions that are events and records the
// verbs, for the time conditions to prefer the event's own date.
func findEvents(e *links.Reader, a *links.Analysis) {
	for _, vm := range a.Values {
		if vm.Negated || len(vm.Alts) == 0 {
			continue
		}
		end := a.SpanOf(vm.At, vm.Phrase)
		verb := a.Word(end - 1)
		// "members made payments in 2025": the value read with its
		// table's noun, used as the verb of the thing named before it; after
		// a function word it qualifies the noun ("how many failed
		// payments", "the lost loans").
		if !links.Participle(verb) && links.Participle(a.Word(vm.At)) && TableNamed(e, a, end-1) != nil && vm.At > 0 && !links.IsFunctionWord(a.Toks[vm.At-1]) {
			verb = a.Word(vm.At)
		}
		if !links.Participle(verb) || !eventFollows(a, end) {
			continue
		}
		stems := VerbStems(verb)
		if !schemaNamesEvent(e, stems, vm) {
			continue
		}
		vm.Event = true
		a.EventVerbs = append(a.EventVerbs, stems...)
	}
}

// VerbStems are the forms a participle's verb takes in names: "shipped" →
// shipped, shipp, ship; "placed" → placed, place; "sold" → sold, sell.
func VerbStems(w string) []string {
	out := []string{w}
	if base := links.IrregularParticiples[w]; base != "" {
		return append(out, base)
	}
	stem := strings.TrimSuffix(w, "ed")
	out = append(out, stem, stem+"e")
	if n := len(stem); n > 2 && stem[n-1] == stem[n-2] {
		out = append(out, stem[:n-1]) // shipp → ship
	}
	if strings.HasSuffix(stem, "i") {
		out = append(out, strings.TrimSuffix(stem, "i")+"y") // applied → apply
	}
	var kept []string
	for _, s := range out {
		if len(s) >= 4 {
			kept = append(kept, s)
		}
	}
	return kept
}

// eventPreps may follow an event's verb before its time, agent or place
// (prepositions.tsv).
var eventPreps = words.Set("eventprep")

// eventFollows says whether a time ("in 2025", "last month"), an agent
// ("by UPS") or a place or recipient ("to California") follows token i.
func eventFollows(a *links.Analysis, i int) bool {
	for _, tm := range a.Times {
		// "placed in 2025", "borrowed the most tools in 2024"
		if tm.At >= i && tm.At <= i+5 && !verbBetween(a, i, tm.At) {
			return true
		}
	}
	if !eventPreps[a.Word(i)] {
		return false
	}
	for _, vm := range a.Values {
		if vm.At == i+1 || vm.At == i+2 && a.Word(i+1) == "the" {
			return true
		}
	}
	return false
}

// verbBetween says whether another participle or a clause break lies in
// [from, to): the time then belongs to another event.
func verbBetween(a *links.Analysis, from, to int) bool {
	for k := from; k < to && k < len(a.Toks); k++ {
		if links.Participle(a.Word(k)) || a.Toks[k].Break != 0 {
			return true
		}
	}
	return false
}

// schemaNamesEvent says whether a column other than the value's own is
// named by the verb: a date "shipped_at", a comment "Date the order was
// placed", a "Shipping carrier", in the value's table or one related to it.
func schemaNamesEvent(e *links.Reader, stems []string, vm *links.ValueMention) bool {
	tables := map[string]bool{}
	for _, al := range vm.Alts {
		t := strings.ToLower(al.Table)
		tables[t] = true
		for _, j := range e.M.Snap.Schema.Joins {
			if strings.EqualFold(j.ToTable, t) {
				tables[strings.ToLower(j.FromTable)] = true
			}
			if strings.EqualFold(j.FromTable, t) {
				tables[strings.ToLower(j.ToTable)] = true
			}
		}
	}
	for name := range tables {
		t := e.M.ByName[name]
		if t == nil {
			continue
		}
		for ci := range t.Def.Columns {
			c := &t.Def.Columns[ci]
			own := false
			for _, al := range vm.Alts {
				own = own || strings.EqualFold(al.Table, t.Name) && strings.EqualFold(al.Column, c.Name)
			}
			if !own && NamesVerb(c.Name+" "+c.Comment, stems) {
				return true
			}
		}
	}
	return false
}

// NamesVerb says whether a column's name or comment holds a word starting
// with one of the verb's stems ("shipped_at", "Shipping carrier").
func NamesVerb(text string, stems []string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
	for _, w := range words {
		for _, s := range stems {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}
