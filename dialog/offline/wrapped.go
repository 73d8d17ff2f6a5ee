package offline

import (
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/plan"
)

// Measures over the groups of a result: "what share of revenue comes from
// each region" (each group's part of the total, in percent) and
// "month-over-month revenue in 2024" (each period's change from the one
// before). Both are computed over the grouped result, as a query around
// the grouped one, so they combine with every shape that groups.

// wrap returns the query around a grouped reading that the question's
// share or change asks for, or sql unchanged. aliases name the inner
// query's columns, in order.
func (e *Engine) wrap(p *plan.Plan, sql string, aliases []string) string {
	if p.Wrap == "" || len(aliases) < 2 {
		return sql
	}
	measure := aliases[len(aliases)-1]
	inner := "(\n" + sql + "\n) AS grouped"
	var cols []string
	for _, a := range aliases {
		cols = append(cols, "grouped."+e.m.Ident(a))
	}
	m := "grouped." + e.m.Ident(measure)
	switch p.Wrap {
	case "share":
		return fmt.Sprintf("SELECT %s, %s * 100e0 / SUM(%s) OVER () AS share_of_total_percent\nFROM %s", strings.Join(cols, ", "), m, m, inner)
	case "average":
		alias := "average_" + measure
		if measure == "count" && p.CountOf != nil {
			alias = "average_number_of_" + strings.ToLower(p.CountOf.Name) // "Average number of loans", not "Average count"
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
