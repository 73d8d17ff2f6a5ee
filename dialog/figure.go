package dialog

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// The figure beside the name. A ranking or a superlative ("top 5
// customers by revenue", "which branch has the most members?") is read
// as the rows it picks: a name, or an id, name and email. People asking
// "who is top" almost always want the number that makes them top, so the
// answer shows the figure the reading is ordered by beside its rows,
// whichever engine wrote it. The reading runs as it is — its rows are the
// answer, exactly as that statement returns them, ties included — and
// beside it, at the same time, the reading with the ordering expression
// added to its select list and its limit widened; each row of the
// reading takes the figure of its equal there. Answer.Reading() gives the
// reading's own result back (what `bot eval` compares with a gold
// query); without a figure for every row the answer is the reading alone.

// figureMargin widens a ranking's limit in the figure statement, so that
// rows tied at the reading's limit (which the server may order either way)
// are among its rows.
const figureMargin = 200

// runAnswer runs the reading sql for an answer and, when it ranks by a
// figure it does not show, that figure beside each row (added 1, fig the
// figure statement).
func (m *Manager) runAnswer(ctx context.Context, sql string) (res *sqlresult.Result, fig string, added int, err error) {
	figSQL, ok := figureStatement(sql)
	if !ok {
		res, err = m.deps.Exec.Query(ctx, sql, m.cfg.AnswerLimits)
		if err == nil {
			if shape, perr := sqlshape.Parse(sql, m.labels.TableOf); perr == nil {
				orderGroups(res, shape) // grouporder.go
			}
		}
		return res, "", 0, err
	}
	var wg sync.WaitGroup
	var fres *sqlresult.Result
	var ferr error
	wg.Go(func() { fres, ferr = m.deps.Exec.Query(ctx, figSQL, m.cfg.AnswerLimits) })
	res, err = m.deps.Exec.Query(ctx, sql, m.cfg.AnswerLimits)
	wg.Wait()
	if err != nil {
		return nil, "", 0, err
	}
	if ferr != nil {
		m.log.Debug("the ranking's figure did not run; answering without it", "sql", figSQL, "err", ferr)
		return res, "", 0, nil
	}
	merged, ok := attachFigure(res, fres)
	if !ok {
		m.log.Debug("the ranking's figure does not line up with its rows; answering without it", "sql", figSQL)
		return res, "", 0, nil
	}
	return merged, figSQL, 1, nil
}

// attachFigure adds fig's last column to the reading's rows: each row
// takes the figure of the next row of fig with the same values. Both are
// ordered by that figure, so rows that look the same meet their own
// figures in order. ok is false when a row finds none.
func attachFigure(reading, fig *sqlresult.Result) (*sqlresult.Result, bool) {
	n := len(reading.Columns)
	if len(fig.Columns) != n+1 {
		return nil, false
	}
	key := func(r []any) string {
		var b strings.Builder
		for j := 0; j < n && j < len(r); j++ {
			b.WriteString(canonicalCell(r[j]))
			b.WriteByte(0x1f)
		}
		return b.String()
	}
	figures := map[string][]any{}
	for _, r := range fig.Rows {
		if len(r) == n+1 {
			figures[key(r)] = append(figures[key(r)], r[n])
		}
	}
	out := *reading
	out.Columns = append(append([]sqlresult.Column(nil), reading.Columns...), fig.Columns[n])
	out.Rows = make([][]any, len(reading.Rows))
	for i, r := range reading.Rows {
		k := key(r)
		vs := figures[k]
		if len(vs) == 0 {
			return nil, false
		}
		figures[k] = vs[1:]
		out.Rows[i] = append(append(make([]any, 0, n+1), r...), vs[0])
	}
	return &out, true
}

