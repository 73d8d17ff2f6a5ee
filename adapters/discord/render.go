package discord

import (
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/chart"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// Discord's limits.
const (
	maxContent    = 2000     // characters per message
	maxRows       = 5        // action rows per message
	maxPerRow     = 5        // buttons per action row
	maxLabel      = 80       // characters per button label
	maxFileBytes  = 10 << 20 // bytes per upload (10 MiB)
	maxThreadName = 100
	// csvLimit leaves room for the multipart envelope and JSON payload.
	csvLimit = maxFileBytes - 64<<10
	// maxOptionButtons: all rows full, less the Other… button.
	maxOptionButtons = maxRows*maxPerRow - 1
	// maxChangeButtons: the rows under an answer's first row.
	maxChangeButtons = (maxRows - 1) * maxPerRow
	maxPrefsPages    = 5
)

// units counts what Discord counts against its limits, conservatively:
// UTF-16 code units (an emoji outside the BMP counts twice).
func units(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// clip shortens s to at most n units, ending in "…" when cut.
func clip(s string, n int) string {
	if units(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if used+w > n-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return b.String() + "…"
}

// oneLine flattens text for a line or a label: no control characters,
// single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(tables.Clean(s)), " ") }

// fence keeps text inside a code block from closing it.
func fence(s string) string { return strings.ReplaceAll(s, "```", "`\u200b`\u200b`") }

func threadName(question string) string {
	if n := clip(oneLine(question), maxThreadName); n != "" {
		return n
	}
	return "Question"
}

// joinFit joins lines while the total stays within max units, ending with
// "…" when lines had to be left out.
func joinFit(lines []string, max int) string {
	var b strings.Builder
	used := 0
	for i, l := range lines {
		sep := min(i, 1)
		need := used + sep + units(l)
		last := i == len(lines)-1
		if need > max || !last && need > max-2 { // keep room for "\n…"
			if i == 0 {
				return clip(l, max)
			}
			b.WriteString("\n…")
			return b.String()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		used = need
	}
	return b.String()
}

// render turns one reply into the messages to post.
func (a *Adapter) render(r dialog.Reply, viewer dialog.Who) []out {
	switch {
	case r.Kind == dialog.ReplyClarification && r.Clarification != nil:
		return []out{a.renderClarification(r.Conversation, r.Clarification)}
	case r.Kind == dialog.ReplyAnswer && r.Answer != nil:
		m := a.renderAnswer(r.Conversation, r.Answer)
		m.ephemeral = r.Ephemeral
		return []out{m}
	case r.Kind == dialog.ReplyRows && r.Answer != nil:
		m := a.renderRows(r.Conversation, r.Answer)
		m.ephemeral = r.Ephemeral
		return []out{m}
	case r.Kind == dialog.ReplyFile && r.File != nil:
		return []out{renderFile(r)}
	case r.Kind == dialog.ReplyPrefs && r.Prefs != nil:
		return a.renderPrefs(r, viewer)
	case r.Kind == dialog.ReplySQL && strings.TrimSpace(r.SQL) != "":
		return []out{renderSQL(r.SQL, r.Ephemeral)}
	}
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return nil
	}
	return []out{{content: clip(text, maxContent), ephemeral: r.Ephemeral}}
}

// button builds one button; a custom_id that cannot be encoded is logged
// and the button left out.
func (a *Adapter) button(label string, style discordgo.ButtonStyle, r ref) (discordgo.Button, bool) {
	id, err := r.encode()
	if err != nil {
		a.log.Warn("leaving out a button", "err", err)
		return discordgo.Button{}, false
	}
	label = clip(oneLine(label), maxLabel)
	if label == "" {
		label = "…"
	}
	return discordgo.Button{Label: label, Style: style, CustomID: id}, true
}

// rowsOf packs buttons into action rows of five, at most maxRows rows.
func rowsOf(bs []discordgo.Button) []discordgo.MessageComponent {
	var rows []discordgo.MessageComponent
	for len(bs) > 0 && len(rows) < maxRows {
		n := min(len(bs), maxPerRow)
		row := discordgo.ActionsRow{}
		for _, b := range bs[:n] {
			row.Components = append(row.Components, b)
		}
		rows = append(rows, row)
		bs = bs[n:]
	}
	return rows
}

// renderClarification: the question, its options listed with examples, and
// a button per option plus Other… (which opens a modal).
func (a *Adapter) renderClarification(conv string, c *dialog.Clarification) out {
	opts := c.Options
	if n := len(opts); n > 0 && opts[n-1].Label == dialog.OtherLabel {
		opts = opts[:n-1] // the adapter adds Other… itself
	}
	if len(opts) > maxOptionButtons {
		a.log.Warn("clarification has more options than buttons fit; showing the first", "clarification", c.ID, "options", len(opts), "shown", maxOptionButtons)
		opts = opts[:maxOptionButtons]
	}
	lines := []string{"**❓ " + clip(oneLine(c.Prompt), 300) + "**"}
	var bs []discordgo.Button
	for i, o := range opts {
		line := fmt.Sprintf("%d. %s", i+1, oneLine(o.Label))
		if ex := oneLine(o.Example); ex != "" {
			line += " (" + ex + ")"
		}
		lines = append(lines, clip(line, 200))
		if b, ok := a.button(o.Label, discordgo.PrimaryButton, ref{Action: actChoose, Conv: conv, Target: c.ID, Option: i}); ok {
			bs = append(bs, b)
		}
	}
	if b, ok := a.button(dialog.OtherLabel, discordgo.SecondaryButton, ref{Action: actOther, Conv: conv, Target: c.ID}); ok {
		bs = append(bs, b)
	}
	footer := "*Pick one, or " + dialog.OtherLabel + " to answer in your own words.*"
	content := joinFit(lines, maxContent-units(footer)-1) + "\n" + footer
	return out{content: content, components: rowsOf(bs)}
}

// renderAnswer: the explanation, the headline with its figure, the table
// in a code block (as many rows as fit in one message), a CSV of all
// fetched rows when some are not shown, the remembered choices with
// Change buttons, and the buttons (Show more while rows remain).
func (a *Adapter) renderAnswer(conv string, ans *dialog.Answer) out {
	var head string
	if e := oneLine(ans.Explanation); e != "" {
		head = clip(e, 400)
	}
	if h := oneLine(ans.Headline); h != "" {
		if head != "" {
			head += "\n"
		}
		head += "**" + clip(h, 300) + "**"
	}
	var factLines []string
	var bs []discordgo.Button
	for _, f := range ans.UsedFacts {
		factLines = append(factLines, clip(fmt.Sprintf("Using %s: '%s' = %s", f.Whose("server"), oneLine(f.Phrase), oneLine(f.Meaning)), 200))
	}
	if len(ans.Unused) > 0 {
		factLines = append(factLines, clip(oneLine(dialog.UnusedNote(ans.Unused)), 300))
	}
	for _, n := range ans.Notes {
		if n = oneLine(n); n != "" {
			factLines = append(factLines, clip("Note: "+n, 300))
		}
	}
	tail := joinFit(factLines, 900)
	m, shown := a.tableMessage(ans, head, tail)
	for _, spec := range []struct {
		label  string
		style  discordgo.ButtonStyle
		action string
	}{{"Show SQL", discordgo.SecondaryButton, actSQL}, {"Correct", discordgo.SuccessButton, actCorrect}, {"Not what I meant", discordgo.DangerButton, actWrong}} {
		if b, ok := a.button(spec.label, spec.style, ref{Action: spec.action, Conv: conv, Target: ans.ID}); ok {
			bs = append(bs, b)
		}
	}
	if b, ok := a.moreButton(conv, ans, shown); ok {
		bs = append(bs, b)
	}
	rows := rowsOf(bs)
	var change []discordgo.Button
	for _, f := range ans.UsedFacts {
		if len(change) == maxChangeButtons {
			break
		}
		if b, ok := a.button("Change '"+oneLine(f.Phrase)+"'", discordgo.SecondaryButton, ref{Action: actChange, Conv: conv, Target: ans.ID, FactID: f.FactID}); ok {
			change = append(change, b)
		}
	}
	m.components = append(rows, rowsOf(change)...)
	return m
}

// renderRows: a later page of an answer ("more", "all") in a code block,
// where it is in the result, a CSV when not all of it fits, and Show more
// while rows remain.
func (a *Adapter) renderRows(conv string, ans *dialog.Answer) out {
	var notes []string
	for _, n := range ans.Notes {
		if n = oneLine(n); n != "" {
			notes = append(notes, clip("Note: "+n, 300))
		}
	}
	m, shown := a.tableMessage(ans, "", joinFit(notes, 600))
	if b, ok := a.moreButton(conv, ans, shown); ok {
		m.components = rowsOf([]discordgo.Button{b})
	}
	return m
}

// tableMessage lays out head, the rows that fit, where they are in the
// result, and tail; it attaches the chart of a first page and the CSV of
// the whole kept result when rows are left out. shown counts the rows in
// the message.
func (a *Adapter) tableMessage(ans *dialog.Answer, head, tail string) (out, int) {
	loc := colfmt.LocaleFor(ans.Locale)
	total := max(ans.RowCount, ans.Offset+len(ans.Rows))
	const statusReserve = 200
	budget := maxContent - units(head) - units(tail) - statusReserve - len("\n```\n```\n")
	var table string
	shown := 0
	if len(ans.Columns) > 0 {
		table, shown = fitTable(ans.Columns, ans.Rows, budget)
	}
	m := out{}
	var png []byte
	if ans.Offset == 0 {
		// A trend or breakdown also comes as a picture, attached beside the
		// table; the numbers stay in the message (and CSV).
		png = a.chartPNG(ans)
		if png != nil {
			m.files = append(m.files, file{name: "chart-" + ans.ID + ".png", contentType: "image/png", data: png})
		}
	}
	var status string
	where := fmt.Sprintf("Showing %s of %s rows", loc.Int(shown), loc.Int(total))
	if ans.Offset > 0 {
		where = fmt.Sprintf("Rows %s–%s of %s", loc.Int(ans.Offset+1), loc.Int(ans.Offset+shown), loc.Int(total))
	}
	needCSV := total > 0 && (shown < len(ans.Rows) || ans.Offset == 0 && shown < total || ans.Truncated)
	switch {
	case needCSV:
		data, rows, cut := buildCSV(ans, csvLimit-len(png))
		m.files = append(m.files, file{name: "answer-" + ans.ID + ".csv", contentType: "text/csv", data: data})
		switch {
		case cut:
			status = fmt.Sprintf("*%s. The attached CSV holds the first %s (Discord's 10 MiB limit).*", where, loc.Int(rows))
		case ans.Truncated:
			status = fmt.Sprintf("*%s, the first the warehouse returned (the row cap); narrow the question to see the rest. The %s rows are in the attached CSV.*", where, loc.Int(rows))
		default:
			status = fmt.Sprintf("*%s; all of them are in the attached CSV.*", where)
		}
	case total == 0:
		status = "*No rows.*"
	case ans.Offset > 0:
		status = "*" + where + ".*"
	case total > 1:
		status = fmt.Sprintf("*%s rows.*", loc.Int(total))
	}
	var parts []string
	if head != "" {
		parts = append(parts, head)
	}
	if table != "" {
		parts = append(parts, "```\n"+table+"```")
	}
	if status != "" {
		parts = append(parts, status)
	}
	if tail != "" {
		parts = append(parts, tail)
	}
	m.content = clip(strings.Join(parts, "\n"), maxContent)
	return m, shown
}

// moreButton is Show more while rows come after the shown ones; its id
// says how far this message showed.
func (a *Adapter) moreButton(conv string, ans *dialog.Answer, shown int) (discordgo.Button, bool) {
	next := ans.Offset + shown
	if len(ans.Columns) == 0 || next >= max(ans.RowCount, ans.Offset+len(ans.Rows)) {
		return discordgo.Button{}, false
	}
	return a.button("Show more", discordgo.PrimaryButton, ref{Action: actMore, Conv: conv, Target: ans.ID, Option: next})
}

// renderFile attaches a file the person asked for ("csv").
func renderFile(r dialog.Reply) out {
	f := r.File
	text := strings.TrimSpace(r.Text)
	if len(f.Data) > csvLimit {
		return out{content: clip(text+" It is over Discord's 10 MiB limit; narrow the question to get it here.", maxContent), ephemeral: r.Ephemeral}
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	return out{content: clip(text, maxContent), files: []file{{name: f.Name, contentType: ct, data: f.Data}}, ephemeral: r.Ephemeral}
}

// fitTable renders as many rows as fit in budget units, trying narrower
// cells before fewer rows; shown is the number of rows rendered.
func fitTable(cols []string, rows [][]string, budget int) (string, int) {
	best, bestShown := "", -1
	for _, w := range []int{40, 28, 20, 14, 10} {
		lines := strings.SplitAfter(fence(tables.Render(cols, rows, tables.Options{MaxCellWidth: w})), "\n")
		if len(lines) < 2 {
			continue
		}
		used := units(lines[0]) + units(lines[1])
		if used > budget {
			continue
		}
		var b strings.Builder
		b.WriteString(lines[0])
		b.WriteString(lines[1])
		shown := 0
		for _, l := range lines[2:] {
			if l == "" || used+units(l) > budget {
				break
			}
			b.WriteString(l)
			used += units(l)
			shown++
		}
		if shown > bestShown {
			best, bestShown = b.String(), shown
		}
		if shown == len(rows) {
			break
		}
	}
	if bestShown < 0 {
		return "", 0
	}
	return best, bestShown
}

// buildCSV is the answer's result for download, cut to fit an
// attachment: raw values under the answer's plain headings.
func buildCSV(ans *dialog.Answer, limit int) (data []byte, rows int, cut bool) {
	if ans.Result != nil && len(ans.Result.Columns) > 0 {
		header := ans.Columns
		if len(header) != len(ans.Result.Columns) {
			header = make([]string, len(ans.Result.Columns))
			for i, c := range ans.Result.Columns {
				header[i] = c.Name
			}
		}
		return tables.CSV(header, ans.Result.Rows, limit)
	}
	return tables.CSV(ans.Columns, tables.Strings(ans.Rows), limit)
}

// renderSQL shows the SQL in a code block, or attaches it when too long.
func renderSQL(sql string, ephemeral bool) out {
	sql = strings.TrimSpace(sql)
	body := "```sql\n" + fence(sql) + "\n```"
	if units(body) <= maxContent {
		return out{content: body, ephemeral: ephemeral}
	}
	return out{
		content:   "The SQL is too long to show here; it is attached.",
		files:     []file{{name: "query.sql", contentType: "text/plain", data: []byte(sql + "\n")}},
		ephemeral: ephemeral,
	}
}

// resolvedContent replaces an answered question's message: the question,
// the choice and who chose it, without buttons.
func resolvedContent(res *dialog.Resolved, user string) string {
	s := "**" + clip(oneLine(res.Prompt), 500) + "**\n✅ " + clip(oneLine(res.Choice), 1000)
	if user != "" {
		s += " — <@" + user + ">"
	}
	return clip(s, maxContent)
}

// prefsEntry is one fact of a /prefs list: its line and its buttons.
type prefsEntry struct {
	line    string
	buttons []discordgo.Button
}

// renderPrefs lists preferences (ephemeral) with Delete buttons on one's
// own, and for admins Promote (channel, server) and Edit on every fact.
// Admins get a row per fact, others up to five Delete buttons per row; a
// long list continues in more messages.
func (a *Adapter) renderPrefs(r dialog.Reply, viewer dialog.Who) []out {
	p := r.Prefs
	title := "Your preferences"
	switch {
	case p.Subject == "everyone" || p.Subject == "*":
		title = "Everyone's preferences"
	case p.Subject != "":
		title = "Preferences of " + userRef(p.Subject)
	}
	if len(p.Facts) == 0 {
		text := "I haven't learned any preferences for you yet. When you answer one of my questions, I remember it."
		if p.Subject != "" {
			text = title + ": none yet."
		}
		return []out{{content: text, ephemeral: r.Ephemeral}}
	}
	own := ontology.Identity{Platform: Platform, Workspace: viewer.Workspace, User: viewer.User}.UserKey()
	entries := make([]prefsEntry, 0, len(p.Facts))
	for i, f := range p.Facts {
		line := fmt.Sprintf("%d. '%s' = %s", i+1, clip(oneLine(f.Phrase), 60), clip(oneLine(f.Meaning), 120))
		if w := scopeWord(f.Scope); w != "" {
			line += " · " + w + "-wide"
		}
		if f.Source != "" {
			line += " · " + clip(oneLine(f.Source), 60)
		}
		if f.Uses > 0 {
			line += fmt.Sprintf(" · used %d×", f.Uses)
		}
		if p.CanAdmin && f.Owner != own {
			line += " · " + ownerRef(f.Owner, f.Scope)
		}
		e := prefsEntry{line: line}
		mine := f.Scope == ontology.ScopeUser && f.Owner == own
		if p.CanAdmin || mine {
			if b, ok := a.button(fmt.Sprintf("Delete %d. '%s'", i+1, oneLine(f.Phrase)), discordgo.DangerButton, ref{Action: actDelete, FactID: f.ID}); ok {
				e.buttons = append(e.buttons, b)
			}
		}
		if p.CanAdmin {
			if f.Scope != ontology.ScopeChannel {
				if b, ok := a.button("Promote to channel", discordgo.SecondaryButton, ref{Action: actPromote, FactID: f.ID, Scope: ontology.ScopeChannel}); ok {
					e.buttons = append(e.buttons, b)
				}
			}
			if f.Scope != ontology.ScopeWorkspace {
				if b, ok := a.button("Promote to server", discordgo.SecondaryButton, ref{Action: actPromote, FactID: f.ID, Scope: ontology.ScopeWorkspace}); ok {
					e.buttons = append(e.buttons, b)
				}
			}
			if b, ok := a.button("Edit", discordgo.SecondaryButton, ref{Action: actEdit, FactID: f.ID}); ok {
				e.buttons = append(e.buttons, b)
			}
		}
		entries = append(entries, e)
	}
	footer := "*Delete removes one preference; /forget drops a word.*"
	if p.CanAdmin {
		footer = "*Promote shares a preference with this channel or the whole server; admin changes are recorded.*"
	}
	return paginatePrefs(title, footer, entries, p.CanAdmin, r.Ephemeral)
}

// paginatePrefs splits the list into messages within the content and
// component limits; beyond maxPrefsPages the rest is counted, not listed.
func paginatePrefs(title, footer string, entries []prefsEntry, rowPerEntry, ephemeral bool) []out {
	const reserve = 200 // footer and "…and N more"
	var pages []out
	var lines []string
	var rows [][]discordgo.Button // rowPerEntry: one per entry; else packed
	flush := func() {
		head := fmt.Sprintf("**%s** (%d):", title, len(entries))
		if len(pages) > 0 {
			head = fmt.Sprintf("**%s** (continued):", title)
		}
		var comps []discordgo.MessageComponent
		for _, r := range rows {
			comps = append(comps, rowsOf(r)...)
		}
		pages = append(pages, out{content: head + "\n" + strings.Join(lines, "\n"), components: comps, ephemeral: ephemeral})
		lines, rows = nil, nil
	}
	rowsAfter := func(e prefsEntry) int {
		if rowPerEntry {
			if len(e.buttons) > 0 {
				return len(rows) + 1
			}
			return len(rows)
		}
		n := len(e.buttons)
		for _, r := range rows {
			n += len(r)
		}
		return (n + maxPerRow - 1) / maxPerRow
	}
	add := func(e prefsEntry) {
		lines = append(lines, e.line)
		if len(e.buttons) == 0 {
			return
		}
		if rowPerEntry {
			rows = append(rows, e.buttons[:min(len(e.buttons), maxPerRow)])
			return
		}
		for _, b := range e.buttons {
			if len(rows) == 0 || len(rows[len(rows)-1]) == maxPerRow {
				rows = append(rows, nil)
			}
			rows[len(rows)-1] = append(rows[len(rows)-1], b)
		}
	}
	left := 0
	for k, e := range entries {
		size := units(title) + 30 + units(strings.Join(lines, "\n")) + 1 + units(e.line)
		if len(lines) > 0 && (rowsAfter(e) > maxRows || size > maxContent-reserve) {
			if len(pages) == maxPrefsPages-1 {
				left = len(entries) - k
				break
			}
			flush()
		}
		add(e)
	}
	if len(lines) > 0 {
		flush()
	}
	last := &pages[len(pages)-1]
	if left > 0 {
		last.content += fmt.Sprintf("\n…and %d more not shown.", left)
	}
	last.content = clip(last.content+"\n"+footer, maxContent)
	return pages
}

func scopeWord(scope ontology.Scope) string {
	switch scope {
	case ontology.ScopeChannel:
		return "channel"
	case ontology.ScopeWorkspace:
		return "server"
	}
	return ""
}

// userRef shows a user id as a mention (which never pings: allowed
// mentions are off).
func userRef(id string) string {
	if id != "" && strings.Trim(id, "0123456789") == "" {
		return "<@" + id + ">"
	}
	return id
}

// ownerRef shows an owner key ("discord:guild:id"); a malformed one as it is.
func ownerRef(owner string, scope ontology.Scope) string {
	switch scope {
	case ontology.ScopeWorkspace:
		return "the server"
	case ontology.ScopeChannel:
		if id, err := ontology.ParseOwner(ontology.ScopeChannel, owner); err == nil {
			return "<#" + id.Channel + ">"
		}
		return owner
	}
	if id, err := ontology.ParseOwner(ontology.ScopeUser, owner); err == nil {
		return userRef(id.User)
	}
	return owner
}

// chartPNG draws the answer's chart, or returns nil when the answer is not
// a trend or breakdown (or drawing failed, which only costs the picture).
func (a *Adapter) chartPNG(ans *dialog.Answer) []byte {
	spec, ok := chart.ForResult(ans.Result, ans.Formats, ans.Headings, ans.Explanation)
	if !ok {
		return nil
	}
	png, err := chart.Render(spec)
	if err != nil {
		a.log.Warn("cannot draw the chart", "answer", ans.ID, "err", err)
		return nil
	}
	return png
}
