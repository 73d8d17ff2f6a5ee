package slack

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/chart"
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

// answerMessage renders a result: explanation, table, what it used, notes
// and the feedback buttons.
func answerMessage(a *dialog.Answer, conv ref, text string) message {
	var blocks []slack.Block
	if e := strings.TrimSpace(a.Explanation); e != "" {
		blocks = append(blocks, section("clarify.explanation", mrkdwn(escClip(e, maxSectionText)), nil))
	}
	t := renderTable(a.Columns, a.Rows)
	for i, s := range t.Sections {
		blocks = append(blocks, section(indexed("clarify.table", i), mrkdwn(s), nil))
	}
	total := max(a.RowCount, len(a.Rows))
	var facts []string
	switch {
	case len(a.Columns) == 0:
	case total == 0:
		facts = append(facts, "No rows.")
	case t.ShownRows < total:
		facts = append(facts, fmt.Sprintf("Showing %s of %s rows.", count(t.ShownRows), count(total)))
	default:
		facts = append(facts, fmt.Sprintf("%s row%s.", count(total), plural(total)))
	}
	if t.ShownCols < len(a.Columns) {
		facts = append(facts, fmt.Sprintf("Showing %d of %d columns.", t.ShownCols, len(a.Columns)))
	}
	if t.Clipped {
		facts = append(facts, "Long values are cut (…).")
	}
	if a.Truncated {
		facts = append(facts, fmt.Sprintf("The warehouse had more than the %s rows fetched; narrow the question to see them all.", count(total)))
	}
	m := message{Text: fallback(text)}
	if total > 0 && (t.ShownRows < total || t.ShownCols < len(a.Columns) || t.Clipped || a.Truncated) {
		m.CSV = csvFile(a)
		m.Name = "clarify-" + a.ID + ".csv"
		m.Title = "Result (" + count(total) + " rows)"
		facts = append(facts, "The full result is attached as a CSV file.")
	}
	if spec, ok := chart.ForAnswer(a); ok {
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
	blocks = append(blocks, slack.NewActionBlock("clarify.feedback",
		button(actSQL, v.encode(), "Show SQL"),
		button(actCorrect, v.encode(), "Correct").WithStyle(slack.StylePrimary),
		button(actWrong, v.encode(), "Not what I meant"),
	))
	m.Blocks = blocks
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

func count(n int) string {
	s := fmt.Sprint(n)
	if n < 10000 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	b.WriteString(s[:lead])
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
