package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/plan"
)

// join is the JOIN under the name alias, and the condition it needs in
// WHERE, if any.
func join(d plan.DerivedJoin, alias string) (joinClause, expr) {
	sub := d.Sub
	j := joinClause{Left: d.Left, To: source{Sub: &sub, Alias: alias}, On: cmp(col(alias, d.Key), "=", d.Subject)}
	if d.Left {
		return j, isNull{X: col(alias, d.Key)}
	}
	return j, nil
}

// rankedWithoutGroups says whether a plan orders its rows by an aggregate
// but has nothing to aggregate per: plain columns shown, no grouping. The
// server would fold every row into one and show an arbitrary row's
// values beside the total.
func rankedWithoutGroups(p *plan.Plan) bool {
	if len(p.Groups) > 0 || p.Order == nil || !aggregates(p.Order.X) {
		return false
	}
	for _, s := range p.Selects {
		if !aggregates(s.X) {
			return true
		}
	}
	return false
}

// groupShownRows repairs a plan that ranks plain columns by an aggregate
// with nothing grouped: it groups by each shown column's row (its table's
// key) and the column, so the ranking counts per thing shown. Nil when a
// shown column is not a plain column.
func (e *Engine) groupShownRows(p *plan.Plan) *plan.Plan {
	q := p.Clone()
	var added []expr
	add := func(x expr) {
		if !slices.ContainsFunc(added, func(y expr) bool { return plan.SameExpr(e.m, x, y) }) {
			added = append(added, x)
			q.Groups = append(q.Groups, plan.Sel{X: x})
		}
	}
	for _, s := range p.Selects {
		if aggregates(s.X) {
			continue
		}
		c, ok := isColumn(s.X)
		if !ok {
			return nil
		}
		if t := e.m.ByName[strings.ToLower(c.Table)]; t != nil && t.Key != nil {
			add(col(t.Name, t.Key.Name))
		}
		add(c)
	}
	q.Distinct = false
	return q
}
