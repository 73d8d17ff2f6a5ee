package dialog

// Shared scans. The readings of one question often read the same rows the
// same way — equal FROM, WHERE, GROUP BY and HAVING — and differ only in
// what they show (net or gross revenue), how they order it and how many
// rows they keep. One statement selecting everything any of them needs,
// without ORDER BY and LIMIT, does the joins once; each reading's own
// result is then cut from it in Go (sharedderive.go). Only shapes whose
// result can be derived exactly are combined; the rest run on their own.

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// sharedScan is one statement run for several candidates.
type sharedScan struct {
	sql     string
	width   int // columns of its result
	members []scanMember
}

// scanMember is one candidate of a shared scan: which columns of the shared
// result are its own, and how to order, de-duplicate and cut them.
type scanMember struct {
	sql      string
	cols     []int
	order    []orderKey
	distinct bool
	offset   int
	count    int // -1 without LIMIT
}

// orderKey is one ORDER BY item as a column of the shared result.
type orderKey struct {
	col  int
	desc bool
}

// scanParts is a candidate taken apart for sharing. Texts are as written,
// so that the server names the shared result's columns exactly as it
// names the candidate's.
type scanParts struct {
	sql string
	// key is the restored FROM, WHERE, GROUP BY and HAVING, and whether the
	// query aggregates: candidates with equal keys read the same rows.
	key string
	// from is the original text from FROM up to ORDER BY or LIMIT.
	from   string
	fields []scanField
	order  []orderItem
	// names are the unqualified column names the candidate uses outside
	// its ORDER BY's references to its own fields, and aliases the names
	// its fields are given. A name that is an alias in the shared statement
	// could be read as that alias (GROUP BY and HAVING may name aliases,
	// and some servers let the select list name the aliases before it).
	names, aliases map[string]bool
	distinct       bool
	offset         int
	count          int
}

type scanField struct {
	text     string // as written, alias included
	restored string // the restored field, to check the shared statement
	expr     string // the restored expression, to match ORDER BY items
	alias    string // lower case, "" when none
	column   string // lower case column name when the field is a bare column
}

// orderItem is an ORDER BY item: one of the candidate's own fields, or an
// expression the shared statement computes as an extra column.
type orderItem struct {
	field int // -1 for an expression
	expr  string
	desc  bool
}

// planScans groups stmts into shared scans of at least two candidates;
// alone are the statements that run as they are.
func planScans(stmts []string) (scans []sharedScan, alone []string) {
	byKey := map[string][]*scanParts{}
	var keys []string
	for _, s := range stmts {
		p, err := splitForScan(s)
		if err != nil {
			alone = append(alone, s)
			continue
		}
		if _, ok := byKey[p.key]; !ok {
			keys = append(keys, p.key)
		}
		byKey[p.key] = append(byKey[p.key], p)
	}
	for _, k := range keys {
		group, out := apartFromAliases(byKey[k])
		for _, p := range out {
			alone = append(alone, p.sql)
		}
		if len(group) < 2 {
			for _, p := range group {
				alone = append(alone, p.sql)
			}
			continue
		}
		scan, err := buildScan(group)
		if err != nil {
			for _, p := range group {
				alone = append(alone, p.sql)
			}
			continue
		}
		scans = append(scans, scan)
	}
	return scans, alone
}

// apartFromAliases leaves out of a group the candidates that use a name
// some candidate of the group gives a field, until none does.
func apartFromAliases(group []*scanParts) (in, out []*scanParts) {
	in = group
	for {
		aliases := map[string]bool{}
		for _, p := range in {
			for a := range p.aliases {
				aliases[a] = true
			}
		}
		var keep []*scanParts
		for _, p := range in {
			clash := false
			for n := range p.names {
				clash = clash || aliases[n]
			}
			if clash {
				out = append(out, p)
			} else {
				keep = append(keep, p)
			}
		}
		if len(keep) == len(in) {
			return in, out
		}
		in = keep
	}
}

