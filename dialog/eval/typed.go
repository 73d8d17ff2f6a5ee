package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/tables"
)

// When no option agrees with the gold, the simulated user types the gold's
// meaning under Other… in plain words, the way a person who knows the
// data's column names would, never in SQL. It words only the part of the
// gold that the clarification is about:
//
//   - a measure: "<sum|average|count|maximum|minimum> of <column words>",
//     "number of <table>" for a count of rows, and two measures joined by
//     "minus" or "plus" ("sum of net amount minus sum of amount");
//   - a ranking: "highest" or "lowest" and the measure ("highest sum of
//     net amount", "highest number of orders");
//   - a date or a column a value is looked for in: the column's words
//     ("ordered at");
//   - what a word means: the gold's conditions that the question's own
//     words do not explain (its values and years are not typed again),
//     "<column words> is <v1> or <v2>", "<column words> is not <v>",
//     "<column words> in the last <n> days", "has <table>", "has no
//     <table>", "has <table> in the last <n> days", joined by "and";
//   - the columns to show: "<column words>, <column words> and <column
//     words>".
//
// Column words are the column's name with underscores as spaces, after
// its table's name when another table has a column of that name ("state
// area"); table words the table's name the same way. Anything else is answered "none of
// these" as before.

// ByTyped says the simulated user typed the gold's meaning under Other….
const ByTyped = "typed"

// typedMeaning words the gold's meaning of c's slot, or "" when it cannot.
func (h *Harness) typedMeaning(g *Gold, c *dialog.Clarification) string {
	if len(g.Slots) == 0 {
		return ""
	}
	slots := g.Slots[0]
	switch c.Key.Name {
	case sqlshape.SlotMeasure:
		if s := measureWords(slots.Get(c.Key), slots); s != "" {
			return s
		}
		// "best customer": a ranking asked about as a measure.
		if o := slots.Get(sqlshape.Key(sqlshape.SlotOrder)); len(o.Parts) == 1 {
			return rankingWords(o.Parts[0], slots)
		}
	case sqlshape.SlotOrder:
		if o := slots.Get(c.Key); len(o.Parts) == 1 {
			return rankingWords(o.Parts[0], slots)
		}
	case sqlshape.SlotFilterOn:
		v := slots.Get(c.Key)
		if len(v.Parts) == 1 {
			return h.columnPhrase(v.Parts[0].Expr)
		}
	case sqlshape.SlotOutput:
		if slots.Get(c.Key).IsEmpty() {
			// A total where only rows were offered: the measure.
			return measureWords(slots.Get(sqlshape.Key(sqlshape.SlotMeasure)), slots)
		}
		var words []string
		for _, p := range slots.Get(c.Key).Parts {
			if strings.Contains(p.Expr, "(") {
				return ""
			}
			words = append(words, h.columnPhrase(p.Expr))
		}
		return sqlshape.JoinAnd(words)
	case sqlshape.SlotDefine:
		return conditionWords(g.Question.GoldSQL, g.Question.Question)
	}
	return ""
}

var fnSay = map[string]string{"SUM": "sum of", "AVG": "average of", "MAX": "maximum of", "MIN": "minimum of", "COUNT": "count of"}

// measureWords words a measure slot value: "sum of net amount".
func measureWords(v sqlshape.SlotValue, slots sqlshape.Slots) string {
	var words []string
	for _, p := range v.Parts {
		w := partWords(p.Fn, p.Arg, p.Expr, slots)
		if w == "" {
			return ""
		}
		words = append(words, w)
	}
	return strings.Join(words, " and ")
}

