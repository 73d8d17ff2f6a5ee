package console

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/chart"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/tables"
)

// greet prints the banner, who the person is and the example questions.
func (c *Console) greet() {
	if c.opts.Banner != "" {
		c.out.line(safe(c.opts.Banner))
	}
	c.out.printf("You are %s. Type a question, or 'help'.\n", safe(c.opts.User))
	if len(c.opts.Examples) > 0 {
		c.out.line("Example questions (type a number to ask one):")
		for i, e := range c.opts.Examples {
			c.out.printf("  %d. %s\n", i+1, cleanInput(e))
		}
	}
	c.out.line("")
}

func (c *Console) help() {
	c.out.line(`Ask a question about the data in your own words, e.g. "revenue by month in 2024".
Start a line with "and", "only", "also", "but", "what about", "now" or "+" to refine the last question.
When I ask what you mean: type an option's number, or answer in your own words; 'skip' lets me assume the likeliest option (the answer says what I assumed); 'cancel' drops the question.
After an answer: 'yes' · 'no' (not what I meant) · 'sql' (show the SQL) · 'change <phrase>' (reopen an earlier choice)
  · 'more' (the next rows) · 'all' (every row) · 'csv' (the whole result as a file).
Preferences: 'prefs' lists them · 'delete <number>' deletes one from the list · 'forget <phrase>'.
'quit' ends the session.`)
	if c.opts.Admin {
		c.out.line("Admin: 'prefs <user>' lists someone's preferences · 'promote <number> channel|workspace' shares one.")
	}
}

// render prints one reply and updates the conversation state from it.
func (c *Console) render(r dialog.Reply) {
	if res := r.Resolved; res != nil {
		c.out.printf("✓ %s → %s\n", safe(res.Prompt), safe(res.Choice))
		if c.pending != nil && c.pending.ID == res.ClarificationID {
			c.pending, c.otherNext = nil, false
		}
	}
	switch {
	case r.Kind == dialog.ReplyClarification && r.Clarification != nil:
		cl := *r.Clarification
		c.pending, c.otherNext = &cl, false
		c.printClarification(&cl)
	case r.Kind == dialog.ReplyAnswer && r.Answer != nil:
		c.pending, c.otherNext = nil, false
		c.answer, c.answerConv = r.Answer, r.Conversation
		if c.answerConv == "" {
			c.answerConv = c.conv
		}
		c.printAnswer(r.Answer)
	case r.Kind == dialog.ReplyRows && r.Answer != nil:
		c.printRows(r.Answer)
	case r.Kind == dialog.ReplyFile && r.File != nil:
		c.saveFile(r)
	case r.Kind == dialog.ReplyPrefs && r.Prefs != nil:
		c.prefs = append([]dialog.FactView(nil), r.Prefs.Facts...)
		c.printPrefs(r.Prefs)
	case r.Kind == dialog.ReplySQL && r.SQL != "":
		c.out.line(indent(safe(strings.TrimSpace(r.SQL)), "    "))
	default: // notices, and any reply missing its structured part
		if t := strings.TrimSpace(r.Text); t != "" {
			c.out.line(safe(t))
		}
	}
}

// closedOptions are the clarification's options without Other…, which the
// console always adds itself (tolerating a manager that already did).
func closedOptions(cl *dialog.Clarification) []dialog.Option {
	opts := cl.Options
	if n := len(opts); n > 0 && opts[n-1].Label == dialog.OtherLabel {
		opts = opts[:n-1]
	}
	return opts
}

func (c *Console) printClarification(cl *dialog.Clarification) {
	c.out.line(safe(cl.Prompt))
	opts := closedOptions(cl)
	for i, o := range opts {
		label := tables.Clip(tables.Clean(o.Label), 80)
		if o.Example != "" {
			label += " (" + tables.Clip(tables.Clean(o.Example), 60) + ")"
		}
		c.out.printf("  %d) %s\n", i+1, label)
	}
	c.out.printf("  %d) %s\n", len(opts)+1, dialog.OtherLabel)
	c.out.line("Type a number, or answer in your own words ('skip' to let me assume the likeliest, 'cancel' to drop the question).")
}

