package access

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// Check refuses a parsed statement (as sqlguard.Check returns it) that
// reads a hidden table or column anywhere, or whose result would show the
// values of a sensitive column. The error is a *sqlguard.Refusal of kind
// KindAccess whose Reason can be shown as is.
//
// Every column reference is resolved to its table through the FROM
// clause, aliases, derived tables, CTEs and enclosing queries, unqualified
// names against the schema. A value "carries" a sensitive column when it is
// computed from it (YEAR(birth_date), MAX(birth_date), a derived table's
// column that selects it); predicates and COUNT carry nothing, which is
// what lets a sensitive column filter, group, order and be counted.
func (p *Policy) Check(stmt ast.StmtNode) error {
	w := &walker{p: p}
	rs, ok := stmt.(ast.ResultSetNode)
	if !ok {
		return nil
	}
	out, err := w.query(rs, nil)
	if err != nil {
		return err
	}
	for _, c := range out {
		if c.carries == "" {
			continue
		}
		if c.star {
			return refusal("This warehouse keeps %s sensitive, so * can't show it; name the columns to show.", c.carries)
		}
		return refusal("This warehouse keeps %s sensitive: it can filter and count, but its values can't be shown.", c.carries)
	}
	return nil
}

func refusal(format string, args ...any) error {
	return &sqlguard.Refusal{Kind: sqlguard.KindAccess, Reason: fmt.Sprintf(format, args...)}
}

func hiddenRefusal(name string) error {
	return refusal("This warehouse hides %s; the answer can't use it.", name)
}

// column is one output column of a query or a column of a source.
type column struct {
	name string // lower case
	// carries names the sensitive column whose values this one shows, "" for none.
	carries string
	star    bool // came from * or t.*
}

// source is one table of a FROM clause: a base table or a derived one.
type source struct {
	alias string // lower case name it is referred to by
	table string // lower-case base table; "" for a derived table or CTE
	cols  []column
	known bool // false for a base table the schema lacks
}

type scope struct {
	parent  *scope
	sources []*source
	ctes    map[string][]column
	// aliases of the select list, which ORDER BY, GROUP BY and HAVING may use.
	aliases      map[string]column
	aliasesFirst bool // ORDER BY looks at aliases before columns
}

func (s *scope) cte(name string) ([]column, bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.ctes[name]; ok {
			return c, true
		}
	}
	return nil, false
}

type walker struct{ p *Policy }

// query walks a SELECT, a set operation or a parenthesised query and
// returns its output columns.
func (w *walker) query(n ast.Node, parent *scope) ([]column, error) {
	switch q := n.(type) {
	case *ast.SelectStmt:
		return w.selectStmt(q, parent)
	case *ast.SetOprStmt:
		sc := &scope{parent: parent}
		if err := w.with(q.With, sc); err != nil {
			return nil, err
		}
		out, err := w.setList(q.SelectList, sc)
		if err != nil {
			return nil, err
		}
		return out, w.setOrder(q.OrderBy, out, sc)
	case *ast.SetOprSelectList:
		return w.setList(q, parent)
	case *ast.SubqueryExpr:
		return w.query(q.Query, parent)
	}
	// TABLE and VALUES statements never pass the guard; refuse rather than
	// trust a shape this walker does not know.
	return nil, refusal("This warehouse has access rules, and this kind of query (%T) can't be checked against them.", n)
}

func (w *walker) setList(l *ast.SetOprSelectList, parent *scope) ([]column, error) {
	if l == nil {
		return nil, nil
	}
	sc := &scope{parent: parent}
	if err := w.with(l.With, sc); err != nil {
		return nil, err
	}
	var out []column
	for i, s := range l.Selects {
		cols, err := w.query(s, sc)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out = append([]column(nil), cols...)
			continue
		}
		// A set operation's column shows every branch's values.
		for j := range min(len(out), len(cols)) {
			if out[j].carries == "" {
				out[j].carries, out[j].star = cols[j].carries, cols[j].star
			}
		}
	}
	return out, w.setOrder(l.OrderBy, out, sc)
}

// setOrder walks the ORDER BY of a set operation, which names its output.
func (w *walker) setOrder(ob *ast.OrderByClause, out []column, parent *scope) error {
	if ob == nil {
		return nil
	}
	sc := &scope{parent: parent, sources: []*source{{cols: out, known: true}}}
	return w.walkAll(ob, sc)
}

