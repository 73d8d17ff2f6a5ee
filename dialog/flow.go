package dialog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// message handles a typed message: a new question, a follow-up to an
// answered one, or a free-text answer to a pending clarification.
func (m *Manager) message(ctx context.Context, ev Event) ([]Reply, error) {
	began := m.cfg.Now()
	text := normalizeText(ev.Text)
	if r, ok := m.command(ctx, ev, text); ok {
		return r, nil
	}
	key := stateKey(ev)
	st, _, err := m.load(ctx, key)
	if err != nil {
		return nil, err
	}
	if ev.Resume && st != nil && st.Question == text {
		// The stopped process got this far with the question: its waiting
		// clarification is asked again, or the question is answered anew.
		if st.Status == statusAsking && st.Pending != nil {
			return []Reply{m.clarificationReply(st, ev.Conversation)}, nil
		}
		st = nil
	}
	// A reply typed while a clarification waits answers it ("1", "net").
	if st != nil && st.Status == statusAsking && st.Pending != nil && text != "" {
		ev.Kind, ev.Target, ev.Text = EventOther, st.Pending.ID, text
		return m.answerClarification(ctx, ev)
	}
	if k := PageCommand(text); k != 0 {
		return m.typedPage(ctx, st, ev, k) // "more", "all", "csv" (paging.go)
	}
	if msg, reason := m.checkQuestion(text, st != nil && st.Status == statusAnswered); msg != "" {
		m.obs.Refused(reason)
		m.recordRefusal(ctx, ev, text, msg, began)
		return []Reply{notice(ev.Conversation, msg)}, nil
	}
	if r, ok, err := m.answerVerified(ctx, ev, key, text); ok || err != nil {
		return r, err
	}
	if phrase, meaning, ok := definesPhrase(text); ok && st != nil && st.Status == statusAnswered {
		// "active means they ordered in the last 90 days": a definition of a
		// word the last answer left out (or used), applied to it.
		return m.defineFollowUp(ctx, st, ev, phrase, meaning)
	} else if ok {
		// "loyal means customers with 25 or more orders", on its own.
		if r, ok := m.defineStandalone(ctx, ev, phrase, meaning); ok {
			return r, nil
		}
	}
	if st != nil && st.Status == statusAnswered && !looksLikeNewQuestion(text) {
		return m.followUp(ctx, st, ev, text)
	}
	if r, ok := m.admit(ctx, ev); !ok {
		return []Reply{r}, nil
	}
	m.obs.Question()
	st = m.newState(key, ev.Who, text)
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil || st.Candidates == nil {
		return replies, err
	}
	more, err := m.advance(ctx, st, ev)
	return append(replies, more...), err
}

// newState starts a conversation about question.
func (m *Manager) newState(key string, who Who, question string) *convState {
	now := m.cfg.Now()
	return &convState{Key: key, Who: who, Warehouse: m.cfg.Warehouse, Question: question, Status: statusAsking, Created: now, Chosen: map[sqlshape.SlotKey]sqlshape.SlotValue{}, began: now}
}

// firstFn is the aggregate function of a measure value's first part.
func firstFn(v sqlshape.SlotValue) string {
	if len(v.Parts) == 0 {
		return ""
	}
	return v.Parts[0].Fn
}

// checkQuestion refuses what cannot be a question, saying why (and the
// Refuse… reason, for metrics); followUp: it comes after an answer.
func (m *Manager) checkQuestion(text string, followUp bool) (msg, reason string) {
	if text == "" {
		return "Ask me a question about the data, for example: " + m.exampleQuestion(), RefuseNoQuestion
	}
	if n := len([]rune(text)); n > m.cfg.MaxQuestionLength {
		return fmt.Sprintf("That message is %d characters long; please ask in under %d characters (one question at a time).", n, m.cfg.MaxQuestionLength), RefuseTooLong
	}
	letters := 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 {
		return "I couldn't find a question in that. Ask me about the data in words, for example: " + m.exampleQuestion(), RefuseNoQuestion
	}
	if isWriteRequest(text, followUp) {
		return readOnlyNotice + m.exampleQuestion(), RefuseWrite
	}
	return "", ""
}

func (m *Manager) exampleQuestion() string {
	snap := m.deps.Catalog.Snapshot()
	if snap != nil && len(snap.Schema.Tables) > 0 {
		return fmt.Sprintf("\"how many %s are there?\"", m.labels.Table(snap.Schema.Tables[0].Name))
	}
	return "\"how many rows are there?\""
}

