package dialog

import (
	"context"
	"time"
)

// Observer hears what the manager does, for metrics. The manager's
// warehouse is not passed: a bot builds one Observer per manager. Methods
// are called on the event's goroutine and must not block.
type Observer interface {
	// Question: a new question was accepted for work.
	Question()
	// Clarification: a multiple-choice question was asked.
	Clarification(kind AmbiguityKind)
	// ClarificationAnswered: the person chose an option or answered in
	// their own words.
	ClarificationAnswered()
	// Answer: a result was shown.
	Answer()
	// FactApplied: a remembered choice decided something instead of a
	// question; scope is "user", "channel" or "workspace".
	FactApplied(scope string)
	// Refused: a message was turned away; reason is one of the Refuse… constants.
	Refused(reason string)
	// EngineDone: an engine produced candidates (or failed) in d.
	EngineDone(engine string, d time.Duration, err error)
}

// Reasons for Observer.Refused.
const (
	RefuseTooLong     = "too_long"     // longer than Config.MaxQuestionLength
	RefuseNoQuestion  = "no_question"  // empty, or no words in it
	RefuseWrite       = "write"        // a request to change data (only reads are answered)
	RefuseRateLimited = "rate_limited" // the Gate said not now
)

// NopObserver observes nothing; embed it to implement part of Observer.
type NopObserver struct{}

func (NopObserver) Question()                               {}
func (NopObserver) Clarification(AmbiguityKind)             {}
func (NopObserver) ClarificationAnswered()                  {}
func (NopObserver) Answer()                                 {}
func (NopObserver) FactApplied(string)                      {}
func (NopObserver) Refused(string)                          {}
func (NopObserver) EngineDone(string, time.Duration, error) {}

var _ Observer = NopObserver{}

// Gate decides whether a new question may start now (rate limits). Only
// new questions pass through it: answers, clicks and follow-ups continue
// a question that was already admitted.
type Gate interface {
	// Admit returns nil to go ahead, or why not in words for the person.
	Admit(ctx context.Context, who Who) *Refusal
}

// Refusal is a Gate's no: Reason for metrics (RefuseRateLimited…), Text
// for the person.
type Refusal struct {
	Reason string
	Text   string
}

// admit asks the gate about a new question; ok false comes with the
// ephemeral notice to send instead.
func (m *Manager) admit(ctx context.Context, ev Event) (Reply, bool) {
	if m.deps.Gate == nil {
		return Reply{}, true
	}
	r := m.deps.Gate.Admit(ctx, ev.Who)
	if r == nil {
		return Reply{}, true
	}
	m.obs.Refused(r.Reason)
	return ephemeral(ev.Conversation, r.Text), false
}
