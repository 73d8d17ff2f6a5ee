package dialog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// answerClarification applies a button click or a typed answer.
func (m *Manager) answerClarification(ctx context.Context, ev Event) ([]Reply, error) {
	st, note, err := m.load(ctx, stateKey(ev))
	if err != nil {
		return nil, err
	}
	if st == nil {
		return []Reply{ephemeral(ev.Conversation, note)}, nil
	}
	if st.Pending == nil || st.Pending.ID != ev.Target {
		if ev.Resume && st.Status == statusAsking && st.Pending != nil && slices.ContainsFunc(st.History, func(h closedQ) bool { return h.ID == ev.Target }) {
			// The stopped process took the click and asked the next question.
			return []Reply{m.clarificationReply(st, ev.Conversation)}, nil
		}
		for _, h := range st.History {
			if h.ID == ev.Target {
				return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("That question was already answered: %s", h.Choice))}, nil
			}
		}
		return []Reply{ephemeral(ev.Conversation, "That question is no longer open.")}, nil
	}
	q := st.Pending
	if ev.Kind == EventChoose {
		if ev.Option < 0 || ev.Option >= len(q.Options) {
			return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("Please pick one of the %d options, or answer in your own words.", len(q.Options)))}, nil
		}
		return m.choose(ctx, st, ev, ev.Option, q.Options[ev.Option].Label)
	}
	text := normalizeText(ev.Text)
	switch {
	case text == "":
		return []Reply{notice(ev.Conversation, "Type your answer, or pick one of the options.")}, nil
	case len([]rune(text)) > m.cfg.MaxQuestionLength:
		m.obs.Refused(RefuseTooLong)
		return []Reply{notice(ev.Conversation, fmt.Sprintf("That answer is too long (%d characters); please keep it under %d.", len([]rune(text)), m.cfg.MaxQuestionLength))}, nil
	}
	if isSkip(text) && !slices.ContainsFunc(q.Options, func(o pendingOpt) bool { return strings.EqualFold(o.Label, text) }) {
		// Skipping the clarification, not the question: it goes on with
		// the likeliest option and says what it assumed.
		return m.chooseAs(ctx, st, ev, st.likeliestOption(q), true)
	}
	if i, ok := matchOption(q, text); ok {
		return m.choose(ctx, st, ev, i, text)
	}
	if q.Key == vocabKey && !looksLikeNewQuestion(text) {
		return m.typedWord(ctx, st, ev, q, text)
	}
	if looksLikeNewQuestion(text) && !m.answersPending(ctx, st, q, text) {
		// Not an answer but another question: drop the pending one and
		// start over in this conversation.
		if r, ok := m.admit(ctx, ev); !ok {
			// The pending question stays open for when they come back.
			return []Reply{r}, nil
		}
		m.obs.Question()
		resolved := &Resolved{ClarificationID: q.ID, Prompt: q.Prompt, Choice: "(a new question was asked)"}
		fresh := m.newState(st.Key, ev.Who, text)
		replies, err := m.generate(ctx, fresh, ev.Conversation)
		if err != nil || fresh.Candidates == nil {
			if err == nil {
				err = m.save(ctx, fresh)
			}
			return withResolved(replies, resolved), err
		}
		more, err := m.advance(ctx, fresh, ev)
		return withResolved(append(replies, more...), resolved), err
	}
	if msg := unusableAnswer(text); msg != "" {
		// Nothing is saved: the question stays open as it was.
		return []Reply{notice(ev.Conversation, msg+" "+stillWaiting(q))}, nil
	}
	if phrase, meaning, ok := definesPhrase(text); ok && !strings.EqualFold(phrase, q.Phrase) {
		// "vip means …" about another word: remembered (or declined) on
		// its own, and the question stays open.
		if r, ok := m.defineStandalone(ctx, ev, phrase, meaning); ok {
			return append(r, notice(ev.Conversation, stillWaiting(q))), nil
		}
	}
	if !noneOfThese(text) {
		// Words that read as a meaning of what was asked are applied
		// exactly, or declined (typed.go).
		if tm, ok := m.understand(ctx, st, q, text); ok {
			return m.applyTyped(ctx, st, ev, q, text, tm)
		}
		if q.Key.Name == sqlshape.SlotDefine {
			// Words that are no condition on the data would be taken
			// and then ignored: say so, and keep the question open.
			return []Reply{notice(ev.Conversation, fmt.Sprintf("I couldn't read %q as a meaning of '%s'. Say it with the data's words, for example \"status is … or …\", \"with at least 3 …\", \"ordered in the last 90 days\" or \"has at least one …\". %s",
				tables.Clip(text, 60), q.Phrase, stillWaiting(q)))}, nil
		}
	}
	before := st.candidateSQL()
	m.obs.ClarificationAnswered()
	resolved := &Resolved{ClarificationID: q.ID, Prompt: q.Prompt, Choice: text}
	st.History = append(st.History, closedQ{ID: q.ID, Prompt: q.Prompt, Choice: text})
	st.addStep(m.cfg.Now(), clarificationStep(q, text, true))
	st.Pending = nil
	var replies []Reply
	if noneOfThese(text) {
		if st.Excluded == nil {
			st.Excluded = map[sqlshape.SlotKey][]sqlshape.SlotValue{}
		}
		again := len(st.Excluded[q.Key]) > 0
		for _, o := range q.Options {
			if q.Key.Name == sqlshape.SlotDefine && o.Value.IsEmpty() {
				continue // leaving the word out stays the fallback (definitions.go)
			}
			st.Excluded[q.Key] = append(st.Excluded[q.Key], o.Value)
		}
		none := Step{Kind: StepNone, Ref: q.ID}
		st.applyExclusions(none)
		if again && q.Key.Name == sqlshape.SlotDefine {
			// Twice none of the meanings: no more guesses, the word is
			// left out and the answer says so.
			st.leaveOut(q.Key, none)
		}
		st.Asked = slices.DeleteFunc(st.Asked, func(k sqlshape.SlotKey) bool { return k == q.Key })
		if len(st.live()) == 0 {
			st.Widen++
			replies, err = m.generate(ctx, st, ev.Conversation)
			if err != nil || st.Candidates == nil {
				return withResolved(replies, resolved), err
			}
			st.applyExclusions(none)
		}
	} else {
		fb := Feedback{Kind: classifyFeedback(text), Text: text, About: q.Phrase}
		if phrase, meaning, ok := definesPhrase(text); ok {
			fb = Feedback{Kind: FeedbackEdit, Text: meaning, About: phrase}
		}
		fb.Author = ownerKeys(ev.Who).User
		st.Feedback = append(st.Feedback, fb)
		replies, err = m.generate(ctx, st, ev.Conversation)
		if err != nil || st.Candidates == nil {
			return withResolved(replies, resolved), err
		}
		if slices.Equal(before, st.candidateSQL()) {
			// The words changed no reading: rather than ask something else
			// as if they had been understood, keep the question open.
			return []Reply{notice(ev.Conversation, fmt.Sprintf("I couldn't use %q to narrow this down: it matches nothing I can find in the data and changes none of the readings. %s", tables.Clip(text, 60), stillWaiting(q)))}, nil
		}
	}
	more, err := m.advance(ctx, st, ev)
	return withResolved(append(replies, more...), resolved), err
}