// splitForScan parses a candidate and takes it apart, or says why it
// cannot share a scan.
func splitForScan(sql string) (*scanParts, error) {
	st, err := sqlguard.Check(sql)
	if err != nil {
		return nil, err
	}
	sel, ok := st.Node.(*ast.SelectStmt)
	if !ok {
		return nil, fmt.Errorf("not a plain SELECT")
	}
	if err := plainSelect(sel); err != nil {
		return nil, err
	}
	if err := plainClauses(sel); err != nil {
		return nil, err
	}
	p := &scanParts{sql: sql, distinct: sel.Distinct}
	if p.key, err = readKey(sel); err != nil {
		return nil, err
	}
	if p.fields, p.from, err = splitText(sql, sel); err != nil {
		return nil, err
	}
	if p.order, err = readOrder(sel, p.fields); err != nil {
		return nil, err
	}
	if p.offset, p.count, err = readLimit(sel.Limit); err != nil {
		return nil, err
	}
	if err := determinate(sel, p.order); err != nil {
		return nil, err
	}
	p.names, p.aliases = readNames(sel, p.order)
	return p, nil
}

// determinate refuses candidates whose result the server is free to choose
// among several: of an aggregating candidate, a value of a column neither
// grouped nor aggregated (MariaDB takes it from whichever row comes first,
// which another statement may read in another order); and DISTINCT rows
// without aggregation, where equal text differing in case is one value the
// server picks, and which a shared statement without DISTINCT would fetch
// many times over.
func determinate(sel *ast.SelectStmt, order []orderItem) error {
	if sel.GroupBy == nil && !aggregates(sel) {
		if sel.Distinct {
			return fmt.Errorf("DISTINCT rows")
		}
		return nil
	}
	grouped := map[string]bool{}
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			var b strings.Builder
			if err := restoreTo(&b, it.Expr); err != nil {
				return err
			}
			grouped[b.String()] = true
		}
	}
	exprs := make([]ast.ExprNode, 0, len(sel.Fields.Fields))
	for _, f := range sel.Fields.Fields {
		exprs = append(exprs, f.Expr)
	}
	if sel.OrderBy != nil {
		for i, it := range sel.OrderBy.Items {
			if order[i].field < 0 {
				exprs = append(exprs, it.Expr)
			}
		}
	}
	for _, e := range exprs {
		v := &groupedVisitor{grouped: grouped}
		e.Accept(v)
		if v.loose != "" {
			return fmt.Errorf("%s is neither grouped nor aggregated", v.loose)
		}
	}
	return nil
}

// groupedVisitor finds a column outside the grouped expressions and the
// aggregates.
type groupedVisitor struct {
	grouped map[string]bool
	loose   string
}

func (v *groupedVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		return n, true
	case *ast.ColumnNameExpr:
		if !v.grouped[restored(x)] {
			v.loose = x.Name.OrigColName()
		}
		return n, true
	case ast.ExprNode:
		if len(v.grouped) > 0 && v.grouped[restored(x)] {
			return n, true
		}
	}
	return n, v.loose != ""
}

func (v *groupedVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.loose == "" }

// restored is n as restoreTo renders it, or "" when it cannot be.
func restored(n ast.Node) string {
	var b strings.Builder
	if err := restoreTo(&b, n); err != nil {
		return ""
	}
	return b.String()
}

// plainClauses refuses GROUP BY a position, which names another field in
// each candidate, and HAVING a column outside an aggregate, which may name
// a field the shared statement shows and the candidate does not.
func plainClauses(sel *ast.SelectStmt) error {
	if sel.GroupBy != nil {
		for _, it := range sel.GroupBy.Items {
			if _, ok := it.Expr.(*ast.PositionExpr); ok {
				return fmt.Errorf("GROUP BY a position")
			}
		}
	}
	if sel.Having != nil && columnOutsideAggregate(sel.Having.Expr) {
		return fmt.Errorf("HAVING names a column outside an aggregate")
	}
	return nil
}

