// Package sqlshape reads the parts of a SELECT that a person can be asked
// about — what it shows, what it measures, how it filters, groups, orders
// and limits, and which tables it joins — in a canonical form, so that
// candidate queries can be compared part by part, and explains a query in
// plain words.
package sqlshape

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Shape is the canonical reading of one query. Expressions are lower-case
// with table aliases resolved to table names: "orders.net_amount",
// "SUM(orders.net_amount)", "COUNT(*)".
type Shape struct {
	Tables []string // base tables read, sorted
	// TopTables are the tables the top-level SELECT reads (not its subqueries), sorted.
	TopTables []string
	// Joins are the column = column conditions, sides sorted, the list
	// sorted.
	Joins    []Join
	Outputs  []Output
	Filters  []Filter
	GroupBy  []string
	OrderBy  []Order
	Limit    int // -1 when absent
	Distinct bool
	// Nested is true when subqueries contributed filters or measures.
	Nested bool
	// SetOp is true for UNION/INTERSECT/EXCEPT; only the first branch is read.
	SetOp bool
	// Over is "share" when the query adds each row's share of the total
	// of its last measure, "change" when it adds the change from the
	// previous row (period), "" otherwise; the rest of the shape is then
	// that of the grouped query inside.
	Over string
	// Subs are the queries nested in this one — subqueries, derived
	// tables, CTEs, the later branches of a set operation — each read on
	// its own, so that readings that differ only inside one can be asked
	// about (their slots carry the Sub's Scope).
	Subs []Sub
	// Columns are every "table.column" the query reads, at any depth,
	// sorted; "table.*" for a table read whole. Names of CTEs and derived
	// tables stand for their own columns.
	Columns []string
	// exprs are the parsed expressions behind the canonical strings of
	// Outputs, Filters, GroupBy and OrderBy, by string (nodes.go); never
	// stored, nil when the Shape was not read from a statement.
	exprs map[string]ast.ExprNode
	// subqueries counts the SELECTs nested in the top one's conditions and
	// list; worded those its filters say in words (counts of related
	// rows, the top row of a related table or of each group).
	subqueries, worded int
}

// Sub is a query nested in another, named by how the outer query uses it:
// "in:orders.customer_id" (the outer column compared with its rows),
// "cmp:cars.weight", "exists", "from:t" (a derived table), "with:recent"
// (a CTE), "union#2" (the second branch), "select" (a value in the select
// list); a second use of the same name gets "#2". A Sub's own subqueries
// are in its Subs.
type Sub struct {
	Scope string
	Shape *Shape
}

// Output is one item of the select list.
type Output struct {
	Expr   string // canonical expression
	Agg    string // "SUM", "COUNT"… when the item is an aggregate, else ""
	Column string // the column inside, "table.column" or "*"
	Alias  string
}

// Filter is one condition of WHERE, HAVING or a join's ON clause that
// compares an expression with literal values.
type Filter struct {
	Expr string // left side: "orders.ship_state", "SUM(orders.net_amount)"
	// Column is the plain column under Expr ("orders.ordered_at" for YEAR(orders.ordered_at)), or "".
	Column string
	// Op is "=", "!=", "<", "<=", ">", ">=", "in", "not in", "like",
	// "not like", "between", "is null", "is not null", "year" (the
	// calendar year of a date column, however written), "count >=" and
	// the other comparisons of "count" (how many rows of Counted each
	// has, Values holding the number), "max"/"min" (the rows of a
	// related table with its largest/smallest Column), "max per"/"min
	// per" (in each group of the Values columns, the rows with the
	// largest/smallest Column), or "expr" for anything else (Expr then
	// holds the whole condition).
	Op     string
	Values []string // canonical literals: strings lower-case, numbers plain
	// Display holds the literals as written, for explanations.
	Display []string
	Having  bool
	Depth   int // 0 at the top level, 1+ inside subqueries
	// Counted is the table whose rows a "count" condition counts; for a
	// count of rows sharing a value, the table of Column.
	Counted string
}

// Order is one ORDER BY item.
type Order struct {
	Expr string
	Desc bool
}

// Resolver finds which of the given tables holds an unqualified column; it
// may return "" when it does not know.
type Resolver func(column string, tables []string) string

// Parse reads statement (which must pass the read-only guard).
func Parse(statement string, resolve Resolver) (*Shape, error) {
	st, err := sqlguard.Check(statement)
	if err != nil {
		return nil, fmt.Errorf("read query shape: %w", err)
	}
	return FromNode(st.Node, resolve), nil
}

// FromNode reads an already parsed statement.
func FromNode(n ast.StmtNode, resolve Resolver) *Shape {
	return read(n, resolve, nil)
}

