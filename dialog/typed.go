package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// A typed meaning (freetext.go) is applied or plainly declined, never
// acknowledged and then ignored: the readings that hold it are kept —
// among the live ones first (a meaning the options left out), else among
// the engine's readings with the meaning given to it — and the rest are
// ruled out, so the answer uses exactly what the confirmation said. When
// no reading can hold it the question stays open and the reply says why.

// matchesTyped reports whether candidate c holds typed meaning tm for the
// slot key of the pending question.
func matchesTyped(c candState, key sqlshape.SlotKey, tm typedMeaning) bool {
	if tm.Key != (sqlshape.SlotKey{}) {
		key = tm.Key
	}
	switch tm.Term.Kind {
	case ontology.TermComputed, ontology.TermValues, ontology.TermPredicate:
		// Conditions and computed measures come back as the meanings the
		// reading gives the phrase; a measure asked about is aggregated.
		sql := tm.Term.SQL()
		if key.Name == sqlshape.SlotMeasure && c.Slots.Get(key).IsEmpty() {
			return false
		}
		return slices.ContainsFunc(c.Defines, func(d Definition) bool {
			return strings.EqualFold(d.Phrase, key.Arg) && d.Term.SQL() == sql || key.Name != sqlshape.SlotDefine && d.Term.SQL() == sql
		})
	case ontology.TermList:
		// The columns typed are shown (exact lists are preferred, applyTyped).
		cols := outputColumns(c, key)
		return !slices.ContainsFunc(tm.Term.Items, func(it string) bool { return !slices.Contains(cols, it) })
	}
	return holds(c.Slots.Get(key), tm.Term)
}

// applyTyped keeps the readings that hold typed meaning tm, asking the
// engine for them when no live reading does, and goes on; or declines,
// leaving the question open.
func (m *Manager) applyTyped(ctx context.Context, st *convState, ev Event, q *pendingQ, text string, tm typedMeaning) ([]Reply, error) {
	matching := func() []int {
		var out []int
		for _, i := range st.live() {
			if matchesTyped(st.Candidates[i], q.Key, tm) {
				out = append(out, i)
			}
		}
		return out
	}
	var replies []Reply
	if len(matching()) == 0 {
		// Ask the engine for readings with the meaning, keeping what we
		// had in case it has none.
		saved := *st
		saved.Candidates = slices.Clone(st.Candidates)
		saved.Feedback = slices.Clone(st.Feedback)
		term := tm.Term
		st.Feedback = append(st.Feedback, Feedback{Kind: FeedbackEdit, Text: tm.Plain, About: q.Phrase, Author: ownerKeys(ev.Who).User, Term: &term})
		var err error
		replies, err = m.generate(ctx, st, ev.Conversation)
		if err != nil {
			return nil, err
		}
		if st.Candidates == nil || len(matching()) == 0 {
			*st = saved
			return []Reply{notice(ev.Conversation, fmt.Sprintf("I read %q as: %s. But none of my readings of your question can use that here, so I have not applied it. %s",
				tables.Clip(text, 80), lowerFirst(tm.Plain), stillWaiting(q)))}, nil
		}
	}
	keep := matching()
	if tm.Term.Kind == ontology.TermList {
		// Exactly the columns typed, when a reading shows just those.
		exact := slices.DeleteFunc(slices.Clone(keep), func(i int) bool { return len(outputColumns(st.Candidates[i], q.Key)) != len(tm.Term.Items) })
		if len(exact) > 0 {
			keep = exact
		}
	}
	step := Step{Kind: StepAnswer, Ref: q.ID}
	for _, i := range st.live() {
		if !slices.Contains(keep, i) {
			st.Candidates[i].ElimBy = step
		}
	}
	m.obs.ClarificationAnswered()
	choice := upperFirst(tm.Plain) + " (in your words)"
	resolved := &Resolved{ClarificationID: q.ID, Prompt: q.Prompt, Choice: choice}
	st.History = append(st.History, closedQ{ID: q.ID, Prompt: q.Prompt, Choice: choice})
	st.addStep(m.cfg.Now(), clarificationStep(q, text, true))
	st.Pending = nil
	key := q.Key
	if tm.Key != (sqlshape.SlotKey{}) {
		key = tm.Key
	}
	if v := st.Candidates[keep[0]].Slots.Get(key); !v.IsEmpty() && key.Name != sqlshape.SlotDefine {
		// Regenerated readings keep the answer.
		if st.Chosen == nil {
			st.Chosen = map[sqlshape.SlotKey]sqlshape.SlotValue{}
		}
		st.Chosen[key] = v
	}
	st.Typed = append(st.Typed, typedAnswer{Key: key, Term: tm.Term, Plain: tm.Plain, Author: ownerKeys(ev.Who).User})
	if !q.OneOff {
		m.learnTyped(ctx, st, ev.Who, q, tm, st.Candidates[keep[0]])
	} else {
		st.Notes = appendUnique(st.Notes, fmt.Sprintf("For this question only: %s. Your usual choice stays as it was.", lowerFirst(tm.Plain)))
	}
	more, err := m.advance(ctx, st, ev)
	return withResolved(append(replies, more...), resolved), err
}

