package sqlshape

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Labels words schema elements for people.
type Labels interface {
	// Column gives a short name for "table.column" ("net revenue", "ship state").
	Column(tableColumn string) string
	// Table gives a plural noun for a table ("orders", "order lines").
	Table(table string) string
}

// Explain says in one sentence what the query computes, from its shape:
// "Total net revenue per region name, for orders whose ship state is TX and
// whose order date is in 2024, highest first, top 3." Expressions are read
// from the Shape's parsed trees where it has them, else from their
// canonical strings.
func Explain(s *Shape, l Labels) string {
	if s == nil {
		return ""
	}
	if w := overGroups(s, l); w != "" {
		return w
	}
	main := mainTable(s)
	counted := countedTable(s, main)
	var measures, shown []string
	for _, o := range s.Outputs {
		if o.Agg != "" {
			measures = append(measures, describeAggregate(o.Agg, o.Column, o.Expr, s.exprNode(o.Expr), counted, l))
		} else {
			shown = append(shown, describeExpr(o.Expr, o.Column, s.exprNode(o.Expr), l))
		}
	}
	var b strings.Builder
	switch {
	case len(measures) > 0 && len(s.GroupBy) > 0:
		b.WriteString(JoinAnd(measures))
		var groups []string
		for _, g := range s.GroupBy {
			groups = append(groups, describeExpr(g, g, s.exprNode(g), l))
		}
		b.WriteString(" per " + JoinAnd(groups))
	case len(measures) > 0:
		b.WriteString(JoinAnd(append(shown, measures...)))
	case len(shown) == 1 && shown[0] == "everything":
		b.WriteString("All columns of " + l.Table(main))
	case len(shown) > 0:
		b.WriteString(JoinAnd(shown))
		// "… as a percentage of number of members" names them already.
		if main != "" && !strings.HasSuffix(JoinAnd(shown), " "+l.Table(main)) {
			b.WriteString(" of " + l.Table(main))
		}
	default:
		b.WriteString("Rows of " + l.Table(main))
	}
	if s.Distinct {
		b.WriteString(" (each different value once)")
	}
	var conds []string
	for _, f := range s.Filters {
		if f.Depth == 0 {
			if c := describeFilter(f, main, s, l); c != "" {
				conds = append(conds, c)
			}
		}
	}
	if len(conds) > 0 {
		subject := l.Table(main)
		if len(measures) > 0 || len(s.GroupBy) > 0 {
			b.WriteString(", for " + subject + " " + JoinAnd(conds))
		} else {
			b.WriteString(", " + JoinAnd(conds))
		}
	}
	if len(s.OrderBy) > 0 {
		o := s.OrderBy[0]
		n := s.exprNode(o.Expr)
		by := describeExpr(o.Expr, "", n, l)
		if isAggregateExpr(o.Expr) {
			by = describeAggregateExpr(o.Expr, n, counted, l)
		}
		dir := "lowest first"
		if o.Desc {
			dir = "highest first"
		}
		if isTimeLike(o.Expr, n) {
			dir = "earliest first"
			if o.Desc {
				dir = "latest first"
			}
		}
		b.WriteString(", sorted by " + by + ", " + dir)
	}
	switch {
	case s.Limit == 1:
		b.WriteString(", only the first")
	case s.Limit > 1:
		b.WriteString(", top " + itoa(s.Limit))
	}
	switch s.Over {
	case "share":
		b.WriteString(", with each one's share of the total in percent")
	case "change":
		period := "row"
		if len(s.GroupBy) > 0 {
			for _, unit := range []string{"month", "quarter", "year", "week", "day"} {
				if strings.HasPrefix(strings.ToLower(s.GroupBy[0]), unit+"(") || strings.Contains(describeExpr(s.GroupBy[0], s.GroupBy[0], s.exprNode(s.GroupBy[0]), l), unit) {
					period = unit
					break
				}
			}
		}
		b.WriteString(", with the change from the previous " + period)
	}
	if s.Nested && s.subqueries > s.worded {
		b.WriteString(" (using a subquery)")
	}
	out := b.String()
	if out == "" {
		return ""
	}
	return strings.ToUpper(out[:1]) + out[1:] + "."
}

