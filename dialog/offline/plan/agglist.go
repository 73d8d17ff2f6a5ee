package plan

import (
	"slices"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// Several aggregates of one measure: "the mean, lowest and highest
// weight of vans", "the highest and lowest price". Each shape reads one
// of them; a reading that shows one aggregate of a measure shows the
// list instead, in the question's order.

// listAggregates makes a reading that shows one aggregate of a measure,
// listed with others in the question, show them all.
func listAggregates(a *links.Analysis, p *Plan) {
	if len(a.AggList) < 2 {
		return
	}
	var x sqlexpr.Expr
	at := -1
	for i, s := range p.Selects {
		ag, ok := s.X.(sqlexpr.Agg)
		if !ok || ag.Arg == nil || ag.Distinct || !slices.ContainsFunc(a.AggList, func(it links.AggItem) bool { return it.Fn == ag.Fn }) {
			continue
		}
		if x != nil {
			return // two already
		}
		x, at = ag.Arg, i
	}
	if x == nil {
		return
	}
	var list []Sel
	for _, it := range a.AggList {
		ag := sqlexpr.AggOver(it.Fn, x)
		list = append(list, Sel{X: ag, Alias: measureAlias(ag)})
	}
	p.Selects = slices.Concat(p.Selects[:at:at], list, p.Selects[at+1:])
	p.Aggregated = true
	p.extremeValue = true
	p.Order, p.Limit = nil, 0
}
