package access

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"golang.org/x/text/unicode/norm"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// Check refuses a parsed statement (as sqlguard.Check or CheckInspect
// returns it) that reads a hidden table or column anywhere, that would
// show the values of a sensitive column, or that compares or combines a
// sensitive column with anything but fixed values. The error is a
// *sqlguard.Refusal of kind KindAccess whose Reason can be shown as is.
//
// Every column reference is resolved with MySQL's and MariaDB's scoping:
// the FROM clause (NATURAL and USING joins, an ON clause seeing only its
// join's tables, LATERAL derived tables the ones to their left), derived
// tables and CTEs, enclosing queries, and the select list's aliases where
// ORDER BY, GROUP BY, HAVING and subqueries may use them. Where the servers
// could read a name more than one way (an alias that is also a column, an
// unnamed expression column), every reading is checked, so none slips
// through; what cannot be resolved against the schema is refused.
//
// A value "carries" a sensitive column when it is computed from it
// (YEAR(birth_date), MAX(birth_date), a derived table's column that
// selects it). A comparison of a sensitive column with fixed values
// yields a yes or no that carries nothing, and so does COUNT: that is
// what lets a sensitive column filter, group, order and be counted.
func (p *Policy) Check(stmt ast.StmtNode) error {
	if !p.Restricts() {
		return nil
	}
	w := &walker{p: p}
	switch s := stmt.(type) {
	case *ast.ExplainStmt:
		// EXPLAIN shows a plan, not values, but a statement the rules
		// refuse is refused explained too.
		if show, ok := s.Stmt.(*ast.ShowStmt); ok {
			return w.show(show)
		}
		return p.Check(s.Stmt)
	case *ast.ShowStmt:
		return w.show(s)
	case ast.ResultSetNode:
		out, err := w.query(s, nil)
		if err != nil {
			return err
		}
		if w.joined && w.dbQualified {
			// MariaDB 10.11 crashes resolving some such names.
			return refusal("This warehouse has access rules, and a column named with its database (db.table.column) can't be checked beside NATURAL JOIN or USING; name it by its table alone.")
		}
		if w.touched != 0 && w.random != "" {
			return refusal("This warehouse keeps %s sensitive, so a statement that reads it can't use %s(): values that change from row to row could average it out.", p.sensName(w.touched), strings.ToUpper(w.random))
		}
		for _, c := range out {
			if c.v.sens == 0 {
				continue
			}
			if c.star {
				return refusal("This warehouse keeps %s sensitive, so * can't show it; name the columns to show.", p.sensName(c.v.sens))
			}
			return refusal("This warehouse keeps %s sensitive: it can filter and count, but its values can't be shown.", p.sensName(c.v.sens))
		}
		return nil
	}
	return refusal("This warehouse has access rules, and this kind of statement (%T) can't be checked against them.", stmt)
}

func refusal(format string, args ...any) error {
	return &sqlguard.Refusal{Kind: sqlguard.KindAccess, Reason: fmt.Sprintf(format, args...)}
}

// hiddenRefusal refuses a statement that reads something hidden. It never
// names what: a refusal must not tell which hidden tables and columns
// exist (name, what was read, is for the code's reader, not the asker).
func hiddenRefusal(name string) error {
	return refusal("This warehouse hides some of what this statement reads; the answer can't use it.")
}

// unknownTable refuses a table the rules hide or the schema lacks, alike:
// which of the two must not show.
func unknownTable(name string) error {
	return refusal("This warehouse hides some tables, and %s is not one the answer can use.", name)
}

// colSet is a set of sensitive columns, bit i for the column of index i;
// the last bit stands for every column past the first 63.
type colSet uint64

const overflowBit = colSet(1) << 63

// val summarises what a value is made of.
type val struct {
	sens colSet
	// vars: it depends on row data other than sensitive columns (an
	// ordinary column, a derived table's rows, a window position).
	vars bool
	// raw: it is exactly a value of its one sensitive column (the column,
	// its MIN or MAX, a derived column that selects it).
	raw bool
}

func (v val) constant() bool { return v.sens == 0 && !v.vars }

// union is a value that may be either reading: a name the server could
// resolve to a or to b.
func union(a, b val) val {
	return val{sens: a.sens | b.sens, vars: a.vars || b.vars, raw: a.raw && b.raw && a.sens == b.sens}
}

// merged is a column of a set operation: rows of each branch. A mix of a
// sensitive column's values with other values is a generated set.
func merged(a, b val) val {
	v := union(a, b)
	if a.sens != b.sens {
		v.vars = true
	}
	return v
}

// column is one output column of a query or a column of a source.
type column struct {
	key string // folded name; "" for an expression column without a name
	// name is the name as written, ASCII letters in lower case: the
	// servers compare column names without case, so two names equal
	// here are surely the same (see sameColumn).
	name string
	v    val // the value when referenced
	// hidden is "table.column" when this is a hidden base column.
	hidden string
	star   bool // came from * or t.*
}

// source is one table of a FROM clause: a base table or a derived one.
type source struct {
	alias string // the name it is referred to by, as written
	table string // lower-case base table; "" for a derived table or CTE
	// db is a base table's database as written (the warehouse's when the
	// statement names none); "" for a derived table or CTE, which a
	// database-qualified name never reaches.
	db   string
	cols []column
}

