package dialog

import (
	"context"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// timePhrase is the phrase of remembered date choices: "in 2024" means the
// same column whatever the year.
const timePhrase = "dates"

// factKind classifies what a clarification about key decided.
func factKind(key string, values []string) ontology.Kind {
	switch sqlshape.SlotName(key) {
	case sqlshape.SlotFilterOn:
		for _, v := range values {
			if strings.HasSuffix(v, " year") {
				return ontology.KindTime
			}
		}
		return ontology.KindValue
	case sqlshape.SlotMeasure:
		fns := map[string]bool{}
		for _, v := range values {
			fn, _ := aggregate(strings.Split(v, " | ")[0])
			fns[fn] = true
		}
		if len(fns) > 1 {
			return ontology.KindDefinition
		}
		return ontology.KindColumn
	case sqlshape.SlotOutput, sqlshape.SlotLimit, sqlshape.SlotDistinct:
		return ontology.KindOutput
	case sqlshape.SlotOrder:
		return ontology.KindOrder
	case sqlshape.SlotTables:
		return ontology.KindJoin
	case sqlshape.SlotGroup:
		return ontology.KindAggregate
	}
	return ontology.KindColumn
}

// learn remembers a chosen option as a fact of the person who chose it.
func (m *Manager) learn(ctx context.Context, st *convState, who Who, q *pendingQ, chosen pendingOpt) {
	var values, others []string
	for _, o := range q.Options {
		values = append(values, o.Value)
		if o.Value != chosen.Value {
			others = append(others, o.Value)
		}
	}
	kind := factKind(q.Key, values)
	phrase := q.Phrase
	switch {
	case kind == ontology.KindTime:
		phrase = timePhrase
	case phrase == "" && sqlshape.SlotName(q.Key) == sqlshape.SlotFilterOn:
		phrase = sqlshape.SlotArg(q.Key)
	}
	phrase = ontology.NormalizePhrase(phrase)
	if phrase == "" {
		return // nothing to recognise it by next time
	}
	f := ontology.Fact{
		Scope: ontology.ScopeUser, Owner: ownerKeys(who).User, Warehouse: m.cfg.Warehouse,
		Phrase: phrase, Kind: kind, Target: q.Key + " => " + distinguishing(q.Key, chosen.Value, others) + alternativesSuffix(q.Key, others),
		Meaning: chosen.Label, Question: st.Question,
	}
	if _, err := m.deps.Facts.Learn(ctx, f); err != nil {
		m.log.Warn("cannot remember the choice", "phrase", phrase, "err", err)
	}
}

// factTarget splits a stored target into the slot name it was learned on
// and the token it stands for.
func factTarget(f ontology.Fact) (slot, token string) {
	slot, token, _ = factParts(f)
	return slot, token
}

// altSep separates, in a fact's target, the chosen token from the tokens of
// the options it was chosen over.
const altSep = " || "

// factParts splits a target "key => token || alt1, alt2".
func factParts(f ontology.Fact) (slot, token string, alts []string) {
	key, rest, ok := strings.Cut(f.Target, " => ")
	if !ok {
		return "", f.Target, nil
	}
	token, list, _ := strings.Cut(rest, altSep)
	if list != "" {
		alts = strings.Split(list, ", ")
	}
	return sqlshape.SlotName(key), token, alts
}

// alternativesSuffix records what a choice was made against, so that it
// is only reused for the same decision: 'colorado' chosen as a river over
// a state is no answer when a new question offers a mountain.
func alternativesSuffix(key string, others []string) string {
	var alts []string
	for _, o := range others {
		if t := tokens(key, o); len(t) > 0 && t[0] != "" {
			alts = append(alts, t[0])
		}
	}
	if len(alts) == 0 {
		return ""
	}
	return altSep + strings.Join(alts, ", ")
}

// applyFacts resolves decision points with the person's remembered
// choices, without asking. A fact applies when its phrase is in the
// question (or is the phrase the point came from), it was learned on the
// same kind of slot, and some but not all of the point's values hold its
// token.
func (m *Manager) applyFacts(ctx context.Context, st *convState) {
	facts := m.applicableFacts(ctx, st.Who)
	if len(facts) == 0 {
		return
	}
	text := " " + ontology.NormalizePhrase(st.Question+" "+feedbackText(st.Feedback)) + " "
	asked := map[string]bool{}
	for _, t := range m.deps.Catalog.Terms(text) {
		asked[t] = true
	}
	for range 8 {
		applied := false
		for _, pt := range decisionPoints(st.liveView(), nil, len(st.Candidates)) {
			for _, f := range facts {
				if st.skipped(f.ID) || st.factApplied(f.ID, pt.Key) || !m.factFits(st, f, pt, text, asked) {
					continue
				}
				_, tok := factTarget(f)
				step := "fact:" + f.ID
				for _, i := range st.live() {
					if !containsToken(st.Candidates[i].Slots[pt.Key], tok) {
						st.Candidates[i].ElimBy = step
					}
				}
				st.Applied = append(st.Applied, appliedFact{FactID: f.ID, Key: pt.Key, Token: tok, Phrase: f.Phrase, Meaning: f.Meaning, Scope: string(f.Scope), Step: step})
				if err := m.deps.Facts.RecordUse(ctx, f.ID); err != nil {
					m.log.Warn("cannot record a preference use", "fact", f.ID, "err", err)
				}
				applied = true
				break
			}
			if applied {
				break
			}
		}
		if !applied {
			return
		}
	}
}

func (st *convState) factApplied(id, key string) bool {
	for _, a := range st.Applied {
		if a.FactID == id && a.Key == key {
			return true
		}
	}
	return false
}

func (m *Manager) factFits(st *convState, f ontology.Fact, pt point, text string, asked map[string]bool) bool {
	slot, tok := factTarget(f)
	if slot != sqlshape.SlotName(pt.Key) {
		return false
	}
	var values []string
	holds := 0
	for _, v := range pt.Values {
		values = append(values, v.Value)
		if containsToken(v.Value, tok) {
			holds++
		}
	}
	if holds == 0 || holds == len(pt.Values) {
		return false
	}
	if factKind(pt.Key, values) != f.Kind {
		return false
	}
	if m.questionNamesAnother(asked, tok, pt) || m.sameCount(st, tok, pt) {
		return false
	}
	if f.Kind == ontology.KindTime {
		// "in 2024 means the ship date" was learned among an orders
		// table's dates; a question whose dates live in other tables
		// (customers' signup date) asks again.
		table, _ := splitTC(tok)
		for i, v := range pt.Values {
			if i >= 2 && v.P < 0.1*pt.Values[0].P {
				break // readings too unlikely to be offered do not count
			}
			for _, part := range strings.Split(v.Value, " & ") {
				col := strings.TrimSuffix(part, " year")
				if t, _ := splitTC(col); col != "" && !strings.EqualFold(t, table) {
					return false
				}
			}
		}
		return true
	}
	// The same decision: every reading offered now is the remembered
	// choice or one it was chosen over.
	if _, _, alts := factParts(f); len(alts) > 0 {
		for i, v := range pt.Values {
			if i >= 2 && v.P < 0.1*pt.Values[0].P {
				break
			}
			known := containsToken(v.Value, tok)
			for _, a := range alts {
				known = known || containsToken(v.Value, a)
			}
			if !known {
				return false
			}
		}
	}
	if strings.Contains(text, " "+f.Phrase+" ") {
		return true
	}
	for _, i := range st.live() {
		if ontology.NormalizePhrase(st.Candidates[i].Phrases[pt.Key]) == f.Phrase {
			return true
		}
	}
	return false
}

func feedbackText(fb []Feedback) string {
	var parts []string
	for _, f := range fb {
		parts = append(parts, f.Text)
	}
	return strings.Join(parts, " ")
}

// questionNamesAnother says whether the question's own words point to
// another offered reading more than to the remembered one: "how many
// orders did we ship in 2025" names the ship date whatever date 'in 2024'
// meant before, and "customers in TX" names customers, not the orders a
// remembered 'TX' was about. Only columns and values are weighed.
// asked holds the terms of the question and its feedback.
func (m *Manager) questionNamesAnother(asked map[string]bool, tok string, pt point) bool {
	switch sqlshape.SlotName(pt.Key) {
	case sqlshape.SlotFilterOn, sqlshape.SlotMeasure:
	default:
		return false
	}
	if t, c := splitTC(tok); t == "" || c == "" {
		return false
	}
	named := func(tc string) int {
		table, col := splitTC(tc)
		terms := map[string]bool{}
		for _, t := range append(m.deps.Catalog.Terms(col), m.deps.Catalog.Terms(table)...) {
			terms[t] = true
		}
		n := 0
		for t := range terms {
			if asked[t] {
				n++
			}
		}
		return n
	}
	mine := named(tok)
	for i, v := range pt.Values {
		if i >= 2 && v.P < 0.1*pt.Values[0].P {
			break
		}
		if containsToken(v.Value, tok) {
			continue
		}
		for _, tc := range columnRefs(v.Value) {
			if named(tc) > mine {
				return true
			}
		}
	}
	return false
}

// columnRefs lists the table.column names in a slot value.
func columnRefs(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r > 0x7f || !isIdentByte(byte(r)) }) {
		if t, c := splitTC(f); t != "" && c != "" {
			out = append(out, f)
		}
	}
	return out
}

// sameCount says whether a remembered "count customers, not rows" choice
// is moot here: the other readings' COUNT(*) counts the same table, so the
// readings differ elsewhere (a join, a filter) and the fact must not pick
// between them.
func (m *Manager) sameCount(st *convState, tok string, pt point) bool {
	if sqlshape.SlotName(pt.Key) != sqlshape.SlotMeasure || !m.labels.IsKey(tok) {
		return false
	}
	table, _ := splitTC(tok)
	for _, i := range st.live() {
		c := st.Candidates[i]
		if strings.Contains(c.Slots[pt.Key], "COUNT(*)") && strings.EqualFold(m.labels.countedTable(c.Slots), table) {
			return true
		}
	}
	return false
}
