package slack

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Inline tables are monospace code blocks in section blocks. These bound
// them so that a message stays readable and within Slack's limits whatever
// the result: wide values are cut, columns beyond a line's width and rows
// beyond a few sections are left to the CSV file.
const (
	cellWidth       = 32  // display columns per value
	cellUnits       = 96  // UTF-16 units per value (combining marks have no width)
	lineWidth       = 120 // display columns per table line
	maxTableRows    = 50  // rows rendered inline at most
	maxTableSection = 4   // code-block sections per answer
	fence           = "```"
)

// table is a result rendered for a message.
type table struct {
	Sections  []string // mrkdwn code blocks, each within maxSectionText
	ShownRows int
	ShownCols int
	Clipped   bool // some value was cut
}

// renderTable renders columns and rows (already formatted for people).
func renderTable(columns []string, rows [][]string) table {
	if len(columns) == 0 {
		return table{}
	}
	if len(rows) > maxTableRows {
		rows = rows[:maxTableRows]
	}
	clipped := false
	cell := func(s string) string {
		c := tables.Clean(s)
		c = strings.ReplaceAll(c, "`", "ˋ") // a backtick could close the code block
		out := tables.Clip(c, cellWidth)
		out = clip(out, cellUnits)
		if out != c {
			clipped = true
		}
		return out
	}
	// How many columns fit on a line.
	width := func(c int) int {
		w := runewidth.StringWidth(cell(columns[c]))
		for _, r := range rows {
			if c < len(r) {
				w = max(w, runewidth.StringWidth(cell(r[c])))
			}
		}
		return w
	}
	cols, used := 0, 0
	for c := range columns {
		w := width(c)
		if cols > 0 && used+2+w > lineWidth {
			break
		}
		used += w
		if cols > 0 {
			used += 2
		}
		cols++
	}
	clipped = false // width() measured; count cuts only in what is shown
	header := make([]string, cols)
	for c := range cols {
		header[c] = cell(columns[c])
	}
	body := make([][]string, len(rows))
	for i, r := range rows {
		body[i] = make([]string, cols)
		for c := 0; c < cols && c < len(r); c++ {
			body[i][c] = cell(r[c])
		}
	}
	text := tables.Render(header, body, tables.Options{MaxCellWidth: cellWidth + 1})
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")

	t := table{ShownCols: cols, Clipped: clipped}
	budget := maxSectionText - 2*len(fence) - 1
	var cur strings.Builder
	curLen, curRows := 0, 0
	flush := func() {
		if cur.Len() > 0 {
			t.Sections = append(t.Sections, fence+cur.String()+fence)
			t.ShownRows += curRows
		}
		cur.Reset()
		curLen, curRows = 0, 0
	}
	for i, line := range lines {
		e := escClip(line, budget)
		n := utf16Len(e) + 1
		if curLen+n > budget {
			if len(t.Sections) == maxTableSection-1 {
				break
			}
			flush()
		}
		cur.WriteString(e)
		cur.WriteByte('\n')
		curLen += n
		if i >= 2 { // header and rule are not rows
			curRows++
		}
	}
	if len(t.Sections) < maxTableSection {
		flush()
	}
	return t
}

// csvFile is the whole fetched result as CSV: typed values without
// thousands separators, NULL as an empty field, and text that a
// spreadsheet would run as a formula prefixed with a quote.
func csvFile(a *dialog.Answer) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if res := a.Result; res != nil {
		header := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			header[i] = safeCSV(c.Name)
		}
		_ = w.Write(header)
		rec := make([]string, len(res.Columns))
		for _, r := range res.Rows {
			for i := range rec {
				rec[i] = ""
				if i < len(r) {
					rec[i] = csvValue(r[i])
				}
			}
			_ = w.Write(rec)
		}
	} else {
		header := make([]string, len(a.Columns))
		for i, c := range a.Columns {
			header[i] = safeCSV(c)
		}
		_ = w.Write(header)
		for _, r := range a.Rows {
			rec := make([]string, len(r))
			for i, v := range r {
				rec[i] = safeCSV(v)
			}
			_ = w.Write(rec)
		}
	}
	w.Flush() // writes to a bytes.Buffer cannot fail
	return buf.Bytes()
}

func csvValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if _, ok := warehouse.AsFloat(x); ok {
			return x
		}
		return safeCSV(x)
	case []byte:
		return safeCSV(string(x))
	}
	return ""
}

// safeCSV defuses formula injection (=, +, -, @ at the start of a cell).
func safeCSV(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64); err == nil {
			return s
		}
		return "'" + s
	}
	return s
}
