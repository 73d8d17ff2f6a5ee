package sqlshape

import (
	"regexp"
	"strings"
)

// Expressions in plain words: the periods, differences and ratios the
// engines write ("month of order date", "days from start date to end
// date", "fee per pages"), so that no SQL reaches an explanation.

var (
	// reSumWhen is a total over the rows where a column holds a value.
	reSumWhen = regexp.MustCompile(`(?i)^SUM\(CASE WHEN (\S+?) ?(?:=|eq) ?(?:_utf8mb4)?('([^']*)'|\S+) THEN (\S+) END\)$`)
	// rePercentOf is A * 100e0 / NULLIF(B, 0): A as a percentage of B (margins).
	rePercentOf = regexp.MustCompile(`(?i)^(.+) (?:\*|mul) 100(?:e0)? (?:/|div) NULLIF\((.+), *0\)$`)
	reColumnRef = regexp.MustCompile("`?([A-Za-z_][A-Za-z0-9_]*)`?\\.`?([A-Za-z_][A-Za-z0-9_]*)`?")
	reCall1     = regexp.MustCompile(`^(?i)(YEAR|MONTH|QUARTER|DAY|DATE|WEEK|YEARWEEK|HOUR|DAYOFWEEK|WEEKDAY|LOWER|UPPER|TRIM|ABS|ROUND)\((.+)\)$`)
	reDateFmt   = regexp.MustCompile(`^(?i)DATE_FORMAT\((.+), *'?([^')]*)'?\)$`)
	reTSDiff    = regexp.MustCompile(`^(?i)TIMESTAMPDIFF\((\w+), *(.+), *(.+)\)$`)
	reDateDiff  = regexp.MustCompile(`^(?i)DATEDIFF\((.+), *(.+)\)$`)
	reQuarter   = regexp.MustCompile(`^(?i)CONCAT\(YEAR\((.+)\), *'?-Q'?, *QUARTER\((.+)\)\)$`)
	// The parsed form writes operators as words ("mul", "div") and 1e0 as 1.
	reRatio = regexp.MustCompile(`^(?i)(.+?) (?:\*|mul) 1(?:e0)? (?:/|div) NULLIF\((.+), *0\)$`)
	// reOrZero is COALESCE(x, 0): x, or nothing when there is none (a
	// related total, dialog/offline typed.go).
	reOrZero = regexp.MustCompile(`^(?i)(?:COALESCE|IFNULL)\((.+), *0\)$`)
)

// DescribeExpression says in words what an expression computes ("month of
// date the order was placed"), naming columns by their labels.
func DescribeExpression(expr string, l Labels) string { return describeExpression(expr, l) }

// describeExpression says what an expression computes, naming columns by
// their labels; parts it cannot read are named by the columns they use.
func describeExpression(expr string, l Labels) string {
	e := strings.TrimSpace(expr)
	for strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") && Balanced(e[1:len(e)-1]) {
		e = strings.TrimSpace(e[1 : len(e)-1])
	}
	if m := reColumnRef.FindStringSubmatch(e); m != nil && m[0] == e {
		return labelOf(m[1]+"."+m[2], l)
	}
	if m := reQuarter.FindStringSubmatch(e); m != nil {
		return "quarter of " + describeExpression(m[1], l)
	}
	if m := reDateFmt.FindStringSubmatch(e); m != nil {
		unit := "period"
		f := strings.ToLower(m[2])
		switch {
		case strings.Contains(f, "%d"):
			unit = "day"
		case strings.Contains(f, "%m"):
			unit = "month"
		case strings.Contains(f, "%u"):
			unit = "week"
		case strings.Contains(f, "%y"):
			unit = "year"
		}
		return unit + " of " + describeExpression(m[1], l)
	}
	if m := reTSDiff.FindStringSubmatch(e); m != nil {
		from, to := describeExpression(m[2], l), describeExpression(m[3], l)
		if strings.Contains(strings.ToUpper(m[3]), "CURDATE") || strings.Contains(strings.ToUpper(m[3]), "NOW") {
			return strings.ToLower(m[1]) + "s since " + from
		}
		return strings.ToLower(m[1]) + "s from " + from + " to " + to
	}
	if m := reDateDiff.FindStringSubmatch(e); m != nil {
		return "days from " + describeExpression(m[2], l) + " to " + describeExpression(m[1], l)
	}
	if m := reSumWhen.FindStringSubmatch(e); m != nil {
		// SUM(CASE WHEN state = 'TX' THEN amount END): the total over some rows.
		v := m[2]
		if m[3] != "" || strings.HasPrefix(v, "'") {
			v = "'" + m[3] + "'"
		}
		return "total " + describeExpression(m[4], l) + " where " + describeExpression(m[1], l) + " is " + v
	}
	if m := rePercentOf.FindStringSubmatch(e); m != nil && Balanced(m[1]) && Balanced(m[2]) {
		return describeExpression(m[1], l) + " as a percentage of " + describeExpression(m[2], l)
	}
	if m := reRatio.FindStringSubmatch(e); m != nil {
		return describeExpression(m[1], l) + " per " + describeExpression(m[2], l)
	}
	if m := reOrZero.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
		return describeExpression(m[1], l)
	}
	if strings.EqualFold(e, "subquery") || strings.EqualFold(e, "(subquery)") {
		return "the related rows' total"
	}
	if m := reCall1.FindStringSubmatch(e); m != nil && Balanced(m[2]) {
		inner := describeExpression(m[2], l)
		switch strings.ToUpper(m[1]) {
		case "YEAR", "MONTH", "QUARTER", "WEEK", "HOUR":
			return strings.ToLower(m[1]) + " of " + inner
		case "DAY", "DATE":
			return "day of " + inner
		case "YEARWEEK":
			return "week of " + inner
		case "DAYOFWEEK", "WEEKDAY":
			return "weekday of " + inner
		}
		return inner
	}
	for _, op := range []struct{ sql, word, say string }{{" - ", " minus ", " minus "}, {" + ", " plus ", " plus "}, {" / ", " div ", " per "}, {" * ", " mul ", " times "}} {
		if a, b, ok := splitTop(e, op.sql); ok {
			return describeExpression(a, l) + op.say + describeExpression(b, l)
		}
		if a, b, ok := splitTop(e, op.word); ok {
			return describeExpression(a, l) + op.say + describeExpression(b, l)
		}
	}
	// Something else: name what it is computed from.
	var cols []string
	for _, m := range reColumnRef.FindAllStringSubmatch(e, -1) {
		if c := labelOf(m[1]+"."+m[2], l); !contains(cols, c) {
			cols = append(cols, c)
		}
	}
	if len(cols) > 0 {
		return "a value computed from " + joinWords(cols)
	}
	return strings.Trim(strings.ToLower(e), "()`")
}

// labelOf is a column's label, or its own name in words.
func labelOf(tc string, l Labels) string {
	if c := l.Column(tc); c != "" {
		return c
	}
	_, col, _ := strings.Cut(tc, ".")
	return strings.ReplaceAll(col, "_", " ")
}

// splitTop splits e at the last op outside parentheses and quotes.
func splitTop(e, op string) (string, string, bool) {
	depth, quoted := 0, false
	for i := len(e) - 1; i >= 0; i-- {
		switch c := e[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == ')':
			depth++
		case c == '(':
			depth--
		case depth == 0 && strings.HasPrefix(e[i:], op) && i > 0:
			return e[:i], e[i+len(op):], true
		}
	}
	return "", "", false
}

// Balanced says whether parentheses pair up in s.
func Balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
