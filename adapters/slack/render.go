package slack

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/chart"
	"github.com/clarify-bot/clarify/internal/colfmt"
)

// message is one rendered reply: blocks, the plain fallback text, and the
// CSV file to attach when the result did not fit.
type message struct {
	Blocks []slack.Block
	Text   string
	CSV    []byte
	Title  string // file title
	Name   string // file name
	// Chart is drawn and attached after the message when the answer reads
	// well as a picture; the table or CSV stays beside it.
	Chart *chart.Spec
	// ChartName is the chart's file name.
	ChartName string
}

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, true)
}

func plain(s string, n int) *slack.TextBlockObject {
	s = clip(oneLine(s), n)
	if s == "" {
		s = " "
	}
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

func section(id string, text *slack.TextBlockObject, accessory slack.BlockElement) *slack.SectionBlock {
	var acc *slack.Accessory
	if accessory != nil {
		acc = slack.NewAccessory(accessory)
	}
	return slack.NewSectionBlock(text, nil, acc, slack.SectionBlockOptionBlockID(id))
}

// contextBlock is a context block of mrkdwn lines, at most maxContextElems.
func contextBlock(id string, lines ...string) *slack.ContextBlock {
	var els []slack.MixedElement
	for _, l := range lines {
		if l == "" || len(els) == maxContextElems {
			continue
		}
		els = append(els, mrkdwn(l))
	}
	return slack.NewContextBlock(id, els...)
}

func button(action, value, label string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(action, value, plain(label, maxButtonText))
}

func fallback(s string) string { return clip(strings.TrimSpace(s), maxFallbackText) }

// closedOptions are a clarification's options without a trailing Other…,
// which the adapter always adds itself.
func closedOptions(c *dialog.Clarification) []dialog.Option {
	opts := c.Options
	if n := len(opts); n > 0 && opts[n-1].Label == dialog.OtherLabel {
		opts = opts[:n-1]
	}
	if len(opts) > dialog.MaxOptions {
		opts = opts[:dialog.MaxOptions]
	}
	return opts
}

// clarificationMessage is the question with one button per option and Other….
func clarificationMessage(c *dialog.Clarification, conv ref, text string) message {
	blocks := []slack.Block{section("clarify.prompt", plain(c.Prompt, maxSectionText), nil)}
	var buttons []slack.BlockElement
	var examples []string
	for i, o := range closedOptions(c) {
		v := conv
		v.ID, v.Option = c.ID, i
		buttons = append(buttons, button(indexed(actChoose, i), v.encode(), o.Label))
		if ex := strings.TrimSpace(o.Example); ex != "" {
			examples = append(examples, escClip("*"+oneLine(o.Label)+"*: "+oneLine(ex), maxContextText))
		}
	}
	v := conv
	v.ID = c.ID
	buttons = append(buttons, button(actOther, v.encode(), dialog.OtherLabel))
	blocks = append(blocks, slack.NewActionBlock("clarify.options", buttons...))
	if len(examples) > 0 {
		blocks = append(blocks, contextBlock("clarify.examples", examples...))
	}
	return message{Blocks: blocks, Text: fallback(text)}
}

// resolvedMessage replaces a clarification once answered: the question and
// the choice, without buttons.
func resolvedMessage(r *dialog.Resolved, user string) message {
	who := ""
	if user != "" {
		who = " — <@" + user + ">"
	}
	return message{
		Blocks: []slack.Block{
			section("clarify.prompt", plain(r.Prompt, maxSectionText), nil),
			contextBlock("clarify.resolved", "✓ "+escClip(oneLine(r.Choice), maxContextText-40)+who),
		},
		Text: fallback(r.Prompt + " → " + r.Choice),
	}
}

// answerMessage renders a result: explanation, the headline with its
// figure, the table, what it used, notes and the buttons (Show more while
// rows remain).
func answerMessage(a *dialog.Answer, conv ref, text string) message {
	var blocks []slack.Block
	if e := strings.TrimSpace(a.Explanation); e != "" {
		blocks = append(blocks, section("clarify.explanation", mrkdwn(escClip(e, maxSectionText)), nil))
	}
	if h := strings.TrimSpace(a.Headline); h != "" {
		blocks = append(blocks, section("clarify.headline", mrkdwn("*"+escClip(oneLine(h), maxSectionText-2)+"*"), nil))
	}
	t := renderTable(a.Columns, a.Rows)
	for i, s := range t.Sections {
		blocks = append(blocks, section(indexed("clarify.table", i), mrkdwn(s), nil))
	}
	facts, m := rowFacts(a, t, text)
	if spec, ok := chart.ForResult(a.Result, a.Formats, a.Headings, a.Explanation); ok {
		m.Chart, m.ChartName = &spec, "clarify-"+a.ID+"-chart.png"
		facts = append(facts, "A chart follows.")
	}
	if len(facts) > 0 {
		blocks = append(blocks, contextBlock("clarify.rows", strings.Join(facts, " ")))
	}
	for i, f := range a.UsedFacts {
		if i == 5 {
			break
		}
		v := conv
		v.ID, v.Fact = a.ID, f.FactID
		line := fmt.Sprintf("Using %s: *%s* = %s", f.Whose("workspace"), escClip(oneLine(f.Phrase), 200), escClip(oneLine(f.Meaning), 1000))
		blocks = append(blocks, section(indexed("clarify.fact", i), mrkdwn(line), button(indexed(actChange, i), v.encode(), "change")))
	}
	var notes []string
	if len(a.Unused) > 0 {
		notes = append(notes, escClip(dialog.UnusedNote(a.Unused), maxContextText))
	}
	for _, n := range a.Notes {
		if n = strings.TrimSpace(n); n != "" {
			notes = append(notes, escClip("Note: "+n, maxContextText))
		}
	}
	if len(notes) > 0 {
		blocks = append(blocks, contextBlock("clarify.notes", notes...))
	}
	v := conv
	v.ID = a.ID
	buttons := []slack.BlockElement{
		button(actSQL, v.encode(), "Show SQL"),
		button(actCorrect, v.encode(), "Correct").WithStyle(slack.StylePrimary),
		button(actWrong, v.encode(), "Not what I meant"),
	}
	if b := moreButton(a, t, conv); b != nil {
		buttons = append(buttons, b)
	}
	blocks = append(blocks, slack.NewActionBlock("clarify.feedback", buttons...))
	m.Blocks = blocks
	return m
}

// rowsMessage renders a later page of an answer ("more", "all"): the
// rows, where they are in the result, and Show more while rows remain.
func rowsMessage(a *dialog.Answer, conv ref, text string) message {
	var blocks []slack.Block
	t := renderTable(a.Columns, a.Rows)
	for i, s := range t.Sections {
		blocks = append(blocks, section(indexed("clarify.table", i), mrkdwn(s), nil))
	}
	facts, m := rowFacts(a, t, text)
	for _, n := range a.Notes {
		if n = strings.TrimSpace(n); n != "" {
			facts = append(facts, "Note: "+n)
		}
	}
	if len(facts) > 0 {
		blocks = append(blocks, contextBlock("clarify.rows", escClip(strings.Join(facts, " "), maxContextText)))
	}
	if b := moreButton(a, t, conv); b != nil {
		blocks = append(blocks, slack.NewActionBlock("clarify.paging", b))
	}
	m.Blocks = blocks
	return m
}

// rowFacts says which rows the message shows and attaches the CSV of the
// whole kept result when they are not all there.
func rowFacts(a *dialog.Answer, t table, text string) ([]string, message) {
	loc := colfmt.LocaleFor(a.Locale)
	total := max(a.RowCount, a.Offset+len(a.Rows))
	var facts []string
	switch {
	case len(a.Columns) == 0:
	case total == 0:
		facts = append(facts, "No rows.")
	case a.Offset > 0:
		facts = append(facts, fmt.Sprintf("Rows %s–%s of %s.", loc.Int(a.Offset+1), loc.Int(a.Offset+t.ShownRows), loc.Int(total)))
	case t.ShownRows < total:
		facts = append(facts, fmt.Sprintf("Showing %s of %s rows.", loc.Int(t.ShownRows), loc.Int(total)))
	default:
		facts = append(facts, fmt.Sprintf("%s row%s.", loc.Int(total), plural(total)))
	}
	if t.ShownCols < len(a.Columns) {
		facts = append(facts, fmt.Sprintf("Showing %d of %d columns.", t.ShownCols, len(a.Columns)))
	}
	if t.Clipped {
		facts = append(facts, "Long values are cut (…).")
	}
	if a.Truncated {
		facts = append(facts, fmt.Sprintf("The warehouse had more than the %s rows fetched (the row cap); narrow the question to see them all.", loc.Int(total)))
	}
	m := message{Text: fallback(text)}
	// The file holds what the table cannot: rows past the first page,
	// columns past a line's width, values past a cell.
	if total > 0 && (t.ShownRows < len(a.Rows) || a.Offset == 0 && t.ShownRows < total || t.ShownCols < len(a.Columns) || t.Clipped || a.Truncated) {
		m.CSV = csvFile(a)
		m.Name = "clarify-" + a.ID + ".csv"
		m.Title = "Result (" + loc.Int(total) + " rows)"
		facts = append(facts, "The full result is attached as a CSV file.")
	}
	return facts, m
}

// moreButton is Show more while the result has rows after the ones this
// message shows; its value says how far that is.
func moreButton(a *dialog.Answer, t table, conv ref) *slack.ButtonBlockElement {
	next := a.Offset + t.ShownRows
	if len(a.Columns) == 0 || next >= max(a.RowCount, a.Offset+len(a.Rows)) {
		return nil
	}
	v := conv
	v.ID, v.Option = a.ID, next
	return button(actMore, v.encode(), "Show more")
}

// fileMessage posts a file the person asked for ("csv").
func fileMessage(r dialog.Reply) message {
	m := noticeMessage(r.Text)
	m.CSV, m.Name, m.Title = r.File.Data, r.File.Name, r.File.Title
	return m
}

// sqlMessage shows SQL as code blocks, split under the section limit.
func sqlMessage(sql string) message {
	sql = strings.TrimSpace(strings.ReplaceAll(sql, "```", "ˋˋˋ"))
	budget := maxSectionText - 2*len(fence) - 1
	var blocks []slack.Block
	lines := strings.Split(sql, "\n")
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if cur.Len() > 0 {
			blocks = append(blocks, section(indexed("clarify.sql", len(blocks)), mrkdwn(fence+cur.String()+fence), nil))
		}
		cur.Reset()
		curLen = 0
	}
	for _, l := range lines {
		e := escClip(l, budget)
		n := utf16Len(e) + 1
		if curLen+n > budget {
			flush()
			if len(blocks) == maxMessageBlocks-1 {
				blocks = append(blocks, contextBlock("clarify.sql.cut", "The SQL is too long to show in full."))
				return message{Blocks: blocks, Text: fallback(sql)}
			}
		}
		cur.WriteString(e)
		cur.WriteByte('\n')
		curLen += n
	}
	flush()
	return message{Blocks: blocks, Text: fallback(sql)}
}

// noticeMessage is a plain notice.
func noticeMessage(text string) message {
	text = strings.TrimSpace(text)
	if text == "" {
		text = "…"
	}
	return message{Blocks: []slack.Block{section("clarify.notice", mrkdwn(escClip(text, maxSectionText)), nil)}, Text: fallback(text)}
}

// lookingMessage is the placeholder shown while the bot works; the first
// reply replaces it.
func lookingMessage() message {
	return message{Blocks: []slack.Block{contextBlock("clarify.looking", "_Looking…_")}, Text: "Looking…"}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