func (c *Console) printAnswer(a *dialog.Answer) {
	if t := strings.TrimSpace(a.Explanation); t != "" {
		c.out.line(safe(t))
	}
	if t := strings.TrimSpace(a.Headline); t != "" {
		c.out.line(safe(t))
	}
	if len(a.Columns) > 0 {
		c.out.printf("%s", tables.Render(a.Columns, a.Rows, tables.Options{MaxCellWidth: maxCellWidth, MaxRows: maxTableRows}))
	}
	c.printRowsNote(a, min(len(a.Rows), maxTableRows))
	c.printChart(a)
	for _, f := range a.UsedFacts {
		phrase := tables.Clip(cleanInput(f.Phrase), 60)
		c.out.printf("Using %s: '%s' = %s · type 'change %s' to change it\n",
			f.Whose("workspace"), phrase, tables.Clip(cleanInput(f.Meaning), 80), phrase)
	}
	if len(a.Unused) > 0 {
		c.out.line(safe(dialog.UnusedNote(a.Unused)))
	}
	for _, n := range a.Notes {
		if n = strings.TrimSpace(n); n != "" {
			c.out.line("Note: " + safe(n))
		}
	}
	c.out.line("Was this what you meant? 'yes' · 'no' (not what I meant) · 'sql' (show the SQL)")
}

// printRows prints a later page of an answer ('more', 'all'): every row
// it holds, since the person asked for them.
func (c *Console) printRows(a *dialog.Answer) {
	if len(a.Columns) > 0 {
		c.out.printf("%s", tables.Render(a.Columns, a.Rows, tables.Options{MaxCellWidth: maxCellWidth}))
	}
	c.printRowsNote(a, len(a.Rows))
	for _, n := range a.Notes {
		if n = strings.TrimSpace(n); n != "" {
			c.out.line("Note: " + safe(n))
		}
	}
}

// printRowsNote says which rows are on screen and how to see the others.
func (c *Console) printRowsNote(a *dialog.Answer, shown int) {
	loc := colfmt.LocaleFor(c.opts.Locale)
	total := max(a.RowCount, a.Offset+len(a.Rows))
	if shown < len(a.Rows) {
		// The terminal shows fewer than the answer holds: count from there.
		b := *a
		b.Rows = a.Rows[:shown]
		a = &b
	}
	switch {
	case total == 0:
		c.out.line("(no rows)")
	case a.Offset == 0 && shown >= total && !a.Truncated:
		c.out.printf("(%s row%s)\n", loc.Int(total), plural(total))
	default:
		c.out.line(safe(dialog.RowsNote(a, loc)))
	}
}

// saveFile writes a file reply ('csv') under FileDir and says where.
func (c *Console) saveFile(r dialog.Reply) {
	f := r.File
	if c.opts.FileDir == "" {
		c.out.printf("%s", safe(string(f.Data)))
		return
	}
	name := filepath.Base(f.Name)
	if name == "." || name == string(filepath.Separator) || name == "" {
		name = "result.csv"
	}
	path := filepath.Join(c.opts.FileDir, name)
	err := os.MkdirAll(c.opts.FileDir, 0o755)
	if err == nil {
		err = os.WriteFile(path, f.Data, 0o644)
	}
	if err != nil {
		c.log.Error("cannot save the file", "path", path, "err", err)
		c.out.line("(I could not save the file; see the log.)")
		return
	}
	if t := strings.TrimSpace(r.Text); t != "" {
		c.out.line(safe(t))
	}
	c.out.line("CSV: " + safe(path))
}

