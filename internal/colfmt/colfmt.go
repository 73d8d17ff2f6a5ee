// Package colfmt decides how a result column's values read for people —
// money, percentages, dates, periods, counts, identifiers — from the
// column's server type, its name, the expression that produced it and the
// comment of the column it came from, and formats values and axis ticks
// accordingly. Files for download keep raw values; this is the people's view.
package colfmt

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Kind is how a column's values read.
type Kind int

const (
	Text     Kind = iota // as stored
	Number               // a measure: thousands separators
	Money                // a sum of money: two decimals, currency symbol when known
	Percent              // a percentage
	ID                   // identifiers, codes, phone numbers: digits as stored
	Date                 // a calendar date, no time of day
	DateTime             // a point in time
	Year                 // a calendar year (2024)
	Month                // a month number 1–12
	Quarter              // a quarter number 1–4
	Period               // a period written as text: "2024-03", "2024-W10", "2024 Q1"
)

var kindNames = [...]string{"text", "number", "money", "percent", "id", "date", "datetime", "year", "month", "quarter", "period"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Format says how one column reads.
type Format struct {
	Kind Kind `json:"kind"`
	// Currency is the symbol of Money columns whose comment or name names
	// the currency ("$", "€", "£", "¥"); "" when it is not said.
	Currency string `json:"currency,omitempty"`
	// Fraction is set for Percent columns that store 0.25 for 25 %.
	Fraction bool `json:"fraction,omitempty"`
	// Null is what NULL reads as where it means "not applicable" (the
	// change of a first month, which has no month before it); "" is "NULL".
	Null string `json:"null,omitempty"`
}

// IsTime says whether the column places rows in time (a date or a period).
func (f Format) IsTime() bool {
	switch f.Kind {
	case Date, DateTime, Year, Month, Quarter, Period:
		return true
	}
	return false
}

// IsMeasure says whether the column holds quantities that can be drawn.
func (f Format) IsMeasure() bool {
	switch f.Kind {
	case Number, Money, Percent:
		return true
	}
	return false
}

// Column is what is known about one result column.
type Column struct {
	Name string // the result's column name (often an alias: "total_net_amount")
	Type string // the server's type name: INT, DECIMAL, DATE…
	// Expr is the select-list expression ("SUM(orders.net_amount)",
	// "MONTH(orders.ordered_at)"), Agg its aggregate ("SUM", "COUNT"), when known.
	Expr, Agg string
	// Source is the plain name of the column under Expr ("net_amount"), and
	// Comment and SourceType that column's comment and data type, when known.
	Source, Comment, SourceType string
}

// Detect decides how a column reads. Evidence, strongest first: the
// aggregate (a COUNT is a number whatever it counts), the server type
// (dates), a date function, then words of the comment and the names.
func Detect(c Column) Format {
	agg := strings.ToUpper(c.Agg)
	if agg == "COUNT" {
		return Format{Kind: Number}
	}
	typ := strings.ToUpper(strings.TrimPrefix(strings.ToUpper(c.Type), "UNSIGNED "))
	switch typ {
	case "DATE":
		return Format{Kind: Date}
	case "DATETIME", "TIMESTAMP":
		if k, ok := periodFunc(c.Expr); ok && k == Date {
			return Format{Kind: Date}
		}
		return Format{Kind: DateTime}
	}
	if k, ok := periodFunc(c.Expr); ok {
		return Format{Kind: k}
	}
	numeric := isNumericType(typ) || typ == "" && isNumericType(strings.ToUpper(c.SourceType))
	words := wordsOf(c.Name, c.Source, c.Comment)
	if k, ok := periodName(c.Name, numeric); ok && agg == "" {
		return Format{Kind: k}
	}
	if !numeric {
		return Format{Kind: Text}
	}
	if agg == "" && isIdentifier(c.Name, c.Source) {
		return Format{Kind: ID}
	}
	if countLike(c.Comment) {
		return Format{Kind: Number}
	}
	if words.any(percentWords...) || strings.Contains(c.Comment, "%") || strings.Contains(c.Name, "%") {
		return Format{Kind: Percent, Fraction: fractionOf(c.Comment)}
	}
	if cur, ok := currency(words, c.Name+" "+c.Comment); ok {
		return Format{Kind: Money, Currency: cur}
	}
	if words.any(moneyWords...) {
		return Format{Kind: Money}
	}
	return Format{Kind: Number}
}

func isNumericType(t string) bool {
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "DECIMAL", "NUMERIC",
		"FLOAT", "DOUBLE", "REAL", "YEAR", "UNSIGNED TINYINT", "UNSIGNED SMALLINT",
		"UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT":
		return true
	}
	return false
}

