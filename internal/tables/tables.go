// Package tables renders query results as aligned monospace text, the way
// the console, `bot sql`, and the chat code blocks show them.
package tables

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// Options bound the rendering.
type Options struct {
	// MaxCellWidth truncates wider cells with "…" (display columns); default 40.
	MaxCellWidth int
	// MaxRows renders only the first rows; 0 renders all.
	MaxRows int
}

// Render aligns the header and rows in columns separated by two spaces, with
// a dashed rule under the header. Numbers are right-aligned.
func Render(header []string, rows [][]string, opts Options) string {
	if opts.MaxCellWidth <= 0 {
		opts.MaxCellWidth = 40
	}
	if opts.MaxRows > 0 && len(rows) > opts.MaxRows {
		rows = rows[:opts.MaxRows]
	}
	n := len(header)
	cells := make([][]string, 0, len(rows)+1)
	cells = append(cells, clipAll(header, n, opts.MaxCellWidth))
	for _, r := range rows {
		cells = append(cells, clipAll(r, n, opts.MaxCellWidth))
	}
	widths := make([]int, n)
	numeric := make([]bool, n)
	for c := 0; c < n; c++ {
		numeric[c] = len(rows) > 0
		for i, r := range cells {
			widths[c] = max(widths[c], runewidth.StringWidth(r[c]))
			if i > 0 && r[c] != "NULL" && r[c] != "" && !looksNumeric(r[c]) {
				numeric[c] = false
			}
		}
	}
	var b strings.Builder
	for i, r := range cells {
		for c, v := range r {
			if c > 0 {
				b.WriteString("  ")
			}
			pad := widths[c] - runewidth.StringWidth(v)
			last := c == n-1
			if numeric[c] && i > 0 {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(v)
			} else {
				b.WriteString(v)
				if !last {
					b.WriteString(strings.Repeat(" ", pad))
				}
			}
		}
		b.WriteByte('\n')
		if i == 0 {
			for c := range widths {
				if c > 0 {
					b.WriteString("  ")
				}
				b.WriteString(strings.Repeat("-", max(widths[c], 1)))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func clipAll(r []string, n, w int) []string {
	out := make([]string, n)
	for i := 0; i < n && i < len(r); i++ {
		out[i] = Clip(Clean(r[i]), w)
	}
	return out
}

// Clean makes a value safe for one line of monospace text: newlines and
// tabs become spaces, other control characters are dropped.
func Clean(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Clip shortens s to at most w display columns, ending in "…" when cut.
func Clip(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	return runewidth.Truncate(s, w, "…")
}

func looksNumeric(s string) bool {
	s = strings.ReplaceAll(s, ",", "")
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Humanize turns an identifier into words: "ship_state" → "ship state",
// "customerID" → "customer id", "ReactorModel" → "reactor model".
func Humanize(id string) string {
	var b strings.Builder
	var prev rune
	for i, r := range id {
		switch {
		case r == '_' || r == '-' || r == '.':
			b.WriteByte(' ')
		case i > 0 && unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
