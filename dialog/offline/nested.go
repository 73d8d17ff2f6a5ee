package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Nested superlatives: "the vans at the largest depot", "how many vans
// are at the depot with the biggest yard", "the longest route of the
// smallest depot". A superlative that picks out a thing the question's
// subject is related to ("in", "of", "through" it) is a condition on the
// subject's rows — they belong to the top one — not the ranking of the
// answer; the answer's own shape (a list, a count, another superlative)
// is read as if the phrase named one thing.

// nestedMention is a superlative phrase that names one related thing.
type nestedMention struct {
	sup *superMention
	// subject is the table whose top row is meant; measure, when set, is
	// the column named after the superlative ("with the largest population").
	subject *schema.Table
	measure *colMention
	// at..end are the phrase's tokens ("the depot with the most vans").
	at, end int
}

// nestingWords link the subject of a question to a thing it belongs to or
// runs through; after "with", "has" or "is" a superlative ranks the
// subject itself.
var nestingWords = words.Set("nesting")

// findNested finds the superlative phrase that names a related thing, if
// any: the second superlative of the question, or the only one when the
// subject comes before it. It takes the mention out of a.sup when the
// question has no other superlative.
func (e *Engine) findNested(a *analysis) *nestedMention {
	var sups []*superMention
	if a.sup != nil {
		sups = append(sups, a.sup)
	}
	// A second superlative, after the first.
	if a.sup != nil {
		for i := a.sup.nounAt + 1; i < len(a.toks); i++ {
			if s, ok := superlatives[a.toks[i].Low]; ok && !a.toks[i].Used && a.toks[i].Clause == 0 {
				sm := &superMention{phrase: a.toks[i].Raw, desc: s.desc, limit: 1, hint: s.hint, at: i, nounAt: i + 1}
				for sm.nounAt < len(a.toks) && (a.word(sm.nounAt) == "the" || a.word(sm.nounAt) == "a") {
					sm.nounAt++
				}
				sups = append(sups, sm)
				break
			}
		}
	}
	for k, s := range sups {
		if s.explicitLimit {
			continue
		}
		nm := e.nestedAt(a, s)
		if nm == nil {
			continue
		}
		if k == 0 {
			// The only superlative becomes the condition; the answer's
			// shape is read without it.
			if len(sups) > 1 {
				continue
			}
			a.sup = nil
		}
		for i := s.at; i < nm.end; i++ {
			a.toks[i].Used = true
		}
		return nm
	}
	return nil
}

// nestedAt reads the superlative s as "<link> the <sup> <thing>" or
// "<link> the <thing> with the <sup> <column>", where something of the
// question's comes before the link.
func (e *Engine) nestedAt(a *analysis, s *superMention) *nestedMention {
	before := func(j int) int {
		for j >= 0 && (a.word(j) == "the" || a.word(j) == "a") {
			j--
		}
		return j
	}
	entityAt := func(i int) *entityMention {
		for _, em := range a.entities {
			if em.at == i {
				return em
			}
		}
		return nil
	}
	columnAt := func(i int) *colMention {
		for _, cm := range a.columns {
			if cm.at == i && cm.clause == 0 {
				return cm
			}
		}
		return nil
	}
	mentionedBefore := func(i int, not *schema.Table) bool {
		for _, em := range a.entities {
			if em.at < i && em.tables[0] != not {
				return true
			}
		}
		for _, cm := range a.columns {
			if cm.at >= i || cm.clause != 0 || len(cm.alts) == 0 {
				continue
			}
			// "the capacity of the biggest depot" may be the state's own.
			own := false
			for _, al := range cm.alts {
				own = own || strings.EqualFold(al.table, not.Name)
			}
			if !own {
				return true
			}
		}
		return false
	}
	// "stops at the most depots" counts them: a ranking, not one thing.
	switch s.phrase {
	case "most", "least", "fewest", "more", "fewer":
		return nil
	}
	// "in the smallest state"
	if em := entityAt(s.nounAt); em != nil {
		link := before(s.at - 1)
		if link >= 0 && nestingWords[a.word(link)] && mentionedBefore(link, em.tables[0]) {
			return &nestedMention{sup: s, subject: em.tables[0], at: link + 1, end: a.spanOf(em.at, em.phrase)}
		}
	}
	// "at the depot with the largest fleet"
	if cm := columnAt(s.nounAt); cm != nil && len(cm.alts) > 0 {
		with := before(s.at - 1)
		if a.word(with) != "with" && a.word(with) != "having" {
			return nil
		}
		em := entityAt(with - 1)
		if em == nil {
			return nil
		}
		own := false
		for _, al := range cm.alts {
			own = own || strings.EqualFold(al.table, em.tables[0].Name)
		}
		if !own {
			return nil
		}
		link := before(em.at - 1)
		if link >= 0 && nestingWords[a.word(link)] && mentionedBefore(link, em.tables[0]) {
			return &nestedMention{sup: s, subject: em.tables[0], measure: cm, at: link + 1, end: cm.end}
		}
	}
	return nil
}

// nestedElement makes the condition: the related thing's rows are those
// with the top value of a measure (the one named, else those the
// superlative's adjective suggests, else the thing's measures).
func (r *reader) nestedElement(nm *nestedMention) *element {
	t := nm.subject
	var cols []*warehouse.Column
	if nm.measure != nil {
		r.usedCols[nm.measure] = true
		for _, al := range nm.measure.alts {
			if c := r.e.m.Column(al.table, al.column); c != nil && strings.EqualFold(al.table, t.Name) && c.Kind() == warehouse.KindNumber {
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		cols = r.hintColumns(t, nm.sup.hint, false)
	}
	if len(cols) == 0 {
		cols = t.Measures
	}
	if len(cols) == 0 {
		return nil
	}
	fn := "MIN"
	if nm.sup.desc {
		fn = "MAX"
	}
	el := &element{name: "nested"}
	phrase := r.a.phrase(nm.at, nm.end)
	for i, c := range cols {
		x := col(t.Name, c.Name)
		where := cmp(x, "=", scalarSub{X: aggOver(fn, x), Table: t.Name})
		el.add(1/float64(i+1), func(p *plan) {
			p.filters = append(p.filters, cond{x: where})
			p.use(t.Name)
			p.phrases[sqlshape.WhereKey(strings.ToLower(t.Name+"."+c.Name))] = phrase
		})
	}
	return el
}
