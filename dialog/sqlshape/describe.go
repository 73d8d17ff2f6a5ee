package sqlshape

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// Expressions in plain words: the periods, differences and ratios the
// engines write ("month of order date", "days from start date to end
// date", "fee per pages"), so that no SQL reaches an explanation. The text
// is parsed once and described from its syntax tree (describe_ast.go).

// DescribeExpression says what an expression computes, in words: columns
// by their labels, aggregates, periods, differences, ratios and shares;
// parts it cannot read are named by the columns they use. No SQL is left.
func DescribeExpression(expr string, l Labels) string { return describeExpression(expr, l) }

// DescribeCondition says a condition in words: "status is 'success'",
// "tool kind contains 'drill' or depot name contains 'north yard'".
func DescribeCondition(cond string, l Labels) string { return describeCondition(cond, l) }

func describeExpression(expr string, l Labels) string {
	e := strings.TrimSpace(expr)
	if tc, ok := plainColumn(e); ok {
		return labelOf(tc, l) // most calls: no parser needed
	}
	n, ok := parseExpr(e)
	if !ok {
		return columnsOf(e, l)
	}
	return describeNode(n, l)
}

func describeCondition(cond string, l Labels) string {
	c := strings.TrimSpace(cond)
	if tc, ok := plainColumn(c); ok {
		return labelOf(tc, l)
	}
	n, ok := parseExpr(c)
	if !ok {
		return columnsOf(c, l)
	}
	return describeCond(n, l)
}

// reColumnRef is a qualified column as written: "orders.ship_state",
// "`orders`.`ship_state`".
var reColumnRef = regexp.MustCompile("`?([A-Za-z_][A-Za-z0-9_]*)`?\\.`?([A-Za-z_][A-Za-z0-9_]*)`?")

// plainColumn reads a text that is one qualified column, so that the
// commonest call needs no parser (and table names such as "select" that
// the parser would refuse unquoted are still read).
func plainColumn(e string) (string, bool) {
	m := reColumnRef.FindStringSubmatch(e)
	if m == nil || m[0] != e {
		return "", false
	}
	return m[1] + "." + m[2], true
}

// columnsOf names what an unreadable text is computed from, or gives the
// text itself, lower-case, when it names no column.
func columnsOf(e string, l Labels) string {
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

// parseExpr parses an expression or a condition. Callers pass SQL as
// written and the canonical text of Shape, which is no SQL: operators as
// words ("mul", "eq") and literals unquoted ("DATE_FORMAT(d, %y-%m)",
// "DATE_SUB(CURDATE(), 6, month)"); that text is made SQL first.
func parseExpr(text string) (ast.ExprNode, bool) {
	p := parsers.Get().(*parser.Parser)
	defer parsers.Put(p)
	src := sqlText(text)
	if n, ok := parseOne(p, src); ok {
		return n, true
	}
	if !sqlscan.Balanced(src, sqlscan.Quotes) || !quotesClosed(src) {
		return nil, false
	}
	return parseOne(p, repair(p, src, true))
}

// parseOne parses text as the single item of a SELECT list.
func parseOne(p *parser.Parser, text string) (ast.ExprNode, bool) {
	st, err := p.ParseOneStmt("SELECT "+text, "", "")
	if err != nil {
		return nil, false
	}
	sel, ok := st.(*ast.SelectStmt)
	if !ok || sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil ||
		sel.OrderBy != nil || sel.Limit != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, false
	}
	f := sel.Fields.Fields[0]
	if f.WildCard != nil || f.Expr == nil || f.AsName.L != "" {
		return nil, false // "north yard" would read as a column with an alias
	}
	return f.Expr, true
}

// parsers are parsers to reuse: a new one costs more than a parse. A
// parser's trees stay valid after it parses again.
var parsers = sync.Pool{New: func() any { return parser.New() }}

// wordOps are opcode.Op's names, as the canonical text writes operators.
var wordOps = map[string]string{
	"mul": "*", "div": "/", "intdiv": "DIV", "mod": "%", "plus": "+", "minus": "-",
	"eq": "=", "ne": "!=", "ge": ">=", "le": "<=", "gt": ">", "lt": "<", "nulleq": "<=>",
	"bitand": "&", "bitor": "|", "bitxor": "^", "leftshift": "<<", "rightshift": ">>",
}

