package console

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// handleLine handles one input line and reports whether the session ends.
func (c *Console) handleLine(ctx context.Context, raw string) (quit bool) {
	text := cleanInput(raw)
	if text == "" {
		return false
	}
	if !c.opts.Interactive {
		c.out.printf("> %s\n", echo(text))
	}
	if c.dispatch(ctx, text) {
		return true
	}
	c.out.line("")
	return false
}

// dispatch acts on a non-empty line: commands first, then an answer to an
// open clarification, then feedback on the last answer, then a question.
func (c *Console) dispatch(ctx context.Context, text string) (quit bool) {
	norm := normalize(text)
	cmd, arg := splitCommand(text)
	switch {
	case norm == "quit" || norm == "exit":
		c.out.line("Bye.")
		return true
	case norm == "help" || norm == "?":
		c.help()
		if c.pending == nil {
			// What the data holds and what to ask, from the manager.
			c.send(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: noConversation, Text: "what can I ask?"})
		}
		c.remindPending()
		return false
	case norm == "prefs" || norm == "my preferences" || norm == "preferences" || norm == "my prefs":
		c.send(ctx, dialog.Event{Kind: dialog.EventPrefs, Conversation: c.conv})
		c.remindPending()
		return false
	case cmd == "prefs" && arg != "":
		c.send(ctx, dialog.Event{Kind: dialog.EventPrefs, Conversation: c.conv, Subject: strings.TrimPrefix(arg, "@")})
		c.remindPending()
		return false
	case cmd == "forget":
		c.forget(ctx, arg)
		c.remindPending()
		return false
	case cmd == "delete" && len(strings.Fields(arg)) <= 1:
		// "delete 2" deletes a listed preference; "delete all cancelled
		// orders" is a request to change data, which the dialog declines.
		c.deleteFact(ctx, arg)
		c.remindPending()
		return false
	case cmd == "promote":
		c.promote(ctx, arg)
		c.remindPending()
		return false
	case norm == "admin" || norm == "/clarify admin":
		if c.opts.AdminLink == nil {
			c.out.line(cmp.Or(c.opts.AdminOff, "The admin console is not running in this session."))
		} else {
			c.adminLink(ctx)
		}
		c.remindPending()
		return false
	}

	if c.pending != nil {
		c.answerClarification(ctx, text, norm)
		return false
	}
	switch norm {
	case "skip", "cancel":
		c.out.line("There's no open question to skip. Type a question, or 'help'.")
		return false
	}
	switch {
	case yesWords[norm]:
		c.feedback(ctx, dialog.EventCorrect)
		return false
	case noWords[norm]:
		c.feedback(ctx, dialog.EventWrong)
		return false
	case sqlWords[norm]:
		c.feedback(ctx, dialog.EventShowSQL)
		return false
	}
	if k := dialog.PageCommand(norm); k != 0 && c.answer != nil {
		// "more", "all", "csv": the last answer's rows.
		c.send(ctx, dialog.Event{Kind: k, Conversation: c.answerConv, Target: c.answer.ID})
		return false
	}
	if cmd == "change" {
		c.change(ctx, arg)
		return false
	}
	if n, rest, _, ok := parseNumber(text); ok && rest == "" {
		// A number picks an example only while the examples are the last
		// thing on screen; after an answer it means nothing.
		if c.seq == 0 && n >= 1 && n <= len(c.opts.Examples) {
			text = cleanInput(c.opts.Examples[n-1])
			c.out.printf("Asking: %s\n", text)
			c.question(ctx, text)
			return false
		}
		if c.answer != nil {
			c.out.line("There are no options to pick from now. About the answer: 'yes', 'no' or 'sql'; or type a new question.")
		} else {
			c.out.line("There are no options to pick from now. Type a question, or 'help'.")
		}
		return false
	}
	c.question(ctx, text)
	return false
}

// question sends a new question, or a follow-up in the current conversation.
func (c *Console) question(ctx context.Context, text string) {
	if c.conv == "" || !isFollowUp(text) {
		c.seq++
		c.conv = fmt.Sprintf("console-%d", c.seq)
		if c.opts.Session != "" {
			// Conversations outlive the process: a new session must not
			// resume an old session's conversation with the same number.
			c.conv = fmt.Sprintf("console-%s-%d", c.opts.Session, c.seq)
		}
		c.answer, c.answerConv = nil, ""
	}
	if rest, ok := strings.CutPrefix(text, "+ "); ok {
		text = strings.TrimSpace(rest)
	}
	c.send(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: c.conv, Text: text})
}

