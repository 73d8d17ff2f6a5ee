package offline

import (
	"slices"

	"github.com/clarify-bot/clarify/dialog/offline/read"
)

// Several aggregates of one measure: "the mean, lowest and highest
// weight of vans", "the highest and lowest price". Each shape reads one
// of them; a reading that shows one aggregate of a measure shows the
// list instead, in the question's order.

// listAggregates makes a reading that shows one aggregate of a measure,
// listed with others in the question, show them all.
func listAggregates(a *read.Analysis, p *plan) {
	if len(a.AggList) < 2 {
		return
	}
	var x expr
	at := -1
	for i, s := range p.selects {
		ag, ok := s.x.(aggExpr)
		if !ok || ag.Arg == nil || ag.Distinct || !slices.ContainsFunc(a.AggList, func(it read.AggItem) bool { return it.Fn == ag.Fn }) {
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
	var list []sel
	for _, it := range a.AggList {
		ag := aggOver(it.Fn, x)
		list = append(list, sel{x: ag, alias: measureAlias(ag)})
	}
	p.selects = slices.Concat(p.selects[:at:at], list, p.selects[at+1:])
	p.aggregated = true
	p.extremeValue = true
	p.order, p.limit = nil, 0
}
