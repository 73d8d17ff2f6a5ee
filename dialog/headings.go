package dialog

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Plain column headings: "Customer", "Net revenue", "Orders", "Month".
// They come from the parsed select list and the catalog, never from the
// SQL's aliases when the expression is known, so that an answer reads the
// same whichever engine wrote its SQL. The SQL's names stay in the SQL.

// heading names one select-list item for people; n is its parsed
// expression (nil when the shape has none). counted is the table a
// COUNT(*) counts.
func (l *Labels) heading(o sqlshape.Output, n ast.ExprNode, name, counted string) string {
	_, known := l.columns[strings.ToLower(o.Column)]
	agg := strings.ToUpper(o.Agg)
	table, _ := splitTC(o.Column)
	switch {
	case agg == "COUNT" && (o.Column == "*" || o.Column == "" || o.Column == "1") && counted != "":
		return upperFirst(l.Table(counted))
	case agg == "COUNT" && known && l.IsKey(o.Column):
		return upperFirst(l.Table(table))
	case agg == "COUNT" && known:
		return "Number of " + plural(lowerFirst(l.short(o.Column)))
	case agg != "" && known:
		words := map[string]string{"SUM": "", "AVG": "Average ", "MIN": "Lowest ", "MAX": "Highest "}
		if w, ok := words[agg]; ok {
			if w == "" {
				return upperFirst(l.short(o.Column))
			}
			return w + lowerFirst(l.short(o.Column))
		}
	case agg == "" && known && strings.EqualFold(o.Expr, o.Column):
		return upperFirst(l.plainHeading(o.Column))
	case agg == "" && known:
		if p := outputPeriod(o.Expr, n); p != "" {
			return p
		}
	}
	return cleanHeading(humanize(name))
}

// plainHeading names a column shown as it is: a table's label column by
// the table ("Customer" for customers.name), a key by its comment ("Order
// number") or the table ("Customer id"), others by their short name.
func (l *Labels) plainHeading(tc string) string {
	table, col := splitTC(tc)
	if l.isLabel(table, col) {
		return singular(l.Table(table))
	}
	if l.IsKey(tc) {
		if c, ok := l.columns[strings.ToLower(tc)]; ok {
			if h := commentHead(c.Comment); h != "" && len(strings.Fields(h)) <= 3 {
				return h
			}
		}
		return singular(l.Table(table)) + " id"
	}
	return l.short(tc)
}

// isLabel says whether col names the rows of table: "name", "title",
// "customer_name" in customers.
func (l *Labels) isLabel(table, col string) bool {
	c := strings.ToLower(col)
	switch c {
	case "name", "title", "label", "full_name", "display_name":
		return true
	}
	return table != "" && c == strings.ReplaceAll(singular(strings.ToLower(tables.Humanize(table))), " ", "_")+"_name"
}

// short is the shortest fair name of a column: the head of its comment
// when that is a few words that share one with the column's name ("Net
// revenue" for net_amount, from "Net revenue after discounts (excludes
// shipping)") or, for a date, that say it is one ("Date the order was
// placed" for ordered_at); else its name in words ("Ship state"), which
// also wins when the comment only goes on from it ("City the member lives
// in" for city).
func (l *Labels) short(tc string) string {
	_, col := splitTC(tc)
	name := humanize(col)
	c, ok := l.columns[strings.ToLower(tc)]
	if !ok || c.Comment == "" {
		return upperFirst(name)
	}
	h := commentHead(c.Comment)
	low := strings.ToLower(h)
	n := len(strings.Fields(h))
	dated := c.Kind() == sqlresult.KindTime && (strings.HasPrefix(low, "date ") || strings.HasPrefix(low, "day ") || strings.HasPrefix(low, "time ") || strings.HasPrefix(low, "when "))
	switch {
	case n == 0 || n > 5 || !sharesWord(h, name) && !dated:
		return upperFirst(name)
	case strings.HasPrefix(low, strings.ToLower(name)+" ") && n > len(strings.Fields(name)):
		return upperFirst(name)
	}
	return h
}

// commentHead is a comment up to its first clause or qualifier: "Net
// revenue after discounts (excludes shipping)" → "Net revenue", "City of
// the customer's address" → "City".
func commentHead(comment string) string {
	h := comment
	if i := strings.IndexAny(h, ":;(,"); i >= 0 {
		h = h[:i]
	}
	low := " " + strings.ToLower(h) + " "
	cut := len(low)
	for _, q := range []string{" after ", " before ", " excluding ", " including ", " excludes ", " includes ", " such as ", " per ", " of the ", " for the ", " - ", " – "} {
		if i := strings.Index(low, q); i > 0 && i < cut {
			cut = i
		}
	}
	// "Replacement price in euros": the currency is said by the figures.
	if i := strings.Index(low, " in "); i > 0 && i < cut && colfmt.CurrencyIn(low[i:]) != "" {
		cut = i
	}
	if cut < len(low) {
		h = h[:cut-1]
	}
	return cleanHeading(strings.TrimSpace(h))
}

// sharesWord says whether a and b have a word in common, up to an ending
// ("ordered" and "order").
func sharesWord(a, b string) bool {
	stem := func(w string) string {
		if len(w) > 4 {
			return w[:4]
		}
		return w
	}
	seen := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(a)) {
		if len(w) > 2 {
			seen[stem(w)] = true
		}
	}
	for _, w := range strings.Fields(strings.ToLower(b)) {
		if len(w) > 2 && seen[stem(w)] {
			return true
		}
	}
	return false
}

