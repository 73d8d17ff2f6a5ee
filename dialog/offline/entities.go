package offline

// Recognising the tables the question names ("customers", "lent" →
// loans); the head is picked in build.go.

import (
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/token"
)

type entityMention struct {
	phrase string
	at     int
	tables []*schema.Table
}

// preferNamedTable reads "refund amount" as the amount of refunds: a
// column named right after a table's name is first looked for there.
func (e *Engine) preferNamedTable(a *analysis) {
	for _, cm := range a.columns {
		for _, em := range a.entities {
			if em.at+len(strings.Fields(em.phrase)) != cm.at {
				continue
			}
			named := false
			for i := range cm.alts {
				for _, t := range em.tables {
					named = named || strings.EqualFold(cm.alts[i].table, t.Name)
				}
			}
			for i := range cm.alts {
				w := 0.6 // another table's column leaves the table's name unused
				if !named {
					w = 1
				}
				for _, t := range em.tables {
					if strings.EqualFold(cm.alts[i].table, t.Name) {
						w = 1.5
					}
				}
				cm.alts[i].weight *= w
			}
			sort.SliceStable(cm.alts, func(i, j int) bool { return cm.alts[i].weight > cm.alts[j].weight })
		}
	}
}

// findEntities links words to tables ("customers", "sales reps").
func (e *Engine) findEntities(a *analysis) {
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(a.toks); i++ {
			ok := !stopWords[a.toks[i].Low] && !stopWords[a.toks[i+n-1].Low] && token.Unbroken(a.toks, i, i+n) && !listVerbs[a.toks[i].Low]
			for k := i; ok && k < i+n; k++ {
				if a.toks[k].Used || a.toks[k].IsNum {
					ok = false
				}
			}
			if !ok {
				continue
			}
			// "books printed by the publisher": a participle with its
			// agent is a verb of the clause, not part of the noun.
			if n > 1 && a.word(i+n) == "by" && passiveAgent(a.word(i+n-1)) {
				continue
			}
			terms := e.m.Cat.Terms(a.phrase(i, i+n))
			if len(terms) == 0 {
				continue
			}
			tables := e.m.ByTerm[strings.Join(terms, " ")]
			if len(tables) == 0 {
				continue
			}
			a.entities = append(a.entities, &entityMention{phrase: a.phrase(i, i+n), at: i, tables: tables})
			for k := i; k < i+n; k++ {
				a.toks[k].Used = true
			}
		}
	}
	sort.SliceStable(a.entities, func(i, j int) bool { return a.entities[i].at < a.entities[j].at })
	e.compoundEntities(a)
}

// compoundEntities reads two table nouns in a row whose first table's rows
// refer to the second's ("product category": a product's category) as the
// second thing, named with its owner: the question is about categories.
func (e *Engine) compoundEntities(a *analysis) {
	var kept []*entityMention
	for i := 0; i < len(a.entities); i++ {
		em := a.entities[i]
		if i+1 < len(a.entities) {
			next := a.entities[i+1]
			end := a.spanOf(em.at, em.phrase)
			if next.at == end && a.toks[end-1].Break == 0 && e.refersTo(em.tables[0], next.tables[0]) {
				kept = append(kept, &entityMention{phrase: a.phrase(em.at, a.spanOf(next.at, next.phrase)), at: em.at, tables: next.tables})
				i++
				continue
			}
		}
		kept = append(kept, em)
	}
	a.entities = kept
}

// refersTo says whether t's rows point at other's rows (a key of other).
func (e *Engine) refersTo(t, other *schema.Table) bool {
	if t == other {
		return false
	}
	for _, j := range e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, t.Name) && strings.EqualFold(j.ToTable, other.Name) && e.m.Unique(j.ToTable, j.ToColumn) {
			return true
		}
	}
	return false
}

// findRelatedEntities links a word left unlinked to a table or column
// whose name is one word it is related to in the lexicon ("which states
// adjoin alabama" → border): the same lemma, a synonym or a derived form.
func (e *Engine) findRelatedEntities(a *analysis) {
	if e.words == nil {
		return
	}
	for i, t := range a.toks {
		// Only verbs ("adjoin", "surrounding"): a noun related through
		// one of its verb senses ("places" → rating) would mislead, and
		// the word after a superlative belongs to it ("most populated").
		if t.Used || t.IsNum || t.Quoted || isFunctionWord(t) || len(t.Low) < 4 || !e.words.MostlyVerb(t.Low) ||
			a.sup != nil && i == a.sup.nounAt {
			continue
		}
		cm := &colMention{phrase: t.Raw, at: i, end: i + 1, clause: t.Clause, verb: true}
		var tables []*schema.Table
		for _, info := range e.m.Tables {
			if w := schema.NameWord(info.Name); w != "" && e.words.RelatedTo(t.Low, w) {
				tables = append(tables, info)
			}
			for _, c := range info.Def.Columns {
				if w := schema.NameWord(c.Name); w != "" && !e.m.IsKeyish(info.Def, &c) && e.words.RelatedTo(t.Low, w) {
					cm.alts = append(cm.alts, colAlt{table: info.Name, column: c.Name, weight: 0.8})
				}
			}
		}
		// A column of that name is the more specific link (neighbour_info.neighbour).
		switch {
		case len(cm.alts) > 0:
			a.columns = append(a.columns, cm)
		case len(tables) > 0:
			a.entities = append(a.entities, &entityMention{phrase: t.Raw, at: i, tables: tables})
		default:
			continue
		}
		a.toks[i].Used = true
	}
	sort.SliceStable(a.entities, func(i, j int) bool { return a.entities[i].at < a.entities[j].at })
	sort.SliceStable(a.columns, func(i, j int) bool { return a.columns[i].at < a.columns[j].at })
}

// relatedTables are the tables with a one-word name the lexicon relates
// to word (a synonym or derived form).
func (e *Engine) relatedTables(word string) []*schema.Table {
	if e.words == nil || len(word) < 2 {
		return nil
	}
	if e.words.MostlyVerb(word) || strings.HasSuffix(word, "ing") {
		return nil
	}
	var out []*schema.Table
	for _, n := range e.m.Named {
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
