package sqlshape

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// describeNode says what an expression computes, naming columns by their
// labels; parts it cannot read are named by the columns they use.
func describeNode(n ast.ExprNode, l Labels) string {
	switch x := unparen(n).(type) {
	case *ast.ColumnNameExpr:
		return describeColumn(x.Name, l)
	case *ast.FuncCastExpr:
		return describeNode(x.Expr, l) // a conversion says nothing a person asked for
	case *ast.AggregateFuncExpr:
		if s, ok := describeAggregateNode(x, l); ok {
			return s
		}
	case *ast.FuncCallExpr:
		if s, ok := describeCall(x, l); ok {
			return s
		}
	case *ast.BinaryOperationExpr:
		if s, ok := describeArithmetic(x, l); ok {
			return s
		}
	}
	return describeOther(n, l)
}

func describeColumn(c *ast.ColumnName, l Labels) string {
	if c.Table.O == "" {
		if c.Name.L == "subquery" {
			return "the related rows' total" // canon's "(subquery)"
		}
		return strings.ToLower(c.Name.O)
	}
	return labelOf(c.Table.O+"."+c.Name.O, l)
}

// describeOther names what an expression is computed from, or gives its
// text when it uses no column.
func describeOther(n ast.ExprNode, l Labels) string {
	var cols []string
	n.Accept(&columnFinder{found: func(c *ast.ColumnName) {
		if c.Table.O == "" {
			return
		}
		if w := labelOf(c.Table.O+"."+c.Name.O, l); !contains(cols, w) {
			cols = append(cols, w)
		}
	}})
	if len(cols) > 0 {
		return "a value computed from " + JoinAnd(cols)
	}
	var b strings.Builder
	if err := restore(&b, n); err != nil {
		return ""
	}
	return strings.Trim(strings.ToLower(b.String()), "()`")
}

type columnFinder struct{ found func(*ast.ColumnName) }

func (v *columnFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		v.found(c.Name)
	}
	return n, false
}

