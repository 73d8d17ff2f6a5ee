package offline

import (
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"
)

// Measures over the groups of a result: "what share of revenue comes from
// each region" (each group's part of the total, in percent) and
// "month-over-month revenue in 2024" (each period's change from the one
// before). Both are computed over the grouped result, as a query around
// the grouped one, so they combine with every shape that groups.

// wrap returns the query around a grouped reading that the question's
// share or change asks for, or sql unchanged. aliases name the inner
// query's columns, in order.
func (e *Engine) wrap(p *plan, sql string, aliases []string) string {
	if p.wrap == "" || len(aliases) < 2 {
		return sql
	}
	measure := aliases[len(aliases)-1]
	inner := "(\n" + sql + "\n) AS grouped"
	var cols []string
	for _, a := range aliases {
		cols = append(cols, "grouped."+e.m.Ident(a))
	}
	m := "grouped." + e.m.Ident(measure)
	switch p.wrap {
	case "share":
		return fmt.Sprintf("SELECT %s, %s * 100e0 / SUM(%s) OVER () AS share_of_total_percent\nFROM %s", strings.Join(cols, ", "), m, m, inner)
	case "average":
		alias := "average_" + measure
		if measure == "count" && p.countOf != nil {
			alias = "average_number_of_" + strings.ToLower(p.countOf.Name) // "Average number of loans", not "Average count"
		}
		return fmt.Sprintf("SELECT AVG(%s) AS %s\nFROM %s", m, e.m.Ident(alias), inner)
	case "change":
		period := "grouped." + e.m.Ident(aliases[0])
		prev := fmt.Sprintf("LAG(%s) OVER (ORDER BY %s)", m, period)
		return fmt.Sprintf("SELECT %s, %s - %s AS change_from_previous, (%s - %s) * 100e0 / NULLIF(%s, 0) AS change_percent\nFROM %s\nORDER BY %s",
			strings.Join(cols, ", "), m, prev, m, prev, prev, inner, period)
	}
	return sql
}

// wrapFor decides whether a reading takes the question's share or change:
// a share needs groups and one aggregate; a change a time period first.
func (r *reader) wrapFor(p *plan) string {
	aggregates := 0
	for _, s := range p.selects {
		if isAggregateItem(s.x) {
			aggregates++
		}
	}
	if p.limit > 0 {
		return "" // a share of the top few is no share of the total
	}
	if r.averageOfTotals(p, aggregates) {
		return "average"
	}
	switch {
	case r.a.Share != nil && p.aggregated && len(p.groups) > 0 && aggregates == 1 && !isAggregateItem(p.selects[0].x):
		return "share"
	case r.a.Change != nil && p.aggregated && len(p.groups) > 0 && aggregates == 1 && len(p.selects) > 0 && p.selects[0].alias == r.a.Change.Unit:
		return "change"
	}
	return ""
}

// isAggregateItem says whether a select item is an aggregate, or
// arithmetic that starts with one (a ratio of two totals).
func isAggregateItem(x expr) bool {
	for {
		switch v := x.(type) {
		case aggExpr:
			return true
		case binary:
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
func (r *reader) averageOfTotals(p *plan, aggregates int) bool {
	a := r.a
	if a.Agg != "AVG" || !a.Count && !pluralMeasure(a) || aggregates != 1 || len(p.groups) == 0 || p.wrap != "" || p.order != nil {
		return false
	}
	// Grouped by one thing: its key, label, or a column naming its rows.
	things := map[string]bool{}
	for _, g := range p.groups {
		c, ok := isColumn(g.x)
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
	if !isCount(p.selects[len(p.selects)-1].x) {
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
			parts = parts || pt != nil && gt != nil && pt != gt && r.e.detailOf(pt, gt)
		}
		if !parts {
			return false
		}
	}
	for i, s := range p.selects {
		if ag, ok := aggOf(s.x); ok && ag.Fn == "AVG" && ag.Arg != nil {
			p.selects[i] = sel{x: aggOver("SUM", ag.Arg), alias: "total"}
		}
	}
	return true
}

// pluralMeasure says whether the averaged measure is named by a plural
// noun ("units", "items"): a quantity that adds up per thing.
func pluralMeasure(a *read.Analysis) bool {
	for _, cm := range a.Columns {
		if cm.At > a.AggAt && cm.Clause == 0 {
			w := strings.ToLower(cm.Phrase)
			return read.SingularOf(w) != w
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