// periodFunc reads a date function at the head of an expression.
func periodFunc(expr string) (Kind, bool) {
	e := strings.ToUpper(strings.TrimSpace(expr))
	i := strings.IndexByte(e, '(')
	if i <= 0 {
		return 0, false
	}
	switch strings.TrimSpace(e[:i]) {
	case "YEAR":
		return Year, true
	case "MONTH":
		return Month, true
	case "QUARTER":
		return Quarter, true
	case "DATE", "LAST_DAY", "MAKEDATE", "STR_TO_DATE":
		return Date, true
	case "DATE_FORMAT", "YEARWEEK", "WEEK", "EXTRACT", "TO_CHAR", "DATE_TRUNC":
		return Period, true
	}
	return 0, false
}

// periodName reads a period from a column name alone (an alias such as
// "order_month"), for results whose expressions are not known.
func periodName(name string, numeric bool) (Kind, bool) {
	ws := strings.Fields(tables.Humanize(name))
	if len(ws) == 0 {
		return 0, false
	}
	last := ws[len(ws)-1]
	switch last {
	case "year", "yr":
		if numeric {
			return Year, true
		}
		return Period, true
	case "month", "mon":
		if numeric {
			return Month, true
		}
		return Period, true
	case "quarter", "qtr":
		if numeric {
			return Quarter, true
		}
		return Period, true
	case "week", "period", "yearmonth", "ym", "day", "date":
		if !numeric {
			return Period, true
		}
	}
	return 0, false
}

// isIdentifier: ids, codes and numbers that name rather than count read
// wrong with separators.
func isIdentifier(names ...string) bool {
	for _, n := range names {
		ws := strings.Fields(tables.Humanize(n))
		if len(ws) == 0 {
			continue
		}
		switch ws[len(ws)-1] {
		case "id", "code", "zip", "phone", "no", "number", "ref", "sku", "ean", "isbn":
			return true
		}
		if strings.HasSuffix(strings.ToLower(n), "id") && len(n) > 2 && unicode.IsUpper(rune(n[len(n)-2])) {
			return true
		}
	}
	return false
}