// figureStatement is figureSQL with the reading's limit widened by
// figureMargin (from its first row: an offset is counted in).
func figureStatement(sql string) (string, bool) {
	fig, ok := figureSQL(sql)
	if !ok {
		return "", false
	}
	st, err := sqlguard.Check(fig)
	if err != nil {
		return "", false
	}
	sel, ok := st.Node.(*ast.SelectStmt)
	if !ok {
		return "", false
	}
	if sel.Limit == nil {
		return fig, true
	}
	offset, count, err := readLimit(sel.Limit)
	if err != nil {
		return "", false
	}
	at, ok := limitStart(fig)
	if !ok {
		return "", false
	}
	return strings.TrimRight(fig[:at], " \t\r\n") + "\nLIMIT " + strconv.Itoa(offset+count+figureMargin), true
}

// limitStart is where the top-level LIMIT clause of sql starts.
func limitStart(sql string) (int, bool) {
	_, from, end := scanTopLevel(sql, 0)
	if from < 0 {
		return 0, false
	}
	sc := &sqlscan.Scanner{Src: sql, Mode: sqlscan.Quotes | sqlscan.Backslash, Pos: end}
	for t := range sc.All() {
		if i := t.Start; t.Kind == sqlscan.Code && t.Depth == 0 && isWordByte(sql[i]) && (i == 0 || !isWordByte(sql[i-1])) {
			j := wordEnd(sql, i)
			if strings.EqualFold(sql[i:j], "LIMIT") {
				return i, true
			}
			sc.Pos = j
		}
	}
	return 0, false
}

// figureSQL returns the reading sql with the expression it ranks by added
// as the last select-list item, when the reading ranks (an aggregate
// order, or an order with a LIMIT) by something it does not show, and
// adding it cannot change the rows: no DISTINCT, no set operation, no *
// in the list. ok is false otherwise.
func figureSQL(sql string) (string, bool) {
	st, err := sqlguard.Check(sql)
	if err != nil {
		return "", false
	}
	sel, ok := st.Node.(*ast.SelectStmt)
	if !ok || sel.Distinct || sel.OrderBy == nil || len(sel.OrderBy.Items) == 0 || sel.Fields == nil {
		return "", false
	}
	first := sel.OrderBy.Items[0].Expr
	aggregated := hasAggregate(first)
	if sel.Limit == nil && !aggregated {
		return "", false // a sorted list, not a ranking
	}
	switch e := first.(type) {
	case *ast.PositionExpr, ast.ValueExpr:
		return "", false
	case *ast.ColumnNameExpr:
		if e.Name.Table.L == "" && aliasShown(sel, e.Name.Name.L) {
			return "", false // ORDER BY an alias of a shown item
		}
	}
	if hasSubquery(first) {
		return "", false
	}
	key := restored(first)
	if key == "" {
		return "", false
	}
	taken := map[string]bool{}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return "", false
		}
		if restored(f.Expr) == key {
			return "", false // shown already
		}
		taken[strings.ToLower(f.AsName.L)] = true
		if c, ok := f.Expr.(*ast.ColumnNameExpr); ok {
			taken[c.Name.Name.L] = true
		}
	}
	text, ok := orderItemText(sql)
	if !ok {
		return "", false
	}
	_, from, _ := scanTopLevel(sql, 0)
	if from <= 0 {
		return "", false
	}
	head := strings.TrimRight(sql[:from], " \t\r\n")
	gap := sql[len(head):from]
	if gap == "" {
		gap = " "
	}
	out := head + ", " + text + " AS " + figureAlias(first, taken) + gap + sql[from:]
	// The statement must read as the reading plus that one item.
	chk, err := sqlguard.Check(out)
	if err != nil {
		return "", false
	}
	csel, ok := chk.Node.(*ast.SelectStmt)
	if !ok || csel.Fields == nil || len(csel.Fields.Fields) != len(sel.Fields.Fields)+1 || restored(csel.Fields.Fields[len(sel.Fields.Fields)].Expr) != key {
		return "", false
	}
	return out, true
}

func aliasShown(sel *ast.SelectStmt, name string) bool {
	for _, f := range sel.Fields.Fields {
		if f.AsName.L == name {
			return true
		}
	}
	return false
}