// read reads a statement or a nested query; parent is the scope of the
// query it is nested in (nil at the top), for correlated columns.
func read(n ast.Node, resolve Resolver, parent *scope) *Shape {
	s := &Shape{Limit: -1}
	rd := &reader{shape: s, resolve: resolve, grouped: map[string]Filter{}, cols: map[string]bool{}, scopes: map[string]int{}}
	switch x := n.(type) {
	case *ast.SelectStmt:
		if inner, over := aroundGrouped(x); inner != nil && parent == nil {
			// A share of the total or a change between periods over a
			// grouped query: the grouped query is what was asked for.
			s.Over = over
			x = inner
		}
		rd.selectIn(x, 0, parent)
	case *ast.SetOprStmt:
		s.SetOp = true
		if x.With != nil {
			rd.ctes(x.With, parent)
		}
		if x.SelectList != nil {
			for i, b := range x.SelectList.Selects {
				if i == 0 {
					if sel, ok := b.(*ast.SelectStmt); ok {
						rd.selectIn(sel, 0, parent)
					}
					continue
				}
				// The later branches are asked about as parts of their own.
				op := "union"
				switch y := b.(type) {
				case *ast.SelectStmt:
					if y.AfterSetOperator != nil {
						op = y.AfterSetOperator.String()
					}
				case *ast.SetOprSelectList:
					if y.AfterSetOperator != nil {
						op = y.AfterSetOperator.String()
					}
				}
				rd.nest(strings.ReplaceAll(strings.ToLower(op), " ", "-")+"#"+itoa(i+1), b, parent)
			}
		}
		if x.Limit != nil {
			s.Limit = limitCount(x.Limit)
		}
	case *ast.SetOprSelectList:
		s.SetOp = true
		for i, b := range x.Selects {
			if i == 0 {
				if sel, ok := b.(*ast.SelectStmt); ok {
					rd.selectIn(sel, 0, parent)
				}
				continue
			}
			rd.nest("branch#"+itoa(i+1), b, parent)
		}
	}
	s.Tables = dedupSorted(s.Tables)
	s.TopTables = dedupSorted(s.TopTables)
	groupConditions(s, rd)
	s.Joins = dedupSortedJoins(s.Joins)
	mergeYearRanges(s)
	for c := range rd.cols {
		s.Columns = append(s.Columns, c)
	}
	sort.Strings(s.Columns)
	return s
}

type reader struct {
	shape   *Shape
	resolve Resolver
	// grouped are the joined subqueries that group related rows with a
	// count condition, by alias, until the join says whose rows they are.
	grouped map[string]Filter
	// cols are the columns read so far (Shape.Columns).
	cols map[string]bool
	// scopes counts the uses of each Sub name.
	scopes map[string]int
}

// nest reads a query nested in this one's top level as a Sub.
func (r *reader) nest(name string, n ast.Node, parent *scope) {
	if sq, ok := n.(*ast.SubqueryExpr); ok {
		n = sq.Query
	}
	name = scopeName(name)
	r.scopes[name]++
	if c := r.scopes[name]; c > 1 {
		name += "#" + itoa(c)
	}
	sub := read(n, r.resolve, parent)
	r.shape.Subs = append(r.shape.Subs, Sub{Scope: name, Shape: sub})
	for _, c := range sub.Columns {
		r.cols[c] = true
	}
}

// ctes reads the common table expressions of a WITH clause as Subs.
func (r *reader) ctes(w *ast.WithClause, parent *scope) {
	for _, c := range w.CTEs {
		if c.Query != nil && c.Query.Query != nil {
			r.nest("with:"+c.Name.L, c.Query.Query, parent)
		}
	}
}

// condScope names the subqueries of one condition by what the outer
// query compares with them.
func (r *reader) condScope(e ast.ExprNode, sc *scope, having bool) string {
	prefix := ""
	if having {
		prefix = "having-"
	}
	e = unparen(e)
	if u, ok := e.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Not {
		prefix += "not-"
		e = unparen(u.V)
	}
	switch x := e.(type) {
	case *ast.PatternInExpr:
		if x.Sel != nil {
			if x.Not {
				prefix += "not-"
			}
			return prefix + "in:" + r.canon(x.Expr, sc)
		}
	case *ast.ExistsSubqueryExpr:
		if x.Not {
			prefix += "not-"
		}
		return prefix + "exists"
	case *ast.BinaryOperationExpr:
		if _, ok := unparen(x.R).(*ast.SubqueryExpr); ok {
			if _, ok := unparen(x.L).(*ast.SubqueryExpr); !ok {
				return prefix + "cmp:" + r.canon(x.L, sc)
			}
		}
		if _, ok := unparen(x.L).(*ast.SubqueryExpr); ok {
			return prefix + "cmp:" + r.canon(x.R, sc)
		}
	}
	return prefix + "cond"
}

// scope maps aliases and names (lower-case) to table names for one SELECT.
type scope struct {
	aliases map[string]string
	tables  []string
	parent  *scope
}

