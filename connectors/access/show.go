package access

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

var _ warehouse.ResultFilter = (*Policy)(nil)

// FilterResult removes from the result of a SHOW statement (or DESCRIBE)
// the rows that name a hidden table or column: SHOW TABLES and SHOW TABLE
// STATUS lose hidden tables, SHOW COLUMNS and SHOW INDEX hidden columns.
// Check has already refused the statements that name what is hidden. A
// result whose columns are not the expected ones is refused rather than
// passed on unfiltered.
func (p *Policy) FilterResult(stmt ast.StmtNode, res *warehouse.Result) (*warehouse.Result, error) {
	if !p.Restricts() || res == nil {
		return res, nil
	}
	if ex, ok := stmt.(*ast.ExplainStmt); ok {
		show, isShow := ex.Stmt.(*ast.ShowStmt)
		if !isShow {
			return res, nil // a plan: names and numbers of a statement Check let through
		}
		stmt = show
	}
	s, ok := stmt.(*ast.ShowStmt)
	if !ok {
		return res, nil
	}
	var keep func(row []any) bool
	switch s.Tp {
	case ast.ShowDatabases, ast.ShowCreateTable:
		return res, nil
	case ast.ShowTables:
		keep = p.keepTable(res, 0)
	case ast.ShowTableStatus:
		keep = p.keepTable(res, columnIndex(res, "name"))
	case ast.ShowColumns:
		keep = p.keepColumn(res, s, columnIndex(res, "field"))
	case ast.ShowIndex:
		i := columnIndex(res, "column_name")
		col := p.keepColumn(res, s, i)
		keep = func(row []any) bool {
			// A functional index has no column but an expression, which may
			// name a hidden one.
			return col(row) && (i < 0 || row[i] != nil || len(p.hiddenColumnsOf(strings.ToLower(s.Table.Name.L))) == 0)
		}
	default:
		return nil, refusal("This warehouse has access rules, and this SHOW statement's result can't be checked against them.")
	}
	if keep == nil {
		return nil, refusal("This warehouse has access rules, and the server's answer to this SHOW statement has columns the bot does not know, so it can't be filtered.")
	}
	out := *res
	out.Rows = nil
	for _, row := range res.Rows {
		if keep(row) {
			out.Rows = append(out.Rows, row)
		}
	}
	return &out, nil
}

func columnIndex(res *warehouse.Result, name string) int {
	for i, c := range res.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// keepTable keeps the rows whose column i is not a hidden table.
func (p *Policy) keepTable(res *warehouse.Result, i int) func([]any) bool {
	if i < 0 || i >= len(res.Columns) {
		return nil
	}
	return func(row []any) bool {
		return !p.hiddenTables[strings.ToLower(fmt.Sprint(row[i]))]
	}
}

// keepColumn keeps the rows whose column i is not a hidden column of the
// statement's table.
func (p *Policy) keepColumn(res *warehouse.Result, s *ast.ShowStmt, i int) func([]any) bool {
	if i < 0 || s.Table == nil {
		return nil
	}
	lt := s.Table.Name.L
	return func(row []any) bool {
		return !p.isHiddenKey(lt, foldString(fmt.Sprint(row[i])))
	}
}
