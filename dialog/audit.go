package dialog

import (
	"context"
	"time"

	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// QuestionLog records what became of each question in the one audit log
// (an *ontology.Store, beside fact changes and glossary loads).
type QuestionLog interface {
	RecordQuestion(ctx context.Context, q ontology.QuestionRecord) error
}

var _ QuestionLog = (*ontology.Store)(nil)

// Outcome values of a question record.
const (
	// OutcomeAnswered: an answer was given (one record per answer: a
	// follow-up or "not what I meant" that leads to a new answer adds a
	// new record holding the steps since the previous one).
	OutcomeAnswered = "answered"
	// OutcomeRefused: the message was not taken as a question (too long,
	// no words); nothing ran.
	OutcomeRefused = "refused"
	// OutcomeFailed: no answer could be given (no reading of the question,
	// the engine or the warehouse failed); Detail says what the person read.
	OutcomeFailed = "failed"
	// OutcomeConfirmed: the person said an answer was what they meant.
	OutcomeConfirmed = "confirmed"
)

// Kinds of steps in a question record.
const (
	StepClarification = "clarification"
	StepFollowUp      = "follow-up"
	StepCorrect       = "correct"
	StepWrong         = "wrong"
	StepChange        = "change"
)

// refusedQuestionWidth caps how much of a refused message is kept: it was
// refused, often for its length, and the record only needs to recognise it.
const refusedQuestionWidth = 200

// auditTrail is what a conversation gathered since its last audit record.
// It travels in the stored conversation, so a question answered after a
// restart still has its whole story.
type auditTrail struct {
	// Since is when the exchange this record covers began: the question's
	// arrival, or the follow-up or feedback that reopened it.
	Since time.Time               `json:"since,omitzero"`
	Steps []ontology.QuestionStep `json:"steps,omitempty"`
	// Spent is the bot's own handling time over the turns, not the
	// person's thinking time between them.
	Spent            time.Duration `json:"spent,omitempty"`
	PromptTokens     int           `json:"prompt_tokens,omitempty"`
	CompletionTokens int           `json:"completion_tokens,omitempty"`
	// Unused are the words the answer left out (and said so).
	Unused []string `json:"unused,omitempty"`
}

// spend adds the handling time since the turn began (or the last save or
// record) to the trail.
func (st *convState) spend(now time.Time) {
	if !st.began.IsZero() && now.After(st.began) {
		st.Audit.Spent += now.Sub(st.began)
	}
	st.began = now
}

// addStep appends one exchange to the trail.
func (st *convState) addStep(now time.Time, s ontology.QuestionStep) {
	if st.Audit.Since.IsZero() {
		st.Audit.Since = now
	}
	s.At = now
	st.Audit.Steps = append(st.Audit.Steps, s)
}

// clarificationStep is a pending clarification with its closed options
// and the answer given.
func clarificationStep(q *pendingQ, answer string, typed bool) ontology.QuestionStep {
	s := ontology.QuestionStep{Kind: StepClarification, Asked: q.Prompt, Answer: answer, Typed: typed}
	for _, o := range q.Options {
		s.Options = append(s.Options, o.Label)
	}
	return s
}

// recordQuestion saves the conversation's audit record and starts the
// next one. sql is what the answer ran (none for a failure), rows how many
// rows it returned; result values never enter the record.
func (m *Manager) recordQuestion(ctx context.Context, st *convState, outcome, detail string, sql []string, rows int) {
	now := m.cfg.Now()
	st.spend(now)
	conv := conversationOf(st)
	asked := st.Audit.Since
	if asked.IsZero() {
		asked = st.Created
	}
	rec := ontology.QuestionRecord{
		AskedAt: asked, Platform: st.Who.Platform, Workspace: st.Who.Workspace, Channel: st.Who.Channel,
		Thread: threadOf(st.Who, conv), Conversation: conv, User: ownerKeys(st.Who).User,
		Warehouse: st.Warehouse, Question: st.Question, Steps: st.Audit.Steps, FactsUsed: factsUsed(st),
		SQL: sql, Rows: rows, Duration: st.Audit.Spent, Engine: st.Engine,
		PromptTokens: st.Audit.PromptTokens, CompletionTokens: st.Audit.CompletionTokens,
		Outcome: outcome, Detail: detail, Unused: st.Audit.Unused,
	}
	st.Audit = auditTrail{}
	m.writeRecord(ctx, rec)
}

// recordRefusal records a message refused before any conversation state
// existed for it.
func (m *Manager) recordRefusal(ctx context.Context, ev Event, text, why string, began time.Time) {
	if m.deps.Questions == nil || text == "" {
		return
	}
	m.writeRecord(ctx, ontology.QuestionRecord{
		AskedAt: ev.At, Platform: ev.Who.Platform, Workspace: ev.Who.Workspace, Channel: ev.Who.Channel,
		Thread: threadOf(ev.Who, ev.Conversation), Conversation: ev.Conversation, User: ownerKeys(ev.Who).User,
		Warehouse: m.cfg.Warehouse, Question: tables.Clip(text, refusedQuestionWidth),
		Duration: max(m.cfg.Now().Sub(began), 0), Outcome: OutcomeRefused, Detail: why,
	})
}

func (m *Manager) writeRecord(ctx context.Context, rec ontology.QuestionRecord) {
	if m.deps.Questions == nil {
		return
	}
	// The person has their reply; the record is written even if they (or
	// a shutdown) cancelled in the meantime.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.deps.Questions.RecordQuestion(wctx, rec); err != nil {
		m.log.Warn("cannot record the question in the audit log", "user", rec.User, "outcome", rec.Outcome, "err", err)
	}
}

// factsUsed lists the remembered meanings applied to the conversation,
// with where each came from (a glossary, or a person's answer).
func factsUsed(st *convState) []ontology.FactUse {
	if len(st.Applied) == 0 {
		return nil
	}
	out := make([]ontology.FactUse, 0, len(st.Applied))
	for _, a := range st.Applied {
		out = append(out, ontology.FactUse{ID: a.FactID, Phrase: a.Phrase, Scope: a.Scope, Source: a.Source, Meaning: a.Meaning})
	}
	return out
}

// conversationOf is the adapter's conversation key (the state key less
// its platform and workspace).
func conversationOf(st *convState) string {
	return st.Who.Identity().Local(st.Key)
}

// threadOf is the platform's thread within a conversation key: the
// thread of a ThreadKey in the person's channel, else the key itself (a
// Discord thread's id).
func threadOf(who Who, conv string) string {
	if ch, t, ok := SplitThreadKey(conv); ok && who.Channel != "" && ch == who.Channel {
		return t
	}
	return conv
}

// recordFailure records a question the bot could not answer; detail is
// what the person was told.
func (m *Manager) recordFailure(ctx context.Context, st *convState, detail string) {
	m.recordQuestion(ctx, st, OutcomeFailed, detail, nil, 0)
}