func (s *source) hasUnnamed() bool {
	for _, c := range s.cols {
		if c.key == "" {
			return true
		}
	}
	return false
}

type scope struct {
	parent  *scope
	sources []*source
	// visible, when set, are the only sources of this level the
	// expression being walked can see: an ON clause sees its join's
	// tables, a LATERAL derived table those to its left.
	visible []*source
	ctes    map[string]cte
	// aliases are the select list's outputs walked so far.
	aliases []column
	// ownAliases: the clause being walked (GROUP BY, HAVING, ORDER BY)
	// resolves names to this level's aliases for certain.
	ownAliases bool
	// windows are the sensitive columns each named window orders by.
	windows map[string]colSet
}

// cte is a WITH query as a FROM clause sees it.
type cte struct {
	name string // as written
	cols []column
}

// cte finds the innermost WITH query called name, without case (as
// MariaDB does; MySQL compares them as table names), and says whether the
// spelling is the same.
func (s *scope) cte(name string) ([]column, bool, bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.ctes[strings.ToLower(name)]; ok {
			return c.cols, c.name == name, true
		}
	}
	return nil, false, false
}

func (s *scope) seen() []*source {
	if s.visible != nil {
		return s.visible
	}
	return s.sources
}

type walker struct {
	p *Policy
	// touched are the sensitive columns the statement reads anywhere.
	touched colSet
	// random is a function the statement calls whose value changes from
	// call to call (RAND, UUID, …), "" for none.
	random string
	// joined: a NATURAL JOIN or USING is in the statement; dbQualified: a
	// column is named with its database (db.table.column).
	joined, dbQualified bool
}

// randomFunctions give another value on every call or row: compared with
// a sensitive column many times over (under a self-join, say), their
// answers average out to its values. NOW() and the like are fixed for the
// statement and are not among them.
var randomFunctions = map[string]bool{
	"rand": true, "uuid": true, "uuid_short": true, "sysdate": true, "random_bytes": true,
	"uuid_v4": true, "uuid_v7": true, "sys_guid": true,
}

// query walks a SELECT, a set operation or a parenthesised query and
// returns its output columns.
func (w *walker) query(n ast.Node, parent *scope) ([]column, error) {
	switch q := n.(type) {
	case *ast.SelectStmt:
		if q.Kind != ast.SelectStmtKindSelect {
			break
		}
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
			out = make([]column, len(cols))
			for j, c := range cols {
				out[j] = column{key: c.key, name: c.name, v: c.v, star: c.star}
			}
			continue
		}
		// A set operation's column holds every branch's values.
		for j := range min(len(out), len(cols)) {
			out[j].v = merged(out[j].v, cols[j].v)
			out[j].star = out[j].star || cols[j].star
		}
	}
	return out, w.setOrder(l.OrderBy, out, sc)
}

// setOrder walks the ORDER BY of a set operation, which names its output.
func (w *walker) setOrder(ob *ast.OrderByClause, out []column, parent *scope) error {
	if ob == nil {
		return nil
	}
	sc := &scope{parent: parent, sources: []*source{{cols: out}}, aliases: out, ownAliases: true}
	return w.ordering(ob, sc)
}

// with registers the CTEs of a WITH clause in sc, in order, so that each
// may use the ones before it (and itself, when recursive).
func (w *walker) with(wc *ast.WithClause, sc *scope) error {
	if wc == nil {
		return nil
	}
	if sc.ctes == nil {
		sc.ctes = map[string]cte{}
	}
	for _, c := range wc.CTEs {
		var cols []column
		var err error
		if wc.IsRecursive {
			cols, err = w.recursive(c, sc)
		} else {
			cols, err = w.query(c.Query, sc)
		}
		if err != nil {
			return err
		}
		sc.ctes[c.Name.L] = cte{name: c.Name.O, cols: derived(renamed(cols, c.ColNameList))}
	}
	return nil
}

// recursive walks a CTE of a WITH RECURSIVE: its anchor first, so that the
// recursive part's reference to the CTE has columns. A recursive query
// generates rows, so none may carry a sensitive column: from one value it
// could count its way to every other.
func (w *walker) recursive(c *ast.CommonTableExpression, sc *scope) ([]column, error) {
	name := c.Name.L
	sc.ctes[name] = cte{name: c.Name.O}
	var anchor ast.Node = c.Query
	if sq, ok := anchor.(*ast.SubqueryExpr); ok {
		anchor = sq.Query
	}
	if so, ok := anchor.(*ast.SetOprStmt); ok && so.SelectList != nil && len(so.SelectList.Selects) > 0 {
		first, err := w.query(so.SelectList.Selects[0], sc)
		if err != nil {
			return nil, err
		}
		ph := derived(renamed(first, c.ColNameList))
		for i := range ph {
			ph[i].v.vars = true
		}
		sc.ctes[name] = cte{name: c.Name.O, cols: ph}
	}
	cols, err := w.query(c.Query, sc)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if c.v.sens != 0 {
			return nil, refusal("This warehouse keeps %s sensitive, and a recursive query can't use it.", w.p.sensName(c.v.sens))
		}
	}
	return cols, nil
}