func (sc *scope) table(q string) string {
	for s := sc; s != nil; s = s.parent {
		if t, ok := s.aliases[strings.ToLower(q)]; ok {
			return t
		}
	}
	return strings.ToLower(q)
}

func (r *reader) selectIn(sel *ast.SelectStmt, depth int, parent *scope) {
	if depth == 1 {
		r.shape.subqueries++
	}
	sc := &scope{aliases: map[string]string{}, parent: parent}
	if depth == 0 && sel.With != nil {
		r.ctes(sel.With, parent)
	}
	if sel.From != nil && sel.From.TableRefs != nil {
		r.from(sel.From.TableRefs, sc, depth)
	}
	top := depth == 0
	if top {
		r.shape.Distinct = sel.Distinct
		if sel.Fields != nil {
			for _, f := range sel.Fields.Fields {
				if f.WildCard != nil {
					col := "*"
					if f.WildCard.Table.L != "" {
						col = sc.table(f.WildCard.Table.O) + ".*"
						r.cols[col] = true
					} else {
						for _, t := range sc.tables {
							r.cols[t+".*"] = true
						}
					}
					r.shape.Outputs = append(r.shape.Outputs, Output{Expr: col, Column: col})
					continue
				}
				o := Output{Expr: r.expr(f.Expr, sc), Alias: strings.ToLower(f.AsName.O)}
				if agg, ok := f.Expr.(*ast.AggregateFuncExpr); ok {
					o.Agg = strings.ToUpper(agg.F)
					if len(agg.Args) == 1 {
						o.Column = r.plainColumn(agg.Args[0], sc)
					}
					if o.Column == "" {
						o.Column = "*"
					}
				} else {
					o.Column = r.plainColumn(f.Expr, sc)
				}
				r.shape.Outputs = append(r.shape.Outputs, o)
			}
		}
		if sel.GroupBy != nil {
			for _, it := range sel.GroupBy.Items {
				r.shape.GroupBy = append(r.shape.GroupBy, r.byItem(it.Expr, sel, sc))
			}
		}
		if sel.OrderBy != nil {
			for _, it := range sel.OrderBy.Items {
				if nullsOrdering(it.Expr) {
					// "NULLs last" is how rows sort, not what they sort by.
					r.canon(it.Expr, sc)
					continue
				}
				r.shape.OrderBy = append(r.shape.OrderBy, Order{Expr: r.byItem(it.Expr, sel, sc), Desc: it.Desc})
			}
		}
		if sel.Limit != nil {
			r.shape.Limit = limitCount(sel.Limit)
		}
	} else {
		r.shape.Nested = true
	}
	if sel.Where != nil {
		r.conditions(sel.Where, sc, depth, false)
	}
	if sel.Having != nil && sel.Having.Expr != nil {
		r.conditions(sel.Having.Expr, sc, depth, true)
	}
	// Subqueries in the select list contribute their filters.
	if sel.Fields != nil {
		for _, f := range sel.Fields.Fields {
			if f.Expr != nil {
				name := "select"
				if f.AsName.L != "" {
					name += ":" + f.AsName.L
				}
				r.subqueries(f.Expr, sc, depth, name)
			}
		}
	}
	// Columns only grouped or ordered by are read too.
	if depth > 0 {
		if sel.GroupBy != nil {
			for _, it := range sel.GroupBy.Items {
				r.canon(it.Expr, sc)
			}
		}
		if sel.OrderBy != nil {
			for _, it := range sel.OrderBy.Items {
				r.canon(it.Expr, sc)
			}
		}
	}
}

func (r *reader) from(n ast.ResultSetNode, sc *scope, depth int) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Left != nil {
			r.from(x.Left, sc, depth)
		}
		if x.Right != nil {
			r.from(x.Right, sc, depth)
		}
		if x.On != nil && x.On.Expr != nil {
			r.conditions(x.On.Expr, sc, depth, false)
		}
	case *ast.TableSource:
		switch src := x.Source.(type) {
		case *ast.TableName:
			name := strings.ToLower(src.Name.O)
			sc.aliases[name] = name
			if x.AsName.L != "" {
				sc.aliases[x.AsName.L] = name
			}
			sc.tables = append(sc.tables, name)
			r.shape.Tables = append(r.shape.Tables, name)
			if depth == 0 {
				r.shape.TopTables = append(r.shape.TopTables, name)
			}
		case *ast.SelectStmt:
			r.selectIn(src, depth+1, sc)
			if x.AsName.L != "" {
				sc.aliases[x.AsName.L] = x.AsName.L
				if depth == 0 {
					r.groupedTable(src, x.AsName.L, sc)
				}
			}
			if depth == 0 {
				r.nest("from:"+x.AsName.L, src, sc.parent)
			}
		case *ast.SetOprStmt:
			r.shape.Nested = true
			if x.AsName.L != "" {
				sc.aliases[x.AsName.L] = x.AsName.L
			}
			if depth == 0 {
				r.nest("from:"+x.AsName.L, src, sc.parent)
			}
		default:
			r.from(x.Source, sc, depth)
		}
	}
}

