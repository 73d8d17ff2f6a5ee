package sqlshape

import (
	"regexp"
	"strings"

	"github.com/clarify-bot/clarify/internal/sqlscan"
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
	// reSplit is a measure of a thing split across its parts in proportion
	// to a measure of each part (the offline engine's grain.go writes it):
	// M * W / NULLIF(shares.total, 0).
	reSplit = regexp.MustCompile("(?i)^(.+?) (?:\\*|mul) (.+?) (?:/|div) NULLIF\\(`?shares`?\\.`?total`?, *0\\)$")
)

// DescribeExpression says what an expression computes, in words: columns
// by their labels, aggregates, periods, differences, ratios and shares;
// parts it cannot read are named by the columns they use. No SQL is left.
func DescribeExpression(expr string, l Labels) string { return describeExpression(expr, l) }

var (
	// reCast is a conversion, which says nothing a person asked for.
	reCast = regexp.MustCompile(`(?i)^CAST\((.+) AS [A-Za-z ]+(?:\(\d+(?:, *\d+)?\))?\)$`)
	// reNullIf is NULLIF(x, 0), x guarded against dividing by zero.
	reNullIf = regexp.MustCompile(`(?i)^NULLIF\((.+), *0\)$`)
	// reUnit is a multiplication by one (a cast to decimals, written as arithmetic).
	reUnit = regexp.MustCompile(`(?i)^(.+?) (?:\*|mul) 1(?:\.0+)?(?:e0)?$`)
	// reCountWhen counts the rows where a condition holds.
	reCountWhen = regexp.MustCompile(`(?i)^(?:SUM|COUNT)\(CASE WHEN (.+) THEN 1 (?:ELSE (?:0|NULL) )?END\)$`)
	// reDateShift moves a date by a number of units: DATE_SUB(CURDATE(), 6, month).
	reDateShift = regexp.MustCompile(`(?i)^(DATE_SUB|DATE_ADD|SUBDATE|ADDDATE)\((.+), *(?:INTERVAL )?'?(\d+)'?,? *'?(\w+?)'?\)$`)
	// reAgg is one aggregate call.
	reAgg = regexp.MustCompile(`(?i)^(SUM|AVG|MIN|MAX|COUNT)\((DISTINCT )?(.+)\)$`)
	// reOrZero is COALESCE(x, 0): x, or nothing when there is none (a
	// related total, dialog/offline typed.go).
	reOrZero = regexp.MustCompile(`^(?i)(?:COALESCE|IFNULL)\((.+), *0\)$`)
)

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
	if now, ok := nowWords[strings.ToUpper(e)]; ok {
		return now
	}
	if m := reDateShift.FindStringSubmatch(e); m != nil && Balanced(m[2]) {
		unit := strings.ToLower(m[4])
		if m[3] != "1" {
			unit += "s"
		}
		dir := "before"
		if strings.Contains(strings.ToUpper(m[1]), "ADD") {
			dir = "after"
		}
		return m[3] + " " + unit + " " + dir + " " + describeExpression(m[2], l)
	}
	if m := reCast.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
		return describeExpression(m[1], l)
	}
	if m := reNullIf.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
		return describeExpression(m[1], l) // a guard against dividing by zero
	}
	if m := reUnit.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
		return describeExpression(m[1], l)
	}
	if a, b, ok := splitTop(e, " div "); ok && reCountWhen.MatchString(strings.TrimSpace(stripUnit(a))) && isCountRows(b) {
		// SUM(CASE WHEN ok THEN 1 ELSE 0 END) / COUNT(*): a share of the rows.
		m := reCountWhen.FindStringSubmatch(strings.TrimSpace(stripUnit(a)))
		return "share of rows where " + describeCondition(m[1], l)
	}
	if a, b, ok := splitTop(e, " / "); ok && reCountWhen.MatchString(strings.TrimSpace(stripUnit(a))) && isCountRows(b) {
		m := reCountWhen.FindStringSubmatch(strings.TrimSpace(stripUnit(a)))
		return "share of rows where " + describeCondition(m[1], l)
	}
	if m := reCountWhen.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
		return "number of rows where " + describeCondition(m[1], l)
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
	if m := reSplit.FindStringSubmatch(e); m != nil && Balanced(m[1]) && Balanced(m[2]) {
		if strings.TrimSpace(m[2]) == "1" {
			return describeExpression(m[1], l) + ", split equally"
		}
		return describeExpression(m[1], l) + ", split by " + describeExpression(m[2], l)
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
	if m := reAgg.FindStringSubmatch(e); m != nil && Balanced(m[3]) {
		what := describeExpression(m[3], l)
		switch strings.ToUpper(m[1]) {
		case "COUNT":
			switch {
			case m[3] == "*" || m[3] == "1":
				return "number of rows"
			case m[2] != "":
				return "number of different " + what
			}
			return "number of " + what
		case "SUM":
			return "total " + what
		case "AVG":
			return "average " + what
		case "MAX":
			return "highest " + what
		case "MIN":
			return "lowest " + what
		}
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
		return "a value computed from " + JoinAnd(cols)
	}
	return strings.Trim(strings.ToLower(e), "()`")
}

// nowWords say the current date and time.
var nowWords = map[string]string{"CURDATE()": "today", "CURRENT_DATE()": "today", "CURRENT_DATE": "today", "NOW()": "now",
	"CURRENT_TIMESTAMP()": "now", "CURRENT_TIMESTAMP": "now", "SYSDATE()": "now", "UTC_DATE()": "today"}

func stripUnit(e string) string {
	if m := reUnit.FindStringSubmatch(strings.TrimSpace(e)); m != nil && Balanced(m[1]) {
		return m[1]
	}
	return e
}

