package slack

import (
	"strings"

	"github.com/mattn/go-runewidth"

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

// csvFile is the whole fetched result for download: raw values under the
// answer's plain headings.
func csvFile(a *dialog.Answer) []byte {
	if res := a.Result; res != nil {
		header := a.Columns
		if len(header) != len(res.Columns) {
			header = make([]string, len(res.Columns))
			for i, c := range res.Columns {
				header[i] = c.Name
			}
		}
		data, _, _ := tables.CSV(header, res.Rows, 0)
		return data
	}
	data, _, _ := tables.CSV(a.Columns, tables.Strings(a.Rows), 0)
	return data
}
