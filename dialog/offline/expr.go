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

// exists is "[NOT ]EXISTS (SELECT 1 …)": whether related rows exist;
// tables are those the subquery reads.
type exists struct {
	not    bool
	sub    selectQuery
	tables []string
	// values are the stored values the related rows are compared with;
	// cols the columns the subquery reads.
	values []string
	cols   []colRef
}

func (x exists) render(m *schema.Model) string {
	if x.not {
		return "NOT EXISTS (" + x.sub.render(m) + ")"
	}
	return "EXISTS (" + x.sub.render(m) + ")"
}

// strLit is a string literal; it renders quoted.
type strLit string

func (s strLit) render(*schema.Model) string { return quote(string(s)) }

// numLit is a number as written.
type numLit string

func (n numLit) render(*schema.Model) string { return string(n) }

// unqualified is a column named without its table, inside a subquery
// over that one table.
type unqualified string

func (u unqualified) render(m *schema.Model) string { return m.Ident(string(u)) }

// aliased is "x AS name": a column of a subquery named for the query
// around it.
type aliased struct {
	x    expr
	name string
}

func (a aliased) render(m *schema.Model) string { return a.x.render(m) + " AS " + m.Ident(a.name) }

// subquery is "(SELECT …)", a value computed per row of the reading from
// other rows; cols are the reading's own columns it reads.
type subquery struct {
	q    selectQuery
	cols []colRef
}

func (s subquery) render(m *schema.Model) string { return "(" + s.q.render(m) + ")" }

// selectQuery is a SELECT inside another query: the rows of an EXISTS, a
// subquery's value, a grouped table joined. Conditions are ANDed.
type selectQuery struct {
	distinct bool
	selects  []expr
	from     fromList
	where    []expr
	groupBy  []expr
	having   []expr
}

func (q selectQuery) render(m *schema.Model) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(joinRendered(m, q.selects, ", "))
	b.WriteString(" FROM " + q.from.render(m, " "))
	if len(q.where) > 0 {
		b.WriteString(" WHERE " + joinRendered(m, q.where, " AND "))
	}
	if len(q.groupBy) > 0 {
		b.WriteString(" GROUP BY " + joinRendered(m, q.groupBy, ", "))
	}
	if len(q.having) > 0 {
		b.WriteString(" HAVING " + joinRendered(m, q.having, " AND "))
	}
	return b.String()
}

// joinRendered renders xs separated by sep.
func joinRendered(m *schema.Model, xs []expr, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.render(m)
	}
	return strings.Join(parts, sep)
}

// fromList is a FROM clause: the first source and the joins after it.
type fromList struct {
	first source
	joins []joinClause
}

// render writes the sources without the FROM keyword, each join after
// sep.
func (f fromList) render(m *schema.Model, sep string) string {
	var b strings.Builder
	b.WriteString(f.first.render(m))
	for _, j := range f.joins {
		b.WriteString(sep + j.render(m))
	}
	return b.String()
}

// source is a table by name, or a subquery under an alias.
type source struct {
	table string
	sub   *selectQuery
	alias string
}

func (s source) render(m *schema.Model) string {
	if s.sub != nil {
		return "(" + s.sub.render(m) + ") AS " + m.Ident(s.alias)
	}
	if s.alias != "" {
		return m.Ident(s.table) + " AS " + m.Ident(s.alias)
	}
	return m.Ident(s.table)
}

// joinClause is "[LEFT ]JOIN source ON cond".
type joinClause struct {
	left bool
	to   source
	on   expr
}

func (j joinClause) render(m *schema.Model) string {
	kw := "JOIN "
	if j.left {
		kw = "LEFT JOIN "
	}
	return kw + j.to.render(m) + " ON " + j.on.render(m)
}

// and is the conjunction of conds, nil for none.
func and(conds ...expr) expr {
	var out expr
	for _, c := range conds {
		switch {
		case c == nil:
		case out == nil:
			out = c
		default:
			out = binary{op: "AND", l: out, r: c}
		}
	}
	return out
}

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
		case subquery:
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

