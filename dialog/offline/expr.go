package offline

import (
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// A reading is a plan of typed parts — column references, aggregates over
// expressions, calls, comparisons, literals — rendered to SQL once, at the
// end (package sqlexpr). Whatever needs to know what a reading does (which
// words it used, which table a measure belongs to, whether a part
// aggregates) asks the parts, never the rendered text. The engine names
// the parts by short local names.

type (
	expr        = sqlexpr.Expr
	colRef      = sqlexpr.ColRef
	aggExpr     = sqlexpr.Agg
	call        = sqlexpr.Call
	keyword     = sqlexpr.Keyword
	binary      = sqlexpr.Binary
	paren       = sqlexpr.Paren
	prefix      = sqlexpr.Prefix
	isNull      = sqlexpr.IsNull
	between     = sqlexpr.Between
	caseWhen    = sqlexpr.CaseWhen
	scalarSub   = sqlexpr.ScalarSub
	inList      = sqlexpr.InList
	exists      = sqlexpr.Exists
	strLit      = sqlexpr.Str
	numLit      = sqlexpr.Num
	unqualified = sqlexpr.Unqualified
	aliased     = sqlexpr.Aliased
	subquery    = sqlexpr.Subquery
	selectQuery = sqlexpr.Select
	fromList    = sqlexpr.From
	source      = sqlexpr.Source
	joinClause  = sqlexpr.Join
)

// The schema's model quotes its names for rendering.
var _ sqlexpr.Namer = (*schema.Model)(nil)

// countAll is COUNT(*).
var countAll = sqlexpr.CountAll

// What the engine asks of parts, and how it builds them.
var (
	subExprs         = sqlexpr.Parts
	walk             = sqlexpr.Walk
	columnsOf        = sqlexpr.Columns
	isColumn         = sqlexpr.IsColumn
	arithmetic       = sqlexpr.Arithmetic
	aggregates       = sqlexpr.Aggregates
	aggOf            = sqlexpr.AggOf
	literals         = sqlexpr.Literals
	isCount          = sqlexpr.IsCount
	arithmeticNoCall = sqlexpr.ArithmeticNoCall
	outerColumns     = sqlexpr.OuterColumns
	isConj           = sqlexpr.IsAnd
	and              = sqlexpr.And
	col              = sqlexpr.Col
	fn1              = sqlexpr.Fn
	aggOver          = sqlexpr.AggOver
	cmp              = sqlexpr.Cmp
)

// sameExpr says whether two expressions are the same part: the same
// tree of parts, compared part by part.
func sameExpr(m *schema.Model, a, b expr) bool {
	return sqlexpr.Equal(a, b)
}

// aggregatesOver says whether x applies a function or an aggregate to
// exactly y somewhere: SUM(y), YEAR(y).
func aggregatesOver(x, y expr, m *schema.Model) bool { return sqlexpr.AggregatesOver(x, y) }

// outerParts are the plan's selects, groupings, ordering and conditions.
func (p *plan) outerParts() []expr {
	var out []expr
	for _, s := range p.selects {
		out = append(out, s.x)
	}
	for _, g := range p.groups {
		out = append(out, g.x)
	}
	if p.order != nil {
		out = append(out, p.order.x)
	}
	for _, f := range p.filters {
		out = append(out, f.x)
	}
	for _, h := range p.having {
		out = append(out, h.x)
	}
	return out
}

// Computed measures: a word that names no column but a quantity the schema
// has the parts of. "age" is the years since a birth date; "duration",
// "lifespan", "length of stay" the difference between a start and an end
// column of one table (start/end, departure/arrival, opened/closed…).
// They are offered as columns of their own, so every shape that takes a
// measure (averages, totals, rankings, sorting) takes them too.

// exprOf is a column alternative as a part of a reading: the column, or
// the computed expression.
func (r *reader) exprOf(al read.ColAlt) expr { return exprOf(al) }

func exprOf(al read.ColAlt) expr {
	if al.X != nil {
		return al.X
	}
	return col(al.Table, al.Column)
}

// costWords and priceWords find the two sides of a margin in column names.