// typedAnswer is a meaning typed in this conversation, kept so that the
// answer never uses another meaning of what was asked.
type typedAnswer struct {
	Key   sqlshape.SlotKey `json:"key"`
	Term  ontology.Term    `json:"term"`
	Plain string           `json:"plain"`
	// Author is the owner key of who typed it.
	Author string `json:"author,omitempty"`
}

// learnTyped remembers a typed meaning as the author's fact, as if it had
// been an option they chose. Conditions and computed measures are
// remembered when an answer uses them (learnStated), as definitions.
func (m *Manager) learnTyped(ctx context.Context, st *convState, who Who, q *pendingQ, tm typedMeaning, c candState) {
	switch tm.Term.Kind {
	case ontology.TermComputed, ontology.TermValues, ontology.TermPredicate:
		return
	}
	value := c.Slots.Get(q.Key)
	if value.IsEmpty() || tm.Key != (sqlshape.SlotKey{}) && tm.Key != q.Key {
		return
	}
	m.learn(ctx, st, who, q, pendingOpt{Label: upperFirst(tm.Plain), Value: value})
}

// defineFollowUp handles "<phrase> means <meaning>" after an answer: the
// meaning is read as a condition on the rows the phrase qualifies (or,
// for the phrase a measure came from, as a measure), the question is read
// again with it, and the answer uses exactly that; what cannot be read so
// goes to the engine as words, as before.
func (m *Manager) defineFollowUp(ctx context.Context, st *convState, ev Event, phrase, meaning string) ([]Reply, error) {
	tm, ok := m.understandDefinition(ctx, st, phrase, meaning)
	if !ok {
		return m.refine(ctx, st, ev, Feedback{Kind: FeedbackEdit, Text: meaning, About: phrase})
	}
	saved := *st
	saved.Candidates, saved.Feedback, saved.Answers = slices.Clone(st.Candidates), slices.Clone(st.Feedback), slices.Clone(st.Answers)
	saved.Audit.Steps, saved.Typed = slices.Clone(st.Audit.Steps), slices.Clone(st.Typed)
	if st.Answer != nil {
		a := *st.Answer
		saved.Answer = &a
	}
	term := tm.Term
	key := sqlshape.DefineKey(phrase)
	if tm.Key != (sqlshape.SlotKey{}) {
		key = tm.Key
	}
	st.pendingTyped = &typedAnswer{Key: key, Term: tm.Term, Plain: tm.Plain, Author: ownerKeys(ev.Who).User}
	st.archiveAnswer()
	st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepFollowUp, Answer: normalizeText(ev.Text), Typed: true})
	st.Feedback = append(st.Feedback, Feedback{Kind: FeedbackEdit, Text: tm.Plain, About: phrase, Term: &term, Author: ownerKeys(ev.Who).User})
	st.Status = statusAsking
	st.Round, st.Rejected = 0, 0
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil {
		return replies, err
	}
	if st.Candidates == nil || st.pendingTyped != nil {
		// No reading could use it: say so, and keep the answer as it was.
		*st = saved
		st.pendingTyped = nil
		return []Reply{notice(ev.Conversation, fmt.Sprintf("I read that as '%s' = %s, but none of my readings of your question can use it, so I have not changed the answer.", phrase, lowerFirst(tm.Plain)))}, nil
	}
	more, err := m.advance(ctx, st, ev)
	confirm := notice(ev.Conversation, fmt.Sprintf("✓ '%s' = %s (in your words)", phrase, lowerFirst(tm.Plain)))
	return append(append([]Reply{confirm}, replies...), more...), err
}

