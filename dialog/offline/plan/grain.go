package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// What the engine's grain step (package offline, grain.go) asks of a plan:
// the parts that may hold aggregates, and how a measure was split.

// OutputParts are the parts of a plan where aggregates may be: what it
// shows, what it is sorted by, and its group conditions.
func (p *Plan) OutputParts() []sqlexpr.Expr {
	var out []sqlexpr.Expr
	for _, s := range p.Selects {
		out = append(out, s.X)
	}
	if p.Order != nil {
		out = append(out, p.Order.X)
	}
	for _, h := range p.Having {
		out = append(out, h.X)
	}
	return out
}

// DetailOf says whether far's rows are the parts of near's (an order's
// lines, an invoice's items): its name carries near's, or it keeps no
// date while near does (the parts happen when their whole does).
func (e *Builder) DetailOf(far, near *schema.Table) bool {
	nearWord := links.SingularOf(strings.ToLower(schema.NameWord(near.Name)))
	if nearWord == "" {
		nearWord = links.SingularOf(strings.ToLower(near.Name))
	}
	for _, w := range e.m.Cat.NameTerms(far.Name) {
		if links.SingularOf(w) == nearWord {
			return true
		}
	}
	return len(far.Dates) == 0 && len(near.Dates) > 0
}

// AggregateParts are the aggregates of the plan's selects, ordering and
// HAVING, each as a whole expression.
func (p *Plan) AggregateParts() []sqlexpr.Expr {
	var out []sqlexpr.Expr
	add := func(x sqlexpr.Expr) {
		sqlexpr.Walk(x, func(v sqlexpr.Expr) bool {
			if a, ok := v.(sqlexpr.Agg); ok {
				if a.Arg != nil {
					out = append(out, a)
				}
				return false
			}
			return true
		})
	}
	for _, x := range p.OutputParts() {
		add(x)
	}
	return out
}

// Allocation records that a measure of one table was split across the
// rows of another.
type Allocation struct {
	Measured, By string
	Weight       *warehouse.Column // nil: equal shares
}