// answerClarification turns a line into an answer to the open clarification:
// a number picks an option, the number of Other… followed by words (or the
// words on the next line) answers in the person's own words, and any other
// text is a free-text answer ('skip' too: the question goes on with the
// likeliest option). 'cancel' drops the question.
func (c *Console) answerClarification(ctx context.Context, text, norm string) {
	cl := c.pending
	if norm == "cancel" {
		c.pending, c.otherNext = nil, false
		c.conv, c.answer, c.answerConv = "", nil, ""
		c.out.line("OK, I've dropped that question. Type a new question.")
		return
	}
	ev := dialog.Event{Kind: dialog.EventOther, Conversation: c.conv, Target: cl.ID, Text: text}
	if c.otherNext {
		c.otherNext = false
		c.send(ctx, ev)
		return
	}
	other := len(closedOptions(cl)) + 1
	n, rest, digits, isNum := parseNumber(text)
	switch {
	case !isNum:
		// free text
	case n == other && rest == "":
		c.otherNext = true
		c.out.line("Type your answer in your own words ('cancel' to drop the question):")
		return
	case n == other:
		ev.Text = rest
	case rest != "":
		// "2 but only shipped": the whole line, in the person's words
	case n >= 1 && n < other:
		ev = dialog.Event{Kind: dialog.EventChoose, Conversation: c.conv, Target: cl.ID, Option: n - 1}
	default:
		c.out.printf("There's no option %s. Type a number from 1 to %d, or %d followed by your own words.\n",
			tables.Clip(digits, 20), other, other)
		c.printClarification(cl)
		return
	}
	c.send(ctx, ev)
}

// feedback sends yes/no/sql about the last answer.
func (c *Console) feedback(ctx context.Context, kind dialog.EventKind) {
	if c.answer == nil {
		c.out.line("There's no answer to refer to yet. Ask a question first.")
		return
	}
	c.send(ctx, dialog.Event{Kind: kind, Conversation: c.answerConv, Target: c.answer.ID})
}

// change reopens the decision a used fact made in the last answer.
func (c *Console) change(ctx context.Context, arg string) {
	if c.answer == nil {
		c.out.line("There's no answer whose choices you could change yet. Ask a question first.")
		return
	}
	facts := c.answer.UsedFacts
	if len(facts) == 0 {
		c.out.line("This answer didn't use any earlier choice. If it's not what you meant, type 'no'.")
		return
	}
	phrase := unquote(arg)
	var fact *dialog.UsedFact
	for i := range facts {
		if strings.EqualFold(collapseSpaces(facts[i].Phrase), phrase) {
			fact = &facts[i]
			break
		}
	}
	if fact == nil && phrase == "" && len(facts) == 1 {
		fact = &facts[0]
	}
	if fact == nil {
		known := make([]string, len(facts))
		for i, f := range facts {
			known[i] = "'change " + cleanInput(f.Phrase) + "'"
		}
		if phrase == "" {
			c.out.printf("Which choice? Type %s.\n", strings.Join(known, " or "))
		} else {
			c.out.printf("This answer used no earlier choice about '%s'. You can type %s.\n", tables.Clip(phrase, 60), strings.Join(known, " or "))
		}
		return
	}
	c.send(ctx, dialog.Event{Kind: dialog.EventChange, Conversation: c.answerConv, Target: c.answer.ID, FactID: fact.FactID})
}

func (c *Console) forget(ctx context.Context, arg string) {
	phrase := unquote(arg)
	if phrase == "" {
		c.out.line("Type 'forget' and the phrase, e.g. 'forget revenue'.")
		return
	}
	c.send(ctx, dialog.Event{Kind: dialog.EventForget, Conversation: c.conv, Text: phrase})
}

// listed returns fact n (1-based) of the last preferences listing, or
// prints why it cannot.
func (c *Console) listed(arg, usage string) (dialog.FactView, bool) {
	n, rest, digits, ok := parseNumber(arg)
	if !ok || rest != "" {
		c.out.printf("Type 'prefs' to list your preferences, then %s.\n", usage)
		return dialog.FactView{}, false
	}
	if len(c.prefs) == 0 {
		c.out.printf("Type 'prefs' first to see the numbered list, then %s.\n", usage)
		return dialog.FactView{}, false
	}
	if n < 1 || n > len(c.prefs) {
		c.out.printf("There's no preference %s in the last list; pick 1 to %d.\n", tables.Clip(digits, 20), len(c.prefs))
		return dialog.FactView{}, false
	}
	return c.prefs[n-1], true
}

func (c *Console) deleteFact(ctx context.Context, arg string) {
	f, ok := c.listed(arg, "'delete <number>'")
	if !ok {
		return
	}
	c.send(ctx, dialog.Event{Kind: dialog.EventDeleteFact, Conversation: c.conv, FactID: f.ID})
}