// definesPhrase reads "<phrase> means <meaning>" ("'active' means …").
func definesPhrase(text string) (phrase, meaning string, ok bool) {
	low := strings.ToLower(text)
	i := strings.Index(low, " means ")
	if i <= 0 {
		return "", "", false
	}
	phrase = strings.Trim(strings.TrimSpace(strings.TrimPrefix(low[:i], "by ")), `'"‘’“”`)
	meaning = strings.TrimSpace(text[i+len(" means "):])
	if phrase == "" || meaning == "" || len(strings.Fields(phrase)) > 3 {
		return "", "", false
	}
	return phrase, meaning, true
}

// followUp refines an answered question ("only 2024", "and by month?").
func (m *Manager) followUp(ctx context.Context, st *convState, ev Event, text string) ([]Reply, error) {
	return m.refine(ctx, st, ev, Feedback{Kind: classifyFeedback(text), Text: text})
}

// refine regenerates an answered question with one more piece of feedback.
func (m *Manager) refine(ctx context.Context, st *convState, ev Event, fb Feedback) ([]Reply, error) {
	st.archiveAnswer()
	st.addStep(m.cfg.Now(), ontology.QuestionStep{Kind: StepFollowUp, Answer: normalizeText(ev.Text)})
	fb.Author = ownerKeys(ev.Who).User
	st.Feedback = append(st.Feedback, fb)
	st.Status = statusAsking
	st.Round, st.Rejected = 0, 0
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil || st.Candidates == nil {
		return replies, err
	}
	more, err := m.advance(ctx, st, ev)
	return append(replies, more...), err
}

func (st *convState) archiveAnswer() {
	if st.Answer != nil {
		st.Answers = append(st.Answers, *st.Answer)
		if len(st.Answers) > 10 {
			st.Answers = st.Answers[len(st.Answers)-10:]
		}
		st.Answer = nil
	}
}

// classifyFeedback sorts free text into Add / Remove / Edit (after FISQL).
func classifyFeedback(text string) FeedbackKind {
	t := " " + strings.ToLower(text) + " "
	for _, w := range []string{" drop ", " remove ", " without ", " exclude ", " excluding ", " except ", " not the ", " no ", " leave out ", " hide "} {
		if strings.Contains(t, w) {
			return FeedbackRemove
		}
	}
	for _, w := range []string{" use ", " instead ", " i meant ", " meant ", " rather ", " change ", " switch ", " not ", " should be "} {
		if strings.Contains(t, w) {
			return FeedbackEdit
		}
	}
	return FeedbackAdd
}