// reBareDate is a date (and time) the canonical text leaves unquoted,
// which SQL would read as a subtraction.
var reBareDate = regexp.MustCompile(`^\d{4}-\d\d-\d\d(?: \d\d:\d\d:\d\d(?:\.\d+)?)?`)

// sqlText writes the canonical text's operator words as SQL operators and
// its bare dates as names, which read back as their own text.
func sqlText(s string) string {
	code := make([]bool, len(s))
	for t := range sqlscan.Tokens(s, sqlscan.Quotes) {
		if t.Kind == sqlscan.Code {
			code[t.Start] = true
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !code[i] {
			b.WriteByte(s[i])
			continue
		}
		if s[i] == ' ' {
			if w, ok := wordOpAt(s, i+1, code); ok {
				b.WriteString(" " + wordOps[w])
				i += len(w)
				continue
			}
		}
		if i == 0 || strings.IndexByte(" (,", s[i-1]) >= 0 {
			if d := reBareDate.FindString(s[i:]); d != "" && allCode(code[i:i+len(d)]) && (i+len(d) == len(s) || strings.IndexByte(" ),", s[i+len(d)]) >= 0) {
				b.WriteString("`" + d + "`")
				i += len(d) - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wordOpAt finds an operator word at i followed by a space, in code.
func wordOpAt(s string, i int, code []bool) (string, bool) {
	j := strings.IndexByte(s[i:], ' ')
	if j <= 0 {
		return "", false
	}
	w := s[i : i+j]
	_, ok := wordOps[w]
	return w, ok && allCode(code[i:i+j+1])
}

func allCode(code []bool) bool {
	for _, c := range code {
		if !c {
			return false
		}
	}
	return true
}

func quotesClosed(s string) bool {
	for t := range sqlscan.Tokens(s, sqlscan.Quotes) {
		if !t.Terminated {
			return false
		}
	}
	return true
}

// dateArith are the calls the canonical text writes without INTERVAL:
// "DATE_SUB(CURDATE(), 6, month)".
var dateArith = map[string]bool{"date_add": true, "date_sub": true, "adddate": true, "subdate": true}

// repairOps are where a text that does not parse is cut to find its
// unquoted literals, connectives first.
var repairOps = []string{" or ", " and ", " = ", " != ", " <> ", " >= ", " <= ", " > ", " < ", " like ", " + ", " - ", " * ", " / "}

// repair quotes, as names, the parts of a canonical text that do not
// parse on their own: the literals canon writes bare ("north yard", "%y-%m").
// The whole text is never quoted (top): that would hide its columns.
func repair(p *parser.Parser, s string, top bool) string {
	if _, ok := parseOne(p, s); ok {
		return s
	}
	if name, args, ok := splitCall(s); ok {
		if dateArith[strings.ToLower(name)] && len(args) == 3 {
			return name + "(" + repair(p, args[0], false) + ", INTERVAL " + strings.TrimSpace(args[1]) + " " + strings.TrimSpace(args[2]) + ")"
		}
		for i, a := range args {
			args[i] = repair(p, a, false)
		}
		return name + "(" + strings.Join(args, ", ") + ")"
	}
	for _, op := range repairOps {
		if a, b, ok := splitTop(s, op); ok {
			return repair(p, a, false) + op + repair(p, b, false)
		}
	}
	if top || strings.TrimSpace(s) == "" {
		return s
	}
	return "`" + strings.ReplaceAll(strings.TrimSpace(s), "`", "``") + "`"
}

// splitCall reads "NAME(a, b, …)" as the name and its arguments.
func splitCall(s string) (string, []string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '(')
	if i <= 0 || !strings.HasSuffix(s, ")") || strings.Trim(s[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		return "", nil, false
	}
	inner := s[i+1 : len(s)-1]
	if !sqlscan.Balanced(inner, sqlscan.Quotes) {
		return "", nil, false // "f(a) + g(b)"
	}
	return s[:i], sqlscan.Split(inner, ',', sqlscan.Quotes), true
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
	at := -1
	for t := range sqlscan.Tokens(e, sqlscan.Quotes) {
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