func renamed(cols []column, names []ast.CIStr) []column {
	if len(names) == 0 {
		return cols
	}
	out := append([]column(nil), cols...)
	for i := range min(len(out), len(names)) {
		out[i].name, out[i].key = nameKey(names[i])
	}
	return out
}

// derived turns a query's output into the columns of a derived table or
// CTE. Its rows are a set: a column that is not made of one sensitive
// column only varies from row to row, whatever it was computed from
// (SELECT '1980-01-01' UNION ALL SELECT '1980-01-02' is a generated set).
func derived(cols []column) []column {
	out := make([]column, len(cols))
	for i, c := range cols {
		c.star = false
		if c.v.sens == 0 {
			c.v.vars = true
		}
		out[i] = c
	}
	return out
}

func (w *walker) selectStmt(s *ast.SelectStmt, parent *scope) ([]column, error) {
	sc := &scope{parent: parent}
	if err := w.with(s.With, sc); err != nil {
		return nil, err
	}
	if s.From != nil && s.From.TableRefs != nil {
		if _, err := w.from(s.From.TableRefs, sc); err != nil {
			return nil, err
		}
	}
	// Named windows first, for the window functions that use them; then
	// the select list before WHERE: subqueries in WHERE may be read as
	// referring to its aliases, which then must be known.
	for i := range s.WindowSpecs {
		if err := w.window(&s.WindowSpecs[i], sc); err != nil {
			return nil, err
		}
	}
	out, err := w.fields(s.Fields, sc)
	if err != nil {
		return nil, err
	}
	if err := w.condition(s.Where, sc); err != nil {
		return nil, err
	}
	sc.ownAliases = true
	if s.GroupBy != nil {
		for _, item := range s.GroupBy.Items {
			if _, err := w.expr(item.Expr, sc); err != nil {
				return nil, err
			}
		}
	}
	if s.Having != nil {
		if err := w.condition(s.Having.Expr, sc); err != nil {
			return nil, err
		}
	}
	if err := w.ordering(s.OrderBy, sc); err != nil {
		return nil, err
	}
	return out, nil
}

// from adds the sources of a FROM clause to sc, walking each join's
// condition once its two sides are known, and returns the sources of n.
func (w *walker) from(n ast.ResultSetNode, sc *scope) ([]*source, error) {
	switch t := n.(type) {
	case *ast.Join:
		left, err := w.from(t.Left, sc)
		if err != nil {
			return nil, err
		}
		if t.Right == nil {
			return left, nil
		}
		right, err := w.from(t.Right, sc)
		if err != nil {
			return nil, err
		}
		both := append(append([]*source(nil), left...), right...)
		if t.NaturalJoin || len(t.Using) > 0 {
			w.joined = true
		}
		switch {
		case t.NaturalJoin:
			if err := w.natural(left, right); err != nil {
				return nil, err
			}
		case len(t.Using) > 0:
			for _, u := range t.Using {
				if err := w.using(fold(u.Name), left, right); err != nil {
					return nil, err
				}
			}
		case t.On != nil:
			// An ON clause sees only the tables of its join.
			saved := sc.visible
			sc.visible = both
			err := w.condition(t.On.Expr, sc)
			sc.visible = saved
			if err != nil {
				return nil, err
			}
		}
		return both, nil
	case *ast.TableSource:
		src, inner, err := w.tableSource(t, sc)
		if err != nil {
			return nil, err
		}
		if src == nil {
			return inner, nil
		}
		sc.sources = append(sc.sources, src)
		return []*source{src}, nil
	}
	return nil, refusal("This warehouse has access rules, and this kind of FROM clause (%T) can't be checked against them.", n)
}

