package dialog

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// headline says a ranking's answer in a sentence, with its figure:
// "California, with 766 customers." for the top one, "Priya Bennett comes
// first, with net revenue of $51,234.50." for the top few. It needs the
// figure among the columns (figure.go puts it there) and a column that
// names the rows; otherwise there is no headline.
func (l *Labels) headline(s *sqlshape.Shape, res *sqlresult.Result, formats []colfmt.Format, headings []string, loc colfmt.Locale) string {
	if s == nil || res == nil || len(res.Rows) == 0 || s.Limit < 1 || len(s.OrderBy) == 0 ||
		len(s.Outputs) != len(res.Columns) || len(s.Outputs) < 2 || s.Over != "" {
		return ""
	}
	order := s.OrderBy[0].Expr
	fig := -1
	for i, o := range s.Outputs {
		if strings.EqualFold(o.Expr, order) || o.Alias != "" && strings.EqualFold(o.Alias, order) {
			fig = i
			break
		}
	}
	if fig < 0 || !formats[fig].IsMeasure() {
		return ""
	}
	name := l.rowName(res.Rows[0], formats, fig, loc)
	if name == "" {
		return ""
	}
	figure := figurePhrase(s.Outputs[fig], headings[fig], formats[fig], res.Rows[0][fig], loc)
	if s.Limit == 1 || len(res.Rows) == 1 {
		return name + ", with " + figure + "."
	}
	return name + " comes first, with " + figure + "."
}

// rowName is what names a row: its text columns (a name, an email), not
// its ids or other figures; "" when it has none.
func (l *Labels) rowName(row []any, formats []colfmt.Format, skip int, loc colfmt.Locale) string {
	var parts []string
	for j, v := range row {
		if j == skip || v == nil || formats[j].IsMeasure() || formats[j].Kind == colfmt.ID {
			continue
		}
		if t := strings.TrimSpace(formats[j].ValueIn(v, loc)); t != "" {
			parts = append(parts, t)
		}
		if len(parts) == 2 {
			break
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[0] + " (" + parts[1] + ")"
}

// figurePhrase words a figure: a count by what it counts ("766
// customers", "1 customer"), money as an amount of it ("$2,304,450.78 in
// net revenue"), anything else by its heading ("a quantity of 1,316").
func figurePhrase(o sqlshape.Output, heading string, f colfmt.Format, v any, loc colfmt.Locale) string {
	value := f.ValueIn(v, loc)
	noun := lowerFirst(heading)
	switch {
	case strings.EqualFold(o.Agg, "COUNT"):
		noun = strings.TrimPrefix(noun, "number of ")
		if x, ok := sqlresult.AsFloat(v); ok && x == 1 {
			noun = singular(noun)
		}
		return value + " " + noun
	case f.Kind == colfmt.Money:
		return value + " in " + noun
	}
	article := "a "
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		article = "an "
	}
	return article + noun + " of " + value
}
