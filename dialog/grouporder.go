package dialog

import (
	"slices"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Grouped results in a useful order. A reading that groups without an
// order of its own ("customers per state", "revenue by region") comes
// back in whatever order the server's grouping left; people read such a
// table for its largest groups, so its rows are shown by their figure,
// largest first, and groups of time (months, years) in time order. The
// rows are the same as the statement's; only their order is chosen, here,
// for every engine and for pages fetched again.

// orderGroups sorts res in place when shape groups without ORDER BY or
// LIMIT: by its first aggregate, descending (NULL last), or by its time
// columns when it groups by time. Ties keep the server's order.
func orderGroups(res *sqlresult.Result, shape *sqlshape.Shape) {
	if res == nil || shape == nil || len(shape.GroupBy) == 0 || len(shape.OrderBy) > 0 || shape.Limit >= 0 ||
		len(shape.Outputs) != len(res.Columns) || len(res.Rows) < 2 {
		return
	}
	figure, times := -1, []int(nil)
	for i, o := range shape.Outputs {
		switch {
		case o.Agg != "":
			if figure < 0 {
				figure = i
			}
		case colfmt.Detect(colfmt.Column{Name: res.Columns[i].Name, Type: res.Columns[i].Type, Expr: o.Expr}).IsTime():
			times = append(times, i)
		}
	}
	switch {
	case len(times) > 0:
		slices.SortStableFunc(res.Rows, func(a, b []any) int {
			for _, i := range times {
				if c := compareCells(a[i], b[i]); c != 0 {
					return c
				}
			}
			return 0
		})
	case figure >= 0:
		slices.SortStableFunc(res.Rows, func(a, b []any) int {
			if a[figure] == nil || b[figure] == nil {
				return compareCells(a[figure], b[figure]) // NULL last
			}
			return compareCells(b[figure], a[figure])
		})
	}
}

// compareCells orders two result cells: numbers by value, text by bytes,
// NULL after everything.
func compareCells(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	x, xok := sqlresult.AsFloat(a)
	y, yok := sqlresult.AsFloat(b)
	if xok && yok {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return compareText(canonicalCell(a), canonicalCell(b))
}

func compareText(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