// with registers the CTEs of a WITH clause in sc, in order, so that each
// may use the ones before it (and itself, when recursive).
func (w *walker) with(wc *ast.WithClause, sc *scope) error {
	if wc == nil {
		return nil
	}
	if sc.ctes == nil {
		sc.ctes = map[string][]column{}
	}
	for _, cte := range wc.CTEs {
		name := cte.Name.L
		if wc.IsRecursive {
			// The recursive part reads the CTE itself; as a placeholder it
			// carries nothing, and the anchor's columns say what it shows.
			sc.ctes[name] = nil
		}
		cols, err := w.query(cte.Query, sc)
		if err != nil {
			return err
		}
		sc.ctes[name] = renamed(cols, cte.ColNameList)
	}
	return nil
}

func renamed(cols []column, names []ast.CIStr) []column {
	if len(names) == 0 {
		return cols
	}
	out := append([]column(nil), cols...)
	for i := range min(len(out), len(names)) {
		out[i].name = names[i].L
	}
	return out
}

func (w *walker) selectStmt(s *ast.SelectStmt, parent *scope) ([]column, error) {
	sc := &scope{parent: parent}
	if err := w.with(s.With, sc); err != nil {
		return nil, err
	}
	var ons []ast.Node
	if s.From != nil && s.From.TableRefs != nil {
		var err error
		if ons, err = w.from(s.From.TableRefs, sc); err != nil {
			return nil, err
		}
	}
	for _, on := range ons {
		if err := w.walkAll(on, sc); err != nil {
			return nil, err
		}
	}
	if s.Where != nil {
		if err := w.walkAll(s.Where, sc); err != nil {
			return nil, err
		}
	}
	out, err := w.fields(s.Fields, sc)
	if err != nil {
		return nil, err
	}
	sc.aliases = map[string]column{}
	for _, c := range out {
		if _, dup := sc.aliases[c.name]; !dup {
			sc.aliases[c.name] = c
		}
	}
	for _, n := range []ast.Node{s.GroupBy, s.Having} {
		if err := w.walkAll(n, sc); err != nil {
			return nil, err
		}
	}
	for i := range s.WindowSpecs {
		if err := w.walkAll(&s.WindowSpecs[i], sc); err != nil {
			return nil, err
		}
	}
	sc.aliasesFirst = true
	if err := w.walkAll(s.OrderBy, sc); err != nil {
		return nil, err
	}
	return out, nil
}

// from adds the sources of a FROM clause to sc and returns the join
// conditions, walked once every source is known.
func (w *walker) from(n ast.ResultSetNode, sc *scope) ([]ast.Node, error) {
	switch t := n.(type) {
	case *ast.Join:
		ons, err := w.from(t.Left, sc)
		if err != nil {
			return nil, err
		}
		if t.Right != nil {
			more, err := w.from(t.Right, sc)
			if err != nil {
				return nil, err
			}
			ons = append(ons, more...)
		}
		if t.On != nil {
			ons = append(ons, t.On)
		}
		for _, u := range t.Using {
			ons = append(ons, &ast.ColumnNameExpr{Name: u})
		}
		return ons, nil
	case *ast.TableSource:
		src, ons, err := w.tableSource(t, sc)
		if err != nil {
			return nil, err
		}
		if src != nil {
			sc.sources = append(sc.sources, src)
		}
		return ons, nil
	}
	return nil, refusal("This warehouse has access rules, and this kind of FROM clause (%T) can't be checked against them.", n)
}

func (w *walker) tableSource(ts *ast.TableSource, sc *scope) (*source, []ast.Node, error) {
	alias := ts.AsName.L
	switch s := ts.Source.(type) {
	case *ast.TableName:
		if alias == "" {
			alias = s.Name.L
		}
		if s.Schema.L == "" {
			if cols, ok := sc.cte(s.Name.L); ok {
				return &source{alias: alias, cols: cols, known: true}, nil, nil
			}
		}
		return w.baseTable(s, alias)
	case *ast.Join:
		// A parenthesised join: its tables join this scope.
		ons, err := w.from(s, sc)
		return nil, ons, err
	default:
		cols, err := w.query(s, sc)
		if err != nil {
			return nil, nil, err
		}
		return &source{alias: alias, cols: renamed(cols, ts.ColumnNames), known: true}, nil, nil
	}
}

