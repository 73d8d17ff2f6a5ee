package dialog

import (
	"context"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/ontology"
)

// Only real teaching is stored. A fact is learned when the person picked
// an option or typed something that was understood, under the words of
// the question that name the thing ("revenue", not "revenue came"); and
// it stays only if the answer it produced was what they meant: "not what
// I meant" on that answer takes back what the conversation taught since
// the previous answer — a new fact is removed, a fact the rejected choice
// replaced gets its earlier meaning back, a choice made again is weakened
// — so a rejected reading never overwrites a good one.

// taughtFact is a fact learned in this conversation, with what it was
// before, so that "not what I meant" can take it back.
type taughtFact struct {
	ID string `json:"id"`
	// Before is the fact as it was, nil when it is new.
	Before *ontology.Fact `json:"before,omitempty"`
	// Replaced: the choice changed the fact's meaning (else it confirmed it).
	Replaced bool `json:"replaced,omitempty"`
	// Answer is how many answers the conversation had given before.
	Answer int `json:"answer"`
}

// teach learns f for the conversation, noting what it was before.
func (m *Manager) teach(ctx context.Context, st *convState, f ontology.Fact) error {
	before := m.currentFact(ctx, f)
	learned, err := m.deps.Facts.Learn(ctx, f)
	if err != nil {
		return err
	}
	t := taughtFact{ID: learned.ID, Before: before, Answer: len(st.Answers)}
	t.Replaced = before != nil && !before.Target.SameChoice(learned.Target)
	st.Taught = append(st.Taught, t)
	return nil
}

// currentFact is the owner's fact that learning f would change, if any.
func (m *Manager) currentFact(ctx context.Context, f ontology.Fact) *ontology.Fact {
	if m.admin == nil {
		return nil
	}
	fs, err := m.admin.List(ctx, ontology.Filter{Scope: ontology.ScopeUser, Owner: f.Owner, Warehouse: f.Warehouse, Phrase: f.Phrase, IncludeInactive: true})
	if err != nil {
		m.log.Warn("cannot read the preference about to change", "phrase", f.Phrase, "err", err)
		return nil
	}
	for _, old := range fs {
		if old.Kind == f.Kind && (f.Kind != ontology.KindDefinition || strings.EqualFold(old.Target.Choice.Subject, f.Target.Choice.Subject)) {
			return &old
		}
	}
	return nil
}

// untaught takes back, after by said "not what I meant" to the latest
// answer, what the conversation taught by since the answer before it.
func (m *Manager) untaught(ctx context.Context, st *convState, by string) {
	keep := st.Taught[:0]
	for _, t := range st.Taught {
		if t.Answer != len(st.Answers) {
			keep = append(keep, t)
			continue
		}
		if err := m.takeBack(ctx, t, by); err != nil {
			m.log.Warn("cannot take back a preference", "fact", t.ID, "by", by, "err", err)
		}
	}
	st.Taught = slices.Clip(keep)
}

// takeBack undoes one taught fact of by: removed when new, its earlier
// meaning restored when replaced, weakened when confirmed again. Another
// person's fact is left alone.
func (m *Manager) takeBack(ctx context.Context, t taughtFact, by string) error {
	if m.admin == nil {
		_, err := m.deps.Facts.Reject(ctx, t.ID, by)
		return err
	}
	f, err := m.admin.Get(ctx, t.ID)
	if err != nil {
		return err
	}
	if f.Scope != ontology.ScopeUser || f.Owner != by {
		return nil
	}
	act := ontology.Actor{ID: by}
	switch {
	case t.Before == nil:
		return m.admin.Delete(ctx, t.ID, act)
	case t.Replaced:
		_, err := m.admin.Edit(ctx, t.ID, &t.Before.Target, t.Before.Meaning, act)
		return err
	}
	_, err = m.deps.Facts.Reject(ctx, t.ID, by)
	return err
}

// namingWords are the words of a phrase that name something of the data:
// "revenue came" is learned as "revenue" when the search of the catalog
// matches only that word and the word left out matches nothing on its
// own. A phrase none of whose words the data knows ("basket size") is
// the person's own vocabulary and is kept whole.
func (m *Manager) namingWords(phrase string) string {
	words := strings.Fields(phrase)
	if len(words) < 2 || m.deps.Catalog == nil {
		return phrase
	}
	matched := map[string]bool{}
	for _, h := range m.deps.Catalog.SearchColumns(phrase, 8) {
		for _, w := range h.Matched {
			matched[strings.ToLower(w)] = true
		}
	}
	if len(matched) == 0 {
		return phrase
	}
	stray := func(w string) bool {
		if matched[strings.ToLower(w)] || len(m.deps.Catalog.SearchColumns(w, 1)) > 0 {
			return false
		}
		return !slices.ContainsFunc(m.deps.Catalog.SearchValues(w, 4), func(h catalog.ValueHit) bool {
			return h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive
		})
	}
	for len(words) > 1 && stray(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	for len(words) > 1 && stray(words[0]) {
		words = words[1:]
	}
	return strings.Join(words, " ")
}