func withResolved(replies []Reply, r *Resolved) []Reply {
	if len(replies) > 0 {
		replies[0].Resolved = r
	}
	return replies
}

// choose applies option i of the pending clarification.
func (m *Manager) choose(ctx context.Context, st *convState, ev Event, i int, choice string) ([]Reply, error) {
	return m.chooseAs(ctx, st, ev, i, false)
}

// chooseAs applies option i of the pending clarification; assumed is set
// when the person skipped it: the answer then says what was assumed, and
// nothing is remembered as their choice.
func (m *Manager) chooseAs(ctx context.Context, st *convState, ev Event, i int, assumed bool) ([]Reply, error) {
	q := st.Pending
	opt := q.Options[i]
	m.obs.ClarificationAnswered()
	label := opt.Label
	if assumed {
		label = SkippedChoice(opt.Label)
		st.Notes = appendUnique(st.Notes, AssumedNote(q.Prompt, opt.Label))
	}
	resolved := &Resolved{ClarificationID: q.ID, Prompt: q.Prompt, Choice: label}
	if q.Key == vocabKey && opt.Element != nil && !assumed {
		return m.chooseWord(ctx, st, ev, q, *opt.Element, opt.Label, resolved)
	}
	st.History = append(st.History, closedQ{ID: q.ID, Prompt: q.Prompt, Choice: label})
	st.addStep(m.cfg.Now(), clarificationStep(q, label, assumed))
	st.Pending = nil
	if q.Engine {
		st.Feedback = append(st.Feedback, Feedback{Kind: FeedbackEdit, Text: opt.Feedback, About: q.Phrase})
		replies, err := m.generate(ctx, st, ev.Conversation)
		if err != nil || st.Candidates == nil {
			return withResolved(replies, resolved), err
		}
		more, err := m.advance(ctx, st, ev)
		return withResolved(append(replies, more...), resolved), err
	}
	st.keepOnly(q.Key, opt.Value, Step{Kind: StepAnswer, Ref: q.ID})
	st.picked(q.Key, q.Whole)
	if st.Chosen == nil {
		st.Chosen = map[sqlshape.SlotKey]sqlshape.SlotValue{}
	}
	st.Chosen[q.Key] = opt.Value
	switch {
	case assumed:
		// A skipped question teaches nothing about what they mean.
	case q.Key == choiceKey:
		m.learnReading(ctx, st, ev.Who, q, opt)
	case q.OneOff:
		st.Notes = appendUnique(st.Notes, fmt.Sprintf("For this question only: %s. Your usual choice stays as it was.", lowerFirst(opt.Label)))
	default:
		m.learn(ctx, st, ev.Who, q, opt)
	}
	replies, err := m.advance(ctx, st, ev)
	return withResolved(replies, resolved), err
}