// overGroups words an aggregate over a grouped step ("SELECT
// AVG(grouped.count) FROM (… GROUP BY member) AS grouped") as the
// aggregate of the step's figure per group: "Average number of loans per
// member name, for loans whose loan date is in 2025." It is "" for
// any other shape.
func overGroups(s *Shape, l Labels) string {
	if len(s.Outputs) != 1 || len(s.GroupBy) != 0 {
		return ""
	}
	for _, f := range s.Filters {
		if f.Depth == 0 {
			return "" // a condition on the groups themselves
		}
	}
	o := s.Outputs[0]
	word := aggregateWords[o.Agg]
	table, _, ok := strings.Cut(o.Column, ".")
	if word == "" || !ok {
		return ""
	}
	for _, sub := range s.Subs {
		if !strings.EqualFold(sub.Scope, "from:"+table) || sub.Shape == nil || len(sub.Shape.GroupBy) == 0 {
			continue
		}
		inner := strings.TrimSuffix(Explain(sub.Shape, l), ".")
		inner = strings.TrimPrefix(inner, "The ")
		if inner == "" {
			return ""
		}
		return strings.ToUpper(word[:1]) + word[1:] + " " + strings.ToLower(inner[:1]) + inner[1:] + "."
	}
	return ""
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// mainTable is the table the query is about: the one its aggregates or
// outputs come from, else the first.
func mainTable(s *Shape) string {
	for _, f := range s.Filters {
		// The top rows of each group are rows of the ranked column's table.
		if f.Depth == 0 && strings.HasSuffix(f.Op, " per") {
			if t := tableOf(f.Column); t != "" {
				return t
			}
		}
	}
	for _, o := range s.Outputs {
		if o.Agg == "COUNT" && o.Column == "*" {
			continue
		}
		if t := tableOf(o.Column); t != "" && o.Agg != "" {
			return t
		}
	}
	for _, o := range s.Outputs {
		if t := tableOf(o.Column); t != "" {
			return t
		}
	}
	if len(s.TopTables) > 0 {
		// The table with the most filters is what a COUNT(*) counts.
		best, n := s.TopTables[0], -1
		for _, t := range s.TopTables {
			c := 0
			for _, f := range s.Filters {
				// The top row of a related table is where the rows are, not what they are.
				switch {
				case tableOf(f.Column) != t:
				case f.Op == "max" || f.Op == "min":
					c-- // the related thing whose top row is meant
				default:
					c++
				}
			}
			if c > n {
				best, n = t, c
			}
		}
		return best
	}
	return ""
}

// countedTable is what COUNT(*) counts: in a join, the table that is
// neither shown nor grouped by (orders, when customers are ranked by how
// many orders they placed).
func countedTable(s *Shape, main string) string {
	shown := map[string]bool{}
	for _, o := range s.Outputs {
		if o.Agg == "" {
			shown[tableOf(o.Column)] = true
		}
	}
	for _, g := range s.GroupBy {
		shown[tableOf(g)] = true
	}
	if len(shown) == 0 {
		return main
	}
	for _, t := range s.TopTables {
		if !shown[t] {
			return t
		}
	}
	return main
}

func tableOf(col string) string {
	if i := strings.LastIndexByte(col, '.'); i > 0 {
		return col[:i]
	}
	return ""
}

// describeAggregate words an aggregate: agg is its function, column the
// column it reads ("" for an expression, "*" for rows), expr its canonical
// text and n its tree (nil when the Shape has none).
func describeAggregate(agg, column, expr string, n ast.ExprNode, main string, l Labels) string {
	inner, arg := aggregateArgument(expr, n)
	var colNode ast.ExprNode // the tree of column, when column is inner
	if column == "" && agg != "COUNT" && inner != "" && inner != "*" {
		column, colNode = inner, arg // an aggregate of an expression, worded below
	}
	if column == "*" || column == "" {
		if agg == "COUNT" {
			if isDistinct(expr, n) {
				return "the number of different " + strings.TrimSuffix(strings.TrimPrefix(expr, "COUNT(DISTINCT "), ")")
			}
			return "the number of " + l.Table(main)
		}
		if inner != "" && inner != "*" {
			if w := aggregateWords[agg]; w != "" {
				return w + " " + describeExprText(inner, arg, l)
			}
			return strings.ToLower(agg) + " of " + describeExprText(inner, arg, l)
		}
		return strings.ToLower(agg) + " of " + strings.ToLower(expr)
	}
	col := l.Column(column)
	if strings.ContainsAny(column, "( ") {
		col = describeExprText(column, colNode, l)
	} else if col == "" && inner != "" {
		// An aggregate of an expression: "average days from start to end".
		col = describeExprText(inner, arg, l)
	}
	switch agg {
	case "SUM":
		return "total " + col
	case "AVG":
		return "average " + col
	case "MAX":
		return "highest " + col
	case "MIN":
		return "lowest " + col
	case "COUNT":
		if k, ok := l.(interface{ IsKey(string) bool }); ok && k.IsKey(column) {
			// COUNT(DISTINCT orders.id) counts orders.
			return "the number of " + l.Table(tableOf(column))
		}
		if isDistinct(expr, n) {
			return "the number of different " + col
		}
		return "the number of " + l.Table(tableOf(column))
	}
	return strings.ToLower(agg) + " of " + col
}

// isDistinct says whether an aggregate counts each value once.
func isDistinct(expr string, n ast.ExprNode) bool {
	if x, ok := n.(*ast.AggregateFuncExpr); ok {
		return x.Distinct
	}
	return strings.Contains(expr, "DISTINCT")
}

// describeExprText words an expression from its tree, or from its
// canonical text when there is no tree.
func describeExprText(expr string, n ast.ExprNode, l Labels) string {
	if n != nil {
		return describeNode(n, l)
	}
	return describeExpression(expr, l)
}

// DescribeMeasure words an aggregate expression ("SUM(orders.net_amount)"
// → "total net revenue"); counted is the table a COUNT(*) counts.
func DescribeMeasure(expr, counted string, l Labels) string {
	return describeAggregateExpr(expr, nil, counted, l)
}

// describeAggregateExpr words an aggregate from its canonical text, and
// from its tree n when that is one aggregate call.
func describeAggregateExpr(expr string, n ast.ExprNode, main string, l Labels) string {
	if x, ok := n.(*ast.AggregateFuncExpr); ok {
		col, _ := aggregateArgument(expr, x)
		return describeAggregate(strings.ToUpper(x.F), col, expr, x, main, l)
	}
	i := strings.IndexByte(expr, '(')
	agg := expr[:i]
	inner := strings.TrimSuffix(expr[i+1:], ")")
	inner = strings.TrimPrefix(inner, "DISTINCT ")
	col := inner
	if inner == "*" {
		col = "*"
	}
	return describeAggregate(agg, col, expr, nil, main, l)
}

// describeExpr words a shown, grouped, ordered or compared expression:
// expr is its canonical text, column the plain column under it ("" when
// none) and n its tree (nil when the Shape has none).
func describeExpr(expr, column string, n ast.ExprNode, l Labels) string {
	if expr == "*" || strings.HasSuffix(expr, ".*") {
		return "everything"
	}
	if column == "" && tableOf(expr) != "" && !strings.ContainsAny(expr, "( ") {
		column = expr
	}
	if column != "" && column == expr && !strings.ContainsAny(expr, "( ") {
		return l.Column(column)
	}
	if strings.HasPrefix(expr, "YEAR(") && column != "" && column != expr {
		return "year of " + l.Column(column)
	}
	if strings.HasPrefix(expr, "MONTH(") && column != "" && column != expr {
		return "month of " + l.Column(column)
	}
	return describeExprText(expr, n, l)
}

// aggregateWords say an aggregate in words.
var aggregateWords = map[string]string{"SUM": "total", "AVG": "average", "MAX": "highest", "MIN": "lowest"}

// aggregateArgument is what an aggregate call aggregates: "x" in
// "AVG(x)", "" when expr is no single call. With the call's tree n, the
// tree says whether it is one call of one argument, and the argument's
// tree comes too (nil for COUNT(*)).
func aggregateArgument(expr string, n ast.ExprNode) (string, ast.ExprNode) {
	if x, ok := n.(*ast.AggregateFuncExpr); ok && len(x.Args) == 1 && strings.HasSuffix(expr, ")") {
		i := strings.IndexByte(expr, '(')
		inner := strings.TrimPrefix(expr[i+1:len(expr)-1], "DISTINCT ")
		if inner == "*" {
			return inner, nil
		}
		return inner, x.Args[0]
	}
	i := strings.IndexByte(expr, '(')
	if i < 0 || !strings.HasSuffix(expr, ")") || !Balanced(expr[i+1:len(expr)-1]) {
		return "", nil
	}
	return strings.TrimPrefix(expr[i+1:len(expr)-1], "DISTINCT "), nil
}

// describeFilter words a condition; s has the trees of its expressions.
func describeFilter(f Filter, main string, s *Shape, l Labels) string {
	n := s.exprNode(f.Expr)
	what := describeExpr(f.Expr, f.Column, n, l)
	vals := f.Display
	if len(vals) == 0 {
		vals = f.Values
	}
	q := func(v string) string {
		if isNumeric(v) {
			return v
		}
		return "'" + v + "'"
	}
	// "whose ship state is TX", but "where the date the order was placed
	// is in 2024": a long description reads badly after "whose".
	whose := "whose " + what
	switch t := tableOf(f.Column); {
	case t != "" && main != "" && !strings.EqualFold(t, main):
		// A condition on a joined table says whose column it is, unless
		// its wording does ("date the order was placed").
		whose = "where the " + strings.TrimPrefix(what, "the ")
		if table := l.Table(t); !strings.Contains(what, strings.TrimSuffix(table, "s")) {
			whose += " of " + table
		}
	case len(strings.Fields(what)) > 3:
		whose = "where the " + strings.TrimPrefix(what, "the ")
	}
	switch f.Op {
	case "max", "min":
		// "at the depot with the largest yard"
		most := map[string]string{"max": "highest", "min": "lowest"}[f.Op]
		return "of the " + Singular(l.Table(tableOf(f.Column))) + " with the " + most + " " + l.Column(f.Column)
	case "max per", "min per":
		most := map[string]string{"max per": "highest", "min per": "lowest"}[f.Op]
		var groups []string
		for _, g := range f.Values {
			groups = append(groups, describeExpr(g, g, s.exprNode(g), l))
		}
		return "with the " + most + " " + l.Column(f.Column) + " for each " + JoinAnd(groups)
	case "count >=", "count >", "count <", "count <=", "count =", "count !=":
		cmp := map[string]string{"count >=": "at least", "count >": "more than", "count <": "fewer than", "count <=": "at most", "count =": "exactly", "count !=": "other than"}[f.Op]
		if tableOf(f.Column) == f.Counted {
			// Rows sharing a value: "whose city has more than 6 members".
			return whose + " is shared by " + cmp + " " + first(vals) + " " + l.Table(f.Counted)
		}
		return "with " + cmp + " " + first(vals) + " " + l.Table(f.Counted)
	case "=":
		return whose + " is " + q(first(vals))
	case "!=":
		return whose + " is not " + q(first(vals))
	case ">":
		return whose + " is above " + first(vals)
	case ">=":
		return whose + " is at least " + first(vals)
	case "<":
		return whose + " is below " + first(vals)
	case "<=":
		return whose + " is at most " + first(vals)
	case "year":
		return whose + " is in " + first(vals)
	case "between":
		if len(vals) == 2 {
			return whose + " is between " + vals[0] + " and " + vals[1]
		}
	case "in":
		qs := make([]string, len(vals))
		for i, v := range vals {
			qs[i] = q(v)
		}
		return whose + " is " + joinOr(qs)
	case "not in":
		return whose + " is none of " + strings.Join(vals, ", ")
	case "like":
		return whose + " matches " + q(first(vals))
	case "is null":
		return "with no " + what
	case "is not null":
		return "with a " + what
	}
	if n != nil {
		return "where " + describeCond(n, l)
	}
	return "where " + describeCondition(f.Expr, l)
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' && i == 0) {
			return false
		}
	}
	return true
}

