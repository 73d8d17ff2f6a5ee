package offline

import "slices"

// Several aggregates of one measure: "the mean, lowest and highest
// weight of vans", "the highest and lowest price". Each shape reads one
// of them; a reading that shows one aggregate of a measure shows the
// list instead, in the question's order.

// aggItem is one aggregate word of a list and where it stands.
type aggItem struct {
	fn string
	at int
}

// findAggList finds two or more aggregate words joined by commas, "and"
// or "or", ending right before the measure's words.
func (a *analysis) findAggList() {
	for i := 0; i < len(a.toks); i++ {
		fn := aggWords[a.word(i)]
		if fn == "" || a.toks[i].Clause != 0 {
			continue
		}
		list := []aggItem{{fn, i}}
		k := i
		for {
			j := k + 1
			for a.word(j) == "and" || a.word(j) == "or" || a.word(j) == "the" {
				j++
			}
			if j == k+1 && a.toks[k].Break != ',' || aggWords[a.word(j)] == "" {
				break
			}
			k = j
			if !slices.ContainsFunc(list, func(it aggItem) bool { return it.fn == aggWords[a.word(k)] }) {
				list = append(list, aggItem{aggWords[a.word(k)], k})
			}
		}
		if len(list) > 1 {
			a.aggList = list
			return
		}
	}
}

// listAggregates makes a reading that shows one aggregate of a measure,
// listed with others in the question, show them all.
func (a *analysis) listAggregates(p *plan) {
	if len(a.aggList) < 2 {
		return
	}
	var x expr
	at := -1
	for i, s := range p.selects {
		ag, ok := s.x.(aggExpr)
		if !ok || ag.Arg == nil || ag.Distinct || !slices.ContainsFunc(a.aggList, func(it aggItem) bool { return it.fn == ag.Fn }) {
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
	for _, it := range a.aggList {
		ag := aggOver(it.fn, x)
		list = append(list, sel{x: ag, alias: measureAlias(ag)})
	}
	p.selects = slices.Concat(p.selects[:at:at], list, p.selects[at+1:])
	p.aggregated = true
	p.extremeValue = true
	p.order, p.limit = nil, 0
}