func (c *Console) printPrefs(p *dialog.Prefs) {
	title := "Your preferences"
	if p.Subject != "" && p.Subject != c.opts.User {
		title = "Preferences of " + cleanInput(p.Subject)
	}
	if len(p.Facts) == 0 {
		c.out.printf("%s: none yet. They are learned when you answer a clarification.\n", title)
		return
	}
	header := []string{"#", "phrase", "meaning", "scope", "learned", "uses"}
	sources := slices.ContainsFunc(p.Facts, func(f dialog.FactView) bool { return f.Source != "" })
	if sources {
		header = append(header, "source")
	}
	if p.CanAdmin {
		header = append(header, "owner")
	}
	rows := make([][]string, len(p.Facts))
	for i, f := range p.Facts {
		learned := ""
		if !f.Learned.IsZero() {
			learned = f.Learned.Format("2006-01-02")
		}
		rows[i] = []string{strconv.Itoa(i + 1), f.Phrase, f.Meaning, string(f.Scope), learned, strconv.Itoa(f.Uses)}
		if sources {
			rows[i] = append(rows[i], f.Source)
		}
		if p.CanAdmin {
			rows[i] = append(rows[i], f.Owner)
		}
	}
	c.out.printf("%s (%d):\n", title, len(p.Facts))
	c.out.printf("%s", tables.Render(header, rows, tables.Options{MaxCellWidth: maxCellWidth}))
	c.out.line("Type 'delete <number>' to delete one, or 'forget <phrase>' to forget a phrase.")
	if p.CanAdmin {
		c.out.line("Admin: 'promote <number> channel|workspace' shares one.")
	}
}

// safe makes bot text harmless on a terminal: valid UTF-8 and no control
// characters (escape sequences could rewrite the screen) except newlines
// and tabs.
func safe(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, isUnsafe) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if isUnsafe(r) {
			return -1
		}
		return r
	}, s)
}

func isUnsafe(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t'
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sparkWidth is the most characters a sparkline takes.
const sparkWidth = 60

// printChart saves the chart of a trend or breakdown in ChartDir and says
// where; a trend also gets a sparkline per series, right in the terminal.
func (c *Console) printChart(a *dialog.Answer) {
	spec, ok := chart.ForResult(a.Result, a.Formats, a.Headings, a.Explanation)
	if !ok {
		return
	}
	if spec.Kind == chart.Line {
		loc := colfmt.LocaleFor(c.opts.Locale)
		for _, se := range spec.Series {
			first, last := firstLast(se.Values)
			line := fmt.Sprintf("Trend: %s  %s %s → %s %s", chart.Sparkline(se.Values, sparkWidth),
				spec.XLabels[first], spec.YFormat.ValueIn(se.Values[first], loc), spec.XLabels[last], spec.YFormat.ValueIn(se.Values[last], loc))
			if se.Name != "" {
				line = tables.Clip(tables.Clean(se.Name), 20) + " " + line
			}
			c.out.line(safe(line))
		}
	}
	if c.opts.ChartDir == "" {
		return
	}
	path, err := saveChart(c.opts.ChartDir, a.ID, spec)
	if err != nil {
		c.log.Error("cannot save the chart", "dir", c.opts.ChartDir, "err", err)
		c.out.line("(I could not save a chart of this answer.)")
		return
	}
	c.out.line("Chart: " + safe(path))
}

// firstLast are the first and last points that have a value.
func firstLast(vs []float64) (int, int) {
	first, last := 0, len(vs)-1
	for first < last && math.IsNaN(vs[first]) {
		first++
	}
	for last > first && math.IsNaN(vs[last]) {
		last--
	}
	return first, last
}

func saveChart(dir, id string, spec chart.Spec) (string, error) {
	png, err := chart.Render(spec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("chart directory: %w", err)
	}
	path := filepath.Join(dir, "chart-"+id+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return "", fmt.Errorf("save chart: %w", err)
	}
	return path, nil
}