// generate asks the engine for candidates, runs them and groups them by
// result. On failure it returns a notice and leaves st.Candidates nil.
func (m *Manager) generate(ctx context.Context, st *convState, conv string) ([]Reply, error) {
	facts := engineFacts(m.applicableFacts(ctx, st.Who), st.Skipped)
	links := m.linkQuestion(st, facts)
	req := Request{Question: st.engineQuestion(), Links: links, Feedback: st.Feedback, Who: st.Who, Warehouse: m.cfg.Warehouse, Facts: facts, Widen: st.Widen, Exclude: st.rejectedSQL()}
	prop, err := m.propose(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("propose: %w", ctx.Err())
		}
		r := notice(conv, "I couldn't work out a query for that. "+failureOf(err).Text())
		m.recordFailure(ctx, st, r.Text)
		return []Reply{r}, nil
	}
	st.Audit.PromptTokens += prop.PromptTokens + prop.spentPrompt
	st.Audit.CompletionTokens += prop.CompletionTokens + prop.spentCompletion
	st.Tokens += prop.PromptTokens + prop.spentPrompt + prop.CompletionTokens + prop.spentCompletion
	engine := prop.Engine
	st.Engine = engine
	st.EngineAsk = nil
	if prop.Note != "" {
		st.Notes = appendUnique(st.Notes, prop.Note)
	}
	for _, n := range prop.Notes {
		st.Notes = appendUnique(st.Notes, n)
	}
	cands := prop.Candidates
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Prior > cands[j].Prior })
	excluded := map[string]bool{}
	for _, s := range req.Exclude {
		excluded[s] = true
	}
	var kept []Candidate
	for _, c := range cands {
		if !excluded[c.SQL] && len(kept) < m.cfg.MaxCandidates {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		st.Candidates = nil
		// A word the schema does not use is asked about first.
		if r, ok, err := m.askWord(ctx, st, conv); ok {
			return r, err
		}
		r := notice(conv, m.noReading(st)+m.unknownWords(st))
		m.recordFailure(ctx, st, r.Text)
		return []Reply{r}, nil
	}
	stmts := make([]string, len(kept))
	for i, c := range kept {
		stmts[i] = c.SQL
	}
	ordered := func(sql string) bool {
		sh, err := sqlshape.Parse(sql, m.labels.TableOf)
		return err == nil && len(sh.OrderBy) > 0 && sh.Limit != 1
	}
	runs := executeAll(ctx, m.deps.Exec, stmts, execOptions{parallel: m.cfg.Parallel, lim: m.cfg.CandidateLimits, shareRows: m.cfg.SharedScanRows, ordered: ordered, log: m.log})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run candidates: %w", err)
	}
	// Rejected readings stay ruled out when candidates are regenerated.
	old := map[string]Step{}
	for _, c := range st.Candidates {
		if c.ElimBy.Kind == StepReject {
			old[c.SQL] = c.ElimBy
		}
	}
	groups := map[string]int{}
	var errs []error
	var total float64
	st.Candidates = st.Candidates[:0]
	for _, c := range kept {
		r := runs[c.SQL]
		cs := candState{SQL: c.SQL, Prior: c.Prior, Phrases: c.Phrases, Unused: c.Unused, Defines: c.Defines, Linked: linkedFacts(facts, c.Linked), Group: -1,
			Votes: c.Votes, Unlinked: c.Unlinked, Source: c.Source, Own: c.Prior}
		if r.err != nil {
			cs.Err = r.err.Error()
			errs = append(errs, r.err)
			m.log.Debug("candidate failed", "sql", c.SQL, "err", r.err)
		} else {
			cs.Slots, cs.Display = m.slots(c.SQL)
			cs.Rows, cs.Empty = len(r.res.Rows), emptyResult(r.res)
			// An empty result says nothing about what a reading means:
			// readings that differ stay apart even when both find nothing.
			key := r.fp
			if cs.Empty {
				key += "\x00" + readingKey(cs.Slots)
			}
			g, ok := groups[key]
			if !ok {
				g = len(groups)
				groups[key] = g
			}
			cs.Group, cs.Zero = g, isEmptyResult(r.res)
			addDefinitions(&cs, definedPhrases(kept))
			addReadings(&cs, c.Readings, readingKeys(kept))
			if cs.Prior <= 0 {
				cs.Prior = 1e-6
			}
			total += cs.Prior
		}
		cs.ElimBy = old[c.SQL]
		st.Candidates = append(st.Candidates, cs)
	}
	if len(groups) == 0 {
		st.Candidates = nil
		r := notice(conv, m.fail("no candidate ran", worstError(errs)).Text())
		m.recordFailure(ctx, st, r.Text)
		return []Reply{r}, nil
	}
	for i := range st.Candidates {
		st.Candidates[i].Prior /= total
	}
	st.None, st.Picks, st.Calibrated = 0, 0, false
	if prop.Samples > 0 {
		m.calibrate(st, prop.Samples, st.First == nil)
	}
	// The engine's own question is for when its candidates agree; when they
	// differ, the manager asks where they do.
	if prop.Ask != nil && sampledGroups(st) == 1 && len(prop.Ask.Options) > 0 && !slices.Contains(st.EnginePrompts, prop.Ask.Prompt) {
		st.EngineAsk = prop.Ask
	}
	if st.First == nil {
		st.First = &Trace{Engine: engine, Candidates: len(kept), Failed: len(errs), Interpretations: len(groups), Entropy: st.entropy(), SQL: stmts, Prompt: prop.Prompt}
		if best, p := st.best(); best >= 0 {
			st.First.TopP = p
			if rep := st.representative(best); rep != nil {
				st.First.TopSQL = rep.SQL
			}
		}
	}
	// New readings: remembered choices are applied to them afresh (decide),
	// and answers given earlier in the conversation still hold.
	st.Applied = st.wordsApplied()
	st.reapplyChosen()
	st.keepTyped()
	st.applyExclusions(Step{Kind: StepNone})
	return nil, nil
}

// proposal is one round of candidates and where they came from.
type proposal struct {
	*Proposal
	// Engine names the engine that proposed them.
	Engine string
	// Note is said with the answer: the main engine failed and the
	// fallback answered.
	Note string
	// spentPrompt and spentCompletion are the tokens of a main engine
	// whose proposal the fallback replaced.
	spentPrompt, spentCompletion int
}

