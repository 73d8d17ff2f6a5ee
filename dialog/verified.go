package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
// asker's applicable facts, the narrowest scope first. A query nobody
// verified (a person's confirmed answer, waiting for an admin) does not
// count, and does not hide the workspace's verified one. The question
// matches a verified one when their normalised texts are equal, or else
// (linked) when they are the same words in the same order up to the
// catalog's stems and synonyms: "how many clients do we have" asks what
// "How many customers do we have?" asks. Numbers and stored values must
// be the same words: "in 2024" never matches "in 2025".
func verifiedQuery(facts []ontology.Fact, question string, linked func(a, b string) bool) (ontology.Fact, bool) {
	norm := qnorm.Question(question)
	if norm == "" {
		return ontology.Fact{}, false
	}
	match := func(same func(phrase string) bool) (ontology.Fact, bool) {
		for _, scope := range []ontology.Scope{ontology.ScopeUser, ontology.ScopeChannel, ontology.ScopeWorkspace} {
			for _, f := range facts {
				if f.Scope == scope && f.Kind == ontology.KindQuery && f.VerifiedBy != "" && f.Active() && same(f.Phrase) &&
					f.Target.Choice.Kind == ontology.TermSQL && f.Target.Choice.Expr != "" {
					return f, true
				}
			}
		}
		return ontology.Fact{}, false
	}
	if f, ok := match(func(phrase string) bool { return phrase == norm }); ok || linked == nil {
		return f, ok
	}
	return match(func(phrase string) bool { return linked(phrase, norm) })
}

// linkedSame reports whether two normalised questions are the same
// sequence of the catalog's terms (stems of identifiers and words, digits
// kept), word for word equal or synonyms in the catalog's vocabulary.
func (m *Manager) linkedSame(a, b string) bool {
	cat := m.deps.Catalog
	ta, tb := cat.NameTerms(a), cat.NameTerms(b)
	if len(ta) != len(tb) || len(ta) == 0 {
		return false
	}
	for i := range ta {
		if ta[i] != tb[i] && !slices.Contains(cat.Synonyms(ta[i]), tb[i]) && !slices.Contains(cat.Synonyms(tb[i]), ta[i]) {
			return false
		}
	}
	return true
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
	facts, err := m.deps.Facts.Applicable(ctx, ownerKeys(ev.Who), m.cfg.Warehouse)
	if err != nil {
		m.log.Warn("cannot read verified queries", "err", err)
		return nil, false, nil
	}
	f, ok := verifiedQuery(facts, text, m.linkedSame)
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

// rememberConfirmed keeps an answer its asker marked correct as feedback,
// not as a preference of theirs: it answers nothing by itself and is not
// listed among their preferences, but admins see it as a candidate
// verified query (prefs of everyone, `bot prefs candidates`) and can
// verify it. Answers refined by follow-ups are not kept: the question
// alone no longer says what they answer.
func (m *Manager) rememberConfirmed(ctx context.Context, st *convState, ans *answerRec) {
	keeper, ok := m.deps.Facts.(answerKeeper)
	phrase := qnorm.Question(st.Question)
	if !ok || phrase == "" || st.Engine == "verified" || len(st.Feedback) > 0 || ans.SQL == "" {
		return
	}
	a := ontology.ConfirmedAnswer{Owner: ownerKeys(st.Who).User, Warehouse: m.cfg.Warehouse, Phrase: phrase, Question: st.Question, SQL: ans.SQL}
	if _, err := keeper.RecordConfirmed(ctx, a); err != nil {
		m.log.Warn("cannot keep the confirmed answer", "question", st.Question, "err", err)
	}
}

// answerKeeper is the optional part of Facts that keeps answers people
// marked correct (*ontology.Store has it).
type answerKeeper interface {
	RecordConfirmed(ctx context.Context, a ontology.ConfirmedAnswer) (ontology.ConfirmedAnswer, error)
}

// confirmedLister is the optional part of FactAdmin that lists the
// confirmed answers, for admins (*ontology.Store has it).
type confirmedLister interface {
	ConfirmedAnswers(ctx context.Context, owner, warehouse string) ([]ontology.ConfirmedAnswer, error)
	ConfirmedAnswer(ctx context.Context, id string) (ontology.ConfirmedAnswer, error)
}

// queryVerifier is the optional part of FactAdmin that makes a confirmed
// answer a verified query (*ontology.Store has it).
type queryVerifier interface {
	Verify(ctx context.Context, id, owner, by string, actor ontology.Actor) (ontology.Fact, error)
}

// verify makes the confirmed answer id (a ConfirmedAnswer, or a query
// fact of an older store) a verified query of the admin's workspace: what
// promoting a confirmed answer means.
func (m *Manager) verify(ctx context.Context, ev Event, id string) ([]Reply, error) {
	v, ok := m.admin.(queryVerifier)
	if !ok {
		return []Reply{ephemeral(ev.Conversation, "Verifying answers is not available.")}, nil
	}
	// The statement goes through what any statement goes through (the
	// guard, the access rules, the level's account) before it may answer
	// everyone: an answer confirmed earlier may read what is hidden now.
	if cl, ok := m.admin.(confirmedLister); ok {
		if c, err := cl.ConfirmedAnswer(ctx, id); err == nil && c.SQL != "" {
			if _, err := m.deps.Exec.Query(ctx, c.SQL, m.cfg.CandidateLimits); err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("verify answer: %w", ctx.Err())
				}
				first, _, _ := strings.Cut(err.Error(), "\n")
				return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("'%s' can't be a verified query: its statement is refused or fails now (%s).", c.Question, first))}, nil
			}
		}
	}
	nf, err := v.Verify(ctx, id, ownerKeys(ev.Who).Workspace, ev.Who.User, actor(ev.Who))
	if err != nil {
		return nil, fmt.Errorf("verify answer: %w", err)
	}
	return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("'%s' is now a verified query for everyone in this workspace (verified by %s).", nf.Question, nf.VerifiedBy))}, nil
}