// promote shares fact n with the channel or workspace ("promote 2 workspace");
// the manager checks that the person is an admin.
func (c *Console) promote(ctx context.Context, arg string) {
	const usage = "'promote <number> channel' or 'promote <number> workspace'"
	num, word, _ := strings.Cut(arg, " ")
	scope := ontology.Scope(strings.ToLower(strings.TrimSpace(word)))
	if scope != ontology.ScopeChannel && scope != ontology.ScopeWorkspace {
		c.out.printf("Type %s.\n", usage)
		return
	}
	f, ok := c.listed(num, usage)
	if !ok {
		return
	}
	c.send(ctx, dialog.Event{Kind: dialog.EventPromote, Conversation: c.conv, FactID: f.ID, Scope: scope})
}

// remindPending repeats what an open clarification is waiting for, after a
// command typed in the middle of it.
func (c *Console) remindPending() {
	if c.pending == nil {
		return
	}
	if c.otherNext {
		c.out.printf("(Still waiting for your own words about: %s)\n", safe(c.pending.Prompt))
		return
	}
	c.out.printf("(Still waiting for your answer to: %s — a number, your own words, or 'skip'.)\n", safe(c.pending.Prompt))
}

// cleanInput makes a typed line safe to pass on: valid UTF-8, no control
// characters (tabs become spaces), no surrounding blanks.
func cleanInput(s string) string {
	return strings.TrimSpace(tables.Clean(strings.ToValidUTF8(s, "\uFFFD")))
}

// echo shortens a long line for the piped transcript.
func echo(s string) string {
	clipped := tables.Clip(s, maxEchoWidth)
	if clipped == s {
		return s
	}
	return fmt.Sprintf("%s [%d characters]", clipped, utf8.RuneCountInString(s))
}

// normalize lower-cases a line, collapses blanks and drops trailing
// punctuation, for matching commands ("Yes!" is "yes").
func normalize(s string) string {
	return strings.TrimRight(strings.ToLower(collapseSpaces(s)), ".!?")
}

func collapseSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// splitCommand returns the lower-cased first word and the rest of the line.
func splitCommand(s string) (cmd, arg string) {
	cmd, arg, _ = strings.Cut(s, " ")
	return strings.ToLower(cmd), strings.TrimSpace(arg)
}

// unquote strips quotes around a phrase and collapses its blanks.
func unquote(s string) string {
	s = collapseSpaces(s)
	for _, q := range [][2]string{{"'", "'"}, {`"`, `"`}, {"‘", "’"}, {"“", "”"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			return strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// isFollowUp reports whether a line refines the last question instead of
// asking a new one.
func isFollowUp(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range []string{"and ", "only ", "also ", "but ", "what about ", "now ", "+ "} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

// parseNumber reads a leading option number: "2", "2.", "2)", "#2", "4 ship
// date", "4: ship date". It returns the number (-1 when too large), the
// words after it, the digits as typed, and whether the line starts with a
// number at all ("2.5", "3rd" and "2024-01" do not).
func parseNumber(s string) (n int, rest, digits string, ok bool) {
	s = strings.TrimSpace(s)
	t := strings.TrimPrefix(s, "#")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "", "", false
	}
	digits, after := t[:i], t[i:]
	if after != "" && strings.ContainsRune(".):", rune(after[0])) {
		after = after[1:]
	}
	if after != "" && after[0] != ' ' {
		return 0, "", "", false
	}
	rest = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(after), "-–—:"))
	n, err := strconv.Atoi(digits)
	if err != nil {
		n = -1
	}
	return n, rest, digits, true
}

// The ways people say yes, no and "show me the SQL" about an answer.
var (
	yesWords = setOf("yes", "y", "yep", "yeah", "yup", "correct", "right", "ok", "okay", "perfect", "exactly", "good",
		"great", "thanks", "thank you", "that's right", "thats right", "that is right", "looks right", "looks good", "correct answer")
	noWords = setOf("no", "n", "nope", "nah", "wrong", "incorrect", "not right", "not what i meant", "not what i wanted",
		"that's wrong", "thats wrong", "that is wrong", "no that's wrong", "not quite")
	sqlWords = setOf("sql", "show sql", "show the sql", "show me the sql", "the sql", "query", "show query", "show the query",
		"show me the query", "what sql", "which sql", "see sql", "see the sql")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// adminLink prints a sign-in link to the admin console, for an admin.
func (c *Console) adminLink(ctx context.Context) {
	if !c.opts.Admin {
		c.out.line("Only admins can open the admin console (start the demo with --admin).")
		return
	}
	link, err := c.opts.AdminLink(ctx)
	if err != nil {
		c.log.Error("cannot make an admin console link", "err", err)
		c.out.line("I could not make a sign-in link: " + err.Error())
		return
	}
	c.out.line("Admin console (this link works once): " + link)
}