// nullsOrdering recognises an ORDER BY key that only puts NULLs first or
// last: "x IS NULL", "ISNULL(x)", "CASE WHEN x IS NULL THEN 1 ELSE 0 END".
func nullsOrdering(e ast.ExprNode) bool {
	switch x := unparen(e).(type) {
	case *ast.IsNullExpr:
		return true
	case *ast.FuncCallExpr:
		return x.FnName.L == "isnull"
	case *ast.CaseExpr:
		if x.Value != nil || len(x.WhenClauses) != 1 || x.ElseClause == nil {
			return false
		}
		_, isNull := unparen(x.WhenClauses[0].Expr).(*ast.IsNullExpr)
		_, lit1 := literal(unparen(x.WhenClauses[0].Result))
		_, lit2 := literal(unparen(x.ElseClause))
		return isNull && lit1 && lit2
	}
	return false
}

// byItem resolves ORDER BY / GROUP BY items that name a select alias or a
// position to the select expression they stand for.
func (r *reader) byItem(e ast.ExprNode, sel *ast.SelectStmt, sc *scope) string {
	if sel.Fields != nil {
		switch x := e.(type) {
		case *ast.PositionExpr:
			if x.N >= 1 && x.N <= len(sel.Fields.Fields) && sel.Fields.Fields[x.N-1].Expr != nil {
				return r.expr(sel.Fields.Fields[x.N-1].Expr, sc)
			}
		case *ast.ColumnNameExpr:
			if x.Name.Table.L == "" {
				for _, f := range sel.Fields.Fields {
					if f.AsName.L != "" && f.AsName.L == x.Name.Name.L && f.Expr != nil {
						return r.expr(f.Expr, sc)
					}
				}
			}
		}
	}
	return r.expr(e, sc)
}

func limitCount(l *ast.Limit) int {
	if v, ok := l.Count.(*driver.ValueExpr); ok {
		if f, ok := number(v.GetValue()); ok {
			return int(f)
		}
	}
	return -1
}

// conditions splits a condition on AND and records each conjunct.
func (r *reader) conditions(e ast.ExprNode, sc *scope, depth int, having bool) {
	e = unparen(e)
	if b, ok := e.(*ast.BinaryOperationExpr); ok && b.Op == opcode.LogicAnd {
		r.conditions(b.L, sc, depth, having)
		r.conditions(b.R, sc, depth, having)
		return
	}
	r.subqueries(e, sc, depth, r.condScope(e, sc, having))
	if depth == 0 && !having && r.extremum(e, sc) {
		return
	}
	if f, ok := r.filter(e, sc); ok {
		f.Having, f.Depth = having, depth
		if depth == 0 && (f.Counted != "" || strings.HasSuffix(f.Op, " per")) {
			r.shape.worded++
		}
		r.shape.Filters = append(r.shape.Filters, f)
	}
}

// extremum reads "x = (SELECT MAX(x) FROM …)" as what it means — the rows
// with the largest x, ties included — so that it compares equal to
// "ORDER BY x DESC LIMIT 1" part by part.
func (r *reader) extremum(e ast.ExprNode, sc *scope) bool {
	b, ok := e.(*ast.BinaryOperationExpr)
	if !ok || b.Op != opcode.EQ || r.shape.Limit >= 0 || len(r.shape.OrderBy) > 0 {
		return false
	}
	col := r.plainColumn(unparen(b.L), sc)
	sq, ok := unparen(b.R).(*ast.SubqueryExpr)
	if col == "" || !ok {
		return false
	}
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.GroupBy != nil {
		return false
	}
	agg, ok := sel.Fields.Fields[0].Expr.(*ast.AggregateFuncExpr)
	if !ok || len(agg.Args) != 1 {
		return false
	}
	fn := strings.ToUpper(agg.F)
	if fn != "MAX" && fn != "MIN" {
		return false
	}
	inner := &scope{aliases: map[string]string{}, parent: sc}
	if sel.From != nil && sel.From.TableRefs != nil {
		collectTables(sel.From.TableRefs, inner)
	}
	if r.plainColumn(agg.Args[0], inner) != col {
		return false
	}
	if len(inner.tables) < len(r.shape.TopTables) && sel.Where == nil {
		// "the rivers in the largest state": the top row of a related
		// table over all its rows is a condition, not the ranking.
		op := "min"
		if fn == "MAX" {
			op = "max"
		}
		r.shape.Filters = append(r.shape.Filters, Filter{Expr: col, Column: col, Op: op})
		r.shape.worded++
		return true
	}
	r.shape.OrderBy = []Order{{Expr: col, Desc: fn == "MAX"}}
	r.shape.Limit = 1
	return true
}