// timeWords are the parts of names that say a date or a time.
var timeWords = []string{"date", "_at", "_on", "time", "year", "day"}

// isTimeLike says whether an expression reads a date or a time: a name in
// it (column, function, unit, literal) says so. With its tree n, the
// names are read from the tree.
func isTimeLike(expr string, n ast.ExprNode) bool {
	if n == nil {
		return hasTimeWord(expr)
	}
	v := &timeFinder{}
	n.Accept(v)
	return v.found
}

func hasTimeWord(s string) bool {
	e := strings.ToLower(s)
	for _, w := range timeWords {
		if strings.Contains(e, w) {
			return true
		}
	}
	return false
}

// timeFinder looks for a time word in the names of a tree, as
// isTimeLike does in its canonical text: in the parts canon prints
// itself, name by name; in the others (CASE, CAST…), in their SQL.
type timeFinder struct{ found bool }

func (v *timeFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		v.found = v.found || hasTimeWord(x.Name.Table.L) || hasTimeWord(x.Name.Name.L)
	case *ast.FuncCallExpr:
		v.found = v.found || hasTimeWord(x.FnName.L)
	case *ast.AggregateFuncExpr:
		v.found = v.found || hasTimeWord(x.F)
	case *ast.BinaryOperationExpr, *ast.UnaryOperationExpr:
	case ast.ValueExpr, *ast.TimeUnitExpr:
		var b strings.Builder
		v.found = v.found || restore(&b, n) == nil && hasTimeWord(b.String())
	case ast.ExprNode:
		var b strings.Builder
		v.found = v.found || restore(&b, n) == nil && hasTimeWord(b.String())
		return n, true
	}
	return n, v.found
}

func (v *timeFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// JoinAnd lists words as a sentence does: "a", "a and b", "a, b and c".
func JoinAnd(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

func joinOr(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

// Singular turns a plural noun into one thing: "states" → "state".
func Singular(noun string) string {
	switch {
	case strings.HasSuffix(noun, "ies"):
		return strings.TrimSuffix(noun, "ies") + "y"
	case strings.HasSuffix(noun, "sses"), strings.HasSuffix(noun, "xes"), strings.HasSuffix(noun, "ches"), strings.HasSuffix(noun, "shes"):
		return strings.TrimSuffix(noun, "es")
	case strings.HasSuffix(noun, "s") && !strings.HasSuffix(noun, "ss"):
		return strings.TrimSuffix(noun, "s")
	}
	return noun
}
