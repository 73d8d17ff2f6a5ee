package sqlshape

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// The parsed expressions behind a Shape's canonical strings. Explanations
// read these trees instead of parsing the strings back: the canonical text
// is lossy (operators as words, literals bare), the tree is not. Each tree
// is a new one, never a node of the statement, with the columns the
// canonical text names: table aliases resolved to table names,
// unqualified columns to their table where the query says which.
//
// A tree stands exactly for its canonical string: it reads as the string
// would read once parsed (COUNT(1) as COUNT(*), a literal the string
// writes bare as a bare name, text lower-case), so that an explanation
// from trees says what one from strings says. A Shape built without trees
// (decoded, or assembled by hand) is explained from its strings.

// expr is canon for the parts a Shape keeps (outputs, filters, groups,
// orders): it also keeps the part's tree, under its canonical string.
func (r *reader) expr(e ast.ExprNode, sc *scope) string {
	s := r.canon(e, sc)
	if _, ok := r.shape.exprs[s]; !ok {
		if n := r.node(e, sc); n != nil {
			if r.shape.exprs == nil {
				r.shape.exprs = map[string]ast.ExprNode{}
			}
			r.shape.exprs[s] = n
		}
	}
	return s
}

// exprNode is the tree kept for a canonical string, nil when there is
// none.
func (s *Shape) exprNode(canonical string) ast.ExprNode {
	if s == nil || s.exprs == nil {
		return nil
	}
	return s.exprs[canonical]
}

// ExprNode is the parsed expression behind one of the Shape's canonical
// strings (an Output's or Order's Expr, a Filter's Expr, a GroupBy key),
// aliases resolved to table names; nil for a Shape read from storage.
// The tree is the Shape's: read it, do not change it.
func (s *Shape) ExprNode(canonical string) ast.ExprNode { return s.exprNode(canonical) }

// node builds the tree of e as canon prints it; nil when e cannot be
// built (canon then printed "?").
func (r *reader) node(e ast.ExprNode, sc *scope) ast.ExprNode {
	switch x := unparen(e).(type) {
	case *ast.ColumnNameExpr:
		return columnNode(r.resolveColumn(x.Name, sc))
	case *ast.AggregateFuncExpr:
		args, ok := r.nodes(x.Args, sc)
		if !ok {
			return nil
		}
		if strings.EqualFold(x.F, "count") && (len(args) == 0 || len(args) == 1 && isOne(args[0])) {
			args = []ast.ExprNode{ast.NewValueExpr(1, "", "")} // COUNT(*)
		}
		return &ast.AggregateFuncExpr{F: strings.ToUpper(x.F), Args: args, Distinct: x.Distinct}
	case *ast.FuncCallExpr:
		args, ok := r.nodes(x.Args, sc)
		if !ok {
			return nil
		}
		return &ast.FuncCallExpr{Tp: x.Tp, Schema: x.Schema, FnName: ast.NewCIStr(strings.ToUpper(x.FnName.O)), Args: args}
	case *ast.BinaryOperationExpr:
		l, r2 := r.node(x.L, sc), r.node(x.R, sc)
		if l == nil || r2 == nil {
			return nil
		}
		return &ast.BinaryOperationExpr{Op: x.Op, L: l, R: r2}
	case *ast.SubqueryExpr:
		return columnNode("subquery") // canon's "(subquery)"
	case *ast.TimeUnitExpr:
		return &ast.TimeUnitExpr{Unit: x.Unit} // "month" in DATE_SUB(d, 6, month)
	}
	if v, ok := literal(unparen(e)); ok {
		return literalNode(v)
	}
	return r.restoredNode(e, sc)
}

func (r *reader) nodes(in []ast.ExprNode, sc *scope) ([]ast.ExprNode, bool) {
	out := make([]ast.ExprNode, len(in))
	for i, a := range in {
		if out[i] = r.node(a, sc); out[i] == nil {
			return nil, false
		}
	}
	return out, true
}

// columnNode is "table.column", or a bare name.
func columnNode(tc string) ast.ExprNode {
	c := &ast.ColumnName{}
	if i := strings.LastIndexByte(tc, '.'); i > 0 {
		c.Table, c.Name = ast.NewCIStr(tc[:i]), ast.NewCIStr(tc[i+1:])
	} else {
		c.Name = ast.NewCIStr(tc)
	}
	return &ast.ColumnNameExpr{Name: c}
}

// literalNode is a canonical literal as the canonical text reads: numbers
// and NULL as values, text (written bare, lower-case) as a bare name.
func literalNode(v string) ast.ExprNode {
	if v == "null" {
		return ast.NewValueExpr(nil, "", "")
	}
	if neg, ok := strings.CutPrefix(v, "-"); ok && isNumeric(neg) {
		if n := numberNode(neg); n != nil {
			return &ast.UnaryOperationExpr{Op: opcode.Minus, V: n}
		}
	}
	if n := numberNode(v); n != nil {
		return n
	}
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(v)}}
}

func numberNode(v string) ast.ExprNode {
	if !isNumeric(v) || strings.HasPrefix(v, "-") {
		return nil
	}
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ast.NewValueExpr(i, "", "")
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return ast.NewValueExpr(f, "", "")
	}
	return nil
}

func isOne(n ast.ExprNode) bool { return isNum(n, 1) }

// restoredNode copies the expressions canon prints as SQL (CASE, LIKE,
// IS NULL, CAST…): printed lower-case as canon prints them, parsed again,
// and its qualified columns' aliases resolved to table names.
func (r *reader) restoredNode(e ast.ExprNode, sc *scope) ast.ExprNode {
	var b strings.Builder
	if err := restore(&b, e); err != nil {
		return nil
	}
	n, ok := parseOne(parser.New(), strings.ToLower(b.String()))
	if !ok {
		return nil
	}
	n.Accept(&aliasResolver{sc: sc})
	return n
}

// aliasResolver names the tables of qualified columns in a tree of its own.
type aliasResolver struct{ sc *scope }

func (v *aliasResolver) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Table.L != "" {
		c.Name.Table = ast.NewCIStr(v.sc.table(c.Name.Table.O))
	}
	return n, false
}

func (v *aliasResolver) Leave(n ast.Node) (ast.Node, bool) { return n, true }