// collectTables records the table aliases of a FROM clause into sc.
func collectTables(n ast.ResultSetNode, sc *scope) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Left != nil {
			collectTables(x.Left, sc)
		}
		if x.Right != nil {
			collectTables(x.Right, sc)
		}
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok {
			name := strings.ToLower(tn.Name.O)
			sc.aliases[name] = name
			if x.AsName.L != "" {
				sc.aliases[x.AsName.L] = name
			}
			sc.tables = append(sc.tables, name)
		}
	}
}

// subqueries reads the SELECTs nested in an expression; at the top level
// each is also read on its own as a Sub called name.
func (r *reader) subqueries(e ast.ExprNode, sc *scope, depth int, name string) {
	v := &subqueryFinder{}
	e.Accept(v)
	for _, q := range v.found {
		if sel, ok := q.(*ast.SelectStmt); ok {
			r.selectIn(sel, depth+1, sc)
		} else {
			r.shape.Nested = true
		}
		if depth == 0 {
			r.nest(name, q, sc)
		}
	}
}

type subqueryFinder struct{ found []ast.Node }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if sq, ok := n.(*ast.SubqueryExpr); ok {
		switch q := sq.Query.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt:
			v.found = append(v.found, q)
		}
		return n, true
	}
	return n, false
}

func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

var comparison = map[opcode.Op]string{
	opcode.EQ: "=", opcode.NE: "!=", opcode.LT: "<", opcode.LE: "<=", opcode.GT: ">", opcode.GE: ">=", opcode.NullEQ: "=",
}

var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}

func (r *reader) filter(e ast.ExprNode, sc *scope) (Filter, bool) {
	switch x := e.(type) {
	case *ast.BinaryOperationExpr:
		op, ok := comparison[x.Op]
		if !ok {
			break
		}
		l, rr := unparen(x.L), unparen(x.R)
		lv, lLit := literal(l)
		rv, rLit := literal(rr)
		switch {
		case lLit && rLit:
			return Filter{}, false // constant condition (1 = 1)
		case rLit:
			f := r.compare(l, op, rv, sc)
			f.Display = displays(rr)
			return f, true
		case lLit:
			f := r.compare(rr, flipped[op], lv, sc)
			f.Display = displays(l)
			return f, true
		}
		// column = column is a join condition, not a filter.
		if isColumn(l) && isColumn(rr) && op == "=" {
			a, b := r.canon(l, sc), r.canon(rr, sc)
			if b < a {
				a, b = b, a
			}
			r.shape.Joins = append(r.shape.Joins, Join{Left: a, Right: b})
			return Filter{}, false
		}
		// x = (SELECT MAX(…)) and the like: the subquery is read separately.
		if _, ok := rr.(*ast.SubqueryExpr); ok {
			return Filter{Expr: r.expr(l, sc), Column: r.plainColumn(l, sc), Op: op, Values: []string{"(subquery)"}}, true
		}
	case *ast.PatternInExpr:
		if f, ok := r.groupedIn(x, sc); ok {
			return f, true
		}
		if x.Sel != nil {
			op := "in"
			if x.Not {
				op = "not in"
			}
			return Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: op, Values: []string{"(subquery)"}}, true
		}
		var vals, disp []string
		for _, it := range x.List {
			v, d, ok := literalBoth(unparen(it))
			if !ok {
				return r.exprFilter(e, sc), true
			}
			vals = append(vals, v)
			disp = append(disp, d)
		}
		sort.Strings(vals)
		op := "in"
		if x.Not {
			op = "not in"
		}
		if len(vals) == 1 && !x.Not {
			op = "="
		}
		return Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: op, Values: vals, Display: disp}, true
	case *ast.BetweenExpr:
		lo, ok1 := literal(unparen(x.Left))
		hi, ok2 := literal(unparen(x.Right))
		if !ok1 || !ok2 || x.Not {
			return r.exprFilter(e, sc), true
		}
		f := Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: "between", Values: []string{lo, hi}, Display: []string{lo, hi}}
		if y, ok := wholeYear(lo, hi); ok && f.Column != "" && f.Expr == f.Column {
			f.Op, f.Values, f.Display = "year", []string{y}, []string{y}
		}
		return f, true
	case *ast.PatternLikeOrIlikeExpr:
		p, ok := literal(unparen(x.Pattern))
		if !ok {
			return r.exprFilter(e, sc), true
		}
		op := "like"
		if x.Not {
			op = "not like"
		}
		d, _ := displayLiteral(unparen(x.Pattern))
		return Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: op, Values: []string{p}, Display: []string{d}}, true
	case *ast.IsNullExpr:
		op := "is null"
		if x.Not {
			op = "is not null"
		}
		return Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: op}, true
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return Filter{}, false
	}
	return r.exprFilter(e, sc), true
}

