package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// Ordering clauses: "ordered by the count of loans in descending
// order", "sorted from highest to lowest", "sort the rows by the
// region name", "alphabetically", "starting from the top scores". They
// sort whatever the rest of the question computes; they never rank or cut
// by themselves.

// orderElement sorts the reading as the ordering clause says: by the
// column or aggregate it names, else by the reading's own measure (or its
// name, alphabetically).
func (r *reader) orderElement() []*element {
	om := r.a.Order
	if om == nil {
		return nil
	}
	el := &element{name: "sort"}
	var key *links.ColMention
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
	el.add(1, func(p *Plan) {
		if p.Order != nil && p.Limit > 0 {
			return // a ranking already sorts (and cuts)
		}
		if named {
			// The words name a sort key no column matches: sorting by
			// anything else would answer another question; leave the
			// words unused, to be said.
			return
		}
		if x := r.sortKey(p, key, keyAggs, om.Alpha); x != nil {
			p.Order = &Sel{X: x}
			p.Desc = om.Desc
		}
	})
	return []*element{el}
}

// sortKey picks what a plan is sorted by.
func (r *reader) sortKey(p *Plan, key *links.ColMention, aggs []aggRead, alpha bool) sqlexpr.Expr {
	m := r.e.m
	// An aggregate the plan shows ("by the number of loans").
	for _, ag := range aggs {
		for _, s := range p.Selects {
			if SameExpr(m, s.X, ag.x) {
				return s.X
			}
		}
	}
	if key != nil {
		for _, al := range key.Alts {
			x := r.exprOf(al)
			for _, s := range p.Selects {
				if SameExpr(m, s.X, x) || aggregatesOver(s.X, x, m) {
					return s.X
				}
			}
			if !p.Tables[strings.ToLower(al.Table)] {
				continue
			}
			if p.Aggregated || len(p.Groups) > 0 {
				for _, g := range p.Groups {
					if SameExpr(m, g.X, x) {
						return x
					}
				}
				continue
			}
			return x
		}
	}
	if len(aggs) > 0 && p.Aggregated {
		for _, s := range p.Selects {
			if sqlexpr.IsCount(s.X) && sqlexpr.IsCount(aggs[0].x) {
				return s.X
			}
		}
	}
	// Unnamed: the plan's measure, or for "alphabetically" its first text.
	for _, s := range p.Selects {
		isAgg := !sqlexpr.ArithmeticNoCall(s.X)
		if alpha && !isAgg {
			return s.X
		}
		if !alpha && isAgg {
			return s.X
		}
	}
	if !alpha {
		for _, s := range p.Selects {
			if c, ok := sqlexpr.IsColumn(s.X); ok {
				if col := m.Column(c.Table, c.Column); col != nil && col.Kind() == warehouse.KindNumber {
					return s.X
				}
			}
		}
	}
	return nil
}
