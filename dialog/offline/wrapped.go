package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/plan"
)

// Measures over the groups of a result: "what share of revenue comes from
// each region" (each group's part of the total, in percent) and
// "month-over-month revenue in 2024" (each period's change from the one
// before). Both are computed over the grouped result, as a query around
// the grouped one, so they combine with every shape that groups.

// wrappedAlias names the grouped result in the query around it.
const wrappedAlias = "grouped"

// wrap returns the query around a grouped reading that the question's
// share or change asks for, or the reading unchanged. aliases name the
// inner query's columns, in order.
func (e *Engine) wrap(p *plan.Plan, inner selectQuery, aliases []string) selectQuery {
	if p.Wrap == "" || len(aliases) < 2 {
		return inner
	}
	// The grouped result is a table of its own, written on its lines.
	from := fromList{First: source{Sub: &inner, Alias: wrappedAlias, Lines: true}}
	var cols []expr
	for _, a := range aliases {
		cols = append(cols, col(wrappedAlias, a))
	}
	measure := aliases[len(aliases)-1]
	m := col(wrappedAlias, measure)
	percent := func(x expr) expr { return cmp(x, "*", numLit("100e0")) }
	switch p.Wrap {
	case "share":
		share := cmp(percent(m), "/", window{X: aggOver("SUM", m)})
		return selectQuery{Selects: append(cols, aliased{X: share, Name: "share_of_total_percent"}), From: from}
	case "average":
		alias := "average_" + measure
		if measure == "count" && p.CountOf != nil {
			alias = "average_number_of_" + strings.ToLower(p.CountOf.Name) // "Average number of loans", not "Average count"
		}
		return selectQuery{Selects: []expr{aliased{X: aggOver("AVG", m), Name: alias}}, From: from}
	case "change":
		period := []orderItem{{X: col(wrappedAlias, aliases[0])}}
		prev := window{X: fn1("LAG", m), OrderBy: period}
		change := cmp(m, "-", prev)
		ratio := cmp(percent(paren{X: change}), "/", fn1("NULLIF", prev, numLit("0")))
		return selectQuery{
			Selects: append(cols, aliased{X: change, Name: "change_from_previous"}, aliased{X: ratio, Name: "change_percent"}),
			From:    from,
			OrderBy: period,
		}
	}
	return inner
}
