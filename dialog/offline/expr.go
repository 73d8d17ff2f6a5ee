package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// A reading is a plan of typed parts — column references, aggregates over
// expressions, calls, comparisons, literals — rendered to SQL once, at the
// end. Whatever needs to know what a reading does (which words it used,
// which table a measure belongs to, whether a part aggregates) asks the
// parts, never the rendered text.

// expr is one typed part of a reading.
type expr interface {
	render(m *schema.Model) string
}

// colRef is table.column.
type colRef struct{ table, column string }

func (c colRef) render(m *schema.Model) string { return m.Col(c.table, c.column) }

// aggExpr is an aggregate: SUM(x), COUNT(*), COUNT(DISTINCT x).
type aggExpr struct {
	fn       string // SUM, AVG, MIN, MAX, COUNT
	distinct bool
	arg      expr // nil for COUNT(*)
}

func (a aggExpr) render(m *schema.Model) string {
	if a.arg == nil {
		return a.fn + "(*)"
	}
	d := ""
	if a.distinct {
		d = "DISTINCT "
	}
	return a.fn + "(" + d + a.arg.render(m) + ")"
}

// countAll is COUNT(*).
var countAll = aggExpr{fn: "COUNT"}

// call is a function of its arguments: YEAR(x), DATEDIFF(a, b).
type call struct {
	fn   string
	args []expr
}

func (c call) render(m *schema.Model) string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.render(m)
	}
	return c.fn + "(" + strings.Join(parts, ", ") + ")"
}

// keyword is a bare word inside a call: the unit of TIMESTAMPDIFF.
type keyword string

func (k keyword) render(*schema.Model) string { return string(k) }

// binary is "l op r": comparisons, arithmetic, AND/OR, LIKE.
type binary struct {
	op   string
	l, r expr
}

func (b binary) render(m *schema.Model) string {
	return b.l.render(m) + " " + b.op + " " + b.r.render(m)
}

// paren is "(x)".
type paren struct{ x expr }

func (p paren) render(m *schema.Model) string { return "(" + p.x.render(m) + ")" }

// prefix is "op x": NOT x.
type prefix struct {
	op string
	x  expr
}

func (p prefix) render(m *schema.Model) string { return p.op + " " + p.x.render(m) }

// isNull is "x IS NULL" or "x IS NOT NULL".
type isNull struct {
	x   expr
	not bool
}

func (n isNull) render(m *schema.Model) string {
	if n.not {
		return n.x.render(m) + " IS NOT NULL"
	}
	return n.x.render(m) + " IS NULL"
}

// between is "x BETWEEN lo AND hi".
type between struct{ x, lo, hi expr }

func (b between) render(m *schema.Model) string {
	return b.x.render(m) + " BETWEEN " + b.lo.render(m) + " AND " + b.hi.render(m)
}

// caseWhen is "CASE WHEN cond THEN then END".
type caseWhen struct{ cond, then expr }

func (c caseWhen) render(m *schema.Model) string {
	return "CASE WHEN " + c.cond.render(m) + " THEN " + c.then.render(m) + " END"
}

// scalarSub is "(SELECT x FROM table)": one value of a whole table.
type scalarSub struct {
	x     expr
	table string
}

func (s scalarSub) render(m *schema.Model) string {
	return "(SELECT " + s.x.render(m) + " FROM " + m.Ident(s.table) + ")"
}

// inList is "x IN (v1, v2…)".
type inList struct {
	x    expr
	vals []expr
}

func (l inList) render(m *schema.Model) string {
	parts := make([]string, len(l.vals))
	for i, v := range l.vals {
		parts[i] = v.render(m)
	}
	return l.x.render(m) + " IN (" + strings.Join(parts, ", ") + ")"
}

// exists is "[NOT ]EXISTS (SELECT 1 …)": whether related rows exist. The
// subquery is written whole; tables are those it reads.
type exists struct {
	not    bool
	sub    string
	tables []string
	// values are the stored values the related rows are compared with;
	// cols the columns the subquery reads.
	values []string
	cols   []colRef
}

func (x exists) render(*schema.Model) string {
	if x.not {
		return "NOT EXISTS (" + x.sub + ")"
	}
	return "EXISTS (" + x.sub + ")"
}

// strLit is a string literal; it renders quoted.
type strLit string

func (s strLit) render(*schema.Model) string { return quote(string(s)) }

// numLit is a number as written.
type numLit string

func (n numLit) render(*schema.Model) string { return string(n) }

// sqlText is SQL a recogniser writes whole because its structure is not
// a reading's (a correlated subquery, an EXISTS): it keeps the columns it
// reads so that what reads the plan still sees them.
type sqlText struct {
	text string
	cols []colRef
}