// periodWord names a date part: YEAR(x) is "Year", DATE_FORMAT(x,
// '%Y-%m') "Month".
func periodWord(expr string) string {
	e := strings.ToUpper(strings.TrimSpace(expr))
	fn, _, ok := strings.Cut(e, "(")
	if !ok {
		return ""
	}
	return periodFor(strings.TrimSpace(fn), e)
}

// outputPeriod is periodWord read from an expression's tree n, when there
// is one: the call the expression begins with (at the left of its
// arithmetic) and its pattern.
func outputPeriod(expr string, n ast.ExprNode) string {
	if n == nil {
		return periodWord(expr)
	}
	for {
		b, ok := n.(*ast.BinaryOperationExpr)
		if !ok {
			break
		}
		n = b.L
	}
	c, ok := n.(*ast.FuncCallExpr)
	if !ok {
		return ""
	}
	fn := strings.ToUpper(c.FnName.O)
	var args strings.Builder // where a pattern is read
	if patterned[fn] {
		for _, a := range c.Args {
			if err := a.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &args)); err != nil {
				return ""
			}
		}
	}
	return periodFor(fn, strings.ToUpper(args.String()))
}

// patterned are the calls that format a date by a pattern.
var patterned = map[string]bool{"DATE_FORMAT": true, "TO_CHAR": true, "STRFTIME": true}

// periodFor names the period a call to fn keeps; e is the upper-case text
// a pattern (of DATE_FORMAT…) is read in.
func periodFor(fn, e string) string {
	switch fn {
	case "YEAR":
		return "Year"
	case "MONTH", "MONTHNAME":
		return "Month"
	case "QUARTER":
		return "Quarter"
	case "WEEK", "YEARWEEK", "WEEKOFYEAR":
		return "Week"
	case "DAY", "DAYOFMONTH", "DAYNAME", "DAYOFWEEK":
		return "Day"
	case "DATE":
		return "Date"
	case "DATE_FORMAT", "TO_CHAR", "STRFTIME":
		switch {
		case strings.Contains(e, "%D") || strings.Contains(e, "%E"):
			return "Day"
		case strings.Contains(e, "%M") || strings.Contains(e, "%B") || strings.Contains(e, "%C"):
			return "Month"
		case strings.Contains(e, "%U") || strings.Contains(e, "%V") || strings.Contains(e, "%X"):
			return "Week"
		case strings.Contains(e, "%Y"):
			return "Year"
		}
		return "Period"
	}
	return ""
}

// cleanHeading keeps a heading to words: no brackets or dots (which read
// as SQL), single spaces, a capital first letter.
func cleanHeading(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '(', ')', '.', '`', '[', ']', '"':
			return ' '
		}
		return r
	}, s)
	return upperFirst(strings.Join(strings.Fields(s), " "))
}

// uniqueHeadings tells equal headings apart: by the table of their column
// ("Customer state", "State"), then by number.
func (l *Labels) uniqueHeadings(hs []string, outs []sqlshape.Output, shape *sqlshape.Shape) {
	count := map[string]int{}
	for _, h := range hs {
		count[strings.ToLower(h)]++
	}
	for i, h := range hs {
		if count[strings.ToLower(h)] < 2 || i >= len(outs) {
			continue
		}
		o := outs[i]
		if p := outputPeriod(o.Expr, shape.ExprNode(o.Expr)); p != "" && o.Column != "" {
			hs[i] = p + " of " + lowerFirst(l.short(o.Column))
			continue
		}
		if t, _ := splitTC(o.Column); t != "" {
			s := singular(l.Table(t))
			if !strings.HasPrefix(strings.ToLower(h), strings.ToLower(s)) {
				hs[i] = upperFirst(s) + " " + lowerFirst(h)
			}
		}
	}
	seen := map[string]int{}
	for i, h := range hs {
		k := strings.ToLower(h)
		seen[k]++
		if seen[k] > 1 {
			hs[i] = h + " " + strconv.Itoa(seen[k])
		}
	}
}

// singular and plural turn a plain English noun phrase's last word:
// "order lines" ↔ "order line", "categories" ↔ "category". Headings and
// headlines need no more than the regular forms; irregular ones stay as
// the schema names them.
func singular(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return s
	}
	w := ws[len(ws)-1]
	lw := strings.ToLower(w)
	switch {
	case strings.HasSuffix(lw, "ies") && len(lw) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(lw, "sses") || strings.HasSuffix(lw, "xes") || strings.HasSuffix(lw, "ches") || strings.HasSuffix(lw, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss") && !strings.HasSuffix(lw, "us") && !strings.HasSuffix(lw, "is") && len(lw) > 3:
		w = w[:len(w)-1]
	}
	ws[len(ws)-1] = w
	return strings.Join(ws, " ")
}

func plural(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return s
	}
	w := ws[len(ws)-1]
	lw := strings.ToLower(w)
	switch {
	case singular(lw) != lw:
		return s // already plural
	case strings.HasSuffix(lw, "y") && len(lw) > 2 && !strings.ContainsRune("aeiou", rune(lw[len(lw)-2])):
		w = w[:len(w)-1] + "ies"
	case strings.HasSuffix(lw, "s") || strings.HasSuffix(lw, "x") || strings.HasSuffix(lw, "ch") || strings.HasSuffix(lw, "sh"):
		w += "es"
	default:
		w += "s"
	}
	ws[len(ws)-1] = w
	return strings.Join(ws, " ")
}
