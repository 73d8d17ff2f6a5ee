package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Ordering clauses: "ordered by the count of loans in descending
// order", "sorted from highest to lowest", "sort the rows by the
// region name", "alphabetically", "starting from the top scores". They
// sort whatever the rest of the question computes; they never rank or cut
// by themselves.

// The words of an ordering clause (words/ordering.tsv).

// orderElement sorts the reading as the ordering clause says: by the
// column or aggregate it names, else by the reading's own measure (or its
// name, alphabetically).
func (r *reader) orderElement() []*element {
	om := r.a.Order
	if om == nil {
		return nil
	}
	el := &element{name: "sort"}
	var key *read.ColMention
	var keyAggs []aggRead
	if om.By >= 0 {
		if aggs, _ := r.aggregateAt(om.By); len(aggs) > 0 {
			keyAggs = aggs
		}
		// "in descending order of days on loan": the first column
		// named in the clause's words after "by"/"of".
		end := max(r.a.SpanOf(om.At, om.Phrase), om.By+2)
		for k := om.By; k < end && key == nil; k++ {
			key = r.columnAt(k)
		}
		if key != nil {
			r.usedCols[key] = true
		}
	}
	named := om.By >= 0 && key == nil && len(keyAggs) == 0
	el.add(1, func(p *plan) {
		if p.order != nil && p.limit > 0 {
			return // a ranking already sorts (and cuts)
		}
		if named {
			// The words name a sort key no column matches: sorting by
			// anything else would answer another question; leave the
			// words unused, to be said.
			return
		}
		if x := r.sortKey(p, key, keyAggs, om.Alpha); x != nil {
			p.order = &sel{x: x}
			p.desc = om.Desc
		}
	})
	return []*element{el}
}

// sortKey picks what a plan is sorted by.
func (r *reader) sortKey(p *plan, key *read.ColMention, aggs []aggRead, alpha bool) expr {
	m := r.e.m
	// An aggregate the plan shows ("by the number of loans").
	for _, ag := range aggs {
		for _, s := range p.selects {
			if sameExpr(m, s.x, ag.x) {
				return s.x
			}
		}
	}
	if key != nil {
		for _, al := range key.Alts {
			x := r.exprOf(al)
			for _, s := range p.selects {
				if sameExpr(m, s.x, x) || aggregatesOver(s.x, x, m) {
					return s.x
				}
			}
			if !p.tables[strings.ToLower(al.Table)] {
				continue
			}
			if p.aggregated || len(p.groups) > 0 {
				for _, g := range p.groups {
					if sameExpr(m, g.x, x) {
						return x
					}
				}
				continue
			}
			return x
		}
	}
	if len(aggs) > 0 && p.aggregated {
		for _, s := range p.selects {
			if isCount(s.x) && isCount(aggs[0].x) {
				return s.x
			}
		}
	}
	// Unnamed: the plan's measure, or for "alphabetically" its first text.
	for _, s := range p.selects {
		isAgg := !arithmeticNoCall(s.x)
		if alpha && !isAgg {
			return s.x
		}
		if !alpha && isAgg {
			return s.x
		}
	}
	if !alpha {
		for _, s := range p.selects {
			if c, ok := isColumn(s.x); ok {
				if col := m.Column(c.Table, c.Column); col != nil && col.Kind() == warehouse.KindNumber {
					return s.x
				}
			}
		}
	}
	return nil
}

// tieBreak is the second measure a ranking names after its first, "top 5
// makers by number of models and average production": the one aggregate
// of that kind the reading shows besides the one it orders by. Nil when
// the ranking names one measure.
func tieBreak(a *read.Analysis, m *schema.Model, p *plan) expr {
	if p.order == nil || p.thenBy != nil || a.Sup == nil {
		return nil
	}
	if _, ok := aggOf(p.order.x); !ok {
		return nil
	}
	by := -1
	for k := a.Sup.At + 1; k < len(a.Toks) && k <= a.Sup.At+6 && a.Toks[k].Clause == 0; k++ {
		if a.Word(k) == "by" {
			by = k
			break
		}
	}
	if by < 0 {
		return nil
	}
	fn := ""
	for k := by + 2; k+1 < len(a.Toks) && a.Toks[k].Clause == 0 && !sentenceBreak(a, by, k); k++ {
		if a.Word(k) == "by" || a.Word(k) == "and" && fn != "" {
			return nil
		}
		if a.Word(k) == "and" {
			if fn = read.AggWords[a.Word(k+1)]; fn == "" {
				return nil
			}
		}
	}
	if fn == "" {
		return nil
	}
	var found expr
	for _, s := range p.selects {
		if ag, ok := aggOf(s.x); ok && ag.Fn == fn && !sameExpr(m, s.x, p.order.x) {
			if found != nil {
				return nil
			}
			found = s.x
		}
	}
	return found
}
