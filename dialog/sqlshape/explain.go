package sqlshape

import (
	"strings"
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
// whose order date is in 2024, highest first, top 3."
func Explain(s *Shape, l Labels) string {
	if s == nil {
		return ""
	}
	main := mainTable(s)
	counted := countedTable(s, main)
	var measures, shown []string
	for _, o := range s.Outputs {
		if o.Agg != "" {
			measures = append(measures, describeAggregate(o.Agg, o.Column, o.Expr, counted, l))
		} else {
			shown = append(shown, describeExpr(o.Expr, o.Column, l))
		}
	}
	var b strings.Builder
	switch {
	case len(measures) > 0 && len(s.GroupBy) > 0:
		b.WriteString(JoinAnd(measures))
		var groups []string
		for _, g := range s.GroupBy {
			groups = append(groups, describeExpr(g, g, l))
		}
		b.WriteString(" per " + JoinAnd(groups))
	case len(measures) > 0:
		b.WriteString(JoinAnd(append(shown, measures...)))
	case len(shown) == 1 && shown[0] == "everything":
		b.WriteString("All columns of " + l.Table(main))
	case len(shown) > 0:
		b.WriteString(JoinAnd(shown))
		if main != "" {
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
			if c := describeFilter(f, main, l); c != "" {
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
		by := describeExpr(o.Expr, "", l)
		if isAggregateExpr(o.Expr) {
			by = describeAggregateExpr(o.Expr, counted, l)
		}
		dir := "lowest first"
		if o.Desc {
			dir = "highest first"
		}
		if isTimeLike(o.Expr) {
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
				if strings.HasPrefix(strings.ToLower(s.GroupBy[0]), unit+"(") || strings.Contains(describeExpr(s.GroupBy[0], s.GroupBy[0], l), unit) {
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

func describeAggregate(agg, column, expr, main string, l Labels) string {
	if inner := aggregateArgument(expr); column == "" && agg != "COUNT" && inner != "" && inner != "*" {
		column = inner // an aggregate of an expression, worded below
	}
	if column == "*" || column == "" {
		if agg == "COUNT" {
			if strings.Contains(expr, "DISTINCT") {
				return "the number of different " + strings.TrimSuffix(strings.TrimPrefix(expr, "COUNT(DISTINCT "), ")")
			}
			return "the number of " + l.Table(main)
		}
		if inner := aggregateArgument(expr); inner != "" && inner != "*" {
			if w := aggregateWords[agg]; w != "" {
				return w + " " + describeExpression(inner, l)
			}
			return strings.ToLower(agg) + " of " + describeExpression(inner, l)
		}
		return strings.ToLower(agg) + " of " + strings.ToLower(expr)
	}
	col := l.Column(column)
	if strings.ContainsAny(column, "( ") {
		col = describeExpression(column, l)
	} else if inner := aggregateArgument(expr); col == "" && inner != "" {
		// An aggregate of an expression: "average days from start to end".
		col = describeExpression(inner, l)
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
		if strings.Contains(expr, "DISTINCT") {
			return "the number of different " + col
		}
		return "the number of " + l.Table(tableOf(column))
	}
	return strings.ToLower(agg) + " of " + col
}

// DescribeMeasure words an aggregate expression ("SUM(orders.net_amount)"
// → "total net revenue"); counted is the table a COUNT(*) counts.
func DescribeMeasure(expr, counted string, l Labels) string {
	return describeAggregateExpr(expr, counted, l)
}

func describeAggregateExpr(expr, main string, l Labels) string {
	i := strings.IndexByte(expr, '(')
	agg := expr[:i]
	inner := strings.TrimSuffix(expr[i+1:], ")")
	inner = strings.TrimPrefix(inner, "DISTINCT ")
	col := inner
	if inner == "*" {
		col = "*"
	}
	return describeAggregate(agg, col, expr, main, l)
}

func describeExpr(expr, column string, l Labels) string {
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
	return describeExpression(expr, l)
}

// aggregateWords say an aggregate in words.
var aggregateWords = map[string]string{"SUM": "total", "AVG": "average", "MAX": "highest", "MIN": "lowest"}

// aggregateArgument is what an aggregate call aggregates: "x" in
// "AVG(x)", "" when expr is no single call.
func aggregateArgument(expr string) string {
	i := strings.IndexByte(expr, '(')
	if i < 0 || !strings.HasSuffix(expr, ")") || !Balanced(expr[i+1:len(expr)-1]) {
		return ""
	}
	return strings.TrimPrefix(expr[i+1:len(expr)-1], "DISTINCT ")
}

func describeFilter(f Filter, main string, l Labels) string {
	what := describeExpr(f.Expr, f.Column, l)
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
		// "in the state with the largest area"
		most := map[string]string{"max": "highest", "min": "lowest"}[f.Op]
		return "of the " + Singular(l.Table(tableOf(f.Column))) + " with the " + most + " " + l.Column(f.Column)
	case "max per", "min per":
		most := map[string]string{"max per": "highest", "min per": "lowest"}[f.Op]
		var groups []string
		for _, g := range f.Values {
			groups = append(groups, describeExpr(g, g, l))
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

func isTimeLike(expr string) bool {
	e := strings.ToLower(expr)
	for _, w := range []string{"date", "_at", "_on", "time", "year", "day"} {
		if strings.Contains(e, w) {
			return true
		}
	}
	return false
}

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