func (s sqlText) render(*schema.Model) string { return s.text }

// subExprs are an expression's direct parts.
func subExprs(x expr) []expr {
	switch v := x.(type) {
	case aggExpr:
		if v.arg != nil {
			return []expr{v.arg}
		}
	case call:
		return v.args
	case binary:
		return []expr{v.l, v.r}
	case paren:
		return []expr{v.x}
	case prefix:
		return []expr{v.x}
	case isNull:
		return []expr{v.x}
	case between:
		return []expr{v.x, v.lo, v.hi}
	case caseWhen:
		return []expr{v.cond, v.then}
	case scalarSub:
		return []expr{v.x}
	case inList:
		return append([]expr{v.x}, v.vals...)
	}
	return nil
}

// walk visits x and its parts, depth first; f returns false to skip a
// part's own parts.
func walk(x expr, f func(expr) bool) {
	if x == nil || !f(x) {
		return
	}
	for _, s := range subExprs(x) {
		walk(s, f)
	}
}

// columnsOf are the columns an expression reads, in order, repeated as
// they appear.
func columnsOf(x expr) []colRef {
	var out []colRef
	walk(x, func(e expr) bool {
		switch v := e.(type) {
		case colRef:
			out = append(out, v)
		case sqlText:
			out = append(out, v.cols...)
		}
		return true
	})
	return out
}

// isColumn says whether x is a plain column, and which.
func isColumn(x expr) (colRef, bool) {
	c, ok := x.(colRef)
	return c, ok
}

// arithmetic says whether x is a column, or columns and numbers combined
// by operators (price - cost): a value of each row, with no call.
func arithmetic(x expr) bool {
	switch v := x.(type) {
	case colRef, numLit, strLit:
		return true
	case binary:
		return arithmetic(v.l) && arithmetic(v.r)
	}
	return false
}

// aggregates says whether x computes an aggregate: an aggregate itself, or
// an expression over aggregates (a ratio of two totals).
func aggregates(x expr) bool {
	found := false
	walk(x, func(e expr) bool {
		if _, ok := e.(aggExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

// aggOf is x as an aggregate, when it is one at the top.
func aggOf(x expr) (aggExpr, bool) {
	a, ok := x.(aggExpr)
	return a, ok
}

// literals are the literals an expression compares with or holds.
func literals(x expr) []expr {
	var out []expr
	walk(x, func(e expr) bool {
		switch e.(type) {
		case strLit, numLit:
			out = append(out, e)
		}
		return true
	})
	return out
}

// sameExpr says whether two expressions are the same part, compared as the
// SQL they render to (quoting is the model's, so it is the same for both).
func sameExpr(m *schema.Model, a, b expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.render(m) == b.render(m)
}

// col is a column reference.
func col(table, column string) colRef { return colRef{table: table, column: column} }

// fn1 is a call of fn on args.
func fn1(fn string, args ...expr) call { return call{fn: fn, args: args} }

// aggOver is fn(x).
func aggOver(fn string, x expr) aggExpr { return aggExpr{fn: fn, arg: x} }

// cmp is "l op r".
func cmp(l expr, op string, r expr) binary { return binary{op: op, l: l, r: r} }

// isCount says whether x is a COUNT.
func isCount(x expr) bool {
	a, ok := aggOf(x)
	return ok && a.fn == "COUNT"
}

// aggregatesOver says whether x applies a function or an aggregate to
// exactly y somewhere: SUM(y), YEAR(y).
func aggregatesOver(x, y expr, m *schema.Model) bool {
	found := false
	walk(x, func(e expr) bool {
		switch v := e.(type) {
		case aggExpr:
			found = found || v.arg != nil && !v.distinct && sameExpr(m, v.arg, y)
		case call:
			found = found || len(v.args) == 1 && sameExpr(m, v.args[0], y)
		}
		return !found
	})
	return found
}

// arithmeticNoCall says whether x is written without a call or an
// aggregate: what reads as a value of each row rather than a measure.
func arithmeticNoCall(x expr) bool {
	ok := true
	walk(x, func(e expr) bool {
		switch e.(type) {
		case aggExpr, call, paren, scalarSub, caseWhen, sqlText:
			ok = false
		}
		return ok
	})
	return ok
}

// outerColumns are the columns x reads in the reading's own FROM, not in
// subqueries of its own (scalar subqueries, EXISTS, written SQL).
func outerColumns(x expr) []colRef {
	var out []colRef
	walk(x, func(v expr) bool {
		switch v := v.(type) {
		case colRef:
			out = append(out, v)
		case scalarSub, exists, sqlText:
			return false
		}
		return true
	})
	return out
}

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

// quote makes a SQL string literal.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func singularOf(w string) string { return sqlshape.Singular(w) }