func (v *columnFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// describeAggregateNode words (F is the name as written) SUM, AVG, MIN, MAX and COUNT, and the
// totals over some rows written as a CASE inside them.
func describeAggregateNode(x *ast.AggregateFuncExpr, l Labels) (string, bool) {
	fn := strings.ToLower(x.F)
	if len(x.Args) != 1 {
		if fn == "count" && x.Distinct {
			return "number of different " + describeOther(x, l), true
		}
		return "", false
	}
	arg := unparen(x.Args[0])
	// COUNT(DISTINCT CASE WHEN segment = 'Enterprise' THEN id END): the
	// different ids of the rows where the condition holds.
	if c, ok := arg.(*ast.CaseExpr); ok && fn == "count" && x.Distinct && c.Value == nil && len(c.WhenClauses) == 1 && (c.ElseClause == nil || isNull(unparen(c.ElseClause))) {
		if then := unparen(c.WhenClauses[0].Result); !isNum(then, 1) {
			return countedThings(then, l) + " where " + describeCond(c.WhenClauses[0].Expr, l), true
		}
	}
	if fn == "sum" || fn == "count" {
		if c, ok := arg.(*ast.CaseExpr); ok {
			if cond, ok := countWhen(c); ok {
				return "number of rows where " + describeCond(cond, l), true
			}
			if fn == "sum" {
				if s, ok := sumWhen(c, l); ok {
					return s, true
				}
			}
		}
	}
	switch fn {
	case "count":
		if isNum(arg, 1) {
			return "number of rows", true // COUNT(*) reads as COUNT(1)
		}
		if x.Distinct {
			return countedThings(arg, l), true
		}
		return "number of " + describeNode(arg, l), true
	case "sum", "avg", "max", "min":
		return aggregateWords[strings.ToUpper(fn)] + " " + describeNode(arg, l), true
	}
	return "", false
}

// countedThings words COUNT(DISTINCT x): the number of the table's rows
// when x is its own id ("id", "member_id" of members), else the number of
// different values of x.
func countedThings(x ast.ExprNode, l Labels) string {
	if c, ok := x.(*ast.ColumnNameExpr); ok && c.Name.Table.O != "" {
		table, col := strings.ToLower(c.Name.Table.O), strings.ToLower(c.Name.Name.O)
		own := strings.TrimSuffix(table, "s")
		if col == "id" || col == own+"_id" || col == table+"_id" {
			return "number of " + l.Table(c.Name.Table.O)
		}
	}
	return "number of different " + describeNode(x, l)
}

// countWhen reads CASE WHEN cond THEN 1 [ELSE 0|NULL] END, the rows where
// cond holds.
func countWhen(c *ast.CaseExpr) (ast.ExprNode, bool) {
	if c.Value != nil || len(c.WhenClauses) != 1 || !isNum(unparen(c.WhenClauses[0].Result), 1) {
		return nil, false
	}
	if e := c.ElseClause; e != nil && !isNum(unparen(e), 0) && !isNull(unparen(e)) {
		return nil, false
	}
	return c.WhenClauses[0].Expr, true
}

// sumWhen words SUM(CASE WHEN state = 'TX' THEN amount END): the total
// over some rows ("total net revenue where ship state is 'tx'").
func sumWhen(c *ast.CaseExpr, l Labels) (string, bool) {
	if c.Value != nil || len(c.WhenClauses) != 1 {
		return "", false
	}
	if e := c.ElseClause; e != nil && !isNum(unparen(e), 0) && !isNull(unparen(e)) {
		return "", false
	}
	w := c.WhenClauses[0]
	b, ok := unparen(w.Expr).(*ast.BinaryOperationExpr)
	if !ok || b.Op != opcode.EQ {
		return "", false
	}
	return "total " + describeNode(w.Result, l) + " where " + describeNode(b.L, l) + " is " + describeValue(b.R, l), true
}

// periodOf words the calls that take a part of a date; the others listed
// keep their argument's meaning.
var periodOf = map[string]string{
	"year": "year of ", "month": "month of ", "quarter": "quarter of ", "week": "week of ", "hour": "hour of ",
	"day": "day of ", "date": "day of ", "yearweek": "week of ", "dayofweek": "weekday of ", "weekday": "weekday of ",
	"lower": "", "upper": "", "trim": "", "abs": "", "round": "",
}

// describeCall words the function calls the engines write: periods of a
// date, date differences and shifts, and the guards around a value.
func describeCall(x *ast.FuncCallExpr, l Labels) (string, bool) {
	fn, args := x.FnName.L, x.Args
	if w, ok := nowWord(x); ok {
		return w, true
	}
	switch {
	case dateArith[fn] && len(args) == 3:
		return describeDateShift(fn, args, l)
	case (fn == "nullif" || fn == "coalesce" || fn == "ifnull") && len(args) == 2 && isNum(unparen(args[1]), 0):
		// NULLIF(x, 0) guards a division; COALESCE(x, 0) is x or nothing.
		return describeNode(args[0], l), true
	case fn == "concat" && len(args) == 3 && isCall(args[0], "year") && isCall(args[2], "quarter") && strings.EqualFold(textOf(args[1]), "-q"):
		return "quarter of " + describeNode(unparen(args[0]).(*ast.FuncCallExpr).Args[0], l), true
	case fn == "date_format" && len(args) == 2:
		return dateFormatUnit(textOf(args[1])) + " of " + describeNode(args[0], l), true
	case fn == "timestampdiff" && len(args) == 3:
		u, ok := args[0].(*ast.TimeUnitExpr)
		if !ok {
			return "", false
		}
		unit := strings.ToLower(u.Unit.String()) + "s"
		if usesNow(args[2]) {
			return unit + " since " + describeNode(args[1], l), true
		}
		return unit + " from " + describeNode(args[1], l) + " to " + describeNode(args[2], l), true
	case fn == "datediff" && len(args) == 2:
		return "days from " + describeNode(args[1], l) + " to " + describeNode(args[0], l), true
	}
	if w, ok := periodOf[fn]; ok && len(args) >= 1 {
		return w + describeNode(args[0], l), true
	}
	return "", false
}

// describeDateShift words DATE_SUB(CURDATE(), INTERVAL 6 MONTH): "6 months
// before today".
func describeDateShift(fn string, args []ast.ExprNode, l Labels) (string, bool) {
	u, ok := args[2].(*ast.TimeUnitExpr)
	n := textOf(args[1])
	if !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return "", false
	}
	unit := strings.ToLower(u.Unit.String())
	if n != "1" {
		unit += "s"
	}
	dir := "before"
	if strings.Contains(fn, "add") {
		dir = "after"
	}
	return n + " " + unit + " " + dir + " " + describeNode(args[0], l), true
}

// dateFormatUnit is the smallest period a DATE_FORMAT pattern keeps.
func dateFormatUnit(format string) string {
	f := strings.ToLower(format)
	for _, u := range [...]struct{ spec, unit string }{{"%d", "day"}, {"%m", "month"}, {"%u", "week"}, {"%y", "year"}} {
		if strings.Contains(f, u.spec) {
			return u.unit
		}
	}
	return "period"
}

// nowWord says the current date and time.
func nowWord(x *ast.FuncCallExpr) (string, bool) {
	switch x.FnName.L {
	case "curdate", "current_date", "utc_date":
		return "today", true
	case "now", "current_timestamp", "sysdate":
		return "now", true
	}
	return "", false
}

