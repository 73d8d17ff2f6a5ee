package offline

import (
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
	orderItem   = sqlexpr.Order
	window      = sqlexpr.Over
	tuple       = sqlexpr.Tuple
)

// The schema's model quotes its names for rendering.
var _ sqlexpr.Namer = (*schema.Model)(nil)

// countAll is COUNT(*).
var countAll = sqlexpr.CountAll

// What the engine asks of parts, and how it builds them.
var (
	subExprs   = sqlexpr.Parts
	walk       = sqlexpr.Walk
	columnsOf  = sqlexpr.Columns
	isColumn   = sqlexpr.IsColumn
	arithmetic = sqlexpr.Arithmetic
	aggregates = sqlexpr.Aggregates
	aggOf      = sqlexpr.AggOf
	literals   = sqlexpr.Literals
	and        = sqlexpr.And
	col        = sqlexpr.Col
	fn1        = sqlexpr.Fn
	aggOver    = sqlexpr.AggOver
	cmp        = sqlexpr.Cmp
)

// Computed measures: a word that names no column but a quantity the schema
// has the parts of. "age" is the years since a birth date; "duration",
// "lifespan", "length of stay" the difference between a start and an end
// column of one table (start/end, departure/arrival, opened/closed…).
// They are offered as columns of their own, so every shape that takes a
// measure (averages, totals, rankings, sorting) takes them too.

// costWords and priceWords find the two sides of a margin in column names.