func (w *walker) baseTable(t *ast.TableName, alias string) (*source, []ast.Node, error) {
	db := t.Schema.L
	if db == "information_schema" {
		if w.p.Restricts() {
			// Its COLUMNS table would list hidden columns by name.
			return nil, nil, refusal("This warehouse hides some tables or columns, so information_schema can't be read.")
		}
		return &source{alias: alias, known: false}, nil, nil
	}
	if db != "" && db != w.p.database {
		// Another database: not what the rules describe, and not
		// resolvable; its columns match nothing hidden here.
		return &source{alias: alias, known: false}, nil, nil
	}
	lt := t.Name.L
	if w.p.hiddenTables[lt] {
		return nil, nil, hiddenRefusal("the table " + w.p.tableNames[lt])
	}
	names, ok := w.p.columns[lt]
	src := &source{alias: alias, table: lt, known: ok}
	for _, c := range names {
		col := column{name: c}
		if w.p.isSensitive(lt, c) {
			col.carries = w.p.name(lt, c)
		}
		src.cols = append(src.cols, col)
	}
	return src, nil, nil
}

// fields walks the select list and returns the output columns.
func (w *walker) fields(fl *ast.FieldList, sc *scope) ([]column, error) {
	if fl == nil {
		return nil, nil
	}
	var out []column
	for _, f := range fl.Fields {
		if f.WildCard != nil {
			cols, err := w.star(f.WildCard, sc)
			if err != nil {
				return nil, err
			}
			out = append(out, cols...)
			continue
		}
		carries, err := w.expr(f.Expr, sc)
		if err != nil {
			return nil, err
		}
		name := f.AsName.L
		if name == "" {
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				name = cn.Name.Name.L
			}
		}
		out = append(out, column{name: name, carries: carries})
	}
	return out, nil
}

// star expands * or t.*; a hidden column in the expansion is refused,
// since * would read it.
func (w *walker) star(wc *ast.WildCardField, sc *scope) ([]column, error) {
	var out []column
	matched := false
	for _, src := range sc.sources {
		if wc.Table.L != "" && src.alias != wc.Table.L {
			continue
		}
		matched = true
		if !src.known && w.p.Restricts() {
			return nil, refusal("This warehouse has access rules, and * over a table it doesn't know can't be checked; name the columns.")
		}
		for _, c := range src.cols {
			if src.table != "" && w.p.hidden[src.table][c.name] {
				return nil, refusal("This warehouse hides %s, so * can't be used on %s; name the columns to show.", w.p.name(src.table, c.name), w.p.tableNames[src.table])
			}
			c.star = true
			out = append(out, c)
		}
	}
	if !matched && wc.Table.L != "" {
		// t.* of an enclosing query's table is not valid SQL; the server
		// will say so.
		return nil, nil
	}
	return out, nil
}

// walkAll walks every expression under n for hidden references; what the
// expressions carry does not matter (filters, grouping, ordering).
func (w *walker) walkAll(n ast.Node, sc *scope) error {
	if n == nil {
		return nil
	}
	if isNil(n) {
		return nil
	}
	if e, ok := n.(ast.ExprNode); ok {
		_, err := w.expr(e, sc)
		return err
	}
	_, err := w.children(n, sc)
	return err
}

// isNil catches typed nil pointers passed as ast.Node.
func isNil(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.GroupByClause:
		return v == nil
	case *ast.HavingClause:
		return v == nil
	case *ast.OrderByClause:
		return v == nil
	}
	return false
}