func isCountRows(e string) bool {
	e = strings.ToUpper(strings.TrimSpace(e))
	for strings.HasPrefix(e, "NULLIF(") && strings.HasSuffix(e, ", 0)") {
		e = strings.TrimSpace(e[len("NULLIF(") : len(e)-len(", 0)")])
	}
	return e == "COUNT(*)" || e == "COUNT(1)"
}

// DescribeCondition says a condition in words: "status is 'success'",
// "food type contains 'italian' or city name contains 'new york'".
func DescribeCondition(cond string, l Labels) string { return describeCondition(cond, l) }

var (
	reCmp    = regexp.MustCompile(`(?i)^(.+?) ?(=|eq|!=|<>|ne|>=|ge|<=|le|>|gt|<|lt) ?(.+)$`)
	reLike   = regexp.MustCompile(`(?i)^(.+?) (not )?like (.+)$`)
	reIsNull = regexp.MustCompile(`(?i)^(.+?) is (not )?null$`)
	reIn     = regexp.MustCompile(`(?i)^(.+?) (not )?in ?\((.*)\)$`)
	reLower  = regexp.MustCompile(`(?i)^(?:LOWER|UPPER|TRIM)\((.+)\)$`)
)

var cmpWords = map[string]string{"=": "is", "eq": "is", "!=": "is not", "<>": "is not", "ne": "is not",
	">=": "is at least", "ge": "is at least", "<=": "is at most", "le": "is at most", ">": "is above", "gt": "is above", "<": "is below", "lt": "is below"}

func describeCondition(cond string, l Labels) string {
	c := strings.TrimSpace(cond)
	for strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") && Balanced(c[1:len(c)-1]) {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	for _, op := range []struct{ sql, say string }{{" or ", " or "}, {" OR ", " or "}, {" || ", " or "}, {" and ", " and "}, {" AND ", " and "}, {" && ", " and "}} {
		if a, b, ok := splitTop(c, op.sql); ok && !strings.Contains(strings.ToLower(a), " between ") {
			return describeCondition(a, l) + op.say + describeCondition(b, l)
		}
	}
	if strings.HasPrefix(strings.ToLower(c), "not ") {
		return "not (" + describeCondition(c[4:], l) + ")"
	}
	side := func(e string) string {
		e = strings.TrimSpace(e)
		if m := reLower.FindStringSubmatch(e); m != nil && Balanced(m[1]) {
			e = m[1]
		}
		return describeExpression(e, l)
	}
	value := func(v string) string {
		v = strings.TrimSpace(v)
		if m := reLower.FindStringSubmatch(v); m != nil && Balanced(m[1]) {
			v = m[1]
		}
		v = strings.TrimPrefix(strings.TrimPrefix(v, "_utf8mb4"), "utf8mb4")
		if strings.HasPrefix(v, "'") || strings.HasPrefix(v, `"`) {
			return "'" + strings.Trim(v, `'"`) + "'"
		}
		if isNumeric(v) {
			return v
		}
		return describeExpression(v, l)
	}
	if m := reIsNull.FindStringSubmatch(c); m != nil && Balanced(m[1]) {
		if m[2] != "" {
			return side(m[1]) + " is given"
		}
		return side(m[1]) + " is empty"
	}
	if m := reLike.FindStringSubmatch(c); m != nil && Balanced(m[1]) {
		v := value(m[3])
		verb := "matches"
		if t := strings.Trim(v, "'"); strings.HasPrefix(t, "%") && strings.HasSuffix(t, "%") && len(t) > 1 {
			v, verb = "'"+strings.Trim(t, "%")+"'", "contains"
		} else if strings.HasSuffix(t, "%") {
			v, verb = "'"+strings.TrimSuffix(t, "%")+"'", "starts with"
		}
		if m[2] != "" {
			verb = map[string]string{"matches": "does not match", "contains": "does not contain", "starts with": "does not start with"}[verb]
		}
		return side(m[1]) + " " + verb + " " + v
	}
	if m := reIn.FindStringSubmatch(c); m != nil && Balanced(m[1]) && Balanced(m[3]) {
		var vs []string
		for _, v := range strings.Split(m[3], ",") {
			vs = append(vs, value(v))
		}
		if m[2] != "" {
			return side(m[1]) + " is none of " + strings.Join(vs, ", ")
		}
		return side(m[1]) + " is " + joinOr(vs)
	}
	if m := reCmp.FindStringSubmatch(c); m != nil && Balanced(m[1]) && Balanced(m[3]) {
		if w, ok := cmpWords[strings.ToLower(m[2])]; ok {
			return side(m[1]) + " " + w + " " + value(m[3])
		}
	}
	return describeExpression(c, l)
}

// labelOf is a column's label, or its own name in words.
func labelOf(tc string, l Labels) string {
	if c := l.Column(tc); c != "" {
		return c
	}
	_, col, _ := strings.Cut(tc, ".")
	return strings.ReplaceAll(col, "_", " ")
}

// splitTop splits e at the last op outside parentheses and single quotes.
func splitTop(e, op string) (string, string, bool) {
	at := -1
	for t := range sqlscan.Tokens(e, sqlscan.SingleQuote) {
		if i := t.Start; t.Kind == sqlscan.Code && t.Depth == 0 && i > 0 && strings.HasPrefix(e[i:], op) {
			at = i
		}
	}
	if at < 0 {
		return "", "", false
	}
	return e[:at], e[at+len(op):], true
}

// Balanced says whether parentheses pair up in s, quoted or not.
func Balanced(s string) bool { return sqlscan.Balanced(s, 0) }

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
