package embedded

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// foldTimeLiteralsID names the rule in the analyzer's debug output; it is
// past the engine's own rule ids.
const foldTimeLiteralsID analyzer.RuleId = 10_000

// foldTimeLiterals replaces a string literal compared with a date or time
// expression (orders.ordered_at >= '2024-01-01') by the time it stands for.
// The engine converts both sides of such a comparison to DATETIME(6) on
// every row, and converting a string runs time.Parse through a list of
// layouts: that was half the time of every date-filtered scan of the demo.
// The literal is converted exactly as the comparison would convert it, so
// results do not change; a literal that does not convert is left alone for
// the comparison to reject as before.
func foldTimeLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return foldNode(ctx, n)
}

func foldNode(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *plan.Subquery:
			// A subquery's plan is not among the expressions' children.
			q, same, err := foldNode(ctx, e.Query)
			if err != nil || same {
				return e, transform.SameTree, err
			}
			return e.WithQuery(q), transform.NewTree, nil
		case *expression.Between:
			if !types.IsTime(e.Val.Type()) {
				return e, transform.SameTree, nil
			}
			lo, okLo := timeLiteral(ctx, e.Lower)
			hi, okHi := timeLiteral(ctx, e.Upper)
			if !okLo && !okHi {
				return e, transform.SameTree, nil
			}
			return expression.NewBetween(e.Val, lo, hi), transform.NewTree, nil
		case expression.Comparer:
			l, r := e.Left(), e.Right()
			var ok bool
			switch {
			case types.IsTime(l.Type()):
				r, ok = timeLiteral(ctx, r)
			case types.IsTime(r.Type()):
				l, ok = timeLiteral(ctx, l)
			}
			if !ok {
				return e, transform.SameTree, nil
			}
			folded, err := e.WithChildren(l, r)
			if err != nil {
				return e, transform.SameTree, err
			}
			return folded, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// timeLiteral returns e converted to a DATETIME(6) literal when it is a
// string literal that converts, else e and false.
func timeLiteral(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return e, false
	}
	s, ok := lit.Value().(string)
	if !ok {
		return e, false
	}
	v, _, err := types.DatetimeMaxPrecision.Convert(ctx, s)
	if err != nil {
		return e, false
	}
	return expression.NewLiteral(v, types.DatetimeMaxPrecision), true
}
