package dialog

import (
	"context"
	"fmt"

	"github.com/clarify-bot/clarify/internal/qnorm"
	"github.com/clarify-bot/clarify/ontology"
)

// A verified query is a question whose SQL someone vouched for: a team
// glossary's verified_queries, or an answer an admin promoted after its
// asker marked it correct. A question whose normalised text (qnorm:
// case, punctuation, function words, plurals) is a verified question's is
// answered with that SQL directly, whatever the engine, and the answer
// says so. Only exact normalised matches count: a question that differs
// in a value ("in 2024" for "in 2025") goes to the engine, because
// substituting values into checked SQL would answer with SQL nobody
// checked.

// verifiedQuery finds the verified query for a question among the
// asker's facts (user over channel over workspace already resolved).
func verifiedQuery(facts []ontology.Fact, question string) (ontology.Fact, bool) {
	norm := qnorm.Question(question)
	if norm == "" {
		return ontology.Fact{}, false
	}
	for _, f := range facts {
		if f.Kind == ontology.KindQuery && f.Phrase == norm && f.Target.Choice.Kind == ontology.TermSQL && f.Target.Choice.Expr != "" {
			return f, true
		}
	}
	return ontology.Fact{}, false
}

// VerifiedNote is what an answer from a verified query says.
func VerifiedNote(by string) string {
	if by == "" {
		return "This is a verified query."
	}
	return fmt.Sprintf("This is a verified query (verified by %s).", by)
}

// answerVerified answers text with a verified query when one matches. ok
// is false when none does, or when its SQL no longer runs (then the
// engine answers as if there were none, and the failure is logged).
func (m *Manager) answerVerified(ctx context.Context, ev Event, key, text string) ([]Reply, bool, error) {
	f, ok := verifiedQuery(m.applicableFacts(ctx, ev.Who), text)
	if !ok {
		return nil, false, nil
	}
	st := m.newState(key, ev.Who, text)
	st.Engine = "verified"
	st.Candidates = []candState{{SQL: f.Target.Choice.Expr, Prior: 1, Group: 0}}
	st.Notes = []string{VerifiedNote(f.VerifiedBy)}
	replies, err := m.answer(ctx, st, ev, 0)
	if err != nil {
		return nil, true, err
	}
	if len(replies) == 0 || replies[0].Kind != ReplyAnswer {
		m.log.Warn("verified query failed; asking the engine instead", "fact", f.ID, "question", f.Question)
		return nil, false, nil
	}
	if err := m.deps.Facts.RecordUse(ctx, f.ID); err != nil {
		m.log.Warn("cannot record a verified query's use", "fact", f.ID, "err", err)
	}
	return replies, true, nil
}