// readNames collects the unqualified names a candidate uses (but its ORDER
// BY's references to its own fields) and the aliases of its fields.
func readNames(sel *ast.SelectStmt, order []orderItem) (names, aliases map[string]bool) {
	names, aliases = map[string]bool{}, map[string]bool{}
	sel.From.Accept(&nameVisitor{into: names})
	if sel.Where != nil {
		unqualifiedNames(sel.Where, names)
	}
	if sel.GroupBy != nil {
		sel.GroupBy.Accept(&nameVisitor{into: names})
	}
	if sel.Having != nil {
		unqualifiedNames(sel.Having.Expr, names)
	}
	for _, f := range sel.Fields.Fields {
		unqualifiedNames(f.Expr, names)
		if f.AsName.L != "" {
			aliases[f.AsName.L] = true
		}
	}
	if sel.OrderBy != nil {
		for i, it := range sel.OrderBy.Items {
			if order[i].field < 0 {
				unqualifiedNames(it.Expr, names)
			}
		}
	}
	return names, aliases
}

// plainSelect refuses what a shared statement could not reproduce: set
// operations and CTEs, select options and hints, named windows, and select
// lists with wildcards, subqueries, window functions or variables.
func plainSelect(sel *ast.SelectStmt) error {
	switch {
	case sel.Kind != ast.SelectStmtKindSelect, sel.With != nil, sel.IsInBraces,
		sel.SelectIntoOpt != nil, sel.LockInfo != nil, len(sel.WindowSpecs) > 0,
		len(sel.TableHints) > 0, sel.AfterSetOperator != nil, sel.From == nil:
		return fmt.Errorf("not a plain SELECT … FROM")
	case sel.GroupBy != nil && sel.GroupBy.Rollup:
		return fmt.Errorf("WITH ROLLUP")
	}
	if o := sel.SelectStmtOpts; o != nil && (o.Priority != 0 || o.SQLSmallResult || o.SQLBigResult ||
		o.SQLBufferResult || !o.SQLCache || o.CalcFoundRows || o.StraightJoin || len(o.TableHints) > 0) {
		return fmt.Errorf("select options")
	}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return fmt.Errorf("a wildcard in the select list")
		}
		if err := derivableExpr(f.Expr); err != nil {
			return err
		}
	}
	return nil
}

// readKey restores the clauses candidates of one scan share. Without GROUP
// BY, whether the query aggregates decides whether it returns one row or
// many, so it is part of the key.
func readKey(sel *ast.SelectStmt) (string, error) {
	var b strings.Builder
	b.WriteString("FROM ")
	if err := restoreTo(&b, sel.From); err != nil {
		return "", err
	}
	if sel.Where != nil {
		b.WriteString(" WHERE ")
		if err := restoreTo(&b, sel.Where); err != nil {
			return "", err
		}
	}
	if sel.GroupBy != nil {
		b.WriteString(" ")
		if err := restoreTo(&b, sel.GroupBy); err != nil {
			return "", err
		}
	}
	if sel.Having != nil {
		b.WriteString(" ")
		if err := restoreTo(&b, sel.Having); err != nil {
			return "", err
		}
	}
	if sel.GroupBy == nil && aggregates(sel) {
		b.WriteString(" /* aggregate */")
	}
	return b.String(), nil
}

// aggregates reports whether the select list, HAVING or ORDER BY hold an
// aggregate function outside a subquery.
func aggregates(sel *ast.SelectStmt) bool {
	v := &aggVisitor{}
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr.Accept(v)
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	return v.found
}

type aggVisitor struct{ found bool }

func (v *aggVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.AggregateFuncExpr:
		v.found = true
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, v.found
}