// sideColumns are the columns of one side of a join called key.
func sideColumns(side []*source, key string) []column {
	var cols []column
	for _, s := range side {
		for _, c := range s.cols {
			if c.key == key {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// using checks USING (key): the two sides' columns are compared.
func (w *walker) using(key string, left, right []*source) error {
	return w.joinCompare(sideColumns(left, key), sideColumns(right, key))
}

// natural checks a NATURAL JOIN, which compares every column name the two
// sides share. An expression column without an alias has a name only the
// server knows, so it is taken to match every column of the other side.
func (w *walker) natural(left, right []*source) error {
	for _, l := range left {
		for _, a := range l.cols {
			for _, r := range right {
				for _, b := range r.cols {
					if a.key != b.key && a.key != "" && b.key != "" {
						continue
					}
					if err := w.joinCompare([]column{a}, []column{b}); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// joinCompare checks an equality between each of l and each of r.
func (w *walker) joinCompare(l, r []column) error {
	for _, a := range l {
		if a.hidden != "" {
			return hiddenRefusal(a.hidden)
		}
		for _, b := range r {
			if b.hidden != "" {
				return hiddenRefusal(b.hidden)
			}
			if _, err := w.compare(a.v, b.v); err != nil {
				return err
			}
		}
	}
	for _, b := range r {
		if b.hidden != "" {
			return hiddenRefusal(b.hidden)
		}
	}
	return nil
}

func (w *walker) tableSource(ts *ast.TableSource, sc *scope) (*source, []*source, error) {
	alias := ts.AsName.O
	switch s := ts.Source.(type) {
	case *ast.TableName:
		if alias == "" {
			alias = s.Name.O
		}
		if s.Schema.L == "" {
			if cols, exact, ok := sc.cte(s.Name.O); ok {
				if _, table := w.p.columns[s.Name.L]; !exact && table {
					// MariaDB reads it as the WITH query, MySQL as the
					// table when it is not spelt alike.
					return nil, nil, refusal("The name %s could be read as the WITH query or as a table; spell it as the WITH query does.", s.Name.O)
				}
				return &source{alias: alias, cols: cols}, nil, nil
			}
		}
		src, err := w.baseTable(s, alias)
		return src, nil, err
	case *ast.Join:
		// A parenthesised join: its tables join this scope.
		inner, err := w.from(s, sc)
		return nil, inner, err
	}
	// A derived table sees the enclosing queries, not its neighbours,
	// unless it is LATERAL: then it sees the tables to its left.
	parent := sc.parent
	if ts.Lateral {
		parent = &scope{parent: sc.parent, sources: sc.sources, visible: append([]*source(nil), sc.seen()...), ctes: sc.ctes}
	} else if sc.ctes != nil {
		parent = &scope{parent: sc.parent, ctes: sc.ctes}
	}
	cols, err := w.query(ts.Source, parent)
	if err != nil {
		return nil, nil, err
	}
	return &source{alias: alias, cols: derived(renamed(cols, ts.ColumnNames))}, nil, nil
}

func (w *walker) baseTable(t *ast.TableName, alias string) (*source, error) {
	if t.AsOf != nil {
		return nil, refusal("This warehouse has access rules, and AS OF can't be checked against them.")
	}
	switch db := t.Schema.L; {
	case db == "information_schema":
		// Its COLUMNS table would list hidden columns by name.
		return nil, refusal("This warehouse hides some tables or columns, so information_schema can't be read.")
	case db != "" && db != w.p.database:
		return nil, refusal("This warehouse has access rules for %s; another database (%s) can't be read.", w.p.database, t.Schema.O)
	}
	lt := t.Name.L
	if w.p.hiddenTables[lt] {
		return nil, unknownTable(t.Name.O)
	}
	cols, ok := w.p.columns[lt]
	if !ok {
		return nil, unknownTable(t.Name.O)
	}
	if len(t.IndexHints) > 0 && len(w.p.hiddenColumnsOf(lt)) > 0 {
		// FORCE INDEX (by_email) makes the rows come in the order of a
		// hidden column.
		return nil, refusal("This warehouse hides some columns of %s, so index hints can't be used on it.", w.p.tableNames[lt])
	}
	db := t.Schema.O
	if db == "" {
		db = w.p.databaseName
	}
	return &source{alias: alias, table: lt, db: db, cols: cols}, nil
}

// fields walks the select list and returns the output columns; each
// becomes one of sc's aliases as soon as it is walked.
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
			sc.aliases = append(sc.aliases, cols...)
			continue
		}
		v, err := w.expr(f.Expr, sc)
		if err != nil {
			return nil, err
		}
		name, key := "", ""
		switch {
		case f.AsName.O != "":
			name, key = nameKey(f.AsName)
		default:
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				name, key = nameKey(cn.Name.Name)
			}
		}
		c := column{key: key, name: name, v: v}
		out = append(out, c)
		sc.aliases = append(sc.aliases, c)
	}
	return out, nil
}

// star expands * or t.*; a hidden column in the expansion is refused,
// since * would read it.
func (w *walker) star(wc *ast.WildCardField, sc *scope) ([]column, error) {
	var out []column
	for _, src := range sc.sources {
		if wc.Table.L != "" && w.qualifies(src, wc.Schema.O, wc.Table.O) == noMatch {
			continue
		}
		for _, c := range src.cols {
			if c.hidden != "" {
				return nil, refusal("This warehouse hides some columns of %s, so * can't be used on it; name the columns to show.", w.p.tableNames[src.table])
			}
			c.star = true
			out = append(out, c)
		}
	}
	return out, nil
}

// condition walks a filter: WHERE, HAVING, ON. Its value is a yes or no
// for each row; what it is made of was checked where it was combined.
func (w *walker) condition(e ast.ExprNode, sc *scope) error {
	_, err := w.expr(e, sc)
	return err
}

// ordering walks ORDER BY items, which place rows and show nothing.
func (w *walker) ordering(ob *ast.OrderByClause, sc *scope) error {
	if ob == nil {
		return nil
	}
	for _, item := range ob.Items {
		if _, err := w.expr(item.Expr, sc); err != nil {
			return err
		}
	}
	return nil
}

// window walks a window's PARTITION BY and ORDER BY. A RANGE frame with an
// offset over a sensitive ordering compares the column with itself plus a
// constant, which reveals the gaps between its values.
func (w *walker) window(spec *ast.WindowSpec, sc *scope) error {
	order := sc.windows[spec.Ref.L]
	if spec.OnlyAlias {
		order |= sc.windows[spec.Name.L]
	}
	if spec.PartitionBy != nil {
		for _, item := range spec.PartitionBy.Items {
			if _, err := w.expr(item.Expr, sc); err != nil {
				return err
			}
		}
	}
	if spec.OrderBy != nil {
		for _, item := range spec.OrderBy.Items {
			v, err := w.expr(item.Expr, sc)
			if err != nil {
				return err
			}
			order |= v.sens
		}
	}
	if f := spec.Frame; f != nil && order != 0 && f.Type == ast.Ranges &&
		(f.Extent.Start.Expr != nil || f.Extent.End.Expr != nil) {
		return refusal("This warehouse keeps %s sensitive, so a RANGE window with an offset can't be ordered by it.", w.p.sensName(order))
	}
	if spec.Name.L != "" && !spec.OnlyAlias {
		if sc.windows == nil {
			sc.windows = map[string]colSet{}
		}
		sc.windows[spec.Name.L] = order
	}
	return nil
}

// expr walks an expression and says what its value is made of.
func (w *walker) expr(e ast.ExprNode, sc *scope) (val, error) {
	switch x := e.(type) {
	case nil:
		return val{}, nil
	case ast.ValueExpr, ast.ParamMarkerExpr, *ast.TimeUnitExpr, *ast.TrimDirectionExpr,
		*ast.GetFormatSelectorExpr, *ast.MaxValueExpr:
		return val{}, nil
	case *ast.VariableExpr:
		// The guard refuses assignments; a variable read is a constant.
		if x.Value != nil {
			return w.combine(sc, x.Value)
		}
		return val{}, nil
	case *ast.ColumnNameExpr:
		return w.column(x.Name, sc)
	case *ast.ParenthesesExpr:
		return w.expr(x.Expr, sc)
	case *ast.SetCollationExpr:
		return w.expr(x.Expr, sc)
	case *ast.SubqueryExpr:
		cols, err := w.query(x.Query, sc)
		if err != nil {
			return val{}, err
		}
		if len(cols) == 1 {
			return cols[0].v, nil
		}
		var v val
		for _, c := range cols {
			v = union(v, c.v)
		}
		v.raw = false
		return v, w.checkCombined(v)
	case *ast.ExistsSubqueryExpr:
		if _, err := w.expr(x.Sel, sc); err != nil {
			return val{}, err
		}
		return val{vars: true}, nil
	case *ast.CompareSubqueryExpr:
		return w.predicate(sc, x.L, x.R)
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return w.predicate(sc, x.Expr, x.Sel)
		}
		if l, ok := unparen(x.Expr).(*ast.RowExpr); ok {
			return w.rowsIn(sc, l, x.List)
		}
		return w.predicate(sc, append([]ast.ExprNode{x.Expr}, x.List...)...)
	case *ast.PatternLikeOrIlikeExpr:
		return w.predicate(sc, x.Expr, x.Pattern)
	case *ast.PatternRegexpExpr:
		return w.predicate(sc, x.Expr, x.Pattern)
	case *ast.BetweenExpr:
		return w.predicate(sc, x.Expr, x.Left, x.Right)
	case *ast.IsNullExpr:
		return w.predicate(sc, x.Expr)
	case *ast.IsTruthExpr:
		return w.predicate(sc, x.Expr)
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
			l, lok := unparen(x.L).(*ast.RowExpr)
			r, rok := unparen(x.R).(*ast.RowExpr)
			if lok && rok && len(l.Values) == len(r.Values) {
				return w.rowsCompare(sc, l, r)
			}
			return w.predicate(sc, x.L, x.R)
		case opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
			return w.logic(sc, x.L, x.R)
		}
		return w.combine(sc, x.L, x.R)
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Not || x.Op == opcode.Not2 {
			return w.logic(sc, x.V)
		}
		return w.combine(sc, x.V)
	case *ast.RowExpr:
		return w.combine(sc, x.Values...)
	case *ast.CaseExpr:
		return w.caseExpr(x, sc)
	case *ast.FuncCallExpr:
		if randomFunctions[x.FnName.L] {
			w.random = x.FnName.L
			v, err := w.combine(sc, x.Args...)
			v.vars = true
			return v, err
		}
		if x.FnName.L == "if" && len(x.Args) == 3 {
			if _, err := w.logic(sc, x.Args[0]); err != nil {
				return val{}, err
			}
			return w.combine(sc, x.Args[1], x.Args[2])
		}
		return w.combine(sc, x.Args...)
	case *ast.FuncCastExpr:
		return w.combine(sc, x.Expr)
	case *ast.JSONSumCrc32Expr:
		return w.combine(sc, x.Expr)
	case *ast.AggregateFuncExpr:
		return w.aggregate(x, sc)
	case *ast.WindowFuncExpr:
		return w.windowFunc(x, sc)
	case *ast.MatchAgainst:
		// MATCH (cols) AGAINST ('words') scores each row: a test of the
		// columns against fixed words.
		var v val
		for _, cn := range x.ColumnNames {
			cv, err := w.column(cn, sc)
			if err != nil {
				return val{}, err
			}
			v = union(v, cv)
		}
		a, err := w.expr(x.Against, sc)
		if err != nil {
			return val{}, err
		}
		return w.compare(v, a)
	case *ast.DefaultExpr:
		if x.Name != nil {
			if _, err := w.column(x.Name, sc); err != nil {
				return val{}, err
			}
		}
		return val{}, nil
	case *ast.ValuesExpr:
		if x.Column != nil {
			return w.column(x.Column.Name, sc)
		}
		return val{}, nil
	case *ast.PositionExpr:
		// ORDER BY 2 places rows by the second output column.
		if x.P != nil {
			return w.expr(x.P, sc)
		}
		if x.N >= 1 && x.N <= len(sc.aliases) {
			return sc.aliases[x.N-1].v, nil
		}
		return val{}, nil
	}
	return val{}, refusal("This warehouse has access rules, and this kind of expression (%T) can't be checked against them.", e)
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

// combine is a value computed from the operands (arithmetic, a function,
// a CASE's results). A sensitive column may be combined with fixed values
// only: with another column, a derived table's rows or a second
// sensitive column, the result could be compared or shown to reveal it.
func (w *walker) combine(sc *scope, operands ...ast.ExprNode) (val, error) {
	var v val
	for _, o := range operands {
		ov, err := w.expr(o, sc)
		if err != nil {
			return val{}, err
		}
		v.sens |= ov.sens
		v.vars = v.vars || ov.vars
	}
	return v, w.checkCombined(v)
}

func (w *walker) checkCombined(v val) error {
	if v.sens != 0 && (v.vars || bits.OnesCount64(uint64(v.sens)) > 1) {
		return w.filterOnly(v.sens)
	}
	return nil
}

func (w *walker) filterOnly(s colSet) error {
	return refusal("This warehouse keeps %s sensitive: it can be compared only with fixed values, not with other columns or generated rows.", w.p.sensName(s))
}

// predicate is a comparison of the operands: a yes or no per row.
func (w *walker) predicate(sc *scope, operands ...ast.ExprNode) (val, error) {
	vals := make([]val, 0, len(operands))
	for _, o := range operands {
		v, err := w.expr(o, sc)
		if err != nil {
			return val{}, err
		}
		vals = append(vals, v)
	}
	return w.compare(vals...)
}

// compare checks a comparison of values. A sensitive column may be
// compared with fixed values, or (exactly as stored) with its own values
// in other rows; anything else could tell its values by the rows of
// another column or a generated set that match.
func (w *walker) compare(vals ...val) (val, error) {
	var all colSet
	vars := false
	carriers := 0
	raw := true
	for _, v := range vals {
		all |= v.sens
		vars = vars || v.vars
		if v.sens != 0 {
			carriers++
			raw = raw && v.raw
		}
	}
	if all == 0 {
		return val{vars: vars}, nil
	}
	switch {
	case vars, bits.OnesCount64(uint64(all)) > 1, all&overflowBit != 0 && carriers > 1:
		return val{}, w.filterOnly(all)
	case carriers > 1 && !raw:
		return val{}, w.filterOnly(all)
	}
	return val{vars: true}, nil
}

// rowsCompare compares (a, b) with (c, d) element by element.
func (w *walker) rowsCompare(sc *scope, l, r *ast.RowExpr) (val, error) {
	out := val{}
	for i := range l.Values {
		v, err := w.predicate(sc, l.Values[i], r.Values[i])
		if err != nil {
			return val{}, err
		}
		out.vars = out.vars || v.vars
	}
	return out, nil
}

// rowsIn is (a, b) IN ((1, 2), (3, 4)).
func (w *walker) rowsIn(sc *scope, l *ast.RowExpr, list []ast.ExprNode) (val, error) {
	out := val{}
	for _, item := range list {
		r, ok := unparen(item).(*ast.RowExpr)
		if !ok || len(r.Values) != len(l.Values) {
			return w.predicate(sc, append([]ast.ExprNode{l}, list...)...)
		}
		v, err := w.rowsCompare(sc, l, r)
		if err != nil {
			return val{}, err
		}
		out.vars = out.vars || v.vars
	}
	return out, nil
}

// logic is AND, OR, XOR, NOT and a condition's truth: each operand is
// tested on its own.
func (w *walker) logic(sc *scope, operands ...ast.ExprNode) (val, error) {
	out := val{}
	for _, o := range operands {
		v, err := w.expr(o, sc)
		if err != nil {
			return val{}, err
		}
		out.vars = out.vars || v.vars || v.sens != 0
	}
	return out, nil
}

func (w *walker) caseExpr(x *ast.CaseExpr, sc *scope) (val, error) {
	for _, wh := range x.WhenClauses {
		var err error
		if x.Value != nil {
			_, err = w.predicate(sc, x.Value, wh.Expr)
		} else {
			_, err = w.logic(sc, wh.Expr)
		}
		if err != nil {
			return val{}, err
		}
	}
	results := make([]ast.ExprNode, 0, len(x.WhenClauses)+1)
	for _, wh := range x.WhenClauses {
		results = append(results, wh.Result)
	}
	if x.ElseClause != nil {
		results = append(results, x.ElseClause)
	}
	return w.combine(sc, results...)
}

// aggregate: COUNT carries nothing; MIN, MAX and ANY_VALUE are values of
// their argument; the others are computed from it.
func (w *walker) aggregate(x *ast.AggregateFuncExpr, sc *scope) (val, error) {
	if x.Order != nil {
		if err := w.ordering(x.Order, sc); err != nil {
			return val{}, err
		}
	}
	switch strings.ToLower(x.F) {
	case ast.AggFuncCount, ast.AggFuncApproxCountDistinct:
		for _, a := range x.Args {
			if _, err := w.expr(a, sc); err != nil {
				return val{}, err
			}
		}
		return val{vars: true}, nil
	case ast.AggFuncMin, ast.AggFuncMax, ast.AggFuncFirstRow, "any_value":
		if len(x.Args) == 1 {
			v, err := w.expr(x.Args[0], sc)
			if err != nil {
				return val{}, err
			}
			return aggregated(v), nil
		}
	}
	v, err := w.combine(sc, x.Args...)
	if err != nil {
		return val{}, err
	}
	v.raw = false
	return aggregated(v), nil
}

// aggregated: an aggregate of anything but a sensitive column varies with
// the rows.
func aggregated(v val) val {
	if v.sens == 0 {
		v.vars = true
	}
	return v
}

func (w *walker) windowFunc(x *ast.WindowFuncExpr, sc *scope) (val, error) {
	if err := w.window(&x.Spec, sc); err != nil {
		return val{}, err
	}
	switch strings.ToLower(x.Name) {
	case ast.WindowFuncRowNumber, ast.WindowFuncRank, ast.WindowFuncDenseRank, ast.WindowFuncCumeDist,
		ast.WindowFuncPercentRank, ast.WindowFuncNtile, ast.AggFuncCount:
		for _, a := range x.Args {
			if _, err := w.expr(a, sc); err != nil {
				return val{}, err
			}
		}
		return val{vars: true}, nil
	case ast.WindowFuncLead, ast.WindowFuncLag, ast.WindowFuncFirstValue, ast.WindowFuncLastValue,
		ast.WindowFuncNthValue, ast.AggFuncMin, ast.AggFuncMax:
		if len(x.Args) == 0 {
			return val{vars: true}, nil
		}
		v, err := w.expr(x.Args[0], sc)
		if err != nil {
			return val{}, err
		}
		if len(x.Args) == 3 {
			// LAG(x, 1, default): the default is shown where x is not.
			d, err := w.expr(x.Args[2], sc)
			if err != nil {
				return val{}, err
			}
			v = val{sens: v.sens | d.sens, vars: v.vars || d.vars}
			if err := w.checkCombined(v); err != nil {
				return val{}, err
			}
		}
		if len(x.Args) >= 2 {
			if _, err := w.expr(x.Args[1], sc); err != nil {
				return val{}, err
			}
		}
		return aggregated(v), nil
	}
	v, err := w.combine(sc, x.Args...)
	if err != nil {
		return val{}, err
	}
	v.raw = false
	return aggregated(v), nil
}

// column resolves a column reference. Going outwards from the innermost
// query, each level's readings are checked: its visible sources' columns
// and, for unqualified names, its select list's aliases. The search stops
// at the first level where the name is certainly resolved; readings the
// servers may or may not take (an alias seen from a subquery, an
// expression column named by its text) are checked without stopping.
// Every reading is checked: a hidden one is refused, and the value is
// what all the readings are made of together.
func (w *walker) column(cn *ast.ColumnName, sc *scope) (val, error) {
	name, key := nameKey(cn.Name)
	qual, db := cn.Table.O, cn.Schema.O
	w.dbQualified = w.dbQualified || db != ""
	var acc val
	readings := 0
	add := func(c column) error {
		if c.hidden != "" {
			return hiddenRefusal(c.hidden)
		}
		if readings == 0 {
			acc = c.v
		} else {
			acc = union(acc, c.v)
		}
		readings++
		return nil
	}
	direct := true
	for s := sc; s != nil; s, direct = s.parent, false {
		// certain: the server surely resolves the name at this level,
		// to one of the readings added; it looks no further out. A
		// qualifier naming a source that lacks the column is no
		// certainty: the server goes on to the enclosing queries.
		certain := false
		var unnamed []column
		for _, src := range s.seen() {
			qm := sureMatch
			if qual != "" {
				if qm = w.qualifies(src, db, qual); qm == noMatch {
					continue
				}
			}
			for _, c := range src.cols {
				if c.key == "" {
					unnamed = append(unnamed, c)
					continue
				}
				cm := sameColumn(c.name, c.key, name, key)
				if cm == noMatch {
					continue
				}
				if err := add(c); err != nil {
					return val{}, err
				}
				if cm == sureMatch && qm == sureMatch {
					certain = true
				}
			}
		}
		if qual == "" {
			for _, a := range s.aliases {
				if a.key == "" {
					if !certain {
						unnamed = append(unnamed, a)
					}
					continue
				}
				cm := sameColumn(a.name, a.key, name, key)
				if cm == noMatch {
					continue
				}
				if err := add(a); err != nil {
					return val{}, err
				}
				if direct && s.ownAliases && cm == sureMatch {
					certain = true
				}
			}
		}
		if !certain || readings == 0 {
			// A name no column or alias has may be an expression column's
			// text (SELECT x.`MAX(birth_date)` FROM (SELECT MAX(…)) x).
			for _, c := range unnamed {
				if err := add(c); err != nil {
					return val{}, err
				}
			}
		}
		if db != "" && !certain {
			// db.table.column is read only where it surely names a base
			// table of the query it is written in.
			return val{}, refusal("This warehouse has access rules, and a column named with its database (db.table.column) here can't be resolved with certainty; name it by its table's alias.")
		}
		if certain {
			break
		}
	}
	w.touched |= acc.sens
	return acc, nil
}

// match is how surely two names are the same to the server.
type match int

const (
	noMatch match = iota
	maybeMatch
	sureMatch
)

// qualifies says whether a qualifier (db.)qual names src. A database-
// qualified name reaches only base tables, by their alias (their name
// when they have none) and database: never a derived table or a WITH
// query, whatever it is called.
func (w *walker) qualifies(src *source, db, qual string) match {
	m := w.p.sameTableName(src.alias, qual)
	if db == "" || m == noMatch {
		return m
	}
	if src.db == "" {
		return noMatch
	}
	return min(m, w.p.sameTableName(src.db, db))
}

// sameTableName compares table names, aliases and database names as the
// server does: with lower_case_table_names = 0 (Linux's default) byte for
// byte, otherwise without case. Where the setting is unknown, names that
// differ only in case may or may not be the same.
func (p *Policy) sameTableName(a, b string) match {
	switch {
	case a == b:
		return sureMatch
	case p.tableCase == 0:
		return noMatch
	case asciiLower(a) == asciiLower(b):
		if p.tableCase > 0 {
			return sureMatch
		}
		return maybeMatch
	case foldString(a) == foldString(b):
		return maybeMatch
	}
	return noMatch
}

// sameColumn compares column names (as name and folded key): the servers
// compare them without case, MariaDB without accents folded (émail is not
// email), some collations with. Equal without ASCII case is sure; equal
// only once folded may be either, and both readings are checked.
func sameColumn(aName, aKey, bName, bKey string) match {
	switch {
	case aName == bName:
		return sureMatch
	case aKey == bKey:
		return maybeMatch
	}
	return noMatch
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// nameKey is a column name as written (ASCII case folded) and folded.
func nameKey(s ast.CIStr) (string, string) { return asciiLower(s.O), fold(s) }

// show checks a SHOW statement: what it names must not be hidden, and
// SHOW CREATE TABLE of a table with hidden columns would show them.
// SHOW TABLES, COLUMNS and INDEX are filtered by FilterResult.
func (w *walker) show(s *ast.ShowStmt) error {
	db := strings.ToLower(s.DBName)
	if s.Table != nil && s.Table.Schema.L != "" {
		db = s.Table.Schema.L
	}
	if s.Tp != ast.ShowDatabases && db != "" && db != w.p.database {
		return refusal("This warehouse has access rules for %s; another database (%s) can't be described.", w.p.database, db)
	}
	if s.Table == nil {
		return nil
	}
	lt := s.Table.Name.L
	if w.p.hiddenTables[lt] {
		return unknownTable(s.Table.Name.O)
	}
	if _, ok := w.p.columns[lt]; !ok {
		return unknownTable(s.Table.Name.O)
	}
	if s.Column != nil {
		if k := fold(s.Column.Name); w.p.isHiddenKey(lt, k) {
			return hiddenRefusal(w.p.name(lt, s.Column.Name.O))
		}
	}
	if s.Tp == ast.ShowCreateTable {
		if names := w.p.hiddenColumnsOf(lt); len(names) > 0 {
			return refusal("This warehouse hides some columns of %s, so SHOW CREATE TABLE can't be shown; SHOW COLUMNS lists the others.", w.p.tableNames[lt])
		}
	}
	return nil
}

// fold is coarser than any server's comparison of column names: without
// case, accents and compatibility forms (émail, ｅmail), which MariaDB
// does not equate but some collations may. Two names with the same fold
// may be one name to the server; the checker then checks both readings
// (sameColumn), so a coarser fold refuses more, never less.
func fold(s ast.CIStr) string {
	for i := 0; i < len(s.L); i++ {
		if s.L[i] >= utf8.RuneSelf {
			return foldSlow(s.O)
		}
	}
	return s.L
}

func foldSlow(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		// Letters some collations equate with a plain one (utf8mb3 and
		// utf8mb4 general_ci: ß is s, Đ is D), and characters past the
		// first plane, which general_ci holds all alike.
		switch r {
		case 'ı', 'İ':
			r = 'i'
		case 'ß', 'ſ':
			r = 's'
		case 'ø', 'Ø', 'œ', 'Œ':
			r = 'o'
		case 'đ', 'Đ', 'ð', 'Ð':
			r = 'd'
		case 'ł', 'Ł':
			r = 'l'
		case 'ħ', 'Ħ':
			r = 'h'
		case 'ŧ', 'Ŧ', 'þ', 'Þ':
			r = 't'
		case 'æ', 'Æ':
			r = 'a'
		}
		if r > 0xFFFF {
			r = unicode.ReplacementChar
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// foldString folds a name given as text (the rules, the schema).
func foldString(s string) string {
	return fold(ast.NewCIStr(s))
}