// propose calls the engine, falling back to the offline engine when the
// main one fails; the note says so.
func (m *Manager) propose(ctx context.Context, req Request) (proposal, error) {
	start := time.Now()
	prop, err := m.deps.Engine.Candidates(ctx, req)
	m.obs.EngineDone(m.deps.Engine.Name(), time.Since(start), err)
	if err == nil && prop != nil && len(prop.Candidates) > 0 || m.deps.Fallback == nil {
		if err != nil {
			return proposal{}, m.fail("engine failed", err)
		}
		if prop == nil {
			prop = &Proposal{}
		}
		m.pool(ctx, req, prop)
		return proposal{Proposal: prop, Engine: m.deps.Engine.Name()}, nil
	}
	note := ""
	if err != nil {
		f := m.fail("engine failed; using the fallback", err)
		why := string(f.Kind)
		if f.Detail != "" {
			why = f.Detail
		}
		note = fmt.Sprintf("The %s engine is unavailable right now (%s), so this answer comes from the offline engine (reference %s).", m.deps.Engine.Name(), why, f.Ref)
	}
	start = time.Now()
	fb, ferr := m.deps.Fallback.Candidates(ctx, req)
	m.obs.EngineDone(m.deps.Fallback.Name(), time.Since(start), ferr)
	if ferr != nil {
		return proposal{}, m.fail("fallback engine failed", ferr)
	}
	if fb == nil {
		fb = &Proposal{}
	}
	out := proposal{Proposal: fb, Engine: m.deps.Fallback.Name(), Note: note}
	if prop != nil && err == nil {
		fb.Notes = append(fb.Notes, prop.Notes...)
		out.spentPrompt, out.spentCompletion = prop.PromptTokens, prop.CompletionTokens
	}
	return out, nil
}

func (m *Manager) noReading(st *convState) string {
	if st.Widen > 0 || st.Rejected > 0 {
		return "I don't have another reading of that question. Could you rephrase it, or tell me what's off (e.g. 'use ship date', 'only 2024')?"
	}
	return "I couldn't match that question to the data. Try naming what you want to see, for example: " + m.exampleQuestion()
}

func (st *convState) rejectedSQL() []string {
	var out []string
	for _, c := range st.Candidates {
		if c.ElimBy.Kind == StepReject {
			out = append(out, c.SQL)
		}
	}
	return out
}

// definedPhrases are the phrases some candidate defines.
func definedPhrases(cands []Candidate) []string {
	var out []string
	for _, c := range cands {
		for _, d := range c.Defines {
			out = appendUnique(out, d.Phrase)
		}
	}
	return out
}

// addDefinitions puts a candidate's definitions in its slots: one slot per
// defined phrase, empty where the candidate leaves the phrase undefined,
// so that readings that define it differently are a decision point.
func addDefinitions(cs *candState, phrases []string) {
	for _, phrase := range phrases {
		key := sqlshape.DefineKey(phrase)
		var parts []sqlshape.Part
		for _, d := range cs.Defines {
			if d.Phrase == phrase {
				parts = append(parts, sqlshape.Part{Expr: d.Term.SQL()})
				if cs.Display == nil {
					cs.Display = map[sqlshape.SlotKey]string{}
				}
				cs.Display[key] = d.Label
				if cs.Phrases == nil {
					cs.Phrases = map[sqlshape.SlotKey]string{}
				}
				cs.Phrases[key] = phrase
			}
		}
		if cs.Slots == nil {
			cs.Slots = sqlshape.Slots{}
		}
		cs.Slots[key] = sqlshape.NewValue(sqlshape.SlotDefine, parts, nil)
	}
}

// readingKeys are the engine-worded decisions some candidate makes.
func readingKeys(cands []Candidate) []sqlshape.SlotKey {
	var out []sqlshape.SlotKey
	for _, c := range cands {
		for _, r := range c.Readings {
			if !slices.Contains(out, r.Key) {
				out = append(out, r.Key)
			}
		}
	}
	return out
}