// understandDefinition reads what a person says a phrase means: a measure
// when the readings took the phrase as their measure, else a condition on
// the rows it qualifies.
func (m *Manager) understandDefinition(ctx context.Context, st *convState, phrase, meaning string) (typedMeaning, bool) {
	t := cleanTyped(meaning)
	measureKey := sqlshape.Key(sqlshape.SlotMeasure)
	for _, i := range st.live() {
		if strings.EqualFold(st.Candidates[i].Phrases[measureKey], phrase) {
			tm, ok := m.readMeasure(t, "SUM")
			tm.Key = measureKey
			return tm, ok
		}
	}
	subject := ""
	for _, c := range st.Candidates {
		for _, d := range c.Defines {
			if strings.EqualFold(d.Phrase, phrase) && d.Term.Subject != "" {
				subject = strings.ToLower(d.Term.Subject)
			}
		}
	}
	if subject == "" {
		if live := st.live(); len(live) > 0 {
			subject = strings.ToLower(m.labels.countedTable(st.Candidates[live[0]].Slots))
		}
	}
	if subject == "" {
		return typedMeaning{}, false
	}
	if tm, ok, tried := m.readDefinition(ctx, subject, t); tried {
		return tm, ok
	}
	return m.readCondition(t, subject)
}

// keepTyped rules out, when a follow-up defined a phrase (defineFollowUp),
// the regenerated readings that do not hold the meaning; it leaves the
// pending meaning set when none does.
func (st *convState) keepTyped() {
	pt := st.pendingTyped
	if pt == nil {
		return
	}
	tm := typedMeaning{Key: pt.Key, Term: pt.Term, Plain: pt.Plain}
	var keep []int
	for _, i := range st.live() {
		if matchesTyped(st.Candidates[i], pt.Key, tm) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return
	}
	for _, i := range st.live() {
		if !slices.Contains(keep, i) {
			st.Candidates[i].ElimBy = Step{Kind: StepChosen, Key: pt.Key}
		}
	}
	st.Typed = append(st.Typed, *pt)
	st.pendingTyped = nil
}

// outputColumns are the columns a candidate shows at an output key,
// lower-case.
func outputColumns(c candState, key sqlshape.SlotKey) []string {
	var cols []string
	for _, p := range c.Slots.Get(key).Parts {
		cols = append(cols, strings.ToLower(p.Expr))
	}
	return cols
}

// learnTypedDefinitions remembers the definitions typed in this
// conversation that the answer uses, as the definitions of whoever typed
// them.
func (m *Manager) learnTypedDefinitions(ctx context.Context, st *convState, rep *candState) {
	for _, t := range st.Typed {
		if t.Key.Name != sqlshape.SlotDefine || !matchesTyped(*rep, t.Key, typedMeaning{Term: t.Term, Plain: t.Plain}) {
			continue
		}
		phrase := ontology.NormalizePhrase(t.Key.Arg)
		owner := t.Author
		if owner == "" {
			owner = ownerKeys(st.Who).User
		}
		f := ontology.Fact{
			Scope: ontology.ScopeUser, Owner: owner, Warehouse: m.cfg.Warehouse,
			Phrase: phrase, Kind: ontology.KindDefinition, Meaning: upperFirst(t.Plain), Question: st.Question,
			Target: ontology.Target{Slot: string(sqlshape.SlotDefine), Arg: t.Key.Arg, Choice: t.Term},
		}
		if phrase == "" || ontology.JunkFact(f) != "" {
			continue
		}
		if err := m.teach(ctx, st, f); err != nil {
			m.log.Warn("cannot remember the definition", "phrase", phrase, "err", err)
		}
	}
}

// answersPending reports whether words that look like a new question
// ("average of the daily limit and average of the monthly limit") read as
// a meaning of what is being asked: then they answer it. A question word
// first or a question mark last keeps them a question.
func (m *Manager) answersPending(ctx context.Context, st *convState, q *pendingQ, text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if strings.HasSuffix(t, "?") {
		return false
	}
	switch strings.Fields(t)[0] {
	case "what", "which", "who", "how", "when", "where", "list", "show", "give":
		return false
	}
	_, ok := m.understand(ctx, st, q, text)
	return ok
}