// skipWords skip a pending clarification: the question goes on with the
// likeliest option.
var skipWords = map[string]bool{
	"skip": true, "skip it": true, "skip this": true, "skip this one": true, "skip that": true, "skip the question": true,
	"pass": true, "don't know": true, "dont know": true, "i don't know": true, "i dont know": true, "not sure": true,
	"no idea": true, "whichever": true, "you choose": true, "you pick": true, "your choice": true, "you decide": true,
}

func isSkip(text string) bool {
	return skipWords[strings.Join(strings.Fields(strings.ToLower(strings.Trim(text, " .!'\""))), " ")]
}

// SkippedChoice is how a skipped clarification's outcome reads where the
// question was (the option assumed).
func SkippedChoice(label string) string { return "skipped; assumed " + lowerFirst(label) }

// AssumedNote is the answer's note after a skipped clarification.
func AssumedNote(prompt, label string) string {
	return fmt.Sprintf("You skipped \"%s\", so I assumed the likeliest: %s. Say \"not what I meant\" to pick another.", strings.TrimSpace(prompt), lowerFirst(label))
}

// likeliestOption is the option of q the live readings hold most of the
// belief for (the first on a tie, or when the options carry no value).
func (st *convState) likeliestOption(q *pendingQ) int {
	mass := make([]float64, len(q.Options))
	for _, c := range st.liveView() {
		v := c.slots.Get(q.Key).String()
		for i, o := range q.Options {
			if !o.Value.IsEmpty() && o.Value.String() == v {
				mass[i] += c.p
				break
			}
		}
	}
	best := 0
	for i := range mass {
		if mass[i] > mass[best] {
			best = i
		}
	}
	return best
}

// matchOption recognises a typed answer that names an option: its number,
// its label, or its example value.
func matchOption(q *pendingQ, text string) (int, bool) {
	t := strings.ToLower(strings.Trim(text, " .!)#"))
	if n, err := strconv.Atoi(t); err == nil && n >= 1 && n <= len(q.Options) {
		return n - 1, true
	}
	for i, o := range q.Options {
		if t == strings.ToLower(o.Label) {
			return i, true // the very words of one option
		}
	}
	match := -1
	for i, o := range q.Options {
		label := strings.ToLower(o.Label)
		if t == label || len(t) >= 4 && strings.Contains(label, t) {
			if match >= 0 {
				return 0, false // ambiguous: treat as free text
			}
			match = i
		}
	}
	return match, match >= 0
}