// usesNow says whether an expression reads the current date or time.
func usesNow(n ast.ExprNode) bool {
	found := false
	n.Accept(&callFinder{found: func(x *ast.FuncCallExpr) {
		if _, ok := nowWord(x); ok {
			found = true
		}
	}})
	return found
}

type callFinder struct{ found func(*ast.FuncCallExpr) }

func (v *callFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.FuncCallExpr); ok {
		v.found(c)
	}
	return n, false
}

func (v *callFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// arithmetic says the operators of arithmetic.
var arithmetic = map[opcode.Op]string{opcode.Minus: " minus ", opcode.Plus: " plus ", opcode.Div: " per ", opcode.IntDiv: " per ", opcode.Mul: " times "}

// describeArithmetic words a computation; the shapes the engines write
// for shares, percentages, ratios and splits are said as such.
func describeArithmetic(x *ast.BinaryOperationExpr, l Labels) (string, bool) {
	say, ok := arithmetic[x.Op]
	if !ok {
		return "", false
	}
	if x.Op == opcode.Mul && isNum(unparen(x.R), 1) {
		return describeNode(x.L, l), true // x * 1: a cast to decimals
	}
	if x.Op == opcode.Div || x.Op == opcode.IntDiv {
		if s, ok := describeDivision(x, l); ok {
			return s, true
		}
	}
	return describeNode(x.L, l) + say + describeNode(x.R, l), true
}

// describeDivision words the divisions the engines write:
//
//	SUM(CASE WHEN ok THEN 1 ELSE 0 END) / COUNT(*)   share of rows where ok
//	A * 100 / NULLIF(B, 0)                           A as a percentage of B
//	M * W / NULLIF(shares.total, 0)                  M, split by W (grain.go)
//	A * 1 / NULLIF(B, 0)                             A per B
func describeDivision(x *ast.BinaryOperationExpr, l Labels) (string, bool) {
	num, den := unparen(x.L), unparen(x.R)
	if m, ok := num.(*ast.BinaryOperationExpr); ok && m.Op == opcode.Mul && isNum(unparen(m.R), 1) {
		num = unparen(m.L)
	}
	if agg, ok := num.(*ast.AggregateFuncExpr); ok && (strings.EqualFold(agg.F, "sum") || strings.EqualFold(agg.F, "count")) && len(agg.Args) == 1 && isCountRows(den) {
		if c, ok := unparen(agg.Args[0]).(*ast.CaseExpr); ok {
			if cond, ok := countWhen(c); ok {
				return "share of rows where " + describeCond(cond, l), true
			}
		}
	}
	m, ok := unparen(x.L).(*ast.BinaryOperationExpr)
	guarded, isGuard := nullIfZero(den)
	if !ok || m.Op != opcode.Mul || !isGuard {
		return "", false
	}
	switch w := unparen(m.R); {
	case isNum(w, 100):
		return describeNode(m.L, l) + " as a percentage of " + describeNode(guarded, l), true
	case isSharesTotal(guarded) && isNum(w, 1):
		return describeNode(m.L, l) + ", split equally", true
	case isSharesTotal(guarded):
		return describeNode(m.L, l) + ", split by " + describeNode(w, l), true
	}
	return "", false
}

// nullIfZero reads NULLIF(x, 0), a guard against dividing by zero.
func nullIfZero(n ast.ExprNode) (ast.ExprNode, bool) {
	c, ok := unparen(n).(*ast.FuncCallExpr)
	if !ok || c.FnName.L != "nullif" || len(c.Args) != 2 || !isNum(unparen(c.Args[1]), 0) {
		return nil, false
	}
	return c.Args[0], true
}

// isCountRows reads COUNT(*), guarded or not.
func isCountRows(n ast.ExprNode) bool {
	for {
		g, ok := nullIfZero(n)
		if !ok {
			break
		}
		n = g
	}
	agg, ok := unparen(n).(*ast.AggregateFuncExpr)
	return ok && strings.EqualFold(agg.F, "count") && !agg.Distinct && len(agg.Args) == 1 && isNum(unparen(agg.Args[0]), 1)
}

// isSharesTotal is the total of the weights a split divides by.
func isSharesTotal(n ast.ExprNode) bool {
	c, ok := unparen(n).(*ast.ColumnNameExpr)
	return ok && c.Name.Table.L == "shares" && c.Name.Name.L == "total"
}

// cmpWords say a comparison.
var cmpWords = map[opcode.Op]string{opcode.EQ: "is", opcode.NullEQ: "is", opcode.NE: "is not",
	opcode.GE: "is at least", opcode.LE: "is at most", opcode.GT: "is above", opcode.LT: "is below"}

// describeCond says a condition in words.
func describeCond(n ast.ExprNode, l Labels) string {
	switch x := unparen(n).(type) {
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.LogicOr:
			return describeCond(x.L, l) + " or " + describeCond(x.R, l)
		case opcode.LogicAnd:
			return describeCond(x.L, l) + " and " + describeCond(x.R, l)
		}
		if w, ok := cmpWords[x.Op]; ok {
			return describeSide(x.L, l) + " " + w + " " + describeValue(x.R, l)
		}
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Not || x.Op == opcode.Not2 {
			return "not (" + describeCond(x.V, l) + ")"
		}
	case *ast.IsNullExpr:
		if x.Not {
			return describeSide(x.Expr, l) + " is given"
		}
		return describeSide(x.Expr, l) + " is empty"
	case *ast.PatternLikeOrIlikeExpr:
		return describeSide(x.Expr, l) + " " + describeLike(describeValue(x.Pattern, l), x.Not)
	case *ast.PatternInExpr:
		if x.Sel != nil {
			break
		}
		var vs []string
		for _, v := range x.List {
			vs = append(vs, describeValue(v, l))
		}
		if x.Not {
			return describeSide(x.Expr, l) + " is none of " + strings.Join(vs, ", ")
		}
		return describeSide(x.Expr, l) + " is " + joinOr(vs)
	case *ast.BetweenExpr:
		is := " is between "
		if x.Not {
			is = " is not between "
		}
		return describeSide(x.Expr, l) + is + describeValue(x.Left, l) + " and " + describeValue(x.Right, l)
	}
	return describeNode(n, l)
}