// countLike: a comment that says the column counts things is not money,
// whatever else it mentions ("Number of sales", "Count of refunds").
func countLike(comment string) bool {
	c := strings.ToLower(strings.TrimSpace(comment))
	for _, p := range []string{"number of", "count of", "how many", "quantity", "units"} {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

func fractionOf(comment string) bool {
	c := strings.ToLower(comment)
	for _, p := range []string{"fraction", "0-1", "0–1", "0 to 1", "between 0 and 1", "0..1", "ratio"} {
		if strings.Contains(c, p) {
			return true
		}
	}
	return false
}

var percentWords = []string{"percent", "percentage", "pct", "percentages"}

// moneyWords name sums of money in column names and comments, in many
// schemas' words; a currency named anywhere also decides it.
var moneyWords = []string{
	"price", "prices", "amount", "amounts", "revenue", "revenues", "cost", "costs", "sales",
	"spend", "spent", "fee", "fees", "salary", "salaries", "wage", "wages", "income", "profit",
	"profits", "payment", "payments", "paid", "balance", "budget", "tax", "taxes", "charge",
	"charges", "refund", "refunds", "refunded", "discount", "earnings", "gmv", "arr", "mrr",
	"money", "turnover", "expense", "expenses", "invoice", "invoiced", "billing", "billed",
	"payout", "premium", "currency", "dollar", "dollars", "cents",
}

// currencies maps words and symbols to a symbol.
var currencies = []struct {
	sym   string
	words []string
}{
	{"$", []string{"usd", "dollar", "dollars", "us$"}},
	{"€", []string{"eur", "euro", "euros"}},
	{"£", []string{"gbp", "sterling", "pounds"}},
	{"¥", []string{"jpy", "yen", "cny", "yuan", "rmb"}},
}

func currency(ws wordSet, raw string) (string, bool) {
	for _, c := range currencies {
		if strings.Contains(raw, c.sym) || ws.any(c.words...) {
			return c.sym, true
		}
	}
	return "", false
}

// CurrencyIn is the symbol of the currency a text names ("in US dollars",
// "EUR"), or "".
func CurrencyIn(text string) string {
	cur, _ := currency(wordsOf(text), text)
	return cur
}

type wordSet map[string]bool

func (w wordSet) any(words ...string) bool {
	for _, x := range words {
		if w[x] {
			return true
		}
	}
	return false
}

// wordsOf splits names (snake or camel case) and comments into lower-case words.
func wordsOf(texts ...string) wordSet {
	ws := wordSet{}
	for _, t := range texts {
		for _, f := range strings.FieldsFunc(strings.ToLower(tables.Humanize(t)), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$'
		}) {
			ws[f] = true
		}
	}
	return ws
}

// Value formats one result value for people in the default locale
// (en-US: 1,234.5). NULL reads "NULL", as in the rest of the bot's tables.
func (f Format) Value(v any) string { return f.ValueIn(v, Locale{}) }

// ValueIn formats one result value for a reader in locale loc: every
// measure with thousands separators, money to the cent with its currency,
// percentages as percentages, other fractions to a sensible precision.
// Identifiers, years and codes keep their digits as stored.
func (f Format) ValueIn(v any, loc Locale) string {
	if v == nil {
		if f.Null != "" {
			return f.Null
		}
		return "NULL"
	}
	switch f.Kind {
	case Month:
		// A month of the year (MONTH(date), 1–12) reads as its name.
		if n, ok := asFloat(v); ok && n >= 1 && n <= 12 && n == math.Trunc(n) {
			return monthNames[int(n)-1]
		}
		return plain(v)
	case Text, ID, Year, Quarter, Period:
		return plain(v)
	case Date:
		return dateOnly(plain(v))
	case DateTime:
		return strings.TrimSuffix(plain(v), ".000000")
	case Money:
		x, ok := decimalString(v)
		if !ok {
			return plain(v)
		}
		return withSymbol(loc.group(toScale(x, 2)), f.Currency)
	case Percent:
		x, ok := asFloat(v)
		if !ok {
			return plain(v)
		}
		if f.Fraction {
			x *= 100
		}
		return loc.group(trimFloat(x, percentDecimals(x))) + "%"
	}
	return number(v, loc)
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// Exact formats a value as stored, for people checking figures (bot sql):
// measures keep every digit the warehouse returned, grouped in threes
// (316,507.02, never rounded to 316,507); identifiers, years and codes keep
// their digits ungrouped, as in ValueIn.
func (f Format) Exact(v any) string {
	if f.Kind == Month && v != nil {
		return plain(v)
	}
	if v == nil || !f.IsMeasure() {
		return f.Value(v)
	}
	s := strings.TrimSpace(plain(v))
	if _, ok := asFloat(s); !ok || strings.ContainsAny(s, "eEnN") {
		return plain(v)
	}
	s = Locale{}.group(s)
	if f.Kind == Money {
		return withSymbol(s, f.Currency)
	}
	return s
}

// dateOnly drops the midnight time a driver adds to DATE values.
func dateOnly(s string) string {
	for _, suf := range []string{" 00:00:00", "T00:00:00Z", "T00:00:00"} {
		if strings.HasSuffix(s, suf) {
			return strings.TrimSuffix(s, suf)
		}
	}
	return s
}

func plain(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// number is a measure: separators always; integers and exact decimals of
// at most two places as stored; longer fractions (averages, ratios) to a
// sensible precision.
func number(v any, loc Locale) string {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return loc.group(trimFloat(x, sensibleDecimals(x)))
	case string:
		s := strings.TrimSpace(x)
		f, ok := asFloat(s)
		if !ok || strings.ContainsAny(s, "eEnN") {
			return x
		}
		if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 2 {
			return loc.group(trimZeros(toScale(s, sensibleDecimals(f))))
		}
		return loc.group(s)
	}
	return loc.group(plain(v))
}

// sensibleDecimals is how many decimals a measure that is not a whole
// number needs: fewer as it grows (1,234.6; 12.35; 0.1235).
func sensibleDecimals(x float64) int {
	switch a := math.Abs(x); {
	case a >= 100:
		return 1
	case a >= 1:
		return 2
	}
	return 4
}

// percentDecimals: 12.3 %, but 3.05 % (one decimal would say 3 %).
func percentDecimals(x float64) int {
	if math.Abs(x) >= 10 {
		return 1
	}
	return 2
}

// trimZeros drops trailing zeros of a plain decimal string (12.50 → 12.5).
func trimZeros(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// asFloat is sqlresult.AsFloat, reading numbers written with spaces too.
func asFloat(v any) (float64, bool) {
	if x, ok := v.(string); ok {
		v = strings.TrimSpace(x)
	}
	return sqlresult.AsFloat(v)
}

// decimalString returns a value as a plain decimal string, keeping a
// DECIMAL's digits exactly.
func decimalString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		x = strings.TrimSpace(x)
		if _, err := strconv.ParseFloat(x, 64); err != nil || strings.ContainsAny(x, "eEnN") {
			return "", false
		}
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int64, uint64:
		return plain(x), true
	}
	return "", false
}

// toScale rounds a plain decimal string to n decimals (half away from zero).
func toScale(s string, n int) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	if intPart == "" {
		intPart = "0"
	}
	if len(frac) <= n {
		frac += strings.Repeat("0", n-len(frac))
	} else {
		round := frac[n] >= '5'
		frac = frac[:n]
		if round {
			digits := []byte(intPart + frac)
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			d := string(digits)
			if i < 0 {
				d = "1" + d
			}
			intPart, frac = d[:len(d)-n], d[len(d)-n:]
		}
	}
	out := intPart
	if n > 0 {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}

func withSymbol(s, sym string) string {
	if sym == "" {
		return s
	}
	if strings.HasPrefix(s, "-") {
		return "-" + sym + s[1:]
	}
	return sym + s
}

// trimFloat prints x with at most n decimals and no trailing zeros.
func trimFloat(x float64, n int) string {
	s := strconv.FormatFloat(x, 'f', n, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Tick formats an axis value compactly: 1.2M, $350k, 12%.
func (f Format) Tick(x float64) string {
	switch f.Kind {
	case Percent:
		if f.Fraction {
			x *= 100
		}
		return trimFloat(x, 1) + "%"
	case Money:
		return withSymbol(compact(x), f.Currency)
	}
	return compact(x)
}

// compact shortens large numbers with k, M, B suffixes.
func compact(x float64) string {
	a := math.Abs(x)
	switch {
	case a >= 1e9:
		return trimFloat(x/1e9, 1) + "B"
	case a >= 1e6:
		return trimFloat(x/1e6, 1) + "M"
	case a >= 1e4:
		return trimFloat(x/1e3, 1) + "k"
	case a >= 100:
		return trimFloat(x, 0)
	}
	return trimFloat(x, 2)
}

// Unit is a short unit for an axis label ("$", "%"), or "".
func (f Format) Unit() string {
	switch f.Kind {
	case Percent:
		return "%"
	case Money:
		return f.Currency
	}
	return ""
}

// shareWords name a part of a whole: such a measure whose values all lie
// within -1…1 holds fractions (0.0305 is 3.05 %, not a count).
var shareWords = []string{"share", "ratio", "proportion", "fraction", "rate", "percentage", "percent", "pct"}

// Refine looks at a column's values where its name cannot decide: a share,
// ratio or rate (not money) whose every value lies within -1…1 reads as a
// percentage. values are the column's cells, NULLs included.
func Refine(f Format, c Column, values []any) Format {
	if f.Kind != Number && !(f.Kind == Percent && !f.Fraction && !strings.Contains(c.Comment, "%")) {
		return f
	}
	if strings.ToUpper(c.Agg) == "COUNT" || !wordsOf(c.Name, c.Source, c.Comment).any(shareWords...) {
		return f
	}
	seen := false
	for _, v := range values {
		if v == nil {
			continue
		}
		x, ok := asFloat(v)
		if !ok || math.Abs(x) > 1 {
			return f
		}
		seen = seen || x != 0 && x != 1 && x != -1
	}
	if !seen {
		return f
	}
	return Format{Kind: Percent, Fraction: true}
}

// SchemaCurrency is the currency a warehouse keeps its money in, when the
// columns that say agree: "in US dollars" on list prices also holds for net
// amounts whose comment does not repeat it. "" when none says or they
// disagree (a multi-currency warehouse shows no symbol it is not sure of).
func SchemaCurrency(cols []Column) string {
	found := ""
	for _, c := range cols {
		f := Detect(c)
		if f.Kind != Money || f.Currency == "" {
			continue
		}
		if found != "" && found != f.Currency {
			return ""
		}
		found = f.Currency
	}
	return found
}

// Consistent gives every money column of one answer the same currency:
// the one its own columns name, when they agree, else fallback (the
// warehouse's, from SchemaCurrency). Columns naming another currency keep it.
func Consistent(formats []Format, fallback string) {
	cur := ""
	for _, f := range formats {
		if f.Kind != Money || f.Currency == "" {
			continue
		}
		if cur != "" && cur != f.Currency {
			cur = ""
			fallback = ""
			break
		}
		cur = f.Currency
	}
	if cur == "" {
		cur = fallback
	}
	for i := range formats {
		if formats[i].Kind == Money && formats[i].Currency == "" {
			formats[i].Currency = cur
		}
	}
}
