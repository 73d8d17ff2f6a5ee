package plan

import (
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// A reading is a plan of typed parts — column references, aggregates over
// expressions, calls, comparisons, literals — rendered to SQL once, at the
// end (package sqlexpr). Whatever needs to know what a reading does (which
// words it used, which table a measure belongs to, whether a part
// aggregates) asks the parts, never the rendered text. The engine names
// the parts by short local names.

// SameExpr says whether two expressions are the same part: the same
// tree of parts, compared part by part.
func SameExpr(m *schema.Model, a, b sqlexpr.Expr) bool {
	return sqlexpr.Equal(a, b)
}

// aggregatesOver says whether x applies a function or an aggregate to
// exactly y somewhere: SUM(y), YEAR(y).
func aggregatesOver(x, y sqlexpr.Expr, m *schema.Model) bool { return sqlexpr.AggregatesOver(x, y) }

// OuterParts are the plan's selects, groupings, ordering and conditions.
func (p *Plan) OuterParts() []sqlexpr.Expr {
	var out []sqlexpr.Expr
	for _, s := range p.Selects {
		out = append(out, s.X)
	}
	for _, g := range p.Groups {
		out = append(out, g.X)
	}
	if p.Order != nil {
		out = append(out, p.Order.X)
	}
	for _, f := range p.Filters {
		out = append(out, f.X)
	}
	for _, h := range p.Having {
		out = append(out, h.X)
	}
	return out
}

// exprOf is a column alternative as a part of a reading: the column, or
// the computed expression.
func (r *reader) exprOf(al links.ColAlt) sqlexpr.Expr { return exprOf(al) }

func exprOf(al links.ColAlt) sqlexpr.Expr {
	if al.X != nil {
		return al.X
	}
	return sqlexpr.Col(al.Table, al.Column)
}