func displays(e ast.ExprNode) []string {
	if d, ok := displayLiteral(e); ok {
		return []string{d}
	}
	return nil
}

func (r *reader) exprFilter(e ast.ExprNode, sc *scope) Filter {
	return Filter{Expr: r.expr(e, sc), Op: "expr"}
}

// compare records expr op literal, recognising YEAR(col) = N.
func (r *reader) compare(e ast.ExprNode, op, val string, sc *scope) Filter {
	if fc, ok := e.(*ast.FuncCallExpr); ok && fc.FnName.L == "year" && len(fc.Args) == 1 && op == "=" {
		if col := r.plainColumn(fc.Args[0], sc); col != "" {
			return Filter{Expr: col, Column: col, Op: "year", Values: []string{val}}
		}
	}
	return Filter{Expr: r.expr(e, sc), Column: r.plainColumn(e, sc), Op: op, Values: []string{val}}
}

// mergeYearRanges turns col >= 'Y-01-01' AND col < 'Y+1-01-01' (or <=
// 'Y-12-31') into one "year" filter, so every way of writing "in 2024"
// reads the same.
func mergeYearRanges(s *Shape) {
	for i := 0; i < len(s.Filters); i++ {
		lo := s.Filters[i]
		if lo.Op != ">=" || len(lo.Values) != 1 || lo.Column == "" || lo.Expr != lo.Column {
			continue
		}
		y, ok := yearStart(lo.Values[0])
		if !ok {
			continue
		}
		for j := 0; j < len(s.Filters); j++ {
			hi := s.Filters[j]
			if j == i || hi.Column != lo.Column || hi.Depth != lo.Depth || len(hi.Values) != 1 {
				continue
			}
			if (hi.Op == "<" && hi.Values[0] == strconv.Itoa(y+1)+"-01-01") || (hi.Op == "<=" && hi.Values[0] == strconv.Itoa(y)+"-12-31") {
				yr := strconv.Itoa(y)
				s.Filters[i] = Filter{Expr: lo.Column, Column: lo.Column, Op: "year", Values: []string{yr}, Display: []string{yr}, Depth: lo.Depth, Having: lo.Having}
				s.Filters = append(s.Filters[:j], s.Filters[j+1:]...)
				if j < i {
					i--
				}
				break
			}
		}
	}
}

func yearStart(v string) (int, bool) {
	if len(v) >= 10 && strings.HasSuffix(v[:10], "-01-01") && (len(v) == 10 || strings.TrimLeft(v[10:], " 0:") == "") {
		y, err := strconv.Atoi(v[:4])
		return y, err == nil
	}
	return 0, false
}

func wholeYear(lo, hi string) (string, bool) {
	y, ok := yearStart(lo)
	if !ok || len(hi) < 10 {
		return "", false
	}
	if hi[:10] == strconv.Itoa(y)+"-12-31" {
		return strconv.Itoa(y), true
	}
	return "", false
}

func unparen(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

func isColumn(e ast.ExprNode) bool {
	_, ok := e.(*ast.ColumnNameExpr)
	return ok
}

// literal returns the canonical text of a constant: strings lower-cased
// (the warehouses compare text case-insensitively), numbers plain.
func literal(e ast.ExprNode) (string, bool) {
	v, _, ok := literalBoth(e)
	return v, ok
}

// displayLiteral is the literal as written (case kept).
func displayLiteral(e ast.ExprNode) (string, bool) {
	_, d, ok := literalBoth(e)
	return d, ok
}

func literalBoth(e ast.ExprNode) (canonical, display string, ok bool) {
	switch x := e.(type) {
	case *driver.ValueExpr:
		v := x.GetValue()
		if v == nil {
			return "null", "NULL", true
		}
		if f, ok := number(v); ok {
			return formatNumber(f), formatNumber(f), true
		}
		switch s := v.(type) {
		case string:
			return strings.ToLower(s), s, true
		case []byte:
			return strings.ToLower(string(s)), string(s), true
		}
		return strings.ToLower(fmt.Sprint(v)), fmt.Sprint(v), true
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Minus {
			if s, ok := literal(unparen(x.V)); ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					return formatNumber(-f), formatNumber(-f), true
				}
			}
		}
	}
	return "", "", false
}

// number reads a parsed literal: an integer, a float or a decimal, never a
// string ('12' is text to the parser).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64, uint64, float64:
		return sqlresult.AsFloat(x)
	case float32:
		return float64(x), true
	case fmt.Stringer:
		if _, isString := v.(string); !isString {
			if f, err := strconv.ParseFloat(x.String(), 64); err == nil {
				return f, true
			}
		}
	}
	return 0, false
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// plainColumn is the column under e: the column itself, or the single
// column argument of a function (YEAR(x), LOWER(x)); "" otherwise.
func (r *reader) plainColumn(e ast.ExprNode, sc *scope) string {
	switch x := unparen(e).(type) {
	case *ast.ColumnNameExpr:
		return r.column(x.Name, sc)
	case *ast.FuncCallExpr:
		if len(x.Args) == 1 {
			return r.plainColumn(x.Args[0], sc)
		}
	case *ast.AggregateFuncExpr:
		if len(x.Args) == 1 {
			return r.plainColumn(x.Args[0], sc)
		}
	}
	return ""
}

