package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// Measures over the groups of a result: "what share of revenue comes from
// each region" (each group's part of the total, in percent) and
// "month-over-month revenue in 2024" (each period's change from the one
// before). Both are computed over the grouped result, as a query around
// the grouped one, so they combine with every shape that groups.

// wrapFor decides whether a reading takes the question's share or change:
// a share needs groups and one aggregate; a change a time period first.
func (r *reader) wrapFor(p *Plan) string {
	aggregates := 0
	for _, s := range p.Selects {
		if isAggregateItem(s.X) {
			aggregates++
		}
	}
	if p.Limit > 0 {
		return "" // a share of the top few is no share of the total
	}
	if r.averageOfTotals(p, aggregates) {
		return "average"
	}
	switch {
	case r.a.Share != nil && p.Aggregated && len(p.Groups) > 0 && aggregates == 1 && !isAggregateItem(p.Selects[0].X):
		return "share"
	case r.a.Change != nil && p.Aggregated && len(p.Groups) > 0 && aggregates == 1 && len(p.Selects) > 0 && p.Selects[0].Alias == r.a.Change.Unit:
		return "change"
	}
	return ""
}

// isAggregateItem says whether a select item is an aggregate, or
// arithmetic that starts with one (a ratio of two totals).
func isAggregateItem(x sqlexpr.Expr) bool {
	for {
		switch v := x.(type) {
		case sqlexpr.Agg:
			return true
		case sqlexpr.Binary:
			x = v.L
		default:
			return false
		}
	}
}

// averageOfTotals says whether a reading that totals or counts per thing
// asks for the average of those totals: "the average number of units per
// order", "how many orders per customer on average" — one figure over
// the things, not a list. An average of an attribute per group ("the
// average price per category") is a list and stays one. The per-thing
// total replaces the average inside.
func (r *reader) averageOfTotals(p *Plan, aggregates int) bool {
	a := r.a
	if a.Agg != "AVG" || !a.Count && !pluralMeasure(a) || aggregates != 1 || len(p.Groups) == 0 || p.Wrap != "" || p.Order != nil {
		return false
	}
	// Grouped by one thing: its key, label, or a column naming its rows.
	things := map[string]bool{}
	for _, g := range p.Groups {
		c, ok := sqlexpr.IsColumn(g.X)
		if !ok {
			return false
		}
		t := r.e.m.ByName[strings.ToLower(c.Table)]
		if t == nil {
			return false
		}
		col := t.Def.Column(c.Column)
		switch {
		case t.Key != nil && strings.EqualFold(t.Key.Name, c.Column), t.Label != nil && strings.EqualFold(t.Label.Name, c.Column):
			things[strings.ToLower(t.Name)] = true
		case col != nil && r.e.m.JoinCols[strings.ToLower(c.Table+"."+c.Column)] && r.e.m.IsKeyish(t.Def, col):
			things["ref:"+strings.ToLower(c.Table+"."+c.Column)] = true
		default:
			return false
		}
	}
	if len(things) != 1 {
		return false
	}
	// An average of a stored number per thing is a per-thing total only
	// when the rows are the thing's parts ("units per order": an order's
	// lines); "loans per branch" averages each branch's loans.
	if !sqlexpr.IsCount(p.Selects[len(p.Selects)-1].X) {
		var thing string
		for k := range things {
			thing = strings.TrimPrefix(k, "ref:")
			if i := strings.IndexByte(thing, '.'); i >= 0 {
				thing = r.refTarget(thing)
			}
		}
		parts := false
		for t := range p.aggregatedTables() {
			pt, gt := r.e.m.ByName[t], r.e.m.ByName[thing]
			parts = parts || pt != nil && gt != nil && pt != gt && r.e.DetailOf(pt, gt)
		}
		if !parts {
			return false
		}
	}
	for i, s := range p.Selects {
		if ag, ok := sqlexpr.AggOf(s.X); ok && ag.Fn == "AVG" && ag.Arg != nil {
			p.Selects[i] = Sel{X: sqlexpr.AggOver("SUM", ag.Arg), Alias: "total"}
		}
	}
	return true
}

// pluralMeasure says whether the averaged measure is named by a plural
// noun ("units", "items"): a quantity that adds up per thing.
func pluralMeasure(a *links.Analysis) bool {
	for _, cm := range a.Columns {
		if cm.At > a.AggAt && cm.Clause == 0 {
			w := strings.ToLower(cm.Phrase)
			return links.SingularOf(w) != w
		}
	}
	return false
}

// refTarget is the lower-case table a referring column ("order_lines.order_id")
// points at, or "".
func (r *reader) refTarget(tc string) string {
	table, column, _ := strings.Cut(tc, ".")
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, table) && strings.EqualFold(j.FromColumn, column) {
			return strings.ToLower(j.ToTable)
		}
	}
	return ""
}