// addReadings puts a candidate's engine-worded decisions in its slots, one
// per key some candidate has, empty where it makes none.
func addReadings(cs *candState, readings []Reading, keys []sqlshape.SlotKey) {
	for _, key := range keys {
		var parts []sqlshape.Part
		for _, r := range readings {
			if r.Key != key {
				continue
			}
			parts = append(parts, sqlshape.Part{Expr: r.Value})
			if cs.Display == nil {
				cs.Display = map[sqlshape.SlotKey]string{}
			}
			cs.Display[key] = r.Label
			if cs.Phrases == nil {
				cs.Phrases = map[sqlshape.SlotKey]string{}
			}
			cs.Phrases[key] = r.Phrase
		}
		if cs.Slots == nil {
			cs.Slots = sqlshape.Slots{}
		}
		cs.Slots[key] = sqlshape.NewValue(key.Name, parts, nil)
	}
}

// definitionOf is the definition a candidate with value v in the define
// slot key gives.
func (st *convState) definitionOf(key sqlshape.SlotKey, v sqlshape.SlotValue) (Definition, bool) {
	for _, c := range st.Candidates {
		if c.Group < 0 || !c.Slots.Get(key).Equal(v) {
			continue
		}
		for _, d := range c.Defines {
			if d.Phrase == key.Arg {
				return d, true
			}
		}
	}
	return Definition{}, false
}

// reapplyChosen applies the answers given earlier in the conversation to
// the live candidates, in a stable order.
func (st *convState) reapplyChosen() {
	keys := make([]sqlshape.SlotKey, 0, len(st.Chosen))
	for k := range st.Chosen {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b sqlshape.SlotKey) int { return strings.Compare(a.String(), b.String()) })
	for _, key := range keys {
		st.keepIfPossible(key, st.Chosen[key], Step{Kind: StepChosen, Key: key})
	}
}

