package sqlshape

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// Ops are the operations a statement performs, read from its parsed
// tree, at any depth: what a question's words such as "highest",
// "average", "not" or "before" ask of a reading.
type Ops struct {
	// Aggs are the aggregate functions used, upper-case ("MAX", "COUNT").
	Aggs map[string]bool
	// Desc is set when an ORDER BY sorts some item descending; LastAsc
	// when the statement's last ORDER BY sorts nothing descending.
	Desc, LastAsc bool
	// Ordered: an ORDER BY; Limited: a LIMIT.
	Ordered, Limited bool
	// Negated: NOT, !=, NOT IN/EXISTS/LIKE/BETWEEN, IS [NOT] NULL, EXCEPT,
	// or a LEFT JOIN (rows without a match).
	Negated bool
	// Compared: <, <=, >, >=, BETWEEN or HAVING.
	Compared bool
	// Deduped: DISTINCT (in the select list or an aggregate) or GROUP BY.
	Deduped bool
	// Dated: a date function (DATE_ADD, DATE_SUB, DATEDIFF, TIMESTAMPDIFF,
	// YEAR, MONTH) or an INTERVAL.
	Dated bool
	// Numbers are the numbers the statement writes, in its numeric
	// literals and inside its string literals ("2024" in '2024-01-01').
	Numbers map[string]bool
}

// ReadOps reads the operations of a statement.
func ReadOps(statement string) (*Ops, error) {
	st, err := sqlguard.Check(statement)
	if err != nil {
		return nil, fmt.Errorf("read query operations: %w", err)
	}
	v := &opsVisitor{ops: &Ops{Aggs: map[string]bool{}, Numbers: map[string]bool{}}}
	st.Node.Accept(v)
	return v.ops, nil
}

type opsVisitor struct{ ops *Ops }

func (v *opsVisitor) Enter(n ast.Node) (ast.Node, bool) {
	o := v.ops
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		o.Aggs[strings.ToUpper(x.F)] = true
		o.Deduped = o.Deduped || x.Distinct
	case *ast.OrderByClause:
		o.Ordered, o.LastAsc = true, true
		for _, it := range x.Items {
			if it.Desc {
				o.Desc, o.LastAsc = true, false
			}
		}
	case *ast.Limit:
		o.Limited = true
	case *ast.UnaryOperationExpr:
		o.Negated = o.Negated || x.Op == opcode.Not || x.Op == opcode.Not2
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.NE:
			o.Negated = true
		case opcode.LT, opcode.LE, opcode.GT, opcode.GE:
			o.Compared = true
		}
	case *ast.PatternInExpr:
		o.Negated = o.Negated || x.Not
	case *ast.ExistsSubqueryExpr:
		o.Negated = o.Negated || x.Not
	case *ast.PatternLikeOrIlikeExpr:
		o.Negated = o.Negated || x.Not
	case *ast.BetweenExpr:
		o.Compared = true
		o.Negated = o.Negated || x.Not
	case *ast.IsNullExpr:
		o.Negated = true
	case *ast.Join:
		o.Negated = o.Negated || x.Tp == ast.LeftJoin
	case *ast.SelectStmt:
		o.Deduped = o.Deduped || x.Distinct || x.GroupBy != nil
		o.Compared = o.Compared || x.Having != nil
		if x.AfterSetOperator != nil && (*x.AfterSetOperator == ast.Except || *x.AfterSetOperator == ast.ExceptAll) {
			o.Negated = true
		}
	case *ast.SetOprSelectList:
		if x.AfterSetOperator != nil && (*x.AfterSetOperator == ast.Except || *x.AfterSetOperator == ast.ExceptAll) {
			o.Negated = true
		}
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "date_add", "date_sub", "adddate", "subdate", "datediff", "timestampdiff", "year", "month":
			o.Dated = true
		}
	case *ast.TimeUnitExpr:
		o.Dated = true
	case *driver.ValueExpr:
		switch val := x.GetValue().(type) {
		case string:
			for _, t := range strings.FieldsFunc(val, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' }) {
				o.Numbers[strings.Trim(t, ".")] = true
			}
		case nil:
		default:
			o.Numbers[fmt.Sprint(val)] = true
		}
	}
	return n, false
}

func (v *opsVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
