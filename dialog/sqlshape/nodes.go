package sqlshape

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// The parsed expressions behind a Shape's canonical strings. Explanations
// read these trees instead of parsing the strings back: the canonical text
// writes operators as words and literals bare, without parentheses, and
// needs repairs (describe.go) to be read at all; the tree keeps the
// structure. Each tree is a copy, never written into the statement's,
// with the columns the canonical text names: table aliases resolved to
// table names, unqualified columns to their table where the query says
// which — also inside the parts canon prints as SQL (CASE, LIKE…), where
// the text keeps the alias.
//
// Otherwise a tree stands for its canonical string as the string reads
// once parsed (COUNT(1) as COUNT(*), a literal the string writes bare as
// a bare name, text lower-case), so that an explanation from trees says
// what one from strings says (TestExplainFromTrees; its differs lists the
// exceptions). A Shape built without trees (decoded, or assembled by
// hand) is explained from its strings.

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
// IS NULL, CAST…) as canon prints them: names and text lower-case, the
// aliases of qualified columns resolved to table names. The copy is made
// by a walk that copies each node before it is entered, so the walk's
// writes of children land in the copy, never in the statement's tree.
func (r *reader) restoredNode(e ast.ExprNode, sc *scope) ast.ExprNode {
	n, ok := e.Accept(&copier{sc: sc})
	if !ok {
		return nil
	}
	x, _ := n.(ast.ExprNode)
	return x
}

// copier copies a tree node by node (see restoredNode).
type copier struct{ sc *scope }

func (c *copier) Enter(n ast.Node) (ast.Node, bool) {
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return n, false
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	// The walk writes children into slices (Args, WhenClauses): the
	// copy gets its own.
	for e, i := cp.Elem(), 0; i < e.NumField(); i++ {
		if f := e.Field(i); f.Kind() == reflect.Slice && !f.IsNil() && f.CanSet() {
			s := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
			reflect.Copy(s, f)
			f.Set(s)
		}
	}
	switch x := cp.Interface().(type) {
	case *ast.ColumnName:
		if x.Table.L != "" {
			x.Table = ast.NewCIStr(c.sc.table(x.Table.O))
		}
		x.Schema, x.Name = ast.NewCIStr(x.Schema.L), ast.NewCIStr(x.Name.L)
		return x, false
	case ast.ValueExpr:
		switch s := x.GetValue().(type) {
		case string:
			x.SetValue(strings.ToLower(s))
		case []byte:
			x.SetValue(strings.ToLower(string(s)))
		}
		return x, false
	case ast.Node:
		return x, false
	}
	return n, false
}

func (c *copier) Leave(n ast.Node) (ast.Node, bool) { return n, true }