// expr walks an expression and returns the sensitive column its value
// carries, "" for none.
func (w *walker) expr(e ast.ExprNode, sc *scope) (string, error) {
	switch x := e.(type) {
	case nil:
		return "", nil
	case *ast.ColumnNameExpr:
		return w.column(x.Name, sc)
	case *ast.SubqueryExpr:
		cols, err := w.query(x.Query, sc)
		if err != nil {
			return "", err
		}
		for _, c := range cols {
			if c.carries != "" {
				return c.carries, nil
			}
		}
		return "", nil
	case *ast.ExistsSubqueryExpr, *ast.PatternInExpr, *ast.PatternLikeOrIlikeExpr, *ast.PatternRegexpExpr,
		*ast.BetweenExpr, *ast.IsNullExpr, *ast.IsTruthExpr:
		// Predicates: a yes or no, never the value itself.
		return w.predicate(e, sc)
	case *ast.BinaryOperationExpr:
		if comparisonOps[x.Op] {
			return w.predicate(e, sc)
		}
	case *ast.AggregateFuncExpr:
		if strings.EqualFold(x.F, ast.AggFuncCount) {
			return w.predicate(e, sc)
		}
	case *ast.WindowFuncExpr:
		carries := ""
		for _, a := range x.Args {
			c, err := w.expr(a, sc)
			if err != nil {
				return "", err
			}
			if carries == "" && !strings.EqualFold(x.Name, ast.AggFuncCount) {
				carries = c
			}
		}
		// PARTITION BY and ORDER BY place rows; they show no values.
		return carries, w.walkAll(&x.Spec, sc)
	}
	return w.children(e, sc)
}

func (w *walker) predicate(e ast.Node, sc *scope) (string, error) {
	_, err := w.children(e, sc)
	return "", err
}

var comparisonOps = map[opcode.Op]bool{
	opcode.EQ: true, opcode.NE: true, opcode.LT: true, opcode.LE: true, opcode.GT: true, opcode.GE: true,
	opcode.NullEQ: true, opcode.LogicAnd: true, opcode.LogicOr: true, opcode.LogicXor: true,
}

// children walks the expressions directly under n (looking through
// clauses that are not expressions) and returns the first sensitive
// column they carry.
func (w *walker) children(n ast.Node, sc *scope) (string, error) {
	v := &childVisitor{w: w, sc: sc, root: n}
	n.Accept(v)
	return v.carries, v.err
}

type childVisitor struct {
	w       *walker
	sc      *scope
	root    ast.Node
	carries string
	err     error
}

func (v *childVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if n == v.root {
		return n, false
	}
	if v.err != nil {
		return n, true
	}
	if e, ok := n.(ast.ExprNode); ok {
		c, err := v.w.expr(e, v.sc)
		if err != nil {
			v.err = err
		} else if v.carries == "" {
			v.carries = c
		}
		return n, true
	}
	if rs, ok := n.(ast.ResultSetNode); ok {
		// A query where an expression was expected (the parser wraps
		// subqueries in SubqueryExpr, so this is defensive).
		cols, err := v.w.query(rs, v.sc)
		if err != nil {
			v.err = err
		} else if v.carries == "" {
			for _, c := range cols {
				if c.carries != "" {
					v.carries = c.carries
					break
				}
			}
		}
		return n, true
	}
	return n, false
}

func (v *childVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.err == nil }

// column resolves a column reference: hidden is refused, sensitive is
// what the value carries.
func (w *walker) column(cn *ast.ColumnName, sc *scope) (string, error) {
	name, qual := cn.Name.L, cn.Table.L
	unknownInScope := false
	for s := sc; s != nil; s = s.parent {
		if qual == "" && s.aliasesFirst {
			if c, ok := s.aliases[name]; ok {
				return c.carries, nil
			}
		}
		found, carries := false, ""
		for _, src := range s.sources {
			if qual != "" && src.alias != qual {
				continue
			}
			if !src.known {
				unknownInScope = true
				if qual != "" {
					found = true
				}
				continue
			}
			for _, c := range src.cols {
				if c.name != name {
					continue
				}
				// An ambiguous name is an error on the server; each
				// reading is checked so that none slips through.
				found = true
				if src.table != "" && w.p.isHidden(src.table, name) {
					return "", hiddenRefusal(w.p.name(src.table, name))
				}
				if carries == "" {
					carries = c.carries
				}
			}
		}
		if found {
			return carries, nil
		}
		if qual == "" && !s.aliasesFirst {
			if c, ok := s.aliases[name]; ok {
				return c.carries, nil
			}
		}
	}
	if qual == "" && unknownInScope && w.p.hiddenNames[name] {
		// It may be a hidden or sensitive column of a table the schema
		// does not describe; fail closed.
		return "", refusal("This warehouse has access rules, and the column %s can't be traced to its table; qualify it with the table's name.", name)
	}
	return "", nil
}
