package links

import (
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// EntityMention is a phrase that names a table's rows ("vans",
// "depots"), with the tables it may name.
type EntityMention struct {
	Phrase string
	At     int
	Tables []*schema.Table
}

// PreferNamedTable reads "refund amount" as the amount of refunds: a
// column named right after a table's name is first looked for there.
func (e *Reader) PreferNamedTable(a *Analysis) {
	for _, cm := range a.Columns {
		for _, em := range a.Entities {
			if em.At+len(strings.Fields(em.Phrase)) != cm.At {
				continue
			}
			named := false
			for i := range cm.Alts {
				for _, t := range em.Tables {
					named = named || strings.EqualFold(cm.Alts[i].Table, t.Name)
				}
			}
			for i := range cm.Alts {
				w := 0.6 // another table's column leaves the table's name unused
				if !named {
					w = 1
				}
				for _, t := range em.Tables {
					if strings.EqualFold(cm.Alts[i].Table, t.Name) {
						w = 1.5
					}
				}
				cm.Alts[i].Weight *= w
			}
			sort.SliceStable(cm.Alts, func(i, j int) bool { return cm.Alts[i].Weight > cm.Alts[j].Weight })
		}
	}
}

// FindEntities links words to tables ("customers", "sales reps").
func (e *Reader) FindEntities(a *Analysis) {
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(a.Toks); i++ {
			ok := !StopWords[a.Toks[i].Low] && !StopWords[a.Toks[i+n-1].Low] && token.Unbroken(a.Toks, i, i+n) && !ListVerbs[a.Toks[i].Low]
			for k := i; ok && k < i+n; k++ {
				if a.Toks[k].Used || a.Toks[k].IsNum {
					ok = false
				}
			}
			if !ok {
				continue
			}
			// "books printed by the publisher": a participle with its
			// agent is a verb of the clause, not part of the noun.
			if n > 1 && a.Word(i+n) == "by" && PassiveAgent(a.Word(i+n-1)) {
				continue
			}
			terms := e.M.Cat.Terms(a.Phrase(i, i+n))
			if len(terms) == 0 {
				continue
			}
			tables := e.M.ByTerm[strings.Join(terms, " ")]
			if len(tables) == 0 {
				continue
			}
			a.Entities = append(a.Entities, &EntityMention{Phrase: a.Phrase(i, i+n), At: i, Tables: tables})
			for k := i; k < i+n; k++ {
				a.Toks[k].Used = true
			}
		}
	}
	sort.SliceStable(a.Entities, func(i, j int) bool { return a.Entities[i].At < a.Entities[j].At })
	e.compoundEntities(a)
}

// compoundEntities reads two table nouns in a row whose first table's rows
// refer to the second's ("product category": a product's category) as the
// second thing, named with its owner: the question is about categories.
func (e *Reader) compoundEntities(a *Analysis) {
	var kept []*EntityMention
	for i := 0; i < len(a.Entities); i++ {
		em := a.Entities[i]
		if i+1 < len(a.Entities) {
			next := a.Entities[i+1]
			end := a.SpanOf(em.At, em.Phrase)
			if next.At == end && a.Toks[end-1].Break == 0 && e.refersTo(em.Tables[0], next.Tables[0]) {
				kept = append(kept, &EntityMention{Phrase: a.Phrase(em.At, a.SpanOf(next.At, next.Phrase)), At: em.At, Tables: next.Tables})
				i++
				continue
			}
		}
		kept = append(kept, em)
	}
	a.Entities = kept
}

// refersTo says whether t's rows point at other's rows (a key of other).
func (e *Reader) refersTo(t, other *schema.Table) bool {
	if t == other {
		return false
	}
	for _, j := range e.M.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, t.Name) && strings.EqualFold(j.ToTable, other.Name) && e.M.Unique(j.ToTable, j.ToColumn) {
			return true
		}
	}
	return false
}

// FindRelatedEntities links a word left unlinked to a table or column
// whose name is one word it is related to in the lexicon ("which states
// adjoin alabama" → border): the same lemma, a synonym or a derived form.
func (e *Reader) FindRelatedEntities(a *Analysis) {
	if e.words == nil {
		return
	}
	for i, t := range a.Toks {
		// Only verbs ("adjoin", "surrounding"): a noun related through
		// one of its verb senses ("places" → rating) would mislead, and
		// the word after a superlative belongs to it ("most populated").
		if t.Used || t.IsNum || t.Quoted || IsFunctionWord(t) || len(t.Low) < 4 || !e.words.MostlyVerb(t.Low) ||
			a.Sup != nil && i == a.Sup.NounAt {
			continue
		}
		cm := &ColMention{Phrase: t.Raw, At: i, End: i + 1, Clause: t.Clause, Verb: true}
		var tables []*schema.Table
		for _, info := range e.M.Tables {
			if w := schema.NameWord(info.Name); w != "" && e.words.RelatedTo(t.Low, w) {
				tables = append(tables, info)
			}
			for _, c := range info.Def.Columns {
				if w := schema.NameWord(c.Name); w != "" && !e.M.IsKeyish(info.Def, &c) && e.words.RelatedTo(t.Low, w) {
					cm.Alts = append(cm.Alts, ColAlt{Table: info.Name, Column: c.Name, Weight: 0.8})
				}
			}
		}
		// A column of that name is the more specific link (neighbour_info.neighbour).
		switch {
		case len(cm.Alts) > 0:
			a.Columns = append(a.Columns, cm)
		case len(tables) > 0:
			a.Entities = append(a.Entities, &EntityMention{Phrase: t.Raw, At: i, Tables: tables})
		default:
			continue
		}
		a.Toks[i].Used = true
	}
	sort.SliceStable(a.Entities, func(i, j int) bool { return a.Entities[i].At < a.Entities[j].At })
	sort.SliceStable(a.Columns, func(i, j int) bool { return a.Columns[i].At < a.Columns[j].At })
}

// relatedTables are the tables with a one-word name the lexicon relates
// to word (a synonym or derived form).
func (e *Reader) relatedTables(word string) []*schema.Table {
	if e.words == nil || len(word) < 2 {
		return nil
	}
	if e.words.MostlyVerb(word) || strings.HasSuffix(word, "ing") {
		return nil
	}
	var out []*schema.Table
	for _, n := range e.M.Named {
		if !inflectionOf(word, n.Word) && e.words.RelatedTo(word, n.Word) {
			out = append(out, n.Table)
		}
	}
	return out
}

// inflectionOf says whether word is base itself with an inflection
// ("borders", "bordered" of "border"): those name the table only through
// the catalog's own terms, not as synonyms.
func inflectionOf(word, base string) bool {
	for _, suffix := range []string{"", "s", "es", "ed", "d", "ing", "er", "ers"} {
		if word == base+suffix {
			return true
		}
	}
	return false
}

// Negations negate what follows ("not", "never"): words/negations.tsv.
var Negations = words.Set("negating")
