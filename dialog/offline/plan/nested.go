package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
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

// nestingWords link the subject of a question to a thing it belongs to or
// runs through; after "with", "has" or "is" a superlative ranks the
// subject itself.
var nestingWords = words.Set("nesting")

// findNested finds the superlative phrase that names a related thing, if
// any: the second superlative of the question, or the only one when the
// subject comes before it. It takes the mention out of a.sup when the
// question has no other superlative.
func (e *Builder) findNested(a *links.Analysis) *links.NestedMention {
	var sups []*links.SuperMention
	if a.Sup != nil {
		sups = append(sups, a.Sup)
	}
	// A second superlative, after the first.
	if a.Sup != nil {
		for i := a.Sup.NounAt + 1; i < len(a.Toks); i++ {
			if s, ok := links.Superlatives[a.Toks[i].Low]; ok && !a.Toks[i].Used && a.Toks[i].Clause == 0 {
				sm := &links.SuperMention{Phrase: a.Toks[i].Raw, Desc: s.Desc, Limit: 1, Hint: s.Hint, At: i, NounAt: i + 1}
				for sm.NounAt < len(a.Toks) && articles[a.Word(sm.NounAt)] {
					sm.NounAt++
				}
				sups = append(sups, sm)
				break
			}
		}
	}
	for k, s := range sups {
		if s.ExplicitLimit {
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
			a.Sup = nil
		}
		for i := s.At; i < nm.End; i++ {
			a.Toks[i].Used = true
		}
		return nm
	}
	return nil
}

// articles are skipped between a superlative and its noun or link:
// "in the busiest depot", "the driver with the longest trip"
// (grammar.tsv).
var articles = words.Set("article")

// countingQuantifiers rank by a count, never name one thing: "stops at
// the most depots" (quantifiers.tsv).
var countingQuantifiers = words.Set("countquantifier")

// nestedWith lead a superlative of the thing before them: "the depot
// with the largest fleet" (possession.tsv).
var nestedWith = words.Set("withhaving")

// nestedAt reads the superlative s as "<link> the <sup> <thing>" or
// "<link> the <thing> with the <sup> <column>", where something of the
// question's comes before the link.
func (e *Builder) nestedAt(a *links.Analysis, s *links.SuperMention) *links.NestedMention {
	before := func(j int) int {
		for j >= 0 && articles[a.Word(j)] {
			j--
		}
		return j
	}
	entityAt := func(i int) *links.EntityMention {
		for _, em := range a.Entities {
			if em.At == i {
				return em
			}
		}
		return nil
	}
	columnAt := func(i int) *links.ColMention {
		for _, cm := range a.Columns {
			if cm.At == i && cm.Clause == 0 {
				return cm
			}
		}
		return nil
	}
	mentionedBefore := func(i int, not *schema.Table) bool {
		for _, em := range a.Entities {
			if em.At < i && em.Tables[0] != not {
				return true
			}
		}
		for _, cm := range a.Columns {
			if cm.At >= i || cm.Clause != 0 || len(cm.Alts) == 0 {
				continue
			}
			// "the capacity of the biggest depot" may be the state's own.
			own := false
			for _, al := range cm.Alts {
				own = own || strings.EqualFold(al.Table, not.Name)
			}
			if !own {
				return true
			}
		}
		return false
	}
	// "stops at the most depots" counts them: a ranking, not one thing.
	if countingQuantifiers[s.Phrase] {
		return nil
	}
	// "in the smallest state"
	if em := entityAt(s.NounAt); em != nil {
		link := before(s.At - 1)
		if link >= 0 && nestingWords[a.Word(link)] && mentionedBefore(link, em.Tables[0]) {
			return &links.NestedMention{Sup: s, Subject: em.Tables[0], At: link + 1, End: a.SpanOf(em.At, em.Phrase)}
		}
	}
	// "at the depot with the largest fleet"
	if cm := columnAt(s.NounAt); cm != nil && len(cm.Alts) > 0 {
		with := before(s.At - 1)
		if !nestedWith[a.Word(with)] {
			return nil
		}
		em := entityAt(with - 1)
		if em == nil {
			return nil
		}
		own := false
		for _, al := range cm.Alts {
			own = own || strings.EqualFold(al.Table, em.Tables[0].Name)
		}
		if !own {
			return nil
		}
		link := before(em.At - 1)
		if link >= 0 && nestingWords[a.Word(link)] && mentionedBefore(link, em.Tables[0]) {
			return &links.NestedMention{Sup: s, Subject: em.Tables[0], Measure: cm, At: link + 1, End: cm.End}
		}
	}
	return nil
}

// nestedElement makes the condition: the related thing's rows are those
// with the top value of a measure (the one named, else those the
// superlative's adjective suggests, else the thing's measures).
func (r *reader) nestedElement(nm *links.NestedMention) *element {
	t := nm.Subject
	var cols []*warehouse.Column
	if nm.Measure != nil {
		r.usedCols[nm.Measure] = true
		for _, al := range nm.Measure.Alts {
			if c := r.e.m.Column(al.Table, al.Column); c != nil && strings.EqualFold(al.Table, t.Name) && c.Kind() == warehouse.KindNumber {
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		cols = r.hintColumns(t, nm.Sup.Hint, false)
	}
	if len(cols) == 0 {
		cols = t.Measures
	}
	if len(cols) == 0 {
		return nil
	}
	fn := "MIN"
	if nm.Sup.Desc {
		fn = "MAX"
	}
	el := &element{name: "nested"}
	phrase := r.a.Phrase(nm.At, nm.End)
	for i, c := range cols {
		x := sqlexpr.Col(t.Name, c.Name)
		where := sqlexpr.Cmp(x, "=", sqlexpr.ScalarSub{X: sqlexpr.AggOver(fn, x), Table: t.Name})
		el.add(1/float64(i+1), func(p *Plan) {
			p.Filters = append(p.Filters, Cond{X: where})
			p.use(t.Name)
			p.Phrases[sqlshape.WhereKey(strings.ToLower(t.Name+"."+c.Name))] = phrase
		})
	}
	return el
}