func (v *aggVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// nondeterministic functions give another value in the shared statement
// than in the candidate's own.
var nondeterministic = map[string]bool{
	"rand": true, "uuid": true, "uuid_short": true, "sysdate": true,
	"connection_id": true, "row_count": true, "found_rows": true, "last_insert_id": true,
}

// derivableExpr refuses expressions whose value could differ between the
// shared statement and the candidate: subqueries, window functions,
// variables, parameters and nondeterministic functions.
func derivableExpr(e ast.ExprNode) error {
	v := &derivableVisitor{}
	e.Accept(v)
	return v.err
}

type derivableVisitor struct{ err error }

func (v *derivableVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		v.err = fmt.Errorf("a subquery")
	case *ast.WindowFuncExpr:
		v.err = fmt.Errorf("a window function")
	case *ast.VariableExpr, *ast.DefaultExpr, *ast.ValuesExpr, ast.ParamMarkerExpr:
		v.err = fmt.Errorf("a variable or parameter")
	case *ast.FuncCallExpr:
		if nondeterministic[x.FnName.L] {
			v.err = fmt.Errorf("the nondeterministic function %s", x.FnName.O)
		}
	}
	return n, v.err != nil
}

func (v *derivableVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.err == nil }

// columnOutsideAggregate reports whether e names a column outside an
// aggregate function.
func columnOutsideAggregate(e ast.ExprNode) bool {
	v := &outsideAggVisitor{}
	e.Accept(v)
	return v.found
}

type outsideAggVisitor struct{ found bool }

func (v *outsideAggVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.AggregateFuncExpr:
		return n, true
	case *ast.ColumnNameExpr:
		v.found = true
	}
	return n, v.found
}