// sameExpr says whether two expressions are the same part: the same
// tree of parts, compared part by part.
func sameExpr(m *schema.Model, a, b expr) bool {
	return equalExpr(a, b)
}

// equalExpr compares two trees part by part; a list left empty is the same
// as no list, as both render alike.
func equalExpr(a, b expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case colRef:
		y, ok := b.(colRef)
		return ok && x == y
	case aggExpr:
		y, ok := b.(aggExpr)
		return ok && x.fn == y.fn && x.distinct == y.distinct && equalExpr(x.arg, y.arg)
	case call:
		y, ok := b.(call)
		return ok && x.fn == y.fn && equalExprs(x.args, y.args)
	case keyword:
		y, ok := b.(keyword)
		return ok && x == y
	case binary:
		y, ok := b.(binary)
		return ok && x.op == y.op && equalExpr(x.l, y.l) && equalExpr(x.r, y.r)
	case paren:
		y, ok := b.(paren)
		return ok && equalExpr(x.x, y.x)
	case prefix:
		y, ok := b.(prefix)
		return ok && x.op == y.op && equalExpr(x.x, y.x)
	case isNull:
		y, ok := b.(isNull)
		return ok && x.not == y.not && equalExpr(x.x, y.x)
	case between:
		y, ok := b.(between)
		return ok && equalExpr(x.x, y.x) && equalExpr(x.lo, y.lo) && equalExpr(x.hi, y.hi)
	case caseWhen:
		y, ok := b.(caseWhen)
		return ok && equalExpr(x.cond, y.cond) && equalExpr(x.then, y.then)
	case scalarSub:
		y, ok := b.(scalarSub)
		return ok && x.table == y.table && equalExpr(x.x, y.x)
	case inList:
		y, ok := b.(inList)
		return ok && equalExpr(x.x, y.x) && equalExprs(x.vals, y.vals)
	case exists:
		y, ok := b.(exists)
		return ok && x.not == y.not && equalQuery(x.sub, y.sub)
	case strLit:
		y, ok := b.(strLit)
		return ok && x == y
	case numLit:
		y, ok := b.(numLit)
		return ok && x == y
	case unqualified:
		y, ok := b.(unqualified)
		return ok && x == y
	case aliased:
		y, ok := b.(aliased)
		return ok && x.name == y.name && equalExpr(x.x, y.x)
	case subquery:
		y, ok := b.(subquery)
		return ok && equalQuery(x.q, y.q)
	}
	return false
}

func equalExprs(a, b []expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalExpr(a[i], b[i]) {
			return false
		}
	}
	return true
}

// equalQuery compares two subqueries part by part.
func equalQuery(a, b selectQuery) bool {
	return a.distinct == b.distinct && equalExprs(a.selects, b.selects) && equalFrom(a.from, b.from) &&
		equalExprs(a.where, b.where) && equalExprs(a.groupBy, b.groupBy) && equalExprs(a.having, b.having)
}

func equalFrom(a, b fromList) bool {
	if !equalSource(a.first, b.first) || len(a.joins) != len(b.joins) {
		return false
	}
	for i, j := range a.joins {
		k := b.joins[i]
		if j.left != k.left || !equalSource(j.to, k.to) || !equalExpr(j.on, k.on) {
			return false
		}
	}
	return true
}

func equalSource(a, b source) bool {
	if a.table != b.table || a.alias != b.alias || (a.sub == nil) != (b.sub == nil) {
		return false
	}
	return a.sub == nil || equalQuery(*a.sub, *b.sub)
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
		case aggExpr, call, paren, scalarSub, caseWhen, subquery:
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
		case scalarSub, exists, subquery:
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

// isConj says whether x is a conjunction of conditions.
func isConj(x expr) bool {
	b, ok := x.(binary)
	return ok && b.op == "AND"
}

// quote makes a SQL string literal.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func singularOf(w string) string { return sqlshape.Singular(w) }