// looksLikeNewQuestion tells a new question typed while a clarification is
// pending ("how many orders from Ohio?") from an answer to it ("ship date").
func looksLikeNewQuestion(text string) bool {
	t := strings.ToLower(text)
	words := strings.Fields(t)
	if len(words) < 4 {
		return false
	}
	switch words[0] {
	case "what", "which", "who", "how", "list", "show", "give", "when", "where", "top", "average", "count":
		return true
	}
	return strings.HasSuffix(t, "?") && len(words) >= 5
}

func noneOfThese(text string) bool {
	t := strings.ToLower(strings.Trim(text, " .!"))
	for _, p := range []string{"none", "none of these", "none of them", "neither", "neither of these", "something else", "no", "nope", "other"} {
		if t == p {
			return true
		}
	}
	return false
}

// applyExclusions rules out candidates with values the person said none of.
func (st *convState) applyExclusions(step Step) {
	for key, vals := range st.Excluded {
		for _, i := range st.live() {
			if slices.ContainsFunc(vals, st.Candidates[i].Slots.Get(key).Equal) {
				st.Candidates[i].ElimBy = step
			}
		}
	}
}

// feedback handles the buttons under an answer.
func (m *Manager) feedback(ctx context.Context, ev Event) ([]Reply, error) {
	st, note, err := m.load(ctx, stateKey(ev))
	if err != nil {
		return nil, err
	}
	if st == nil {
		return []Reply{ephemeral(ev.Conversation, note)}, nil
	}
	ans := st.findAnswer(ev.Target)
	if ans == nil {
		return []Reply{ephemeral(ev.Conversation, "I can't find that answer any more. Please ask again.")}, nil
	}
	latest := st.Answer != nil && st.Answer.ID == ans.ID
	switch ev.Kind {
	case EventShowSQL:
		return []Reply{{Kind: ReplySQL, Conversation: ev.Conversation, SQL: ans.sqlText(), Text: ans.sqlText()}}, nil
	case EventCorrect:
		if ans.Confirmed {
			return []Reply{ephemeral(ev.Conversation, "Already noted — thanks.")}, nil
		}
		ans.Confirmed = true
		st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepCorrect})
		m.recordQuestion(ctx, st, OutcomeConfirmed, "", []string{ans.SQL}, 0)
		m.rememberConfirmed(ctx, st, ans)
		for _, f := range ans.UsedFacts {
			if err := m.deps.Facts.Confirm(ctx, f.FactID); err != nil {
				m.log.Warn("cannot confirm a preference", "fact", f.FactID, "err", err)
			}
		}
		if err := m.save(ctx, st); err != nil {
			return nil, err
		}
		return []Reply{notice(ev.Conversation, "Thanks — glad that's what you meant.")}, nil
	}
	if !latest {
		return []Reply{ephemeral(ev.Conversation, "That answer has been replaced by a newer one in this conversation.")}, nil
	}
	switch ev.Kind {
	case EventWrong:
		st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepWrong})
		st.Rejected++
		for _, i := range st.live() {
			if st.Candidates[i].Group == ans.Group {
				st.Candidates[i].ElimBy = Step{Kind: StepReject, Ref: ans.ID}
			}
		}
		// A remembered choice may be what went wrong: set it aside here
		// and ask again; the asker's "not what I meant" also weakens it
		// for them (facts.go: rejectUsed).
		m.rejectUsed(ctx, st, ev.Who, ans.UsedFacts)
		m.untaught(ctx, st, ownerKeys(ev.Who).User)
		for _, f := range ans.UsedFacts {
			st.Skipped = appendUnique(st.Skipped, f.FactID)
			st.unapply(f.FactID)
		}
		st.archiveAnswer()
		st.Status = statusAsking
		return m.advance(ctx, st, ev)
	case EventChange:
		var used *appliedFact
		for i := range st.Applied {
			if st.Applied[i].FactID == ev.FactID {
				used = &st.Applied[i]
			}
		}
		if used == nil {
			return []Reply{ephemeral(ev.Conversation, "That answer didn't use that preference.")}, nil
		}
		if used.Key == (sqlshape.SlotKey{}) {
			return m.changeLinked(ctx, st, ev, *used)
		}
		key, factID := used.Key, used.FactID
		st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepChange, Answer: used.Phrase})
		st.Skipped = appendUnique(st.Skipped, factID)
		st.unapply(factID)
		var pt *point
		for _, p := range decisionPoints(st.liveView(), nil, MaxOptions) {
			if p.Key == key {
				pt = &p
				break
			}
		}
		if pt == nil {
			return []Reply{notice(ev.Conversation, "There is no other choice for that in this question.")}, m.save(ctx, st)
		}
		st.archiveAnswer()
		st.Asked = slices.DeleteFunc(st.Asked, func(k sqlshape.SlotKey) bool { return k == key })
		return m.ask(ctx, st, ev, *pt, factID)
	}
	return nil, fmt.Errorf("dialog: unexpected feedback kind %d", ev.Kind)
}