func appendUnique[T comparable](list []T, s T) []T {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// slots reads a candidate's decision slots and the literals it compares
// with (for examples in options).
func (m *Manager) slots(sql string) (sqlshape.Slots, map[sqlshape.SlotKey]string) {
	sh, err := sqlshape.Parse(sql, m.labels.TableOf)
	if err != nil {
		return sqlshape.Slots{}, nil
	}
	slots := sh.Slots(m.canon)
	display := map[sqlshape.SlotKey]string{}
	for _, f := range sh.Filters {
		if f.Depth != 0 || len(f.Values) == 0 || f.Op == "expr" {
			continue
		}
		key := sqlshape.FilterOnKey(f.Values, m.canon)
		shown := f.Display
		if len(shown) == 0 {
			shown = f.Values
		}
		if f.Op == "year" {
			display[key] = "in " + strings.Join(shown, ", ")
		} else {
			display[key] = "'" + strings.Join(shown, "', '") + "'"
		}
	}
	return slots, display
}

// keepIfPossible applies key=value unless no live candidate has it.
func (st *convState) keepIfPossible(key sqlshape.SlotKey, value sqlshape.SlotValue, step Step) bool {
	has := slices.ContainsFunc(st.live(), func(i int) bool { return st.Candidates[i].Slots.Get(key).Equal(value) })
	if has {
		st.keepOnly(key, value, step)
	}
	return has
}

// engineFacts are the facts an engine gets: those the person set aside in
// this conversation (change, not what I meant) are left out, but for
// definitions, which an engine offers as one reading among others.
func engineFacts(facts []ontology.Fact, skipped []string) []ontology.Fact {
	if len(skipped) == 0 {
		return facts
	}
	return slices.DeleteFunc(slices.Clone(facts), func(f ontology.Fact) bool {
		return f.Kind != ontology.KindDefinition && slices.Contains(skipped, f.ID)
	})
}

// linkedFacts words the facts a reading linked (Candidate.Linked).
func linkedFacts(facts []ontology.Fact, ids []string) []appliedFact {
	var out []appliedFact
	for _, id := range ids {
		for _, f := range facts {
			if f.ID == id {
				out = append(out, appliedFact{FactID: f.ID, Phrase: f.Phrase, Meaning: f.Meaning, Scope: f.Scope, Source: f.Source,
					Step: Step{Kind: StepFact, Ref: f.ID}})
			}
		}
	}
	return out
}

// applicableFacts are the asker's active facts, user over channel over
// workspace.
func (m *Manager) applicableFacts(ctx context.Context, who Who) []ontology.Fact {
	facts, err := m.deps.Facts.Applicable(ctx, ownerKeys(who), m.cfg.Warehouse)
	if err != nil {
		m.log.Warn("cannot read preferences; asking instead", "err", err)
		return nil
	}
	var active []ontology.Fact
	for _, f := range ontology.Resolve(facts) {
		if f.Active() {
			active = append(active, f)
		}
	}
	return active
}

// liveView turns the live candidates into the information-gain view.
func (st *convState) liveView() []alive {
	var out []alive
	for _, i := range st.live() {
		c := st.Candidates[i]
		out = append(out, alive{p: c.Prior, group: c.Group, slots: c.Slots})
	}
	return out
}

// groupProbs sums the live probability per interpretation, normalised
// together with the belief that none of them is meant (calibrate.go).
func (st *convState) groupProbs() map[int]float64 {
	ps := map[int]float64{}
	total := st.noneMass()
	for _, i := range st.live() {
		c := st.Candidates[i]
		ps[c.Group] += c.Prior
		total += c.Prior
	}
	for g := range ps {
		ps[g] /= total
	}
	return ps
}

// best is the likeliest live interpretation and its probability (-1 when
// none is live).
func (st *convState) best() (int, float64) {
	best, bestP := -1, -1.0
	for g, p := range st.groupProbs() {
		if p > bestP || p == bestP && g < best {
			best, bestP = g, p
		}
	}
	return best, bestP
}

// advance applies remembered facts, then either asks the most informative
// question or answers.
func (m *Manager) advance(ctx context.Context, st *convState, ev Event) ([]Reply, error) {
	if len(st.live()) == 0 {
		st.Widen++
		replies, err := m.generate(ctx, st, ev.Conversation)
		if err != nil || st.Candidates == nil || len(st.live()) == 0 {
			if len(replies) == 0 {
				replies = []Reply{notice(ev.Conversation, m.noReading(st))}
				if err == nil {
					m.recordFailure(ctx, st, replies[0].Text)
				}
			}
			return replies, errors.Join(err, m.save(ctx, st))
		}
	}
	// A word the schema does not use is asked about before the readings
	// built on it.
	if r, ok, err := m.askWord(ctx, st, ev.Conversation); ok {
		return r, err
	}
	pt, best := m.decide(ctx, st)
	if pt == nil && st.dropUnshown() {
		// Never a meaning of an asked word the person was not shown.
		pt, best = m.decide(ctx, st)
	}
	if pt != nil {
		return m.ask(ctx, st, ev, *pt, "")
	}
	// A remembered choice that leaves nothing to answer is asked about.
	if a := st.conflictingFact(best); a != nil {
		if r, ok, err := m.askConflict(ctx, st, ev, *a, best); ok || err != nil {
			return r, err
		}
	}
	if st.EngineAsk != nil && st.Round < m.cfg.MaxRounds+st.Rejected {
		return m.askEngine(ctx, st, ev)
	}
	return m.answer(ctx, st, ev, best)
}

// askEngine asks the question the engine proposed (the model's review
// found an ambiguity the candidates do not show); each option carries the
// feedback that regenerates the candidates when chosen.
func (m *Manager) askEngine(ctx context.Context, st *convState, ev Event) ([]Reply, error) {
	eq := st.EngineAsk
	st.EngineAsk = nil
	st.EnginePrompts = append(st.EnginePrompts, eq.Prompt)
	kind := eq.Kind
	if kind == "" {
		kind = AmbQuestion
	}
	q := &pendingQ{ID: newID(), Key: engineKey, Phrase: eq.Phrase, Prompt: eq.Prompt, Kind: kind, Engine: true}
	for i, o := range eq.Options {
		if i == MaxOptions {
			break
		}
		q.Options = append(q.Options, pendingOpt{Label: o.Label, Feedback: o.Feedback})
	}
	st.Pending = q
	st.Status = statusAsking
	st.Round++
	st.Questions++
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	m.obs.Clarification(kind)
	return []Reply{m.clarificationReply(st, ev.Conversation)}, nil
}

// decide applies remembered facts and returns the point to ask about, or
// nil and the interpretation to answer with: one that reached Tau, the
// round limit, or nothing left that separates the interpretations.
func (m *Manager) decide(ctx context.Context, st *convState) (*point, int) {
	m.applyFacts(ctx, st)
	best, bestP := st.best()
	// An empty answer where another reading finds rows is a reason to ask
	// however likely it is: "nothing" is the answer people check least.
	// So is, on the model path, an answer that would leave out words of
	// the question another reading uses: a caveat that asking avoids.
	settled := bestP >= m.cfg.Tau && !st.emptyBeside(best) && !st.wordsBeside(best)
	if !settled && st.Round < m.cfg.MaxRounds+st.Rejected {
		skip := map[sqlshape.SlotKey]bool{}
		for _, k := range st.Asked {
			skip[k] = true
		}
		pts := decisionPoints(st.liveView(), skip, MaxOptions)
		if rp, ok := st.readingPoint(); ok && m.cfg.Strategy != StrategyRandom && (len(pts) == 0 || rp.Gain > st.gainBesideNone(pts[0])) {
			if pt, same := st.sameChoice(pts, rp); same {
				pt.Whole = true
				return &pt, best
			}
			st.assignChoice(rp)
			return &rp, best
		}
		if len(pts) > 0 {
			pt := m.pick(pts)
			return &pt, best
		}
		// Nothing separates the readings left, but the belief says the
		// meant one may be none of them: ask whether this one is it.
		if pt, ok := st.confirmPoint(best, bestP, m.cfg.Tau); ok {
			return &pt, best
		}
	}
	return nil, best
}

// ask turns a decision point into a clarification and waits for the answer.
func (m *Manager) ask(ctx context.Context, st *convState, ev Event, pt point, change string) ([]Reply, error) {
	m.question(st, pt, change)
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	m.obs.Clarification(st.Pending.Kind)
	return []Reply{m.clarificationReply(st, ev.Conversation)}, nil
}

// question words a decision point as the pending clarification.
func (m *Manager) question(st *convState, pt point, change string) {
	switch pt.Key {
	case confirmKey:
		m.confirmQuestion(st)
		return
	case choiceKey:
		m.readingQuestion(st, pt)
		return
	}
	phrase := ""
	// Displays and counted tables by the value's canonical form.
	displays := map[string]string{}
	// What a COUNT(*) counts depends on each reading's tables.
	counted := map[string]string{}
	for _, i := range st.live() {
		c := st.Candidates[i]
		if phrase == "" {
			phrase = c.Phrases[pt.Key]
		}
		v := c.Slots.Get(pt.Key).String()
		if _, ok := displays[v]; !ok {
			displays[v] = c.Display[pt.Key]
		}
		if _, ok := counted[v]; !ok {
			counted[v] = m.labels.countedTable(c.Slots)
		}
	}
	sameFn := true
	prompt := m.labels.promptFor(pt.Key, phrase)
	if pt.Key.Name == sqlshape.SlotMeasure {
		fns := map[string]bool{}
		for _, v := range pt.Values {
			fns[firstFn(v.Value)] = true
		}
		sameFn = len(fns) == 1
		if sameFn && fns["COUNT"] && phrase != "" {
			prompt = fmt.Sprintf("For '%s', what should I count?", phrase)
		}
	}
	q := &pendingQ{ID: newID(), Key: pt.Key, Phrase: phrase, Prompt: prompt, Kind: kindFor(pt.Key, pt.Values, displays), Change: change, Whole: pt.Whole}
	seen := map[string]bool{}
	// Values that keep exactly the same interpretations are one choice for
	// the person ('TX' in orders and 'Texas' through the states table).
	groupsOf := func(value sqlshape.SlotValue) string {
		gs := map[int]bool{}
		for _, i := range st.live() {
			if st.Candidates[i].Slots.Get(pt.Key).Equal(value) {
				gs[st.Candidates[i].Group] = true
			}
		}
		keys := make([]string, 0, len(gs))
		for g := range gs {
			keys = append(keys, fmt.Sprint(g))
		}
		sort.Strings(keys)
		return strings.Join(keys, ",")
	}
	shownGroups := map[string]bool{}
	var unworded []pendingOpt
	for i, v := range pt.Values {
		if pt.Key.Name == sqlshape.SlotDefine && slices.ContainsFunc(st.Shown[pt.Key], v.Value.Equal) && change == "" {
			continue // offered before and turned down
		}
		if g := groupsOf(v.Value); shownGroups[g] {
			continue
		} else {
			shownGroups[g] = true
		}
		if len(q.Options) == MaxOptions {
			break
		}
		// Readings far less likely than the first stay behind Other….
		if i >= 2 && v.P < 0.1*pt.Values[0].P {
			break
		}
		var others []sqlshape.SlotValue
		for _, o := range pt.Values {
			if !o.Value.Equal(v.Value) {
				others = append(others, o.Value)
			}
		}
		opt := m.labels.optionFor(pt.Key, v.Value, others, sameFn, counted[v.Value.String()], displays[v.Value.String()])
		if ontology.BadWording(opt.Label) != "" {
			if plain := m.labels.plainLabel(v.Value); ontology.BadWording(plain) == "" && !seen[plain] {
				opt.Label = plain
			}
		}
		if ontology.BadWording(opt.Label) != "" {
			// A reading that cannot be worded stays behind Other…,
			// unless the question would have too few options without it.
			unworded = append(unworded, pendingOpt{Label: opt.Label, Example: opt.Example, Value: v.Value})
			continue
		}
		if seen[opt.Label] {
			// Two values that read the same would be a confusing choice:
			// tell them apart by their example or their raw form.
			opt.Label += " (" + tables.Clip(v.Value.String(), 40) + ")"
		}
		seen[opt.Label] = true
		q.Options = append(q.Options, pendingOpt{Label: opt.Label, Example: opt.Example, Value: v.Value})
	}
	for _, o := range unworded {
		if len(q.Options) >= 2 {
			break
		}
		q.Options = append(q.Options, o)
	}
	if st.Shown == nil {
		st.Shown = map[sqlshape.SlotKey][]sqlshape.SlotValue{}
	}
	for _, o := range q.Options {
		if !slices.ContainsFunc(st.Shown[pt.Key], o.Value.Equal) {
			st.Shown[pt.Key] = append(st.Shown[pt.Key], o.Value)
		}
	}
	st.Pending = q
	st.Status = statusAsking
	st.Asked = appendUnique(st.Asked, pt.Key)
	st.Round++
	st.Questions++
}

// countedTable guesses what COUNT(*) counts from the slots: over a join,
// the rows of the table on the many side (the one whose column points at
// another's key), preferring one whose columns are not shown.
func (l *Labels) countedTable(slots sqlshape.Slots) string {
	tv := slots.Get(sqlshape.Key(sqlshape.SlotTables))
	var tbls []string
	for _, p := range tv.Parts {
		tbls = append(tbls, p.Expr)
	}
	keySide := map[string]bool{}
	for _, j := range tv.Joins {
		switch ka, kb := l.IsKey(j.Left), l.IsKey(j.Right); {
		case kb && !ka:
			keySide[strings.ToLower(tableOfTC(j.Right))] = true
		case ka && !kb:
			keySide[strings.ToLower(tableOfTC(j.Left))] = true
		}
	}
	// The tables whose columns the answer shows.
	shown := map[string]bool{}
	for _, name := range []sqlshape.SlotName{sqlshape.SlotOutput, sqlshape.SlotGroup} {
		for _, p := range slots.Get(sqlshape.Key(name)).Parts {
			for _, c := range p.Columns() {
				shown[tableOfTC(c)] = true
			}
		}
	}
	for _, pass := range []func(string) bool{
		func(t string) bool { return !keySide[strings.ToLower(t)] && !shown[t] },
		func(t string) bool { return !keySide[strings.ToLower(t)] },
		func(t string) bool { return !shown[t] },
	} {
		for _, t := range tbls {
			if t != "" && pass(t) {
				return t
			}
		}
	}
	if len(tbls) > 0 {
		return tbls[0]
	}
	return ""
}

func tableOfTC(tc string) string {
	t, _ := splitTC(tc)
	return t
}

func (m *Manager) clarificationReply(st *convState, conv string) Reply {
	q := st.Pending
	c := &Clarification{ID: q.ID, Key: q.Key, Kind: q.Kind, Prompt: q.Prompt, Phrase: q.Phrase, Round: st.Round, MaxRounds: m.cfg.MaxRounds + st.Rejected}
	var b strings.Builder
	b.WriteString(q.Prompt)
	for i, o := range q.Options {
		var readings []string
		for _, ci := range st.live() {
			if st.Candidates[ci].Slots.Get(q.Key).Equal(o.Value) {
				readings = append(readings, st.Candidates[ci].SQL)
			}
		}
		opt := Option{Label: o.Label, Example: o.Example, Value: o.Value, Readings: readings}
		if o.Element != nil {
			opt.Element = o.Element.Name()
		}
		c.Options = append(c.Options, opt)
		fmt.Fprintf(&b, "\n  %d) %s", i+1, o.Label)
		if o.Example != "" {
			fmt.Fprintf(&b, " (%s)", o.Example)
		}
	}
	fmt.Fprintf(&b, "\n  %d) %s", len(q.Options)+1, OtherLabel)
	return Reply{Kind: ReplyClarification, Conversation: conv, Text: b.String(), Clarification: c}
}
