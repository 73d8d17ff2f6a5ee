package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// A definition typed in words ("loyal" = "customers with 25 or more
// orders", under Other… or as "loyal means …") is read by the engine's
// question reader (ConditionReader) as a condition on the rows of the
// term's subject, and said back in plain words from what was read
// ("Customers with at least 25 orders") before anything is stored. Words
// it cannot read are declined, never stored as a guess: a date or a
// number alone names no condition.

// conditionReader is the engine that reads definitions, if any does.
func (m *Manager) conditionReader() ConditionReader {
	for _, e := range []Engine{m.deps.Engine, m.deps.Pool, m.deps.Fallback} {
		if r, ok := e.(ConditionReader); ok {
			return r
		}
	}
	return nil
}

// readDefinition reads t as a condition on subject's rows with the
// engine's reader; tried is false when no engine reads definitions.
func (m *Manager) readDefinition(ctx context.Context, subject, t string) (tm typedMeaning, ok, tried bool) {
	r := m.conditionReader()
	if r == nil {
		return typedMeaning{}, false, false
	}
	if !strings.ContainsFunc(t, unicode.IsLetter) {
		return typedMeaning{}, false, true
	}
	cr, ok := r.ReadCondition(ctx, subject, t, nil)
	if !ok {
		return typedMeaning{}, false, true
	}
	plain := m.conditionWords(cr)
	if plain == "" {
		return typedMeaning{}, false, true
	}
	// Stored values spelled out ("status is on loan or overdue") may hold
	// a table's name the reader took for the table: when the values of
	// one column found in the words are more than the reading compares,
	// they are the meaning.
	if vm, ok := m.readCondition(t, subject); ok && vm.Term.Kind == ontology.TermValues && len(vm.Term.Values) > 1 &&
		slices.ContainsFunc(vm.Term.Values, func(v string) bool { return !strings.Contains(cr.Term.Expr, "'"+strings.ReplaceAll(v, "'", "''")+"'") }) {
		return vm, true, true
	}
	return typedMeaning{Term: cr.Term, Plain: plain}, true, true
}

// conditionWords says what a read condition means in plain words, from
// the rows it lists: "Customers with at least 25 orders".
func (m *Manager) conditionWords(cr ConditionRead) string {
	sh, err := sqlshape.Parse(cr.SQL, m.labels.TableOf)
	if err != nil {
		return ""
	}
	conds := sqlshape.Conditions(sh, m.labels)
	top := 0
	for _, f := range sh.Filters {
		if f.Depth == 0 {
			top++
		}
	}
	if len(conds) < max(top, 1) {
		// Some condition the shape does not word: the engine's words.
		if cr.Label == "" {
			return ""
		}
		conds = append(conds, cr.Label)
	}
	return upperFirst(m.labels.Table(cr.Term.Subject)) + " " + sqlshape.JoinAnd(conds)
}

// defineStandalone reads "loyal means customers with 25 or more orders"
// typed on its own: when the meaning starts with the rows it qualifies,
// it is read, said back and remembered as the person's definition; ok is
// false when the meaning names no rows first (it is then a question).
func (m *Manager) defineStandalone(ctx context.Context, ev Event, phrase, meaning string) ([]Reply, bool) {
	t := cleanTyped(meaning)
	words := strings.Fields(t)
	subject := ""
	for n := min(3, len(words)); n >= 1 && subject == ""; n-- {
		subject = m.namedTable(strings.Join(words[:n], " "))
	}
	if subject == "" || m.namedTable(phrase) != "" {
		return nil, false
	}
	tm, ok, tried := m.readDefinition(ctx, subject, t)
	if !tried {
		return nil, false
	}
	if !ok {
		return []Reply{notice(ev.Conversation, fmt.Sprintf("I couldn't read %q as a meaning of '%s', so I have not remembered it. Say it with the data's words, for example \"%s with at least … \" or \"%s whose … is …\".",
			tables.Clip(meaning, 60), phrase, m.labels.Table(subject), m.labels.Table(subject)))}, true
	}
	f := ontology.Fact{
		Scope: ontology.ScopeUser, Owner: ownerKeys(ev.Who).User, Warehouse: m.cfg.Warehouse,
		Phrase: ontology.NormalizePhrase(phrase), Kind: ontology.KindDefinition, Meaning: upperFirst(tm.Plain), Question: ev.Text,
		Target: ontology.Target{Slot: string(sqlshape.SlotDefine), Arg: phrase, Choice: tm.Term},
	}
	if f.Phrase == "" || ontology.JunkFact(f) != "" {
		return nil, false
	}
	if _, err := m.deps.Facts.Learn(ctx, f); err != nil {
		m.log.Warn("cannot remember the definition", "phrase", phrase, "err", err)
		return []Reply{notice(ev.Conversation, "I understood that, but could not remember it just now; please try again.")}, true
	}
	return []Reply{notice(ev.Conversation, fmt.Sprintf("✓ '%s' = %s (in your words). I'll use it when you ask about %s %s.", phrase, lowerFirst(tm.Plain), phrase, m.labels.Table(subject)))}, true
}