// partWords words one aggregate, or a difference of two.
func partWords(fn, arg, expr string, slots sqlshape.Slots) string {
	if fn == "" {
		for _, op := range []struct{ sql, say string }{{" minus ", " minus "}, {" - ", " minus "}, {" plus ", " plus "}, {" + ", " plus "}} {
			if a, b, ok := strings.Cut(expr, op.sql); ok {
				fa, aa := sqlshape.SplitAggregate(strings.TrimSpace(a))
				fb, ab := sqlshape.SplitAggregate(strings.TrimSpace(b))
				wa, wb := partWords(fa, aa, a, slots), partWords(fb, ab, b, slots)
				if wa == "" || wb == "" {
					return ""
				}
				return wa + op.say + wb
			}
		}
		return ""
	}
	if fn == "COUNT" && arg == "*" {
		if t := slots.Get(sqlshape.Key(sqlshape.SlotTables)); len(t.Parts) > 0 {
			return "number of " + tables.Humanize(t.Parts[0].Expr)
		}
		return ""
	}
	say, ok := fnSay[fn]
	if !ok || strings.ContainsAny(arg, "() ") {
		return ""
	}
	return say + " " + columnWords(arg)
}

// rankingWords words an ordering: "highest sum of net amount".
func rankingWords(p sqlshape.Part, slots sqlshape.Slots) string {
	fn, arg := sqlshape.SplitAggregate(p.Expr)
	w := partWords(fn, arg, p.Expr, slots)
	if w == "" {
		return ""
	}
	if p.Op == "desc" {
		return "highest " + w
	}
	return "lowest " + w
}

// columnPhrase is a column in words as a person would name it to tell it
// from the others: its own words, and its table's first when another
// table has a column of that name ("state area", not "area" when lakes
// have one too).
func (h *Harness) columnPhrase(tc string) string {
	table, col, ok := strings.Cut(strings.ToLower(tc), ".")
	if !ok {
		return columnWords(tc)
	}
	words := columnWords(tc)
	prefix := strings.ToLower(tables.Humanize(sqlshape.Singular(table)))
	if strings.HasPrefix(words, prefix+" ") || words == prefix {
		return words
	}
	for other := range h.columns {
		t, c, _ := strings.Cut(other, ".")
		if c == col && t != table {
			return prefix + " " + words
		}
	}
	return words
}

// columnWords is a column's name in words: "orders.net_amount" → "net amount".
func columnWords(tc string) string {
	_, col, ok := strings.Cut(tc, ".")
	if !ok {
		col = tc
	}
	return strings.ToLower(tables.Humanize(col))
}

// conditionWords words the conditions of gold's top-level WHERE that the
// question's words do not explain: a compared value or year the question
// names is its own.
func conditionWords(gold, question string) string {
	stmt, err := parser.New().ParseOneStmt(gold, "", "")
	if err != nil {
		return ""
	}
	sel, ok := stmt.(*ast.SelectStmt)
	if !ok || sel.Where == nil {
		return ""
	}
	aliases := tableAliases(sel.From)
	q := strings.ToLower(question)
	var words []string
	for _, c := range conjuncts(sel.Where) {
		w, values := condWords(c, aliases)
		if w == "" {
			continue
		}
		if slices.ContainsFunc(values, func(v string) bool { return strings.Contains(q, strings.ToLower(v)) }) {
			continue // the question names it
		}
		words = append(words, w)
	}
	return strings.Join(words, " and ")
}

func conjuncts(e ast.ExprNode) []ast.ExprNode {
	if b, ok := e.(*ast.BinaryOperationExpr); ok && b.Op == opcode.LogicAnd {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	if p, ok := e.(*ast.ParenthesesExpr); ok {
		return conjuncts(p.Expr)
	}
	return []ast.ExprNode{e}
}

// tableAliases maps the names a FROM clause gives its tables (aliases and
// table names) to the table names.
func tableAliases(from *ast.TableRefsClause) map[string]string {
	out := map[string]string{}
	if from == nil {
		return out
	}
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch x := n.(type) {
		case *ast.Join:
			walk(x.Left)
			if x.Right != nil {
				walk(x.Right)
			}
		case *ast.TableSource:
			if t, ok := x.Source.(*ast.TableName); ok {
				out[strings.ToLower(t.Name.O)] = t.Name.O
				if x.AsName.O != "" {
					out[strings.ToLower(x.AsName.O)] = t.Name.O
				}
			}
		}
	}
	walk(from.TableRefs)
	return out
}