func (r *reader) column(n *ast.ColumnName, sc *scope) string {
	c := r.resolveColumn(n, sc)
	if strings.Contains(c, ".") {
		r.cols[c] = true
	}
	return c
}

func (r *reader) resolveColumn(n *ast.ColumnName, sc *scope) string {
	col := n.Name.L
	if n.Table.L != "" {
		return sc.table(n.Table.O) + "." + col
	}
	var in []string
	for s := sc; s != nil; s = s.parent {
		in = append(in, s.tables...)
		if len(in) > 0 {
			break
		}
	}
	switch {
	case len(in) == 1:
		return in[0] + "." + col
	case r.resolve != nil:
		if t := r.resolve(col, in); t != "" {
			return strings.ToLower(t) + "." + col
		}
	}
	return col
}

// canon prints an expression canonically.
func (r *reader) canon(e ast.ExprNode, sc *scope) string {
	switch x := unparen(e).(type) {
	case *ast.ColumnNameExpr:
		return r.column(x.Name, sc)
	case *ast.AggregateFuncExpr:
		f := strings.ToUpper(x.F)
		var args []string
		for _, a := range x.Args {
			args = append(args, r.canon(a, sc))
		}
		inner := strings.Join(args, ", ")
		if f == "COUNT" && (inner == "1" || inner == "") {
			inner = "*"
		}
		if x.Distinct {
			inner = "DISTINCT " + inner
		}
		return f + "(" + inner + ")"
	case *ast.FuncCallExpr:
		var args []string
		for _, a := range x.Args {
			args = append(args, r.canon(a, sc))
		}
		return strings.ToUpper(x.FnName.O) + "(" + strings.Join(args, ", ") + ")"
	case *ast.BinaryOperationExpr:
		return r.canon(x.L, sc) + " " + x.Op.String() + " " + r.canon(x.R, sc)
	case *ast.SubqueryExpr:
		return "(subquery)"
	}
	if v, ok := literal(unparen(e)); ok {
		return v
	}
	var b strings.Builder
	if err := restore(&b, e); err != nil {
		return "?"
	}
	return strings.ToLower(b.String())
}