// changeLinked sets aside a fact the answer used to link a phrase to a
// column, and reads the question again without it: the engine then offers
// what the phrase's words name, and asks where that is ambiguous.
func (m *Manager) changeLinked(ctx context.Context, st *convState, ev Event, used appliedFact) ([]Reply, error) {
	st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepChange, Answer: used.Phrase})
	st.Skipped = appendUnique(st.Skipped, used.FactID)
	// New readings: every other remembered choice is applied to them afresh.
	st.Applied = nil
	st.archiveAnswer()
	st.Status = statusAsking
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil || st.Candidates == nil || len(st.live()) == 0 {
		if len(replies) == 0 {
			replies = []Reply{notice(ev.Conversation, m.noReading(st))}
		}
		return replies, errors.Join(err, m.save(ctx, st))
	}
	return m.advance(ctx, st, ev)
}

// unapply brings back what a fact ruled out and forgets that it was
// applied. Candidates it had ruled out first may also break the other
// decisions, so those are applied again.
func (st *convState) unapply(factID string) {
	var kept []appliedFact
	for _, a := range st.Applied {
		if a.FactID == factID {
			st.restore(a.Step)
			continue
		}
		kept = append(kept, a)
	}
	st.Applied = kept
	for _, a := range st.Applied {
		if a.Key == (sqlshape.SlotKey{}) {
			continue // a linked phrase rules nothing out (applyLinked)
		}
		for _, i := range st.live() {
			if !holds(st.Candidates[i].Slots.Get(a.Key), a.Token) {
				st.Candidates[i].ElimBy = a.Step
			}
		}
	}
	st.reapplyChosen()
}

// unusableAnswer says why a typed answer cannot be used, or "".
func unusableAnswer(text string) string {
	letters := 0
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			letters++
		}
	}
	if letters < 2 {
		return "I couldn't read that as an answer."
	}
	if looksLikeSQL(text) {
		return "I don't run SQL typed into the chat; say in words what you mean (for example 'use ship date' or 'only 2024')."
	}
	return ""
}

// looksLikeSQL spots statements and injection fragments typed as answers.
// A statement is what the SQL parser reads as one: "drop the city column"
// and "with the largest amount" start like statements but are requests.
func looksLikeSQL(text string) bool {
	t := " " + strings.ToLower(text) + " "
	for _, frag := range []string{";", "--", "/*", " union select ", " from information_schema", "sleep(", "benchmark("} {
		if strings.Contains(t, frag) {
			return true
		}
	}
	_, err := parser.New().ParseOneStmt(strings.TrimSpace(text), "", "")
	return err == nil && len(strings.Fields(text)) > 1
}

func stillWaiting(q *pendingQ) string {
	return fmt.Sprintf("Still waiting for your answer to: %s — pick one of the %d options, answer in your own words, or 'skip'.", q.Prompt, len(q.Options)+1)
}

// candidateSQL lists the candidates' statements, sorted, to tell whether
// feedback changed anything.
func (st *convState) candidateSQL() []string {
	out := make([]string, 0, len(st.Candidates))
	for _, c := range st.Candidates {
		out = append(out, c.SQL)
	}
	sort.Strings(out)
	return out
}