func (v *outsideAggVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// unqualifiedNames adds the lower-case names of the columns e names
// without a table.
func unqualifiedNames(e ast.ExprNode, into map[string]bool) {
	e.Accept(&nameVisitor{into: into})
}

type nameVisitor struct{ into map[string]bool }

func (v *nameVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Table.L == "" {
		v.into[c.Name.Name.L] = true
	}
	return n, false
}

func (v *nameVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// splitText cuts the original text into the select fields and the part from
// FROM up to ORDER BY or LIMIT, and checks the cut against the parse.
func splitText(sql string, sel *ast.SelectStmt) ([]scanField, string, error) {
	fs := sel.Fields.Fields
	start := fs[0].Offset
	if !selectHead(sql[:start]) {
		return nil, "", fmt.Errorf("unexpected text before the select list")
	}
	pieces, from, end := scanTopLevel(sql, start)
	if from < 0 || len(pieces) != len(fs) {
		return nil, "", fmt.Errorf("select list not where the parser put it")
	}
	fields := make([]scanField, len(fs))
	for i, f := range fs {
		text := strings.TrimSpace(sql[pieces[i][0]:pieces[i][1]])
		if pieces[i][0]+strings.Index(sql[pieces[i][0]:pieces[i][1]], text) != f.Offset || hasComment(text) {
			return nil, "", fmt.Errorf("select field %d not where the parser put it", i+1)
		}
		sf := scanField{text: text, alias: f.AsName.L}
		var b strings.Builder
		if err := restoreTo(&b, f); err != nil {
			return nil, "", err
		}
		sf.restored = b.String()
		b.Reset()
		if err := restoreTo(&b, f.Expr); err != nil {
			return nil, "", err
		}
		sf.expr = b.String()
		if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
			sf.column = c.Name.Name.L
		}
		fields[i] = sf
	}
	tail := strings.TrimRight(sql[from:end], " \t\r\n;")
	return fields, tail, nil
}

// selectHead reports whether head is "SELECT" with at most DISTINCT or ALL.
func selectHead(head string) bool {
	words := strings.Fields(strings.ToUpper(head))
	switch len(words) {
	case 1:
		return words[0] == "SELECT"
	case 2:
		return words[0] == "SELECT" && (words[1] == "DISTINCT" || words[1] == "DISTINCTROW" || words[1] == "ALL")
	}
	return false
}

func hasComment(s string) bool {
	return strings.Contains(s, "--") || strings.Contains(s, "#") || strings.Contains(s, "/*")
}

// scanTopLevel reads sql from start, outside quotes, comments and
// parentheses: the byte ranges of the comma-separated select fields up to
// the word FROM, the offset of FROM (-1 when none) and the offset where
// ORDER BY or LIMIT start (len(sql) when neither does).
func scanTopLevel(sql string, start int) (pieces [][2]int, from, end int) {
	from, end = -1, len(sql)
	pieceStart := start
	sc := &sqlscan.Scanner{Src: sql, Mode: sqlscan.MySQL, Pos: start}
	for t := range sc.All() {
		if t.Kind != sqlscan.Code {
			continue
		}
		switch i, c := t.Start, sql[t.Start]; {
		case c == ',' && t.Depth == 0 && from < 0:
			pieces = append(pieces, [2]int{pieceStart, i})
			pieceStart = i + 1
		case isWordByte(c) && (i == 0 || !isWordByte(sql[i-1]) && sql[i-1] != '.'):
			j := wordEnd(sql, i)
			if t.Depth == 0 {
				switch w := strings.ToUpper(sql[i:j]); {
				case w == "FROM" && from < 0:
					pieces = append(pieces, [2]int{pieceStart, i})
					from = i
				case (w == "ORDER" || w == "LIMIT") && from >= 0:
					return pieces, from, i
				}
			}
			sc.Pos = j
		}
	}
	return pieces, from, end
}

// wordEnd is the offset after the word that starts at sql[i].
func wordEnd(sql string, i int) int {
	for i < len(sql) && isWordByte(sql[i]) {
		i++
	}
	return i
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// readOrder resolves ORDER BY items the way MySQL does: a position or a
// bare name of a select field (alias first) is that field; anything else is
// an expression over the FROM clause, which must not name an alias.
func readOrder(sel *ast.SelectStmt, fields []scanField) ([]orderItem, error) {
	if sel.OrderBy == nil {
		return nil, nil
	}
	aliases := map[string]bool{}
	for _, f := range fields {
		if f.alias != "" {
			aliases[f.alias] = true
		}
	}
	var items []orderItem
	for _, it := range sel.OrderBy.Items {
		item := orderItem{field: -1, desc: it.Desc}
		switch e := it.Expr.(type) {
		case *ast.PositionExpr:
			if e.P != nil || e.N < 1 || e.N > len(fields) {
				return nil, fmt.Errorf("ORDER BY position %d", e.N)
			}
			item.field = e.N - 1
		case ast.ValueExpr:
			return nil, fmt.Errorf("ORDER BY a constant")
		case *ast.ColumnNameExpr:
			if e.Name.Table.L == "" {
				f, err := fieldNamed(fields, e.Name.Name.L)
				if err != nil {
					return nil, err
				}
				item.field = f
			}
		}
		if item.field < 0 {
			if err := derivableExpr(it.Expr); err != nil {
				return nil, err
			}
			names := map[string]bool{}
			unqualifiedNames(it.Expr, names)
			for n := range names {
				if aliases[n] {
					return nil, fmt.Errorf("ORDER BY an expression of the alias %s", n)
				}
			}
			var b strings.Builder
			if err := restoreTo(&b, it.Expr); err != nil {
				return nil, err
			}
			item.expr = b.String()
			for i, f := range fields {
				if f.expr == item.expr {
					item.field = i
					break
				}
			}
		}
		if sel.Distinct && item.field < 0 {
			// The server would order each distinct row by a value of one
			// of the rows it stands for.
			return nil, fmt.Errorf("DISTINCT ordered by a column it does not show")
		}
		items = append(items, item)
	}
	return items, nil
}

// fieldNamed finds the select field an unqualified ORDER BY name refers to:
// the field with that alias or the bare column of that name; -1 when none
// does (the name is then a column of the FROM clause). A name that two
// fields answer to is refused: which one MySQL picks is not worth guessing.
func fieldNamed(fields []scanField, name string) (int, error) {
	found := -1
	for i, f := range fields {
		if f.alias == name || f.alias == "" && f.column == name {
			if found >= 0 {
				return -1, fmt.Errorf("ORDER BY %s names several fields", name)
			}
			found = i
		}
	}
	return found, nil
}

// readLimit reads LIMIT count, LIMIT offset, count and LIMIT count OFFSET offset.
func readLimit(l *ast.Limit) (offset, count int, err error) {
	if l == nil {
		return 0, -1, nil
	}
	if count, err = literalInt(l.Count); err != nil {
		return 0, 0, err
	}
	if l.Offset != nil {
		if offset, err = literalInt(l.Offset); err != nil {
			return 0, 0, err
		}
	}
	return offset, count, nil
}

func literalInt(e ast.ExprNode) (int, error) {
	v, ok := e.(ast.ValueExpr)
	if !ok {
		return 0, fmt.Errorf("LIMIT is not a number")
	}
	switch n := v.GetValue().(type) {
	case int64:
		if n >= 0 && n <= 1<<31 {
			return int(n), nil
		}
	case uint64:
		if n <= 1<<31 {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("LIMIT %v is not a row count", v.GetValue())
}

// buildScan renders the shared statement of a group with equal keys and
// checks that it parses to what was meant.
func buildScan(group []*scanParts) (sharedScan, error) {
	var texts, restored []string
	col := map[string]int{}
	add := func(text, rest string) int {
		if i, ok := col[text]; ok {
			return i
		}
		col[text] = len(texts)
		texts = append(texts, text)
		restored = append(restored, rest)
		return len(texts) - 1
	}
	// An ORDER BY expression that some candidate selects is that column.
	exprCol := map[string]int{}
	for _, p := range group {
		for _, f := range p.fields {
			if _, ok := exprCol[f.expr]; !ok {
				exprCol[f.expr] = add(f.text, f.restored)
			}
		}
	}
	scan := sharedScan{}
	for _, p := range group {
		m := scanMember{sql: p.sql, distinct: p.distinct, offset: p.offset, count: p.count}
		for _, f := range p.fields {
			m.cols = append(m.cols, add(f.text, f.restored))
		}
		for _, o := range p.order {
			k := orderKey{desc: o.desc}
			if o.field >= 0 {
				k.col = m.cols[o.field]
			} else if c, ok := exprCol[o.expr]; ok {
				k.col = c
			} else {
				k.col = add(o.expr, o.expr)
			}
			m.order = append(m.order, k)
		}
		scan.members = append(scan.members, m)
	}
	scan.sql = "SELECT " + strings.Join(texts, ",\n       ") + "\n" + group[0].from
	scan.width = len(texts)
	if err := checkScan(scan.sql, group[0].key, restored); err != nil {
		return sharedScan{}, fmt.Errorf("shared statement: %w", err)
	}
	return scan, nil
}

// checkScan parses the shared statement back: the same FROM, WHERE, GROUP
// BY and HAVING as its candidates, and the intended fields.
func checkScan(sql, key string, fields []string) error {
	st, err := sqlguard.Check(sql)
	if err != nil {
		return err
	}
	sel, ok := st.Node.(*ast.SelectStmt)
	if !ok || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct {
		return fmt.Errorf("not the plain SELECT meant")
	}
	k, err := readKey(sel)
	if err != nil {
		return err
	}
	if k != key {
		return fmt.Errorf("reads other rows: %s", k)
	}
	if len(sel.Fields.Fields) != len(fields) {
		return fmt.Errorf("%d fields instead of %d", len(sel.Fields.Fields), len(fields))
	}
	for i, f := range sel.Fields.Fields {
		var b strings.Builder
		if f.Expr != nil {
			if err := restoreTo(&b, f); err != nil {
				return err
			}
		}
		if b.String() != fields[i] {
			return fmt.Errorf("field %d is %s instead of %s", i+1, b.String(), fields[i])
		}
	}
	return nil
}

// restoreTo renders n as SQL: quoted names, and strings whose backslashes
// are escaped, since an ORDER BY expression may run as written here.
func restoreTo(b *strings.Builder, n ast.Node) error {
	return n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags|format.RestoreStringEscapeBackslash, b))
}