func dedupSorted(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func dedupSortedJoins(in []Join) []Join {
	sort.Slice(in, func(i, j int) bool { return in[i].String() < in[j].String() })
	out := in[:0]
	for i, j := range in {
		if i == 0 || j != in[i-1] {
			out = append(out, j)
		}
	}
	return out
}

// groupedIn reads the conditions on groups the engines write as IN over a
// grouped subquery: "x IN (SELECT fk FROM t GROUP BY fk HAVING COUNT(*) >=
// 3)" (how many rows of t each has; NOT IN is the complement), and
// "(g, m) IN (SELECT g, MAX(m) FROM … GROUP BY g)" (the top rows of each
// group).
func (r *reader) groupedIn(x *ast.PatternInExpr, sc *scope) (Filter, bool) {
	sq, ok := x.Sel.(*ast.SubqueryExpr)
	if !ok {
		return Filter{}, false
	}
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok || sel.GroupBy == nil || sel.Fields == nil || sel.From == nil || sel.From.TableRefs == nil {
		return Filter{}, false
	}
	inner := &scope{aliases: map[string]string{}, parent: sc}
	collectTables(sel.From.TableRefs, inner)
	if row, ok := unparen(x.Expr).(*ast.RowExpr); ok && !x.Not && len(row.Values) == len(sel.Fields.Fields) && len(row.Values) >= 2 {
		last := len(row.Values) - 1
		agg, ok := sel.Fields.Fields[last].Expr.(*ast.AggregateFuncExpr)
		if !ok || len(agg.Args) != 1 {
			return Filter{}, false
		}
		fn := strings.ToLower(agg.F)
		if fn != "max" && fn != "min" {
			return Filter{}, false
		}
		col := r.plainColumn(unparen(row.Values[last]), sc)
		if col == "" {
			return Filter{}, false
		}
		var groups []string
		for _, v := range row.Values[:last] {
			groups = append(groups, r.canon(v, sc))
		}
		return Filter{Expr: col, Column: col, Op: fn + " per", Values: groups}, true
	}
	if sel.Having == nil || sel.Having.Expr == nil || len(sel.Fields.Fields) != 1 {
		return Filter{}, false
	}
	b, ok := unparen(sel.Having.Expr).(*ast.BinaryOperationExpr)
	if !ok {
		return Filter{}, false
	}
	op, ok := comparison[b.Op]
	if !ok {
		return Filter{}, false
	}
	if _, isCount := unparen(b.L).(*ast.AggregateFuncExpr); !isCount || !strings.EqualFold(unparen(b.L).(*ast.AggregateFuncExpr).F, "count") {
		return Filter{}, false
	}
	n, ok := literal(unparen(b.R))
	if !ok {
		return Filter{}, false
	}
	if x.Not {
		// Those without enough: fewer than the threshold (none included).
		op = map[string]string{">=": "<", ">": "<=", "<": ">=", "<=": ">", "=": "!=", "!=": "="}[op]
	}
	counted := ""
	if len(inner.tables) > 0 {
		counted = inner.tables[0]
	}
	return Filter{Expr: r.expr(x.Expr, sc), Column: r.plainColumn(x.Expr, sc), Op: "count " + op, Values: []string{n}, Display: []string{n}, Counted: counted}, true
}

// groupedTable notes a joined subquery that keeps the keys whose related
// rows count enough: (SELECT fk FROM t GROUP BY fk HAVING COUNT(*) >= 3).
func (r *reader) groupedTable(sel *ast.SelectStmt, alias string, sc *scope) {
	if sel.GroupBy == nil || sel.Having == nil || sel.Having.Expr == nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From == nil || sel.From.TableRefs == nil {
		return
	}
	b, ok := unparen(sel.Having.Expr).(*ast.BinaryOperationExpr)
	if !ok {
		return
	}
	op, ok := comparison[b.Op]
	agg, isAgg := unparen(b.L).(*ast.AggregateFuncExpr)
	n, isLit := literal(unparen(b.R))
	if !ok || !isAgg || !strings.EqualFold(agg.F, "count") || !isLit {
		return
	}
	inner := &scope{aliases: map[string]string{}, parent: sc}
	collectTables(sel.From.TableRefs, inner)
	col := r.plainColumn(sel.Fields.Fields[0].Expr, inner)
	if col == "" || len(inner.tables) == 0 {
		return
	}
	r.grouped[alias] = Filter{Column: col, Op: "count " + op, Values: []string{n}, Display: []string{n}, Counted: inner.tables[0]}
}

// groupConditions turns the grouped subqueries joined to the query's rows
// into count conditions on those rows; "alias.key IS NULL" after a LEFT
// JOIN keeps the rows without enough, the complement.
func groupConditions(s *Shape, r *reader) {
	for alias, g := range r.grouped {
		prefix := alias + "."
		subject := ""
		var joins []Join
		for _, j := range s.Joins {
			switch {
			case strings.HasPrefix(j.Left, prefix):
				subject = j.Right
			case strings.HasPrefix(j.Right, prefix):
				subject = j.Left
			default:
				joins = append(joins, j)
				continue
			}
		}
		if subject == "" {
			continue
		}
		s.Joins = joins
		var filters []Filter
		for _, f := range s.Filters {
			if f.Depth == 0 && f.Op == "is null" && strings.HasPrefix(f.Column, prefix) {
				g.Op = "count " + map[string]string{">=": "<", ">": "<=", "<": ">=", "<=": ">", "=": "!=", "!=": "="}[strings.TrimPrefix(g.Op, "count ")]
				continue
			}
			filters = append(filters, f)
		}
		g.Expr, g.Column = subject, subject
		s.Filters = append(filters, g)
		s.worded++
	}
}

// aroundGrouped recognises a query that only reads one derived table and
// adds window measures over it (SUM(x) OVER () for shares, LAG(x) OVER
// (ORDER BY period) for changes), and returns the derived query.
func aroundGrouped(sel *ast.SelectStmt) (*ast.SelectStmt, string) {
	if sel.From == nil || sel.From.TableRefs == nil || sel.Where != nil || sel.GroupBy != nil || sel.Fields == nil {
		return nil, ""
	}
	j := sel.From.TableRefs
	if j.Right != nil {
		return nil, ""
	}
	ts, ok := j.Left.(*ast.TableSource)
	if !ok {
		return nil, ""
	}
	inner, ok := ts.Source.(*ast.SelectStmt)
	if !ok {
		return nil, ""
	}
	over := ""
	for _, f := range sel.Fields.Fields {
		if f.Expr == nil {
			return nil, ""
		}
		f.Expr.Accept(&windowFinder{found: func(name string) {
			switch strings.ToLower(name) {
			case "sum":
				if over == "" {
					over = "share"
				}
			case "lag":
				over = "change"
			}
		}})
	}
	if over == "" {
		return nil, ""
	}
	return inner, over
}

type windowFinder struct{ found func(name string) }

func (v *windowFinder) Enter(n ast.Node) (ast.Node, bool) {
	if w, ok := n.(*ast.WindowFuncExpr); ok {
		v.found(w.Name)
	}
	return n, false
}

func (v *windowFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