// describeLike words a pattern: "contains 'ann'", "starts with 'j'".
func describeLike(v string, not bool) string {
	verb := "matches"
	if t := strings.Trim(v, "'"); strings.HasPrefix(t, "%") && strings.HasSuffix(t, "%") && len(t) > 1 {
		v, verb = "'"+strings.Trim(t, "%")+"'", "contains"
	} else if strings.HasSuffix(t, "%") {
		v, verb = "'"+strings.TrimSuffix(t, "%")+"'", "starts with"
	}
	if not {
		verb = map[string]string{"matches": "does not match", "contains": "does not contain", "starts with": "does not start with"}[verb]
	}
	return verb + " " + v
}

// describeSide words what a condition compares, whatever its case.
func describeSide(n ast.ExprNode, l Labels) string { return describeNode(caseless(n), l) }

// describeValue words what something is compared with: text quoted,
// numbers as written, anything else described.
func describeValue(n ast.ExprNode, l Labels) string {
	n = caseless(n)
	if v, ok := n.(*driver.ValueExpr); ok {
		switch s := v.GetValue().(type) {
		case string:
			return "'" + s + "'"
		case []byte:
			return "'" + string(s) + "'"
		}
	}
	if t := textOf(n); isNumeric(t) {
		return t
	}
	return describeNode(n, l)
}

// caseless is the value under LOWER, UPPER or TRIM, which only make a
// comparison ignore case or spaces.
func caseless(n ast.ExprNode) ast.ExprNode {
	n = unparen(n)
	if c, ok := n.(*ast.FuncCallExpr); ok && len(c.Args) == 1 && (c.FnName.L == "lower" || c.FnName.L == "upper" || c.FnName.L == "trim") {
		return unparen(c.Args[0])
	}
	return n
}

// textOf is a literal's or a bare name's text ("6", "%y-%m", "-q"), "" for
// anything else.
func textOf(n ast.ExprNode) string {
	switch x := unparen(n).(type) {
	case *ast.ColumnNameExpr:
		if x.Name.Table.O == "" {
			return x.Name.Name.O // a literal canon left bare
		}
		return ""
	case *ast.UnaryOperationExpr:
		if x.Op == opcode.Minus {
			if t := textOf(x.V); t != "" {
				return "-" + t
			}
		}
		return ""
	case *driver.ValueExpr:
		switch s := x.GetValue().(type) {
		case string:
			return s
		case []byte:
			return string(s)
		case nil:
			return ""
		}
		var b strings.Builder
		if err := restore(&b, x); err != nil {
			return ""
		}
		return b.String()
	}
	return ""
}

func isNum(n ast.ExprNode, want float64) bool {
	v, ok := n.(*driver.ValueExpr)
	if !ok {
		return false
	}
	f, ok := number(v.GetValue())
	return ok && f == want
}

func isNull(n ast.ExprNode) bool {
	v, ok := n.(*driver.ValueExpr)
	return ok && v.GetValue() == nil
}

func isCall(n ast.ExprNode, fn string) bool {
	c, ok := unparen(n).(*ast.FuncCallExpr)
	return ok && c.FnName.L == fn && len(c.Args) == 1
}