// condWords words one condition and returns the values it compares with.
func condWords(e ast.ExprNode, aliases map[string]string) (string, []string) {
	switch x := e.(type) {
	case *ast.PatternInExpr:
		col, ok := x.Expr.(*ast.ColumnNameExpr)
		if !ok || x.Sel != nil {
			return "", nil
		}
		var vals []string
		for _, v := range x.List {
			s, ok := literal(v)
			if !ok {
				return "", nil
			}
			vals = append(vals, s)
		}
		verb := " is "
		if x.Not {
			verb = " is not "
		}
		return columnWords(col.Name.Name.O) + verb + strings.Join(vals, " or "), vals
	case *ast.BinaryOperationExpr:
		col, ok := x.L.(*ast.ColumnNameExpr)
		if !ok {
			if f, isFn := x.L.(*ast.FuncCallExpr); isFn && strings.EqualFold(f.FnName.L, "year") {
				if v, ok := literal(x.R); ok {
					return "", []string{v} // a year: the question's own
				}
			}
			return "", nil
		}
		if days, ok := windowDays(x); ok {
			return fmt.Sprintf("%s in the last %d days", columnWords(col.Name.Name.O), days), nil
		}
		v, ok := literal(x.R)
		if !ok {
			return "", nil
		}
		switch x.Op {
		case opcode.EQ:
			return columnWords(col.Name.Name.O) + " is " + v, []string{v}
		case opcode.NE:
			return columnWords(col.Name.Name.O) + " is not " + v, []string{v}
		}
	case *ast.ExistsSubqueryExpr:
		sub, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return "", nil
		}
		inner, ok := sub.Query.(*ast.SelectStmt)
		if !ok {
			return "", nil
		}
		in := tableAliases(inner.From)
		var table string
		for _, t := range in {
			table = t
		}
		if len(in) > 2 || table == "" {
			return "", nil
		}
		w := "has " + strings.ToLower(tables.Humanize(table))
		if x.Not {
			w = "has no " + strings.ToLower(tables.Humanize(table))
		}
		if inner.Where != nil {
			for _, c := range conjuncts(inner.Where) {
				if b, ok := c.(*ast.BinaryOperationExpr); ok {
					if days, ok := windowDays(b); ok {
						w += fmt.Sprintf(" in the last %d days", days)
					}
				}
			}
		}
		return w, nil
	}
	return "", nil
}

// windowDays reads "col >= CURRENT_DATE - INTERVAL n DAY".
func windowDays(b *ast.BinaryOperationExpr) (int, bool) {
	if b.Op != opcode.GE && b.Op != opcode.GT {
		return 0, false
	}
	f, ok := b.R.(*ast.FuncCallExpr)
	if !ok || !strings.EqualFold(f.FnName.L, "date_sub") && !strings.EqualFold(f.FnName.L, "subdate") || len(f.Args) < 2 {
		return 0, false
	}
	v, ok := literal(f.Args[1])
	if !ok {
		return 0, false
	}
	n := 0
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n <= 0 {
		return 0, false
	}
	if len(f.Args) > 2 {
		if u, ok := f.Args[2].(*ast.TimeUnitExpr); ok {
			switch strings.ToUpper(u.Unit.String()) {
			case "WEEK":
				n *= 7
			case "MONTH":
				n *= 30
			case "YEAR":
				n *= 365
			}
		}
	}
	return n, true
}

// literal is a constant's text.
func literal(e ast.ExprNode) (string, bool) {
	v, ok := e.(*driver.ValueExpr)
	if !ok {
		return "", false
	}
	switch x := v.GetValue().(type) {
	case string:
		return x, true
	case nil:
		return "", false
	default:
		return fmt.Sprint(x), true
	}
}