// orderItemText is the text of the first ORDER BY item of the top-level
// SELECT, as written, without ASC/DESC.
func orderItemText(sql string) (string, bool) {
	_, from, end := scanTopLevel(sql, 0)
	if from < 0 || end >= len(sql) || !strings.EqualFold(sql[end:min(end+5, len(sql))], "ORDER") {
		return "", false
	}
	i := end + 5
	for i < len(sql) && strings.ContainsRune(" \t\r\n", rune(sql[i])) {
		i++
	}
	if !strings.EqualFold(sql[i:min(i+2, len(sql))], "BY") {
		return "", false
	}
	i += 2
	start, stop := i, len(sql)
	sc := &sqlscan.Scanner{Src: sql, Mode: sqlscan.Quotes | sqlscan.Backslash, Pos: i}
scan:
	for t := range sc.All() {
		if t.Kind != sqlscan.Code || t.Depth != 0 {
			continue
		}
		switch i, c := t.Start, sql[t.Start]; {
		case c == ',' || c == ';':
			stop = i
			break scan
		case isWordByte(c) && !isWordByte(sql[i-1]):
			j := wordEnd(sql, i)
			if w := strings.ToUpper(sql[i:j]); w == "LIMIT" || w == "OFFSET" || w == "FOR" || w == "LOCK" {
				stop = i
				break scan
			}
			sc.Pos = j
		}
	}
	text := strings.TrimSpace(sql[start:stop])
	for _, dir := range []string{"DESC", "ASC"} {
		if len(text) > len(dir) && strings.EqualFold(text[len(text)-len(dir):], dir) && !isWordByte(text[len(text)-len(dir)-1]) {
			text = strings.TrimSpace(text[:len(text)-len(dir)])
		}
	}
	if strings.HasSuffix(strings.ToUpper(text), " NULLS FIRST") || strings.HasSuffix(strings.ToUpper(text), " NULLS LAST") {
		return "", false
	}
	return text, text != ""
}

// leadingColumn is the column an arithmetic expression starts from
// (a.x * b.y / c.z → x), or "" when it starts from anything else.
func leadingColumn(e ast.ExprNode) string {
	for {
		switch x := e.(type) {
		case *ast.ParenthesesExpr:
			e = x.Expr
		case *ast.BinaryOperationExpr:
			switch x.Op {
			case opcode.Mul, opcode.Div, opcode.Plus, opcode.Minus:
				e = x.L
			default:
				return ""
			}
		case *ast.ColumnNameExpr:
			return x.Name.Name.L
		default:
			return ""
		}
	}
}

// figureAlias names the added column after what it computes
// ("total_net_amount", "number_of_rows"), unlike any shown name.
func figureAlias(e ast.ExprNode, taken map[string]bool) string {
	base := "ranked_by"
	switch x := e.(type) {
	case *ast.AggregateFuncExpr:
		col := ""
		fn := strings.ToLower(x.F)
		if len(x.Args) == 1 {
			if c, ok := x.Args[0].(*ast.ColumnNameExpr); ok {
				col = c.Name.Name.L
			} else if fn != "count" {
				// A total of a product or share of a column ("net
				// amount × line share") is named after that column.
				col = leadingColumn(x.Args[0])
			}
		}
		switch {
		case fn == "count" && col == "":
			base = "number_of_rows"
		case fn == "count":
			base = "number_of_" + col
		case fn == "sum" && col != "":
			base = "total_" + col
		case fn == "avg" && col != "":
			base = "average_" + col
		case col != "":
			base = fn + "_" + col
		}
	case *ast.ColumnNameExpr:
		base = x.Name.Name.L
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	return name
}

// hasAggregate says whether an expression computes over groups.
func hasAggregate(e ast.ExprNode) bool {
	v := &aggVisitor{}
	e.Accept(v)
	return v.found
}

func hasSubquery(e ast.ExprNode) bool {
	v := &subqueryVisitor{}
	e.Accept(v)
	return v.found
}

type subqueryVisitor struct{ found bool }

func (v *subqueryVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.WindowFuncExpr:
		v.found = true
	}
	return n, v.found
}

func (v *subqueryVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
