package dialogtest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/clarify-bot/clarify/dialog"
)

// ParseTable reads the first monospace table of text as the bot renders
// them (internal/tables): a header line, a rule of dashes whose groups
// give the columns, and rows up to the first line that is not one.
func ParseTable(text string) (header []string, rows [][]string, ok bool) {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		rule := lines[i]
		if rule == "" || strings.Trim(rule, "- ") != "" || !strings.Contains(rule, "-") {
			continue
		}
		spans := ruleSpans(rule)
		header = cut(lines[i-1], spans)
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "(") && strings.HasSuffix(l, ")") {
				break
			}
			rows = append(rows, cut(l, spans))
		}
		return header, rows, true
	}
	return nil, nil, false
}

// ruleSpans are the display-column ranges of the dash groups.
func ruleSpans(rule string) [][2]int {
	var spans [][2]int
	start := -1
	for i, c := range rule + " " {
		switch {
		case c == '-' && start < 0:
			start = i
		case c != '-' && start >= 0:
			spans = append(spans, [2]int{start, i})
			start = -1
		}
	}
	return spans
}

// cut splits a line at the columns' display positions.
func cut(line string, spans [][2]int) []string {
	out := make([]string, len(spans))
	col := 0
	for _, r := range line {
		for k, s := range spans {
			if col >= s[0] && col < s[1] || k == len(spans)-1 && col >= s[0] {
				out[k] += string(r)
				break
			}
		}
		col += runewidth.RuneWidth(r)
	}
	for k := range out {
		out[k] = strings.TrimSpace(out[k])
	}
	return out
}

// grouped is a number written the one way (en-US): separators in every
// group of three, a currency symbol or a percent sign where it applies.
var (
	grouped   = regexp.MustCompile(`^-?[$€£¥]?\d{1,3}(,\d{3})*(\.\d+)?%?$`)
	numberish = regexp.MustCompile(`^-?[$€£¥]?[\d,.]+%?$`)
)

// CheckRendered checks a rendered answer's table against the answer: no
// heading reads as SQL ("(" or "."), every figure of a measure column is
// written the one way, and identifiers and years carry no separators. It
// returns what is wrong, or nothing.
func CheckRendered(a *dialog.Answer, rendered string) []string {
	var bad []string
	header, rows, ok := ParseTable(rendered)
	if !ok {
		if len(a.Columns) > 0 && len(a.Rows) > 0 {
			bad = append(bad, "no table in the rendering")
		}
		return bad
	}
	for _, h := range header {
		if strings.ContainsAny(h, "(.") {
			bad = append(bad, fmt.Sprintf("heading %q reads as SQL", h))
		}
	}
	for _, r := range rows {
		for j, cell := range r {
			if j >= len(a.Formats) || cell == "NULL" || cell == "" || strings.HasSuffix(cell, "…") {
				continue
			}
			switch {
			case a.Formats[j].IsMeasure() && !grouped.MatchString(cell):
				bad = append(bad, fmt.Sprintf("column %q: figure %q is not written the one way", header[j], cell))
			case !a.Formats[j].IsMeasure() && numberish.MatchString(cell) && strings.Contains(cell, ","):
				bad = append(bad, fmt.Sprintf("column %q (%s): %q has separators", header[j], a.Formats[j].Kind, cell))
			}
		}
	}
	return bad
}
