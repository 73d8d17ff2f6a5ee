package dialog

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// timePhrase is the phrase of remembered date choices: "in 2024" means the
// same column whatever the year.
const timePhrase = "dates"

// factKind classifies what a clarification about key decided.
func factKind(key sqlshape.SlotKey, values []sqlshape.SlotValue) ontology.Kind {
	switch key.Name {
	case sqlshape.SlotFilterOn:
		for _, v := range values {
			if slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool { return p.Op == "year" }) {
				return ontology.KindTime
			}
		}
		return ontology.KindValue
	case sqlshape.SlotMeasure:
		fns := map[string]bool{}
		for _, v := range values {
			fns[firstFn(v)] = true
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
	case sqlshape.SlotDefine:
		return ontology.KindDefinition
	}
	return ontology.KindColumn
}

// learn remembers a chosen option as a fact of the person who chose it.
func (m *Manager) learn(ctx context.Context, st *convState, who Who, q *pendingQ, chosen pendingOpt) {
	var values, others []sqlshape.SlotValue
	for _, o := range q.Options {
		values = append(values, o.Value)
		if !o.Value.Equal(chosen.Value) {
			others = append(others, o.Value)
		}
	}
	if q.Key.Nested() {
		return // a choice inside one query's subquery is no rule for the next question
	}
	kind := factKind(q.Key, values)
	phrase := q.Phrase
	switch {
	case kind == ontology.KindTime:
		phrase = timePhrase
	case phrase == "" && q.Key.Name == sqlshape.SlotFilterOn:
		phrase = q.Key.Arg
	}
	phrase = ontology.NormalizePhrase(m.namingWords(phrase))
	if phrase == "" {
		return // nothing to recognise it by next time
	}
	if why := ontology.BadWording(chosen.Label); why != "" {
		m.log.Info("not remembering a badly worded choice", "phrase", phrase, "label", chosen.Label, "why", why)
		return
	}
	target := ontology.Target{
		Slot: string(q.Key.Name), Arg: q.Key.Arg,
		Choice: distinguishing(chosen.Value, others), Over: alternatives(others),
	}
	if kind == ontology.KindTime && m.wordsChose(st, q, target.Choice) {
		return // the question's words chose this date, not a habit
	}
	if entityChoice(target.Choice, target.Over) {
		return // which thing's population, not what 'population' means
	}
	if q.Key.Name == sqlshape.SlotDefine {
		// A definition is remembered as what it means, not as SQL text.
		def, ok := st.definitionOf(q.Key, chosen.Value)
		if !ok {
			return
		}
		target.Choice, target.Over = def.Term, nil
		for _, o := range others {
			if od, ok := st.definitionOf(q.Key, o); ok {
				target.Over = append(target.Over, od.Term)
			}
		}
	}
	f := ontology.Fact{
		Scope: ontology.ScopeUser, Owner: ownerKeys(who).User, Warehouse: m.cfg.Warehouse,
		Phrase: phrase, Kind: kind, Target: target, Meaning: chosen.Label, Question: st.Question,
	}
	if why := ontology.JunkFact(f); why != "" {
		m.log.Info("not remembering a choice", "phrase", phrase, "why", why)
		return
	}
	if err := m.teach(ctx, st, f); err != nil {
		m.log.Warn("cannot remember the choice", "phrase", phrase, "err", err)
	}
}

// learnStated remembers the definitions a person gave in their own words
// that the answer used, as if they had picked them from options: as the
// definitions of whoever wrote them, who in a shared thread may not be
// the asker.
func (m *Manager) learnStated(ctx context.Context, st *convState, defs []Definition) {
	for _, d := range defs {
		phrase := ontology.NormalizePhrase(d.Phrase)
		if !d.Stated || phrase == "" || ontology.BadWording(d.Label) != "" {
			continue
		}
		if slices.ContainsFunc(st.Typed, func(t typedAnswer) bool { return t.Key == sqlshape.DefineKey(d.Phrase) }) {
			continue // learned as typed (learnTypedDefinitions)
		}
		f := ontology.Fact{
			Scope: ontology.ScopeUser, Owner: st.authorOf(phrase), Warehouse: m.cfg.Warehouse,
			Phrase: phrase, Kind: ontology.KindDefinition, Meaning: d.Label, Question: st.Question,
			Target: ontology.Target{Slot: string(sqlshape.SlotDefine), Arg: d.Phrase, Choice: d.Term},
		}
		if err := m.teach(ctx, st, f); err != nil {
			m.log.Warn("cannot remember the definition", "phrase", phrase, "err", err)
		}
	}
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
				tok := f.Target.Choice
				step := Step{Kind: StepFact, Ref: f.ID}
				for _, i := range st.live() {
					if !holds(st.Candidates[i].Slots.Get(pt.Key), tok) {
						st.Candidates[i].ElimBy = step
					}
				}
				st.Applied = append(st.Applied, appliedFact{FactID: f.ID, Key: pt.Key, Token: tok, Phrase: f.Phrase, Meaning: f.Meaning, Scope: f.Scope, Step: step, Source: f.Source})
				m.obs.FactApplied(string(f.Scope))
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

func (st *convState) factApplied(id string, key sqlshape.SlotKey) bool {
	for _, a := range st.Applied {
		if a.FactID == id && a.Key == key {
			return true
		}
	}
	return false
}

func (m *Manager) factFits(st *convState, f ontology.Fact, pt point, text string, asked map[string]bool) bool {
	tok := f.Target.Choice
	if f.Target.Slot != string(pt.Key.Name) || pt.Key.Nested() {
		return false
	}
	var values []sqlshape.SlotValue
	held := 0
	for _, v := range pt.Values {
		values = append(values, v.Value)
		if holds(v.Value, tok) {
			held++
		}
	}
	if held == 0 || held == len(pt.Values) {
		return false
	}
	if leavesWordsOut(st, pt, tok) {
		// Every reading the fact keeps leaves words of this question out
		// that another reading takes into account ("revenue before
		// discounts" after 'revenue' meant net revenue): ask instead.
		return false
	}
	if remembered, best := heldShare(pt, tok); remembered < implausibleFact*best {
		// The question's own words make the remembered reading
		// implausible here ("population of atlanta georgia" after
		// 'population' meant a state's): ask rather than apply it.
		return false
	}
	if pt.Key.Name == sqlshape.SlotDefine {
		// The phrase is the decision: whatever else is offered, the
		// person's definition of it holds, unless the question also puts
		// the phrase before another thing ("major wards" after 'major'
		// was defined for clinics): one point then stands for both.
		return f.Kind == ontology.KindDefinition && ontology.NormalizePhrase(pt.Key.Arg) == f.Phrase &&
			!m.qualifiesOther(text, f.Phrase, tok.Subject)
	}
	if conditionElsewhere(f.Target, pt.Key) {
		return false
	}
	if entityPoint(tok, pt) {
		// Which table's column, not what the word means: the question's
		// subject decides ("capacity of van 7 at Ashby" after
		// 'capacity' meant a depot's), as when it is learned.
		return false
	}
	if factKind(pt.Key, values) != f.Kind {
		return false
	}
	if f.Kind == ontology.KindTime {
		asked = m.withEventWords(st, pt.Key, asked)
	}
	if entityChoice(tok, f.Target.Over) || f.Kind == ontology.KindValue && m.valueNamesRow(text, pt) {
		return false
	}
	if m.questionNamesAnother(asked, tok, pt, f.Kind == ontology.KindTime) || m.sameCount(st, tok, pt) || m.fansOut(st, tok, pt) {
		return false
	}
	if f.Kind == ontology.KindTime {
		// "in 2024 means the ship date" was learned among an orders
		// table's dates; a question whose dates live in other tables
		// (customers' signup date) asks again.
		table := tableOfTC(tok.Column)
		for i, v := range pt.Values {
			if i >= 2 && v.P < 0.1*pt.Values[0].P {
				break // readings too unlikely to be offered do not count
			}
			for _, part := range v.Value.Parts {
				if t := tableOfTC(part.Expr); !strings.EqualFold(t, table) {
					// Unless what the question measures or ranks is
					// the remembered date's rows: "our best customer
					// in 2024" ranks customers by their orders.
					return m.measuresTable(st, pt.Key, tok, table)
				}
			}
		}
		return true
	}
	// The same decision: every reading offered now is the remembered
	// choice or one it was chosen over.
	if alts := f.Target.Over; len(alts) > 0 {
		for i, v := range pt.Values {
			if i >= 2 && v.P < 0.1*pt.Values[0].P {
				break
			}
			known := holds(v.Value, tok) || slices.ContainsFunc(alts, func(a ontology.Term) bool { return holds(v.Value, a) })
			if !known {
				return false
			}
		}
	}
	// The point's own words decide when the readings record them: a choice
	// about 'population' is no choice about 'population density'.
	own := false
	for _, i := range st.live() {
		ph := ontology.NormalizePhrase(st.Candidates[i].Phrases[pt.Key])
		if ph == f.Phrase {
			return true
		}
		own = own || containsWords(ph, f.Phrase)
	}
	return !own && strings.Contains(text, " "+f.Phrase+" ")
}

// implausibleFact is how much less likely than the best reading of a point
// the remembered reading may be and still decide it.
const implausibleFact = 0.35

// heldShare is the likeliest reading of a point that holds the remembered
// token, and the likeliest reading overall.
// leavesWordsOut says whether each live reading holding tok at the point
// leaves some question word out while a reading not holding it leaves
// none out.
func leavesWordsOut(st *convState, pt point, tok ontology.Term) bool {
	keptClean, otherClean := false, false
	for _, i := range st.live() {
		c := st.Candidates[i]
		clean := len(c.Unused) == 0
		if holds(c.Slots.Get(pt.Key), tok) {
			keptClean = keptClean || clean
		} else {
			otherClean = otherClean || clean
		}
	}
	return !keptClean && otherClean
}

func heldShare(pt point, tok ontology.Term) (remembered, best float64) {
	for _, v := range pt.Values {
		best = max(best, v.P)
		if holds(v.Value, tok) {
			remembered = max(remembered, v.P)
		}
	}
	return remembered, best
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
// For a date, only the column's own words count: "our best customer in
// 2024" names the customers it ranks, not their signup date.
func (m *Manager) questionNamesAnother(asked map[string]bool, tok ontology.Term, pt point, columnsOnly bool) bool {
	switch pt.Key.Name {
	case sqlshape.SlotFilterOn, sqlshape.SlotMeasure:
	case sqlshape.SlotOutput:
		return m.namesOtherColumns(asked, tok, pt)
	default:
		return false
	}
	if tok.Kind != ontology.TermColumn {
		return false
	}
	named := func(tc string) int { return m.namedBy(asked, tc, columnsOnly) }
	mine := named(tok.Column)
	for i, v := range pt.Values {
		if i >= 2 && v.P < 0.1*pt.Values[0].P {
			break
		}
		if holds(v.Value, tok) {
			continue
		}
		for _, p := range v.Value.Parts {
			for _, tc := range p.Columns() {
				if named(tc) > mine {
					return true
				}
			}
		}
	}
	return false
}

// namesOtherColumns reports whether the question names the columns of
// another offered output more than the remembered ones: "what are the plate
// and depot of vans" asks for those, whatever 'vans' showed before. Only the columns' own words count (they share the table).
func (m *Manager) namesOtherColumns(asked map[string]bool, tok ontology.Term, pt point) bool {
	score := func(cols []string) int {
		n := 0
		for _, tc := range cols {
			n += m.namedBy(asked, tc, true)
		}
		return n
	}
	mine := score(tok.ColumnRefs())
	for i, v := range pt.Values {
		if i >= 2 && v.P < 0.1*pt.Values[0].P {
			break
		}
		if holds(v.Value, tok) {
			continue
		}
		var cols []string
		for _, p := range v.Value.Parts {
			cols = append(cols, p.Columns()...)
		}
		if score(cols) > mine {
			return true
		}
	}
	return false
}

// namedBy counts the words of column tc among the question's terms;
// with columnsOnly, the column's own words only ("ordered_at" is not
// named by "orders").
func (m *Manager) namedBy(asked map[string]bool, tc string, columnsOnly bool) int {
	table, col := splitTC(tc)
	terms := map[string]bool{}
	for _, t := range m.deps.Catalog.Terms(col) {
		terms[t] = true
	}
	for _, t := range m.deps.Catalog.Terms(table) {
		terms[t] = !columnsOnly
	}
	n := 0
	for t, counts := range terms {
		if counts && asked[t] {
			n++
		}
	}
	return n
}

// wordsChose reports whether the question's own words (and the event its
// other conditions name) point at the chosen date more than at every
// other option: "how many orders went to California in 2025" → the ship
// date. Such a choice answers this question; it is no general meaning of
// 'in 2025' to remember.
func (m *Manager) wordsChose(st *convState, q *pendingQ, chosen ontology.Term) bool {
	if chosen.Kind != ontology.TermColumn {
		return false
	}
	text := " " + ontology.NormalizePhrase(st.Question+" "+feedbackText(st.Feedback)) + " "
	asked := map[string]bool{}
	for _, t := range m.deps.Catalog.Terms(text) {
		asked[t] = true
	}
	asked = m.withEventWords(st, q.Key, asked)
	mine := m.namedBy(asked, chosen.Column, true)
	if mine == 0 {
		return false
	}
	for _, o := range q.Options {
		if holds(o.Value, chosen) {
			continue
		}
		for _, p := range o.Value.Parts {
			for _, tc := range p.Columns() {
				if m.namedBy(asked, tc, true) >= mine {
					return false
				}
			}
		}
	}
	return true
}

// sameCount says whether a remembered "count customers, not rows" choice
// is moot here: the other readings' COUNT(*) counts the same table, so the
// readings differ elsewhere (a join, a filter) and the fact must not pick
// between them.
func (m *Manager) sameCount(st *convState, tok ontology.Term, pt point) bool {
	if pt.Key.Name != sqlshape.SlotMeasure || tok.Kind != ontology.TermColumn || !m.labels.IsKey(tok.Column) {
		return false
	}
	table := tableOfTC(tok.Column)
	countsRows := func(p sqlshape.Part) bool { return p.Fn == "COUNT" && p.Arg == "*" }
	for _, i := range st.live() {
		c := st.Candidates[i]
		if slices.ContainsFunc(c.Slots.Get(pt.Key).Parts, countsRows) && strings.EqualFold(m.labels.countedTable(c.Slots), table) {
			return true
		}
	}
	return false
}

// authorOf is the owner key of who last said what phrase means in this
// conversation: the author of the latest feedback about it, else the asker.
func (st *convState) authorOf(phrase string) string {
	for i := len(st.Feedback) - 1; i >= 0; i-- {
		fb := st.Feedback[i]
		if fb.Author != "" && ontology.NormalizePhrase(fb.About) == phrase {
			return fb.Author
		}
	}
	return ownerKeys(st.Who).User
}

// recordUses counts one use of each fact an answer used, once the answer
// is given: a fact applied while the conversation went on to ask, or set
// aside with "change", did not decide an answer.
func (m *Manager) recordUses(ctx context.Context, used []UsedFact) {
	for _, f := range used {
		if err := m.deps.Facts.RecordUse(ctx, f.FactID); err != nil {
			m.log.Warn("cannot record a preference use", "fact", f.FactID, "err", err)
		}
	}
}

// rejectUsed weakens the facts an answer used after "not what I meant":
// only when the person who said it is the asker, and then only for them
// (their own facts; a shared fact is set aside for them alone and admins
// see it). Someone else's "not what I meant" in the asker's thread reopens
// the question but changes nobody's meanings.
func (m *Manager) rejectUsed(ctx context.Context, st *convState, who Who, used []UsedFact) {
	by := ownerKeys(who).User
	if by != ownerKeys(st.Who).User {
		return
	}
	for _, f := range used {
		if _, err := m.deps.Facts.Reject(ctx, f.FactID, by); err != nil {
			m.log.Warn("cannot weaken a preference", "fact", f.FactID, "by", by, "err", err)
		}
	}
}

// measuresTable reports whether every live reading that holds tok at key
// measures (aggregates, ranks by, counts) the rows of table.
func (m *Manager) measuresTable(st *convState, key sqlshape.SlotKey, tok ontology.Term, table string) bool {
	found := false
	for _, i := range st.live() {
		c := st.Candidates[i]
		if !holds(c.Slots.Get(key), tok) {
			continue
		}
		found = true
		on := false
		for _, name := range []sqlshape.SlotName{sqlshape.SlotMeasure, sqlshape.SlotOrder} {
			for _, p := range c.Slots.Get(sqlshape.Key(name)).Parts {
				if p.Fn == "COUNT" && p.Arg == "*" {
					on = on || strings.EqualFold(m.labels.countedTable(c.Slots), table)
					continue
				}
				for _, col := range p.Columns() {
					on = on || strings.EqualFold(tableOfTC(col), table)
				}
			}
		}
		if !on {
			return false
		}
	}
	return found
}

// withEventWords adds to the question's terms the words of the columns
// its readings compare with values besides the date asked about: "orders
// that went to California in 2025" filters on the state the order was
// shipped to, which names the shipping, whose date is the ship date
// (events have their own dates and participants). Table names are left
// out, as for the date itself.
func (m *Manager) withEventWords(st *convState, key sqlshape.SlotKey, asked map[string]bool) map[string]bool {
	out := asked
	for _, i := range st.live() {
		for k, v := range st.Candidates[i].Slots {
			if k.Name != sqlshape.SlotFilterOn || k == key {
				continue
			}
			for _, p := range v.Parts {
				if p.Op == "year" {
					continue
				}
				table, col := splitTC(p.Expr)
				tableTerms := map[string]bool{}
				for _, t := range m.deps.Catalog.Terms(table) {
					tableTerms[t] = true
				}
				for _, t := range m.deps.Catalog.Terms(col) {
					if tableTerms[t] || asked[t] {
						continue
					}
					if len(out) == len(asked) {
						out = maps.Clone(asked)
					}
					out[t] = true
				}
			}
		}
		break // the most likely reading speaks for the question
	}
	return out
}

// fansOut reports whether every live reading that holds a remembered
// measure column sums it over a join to rows of another table that point
// at its table (orders' net amount summed once per order line): each
// amount would count as often as it has such rows, so the remembered
// choice does not hold for this question.
func (m *Manager) fansOut(st *convState, tok ontology.Term, pt point) bool {
	if pt.Key.Name != sqlshape.SlotMeasure || tok.Kind != ontology.TermColumn {
		return false
	}
	table := strings.ToLower(tableOfTC(tok.Column))
	found := false
	for _, i := range st.live() {
		c := st.Candidates[i]
		if !holds(c.Slots.Get(pt.Key), tok) {
			continue
		}
		found = true
		repeated := false
		for _, j := range c.Slots.Get(sqlshape.Key(sqlshape.SlotTables)).Joins {
			l, r := strings.ToLower(tableOfTC(j.Left)), strings.ToLower(tableOfTC(j.Right))
			switch {
			case l == table && m.labels.IsKey(j.Left) && !m.labels.IsKey(j.Right):
				repeated = true
			case r == table && m.labels.IsKey(j.Right) && !m.labels.IsKey(j.Left):
				repeated = true
			}
		}
		if !repeated {
			return false
		}
	}
	return found
}

// entityChoice reports whether a column was chosen only over columns of
// the same name in other tables (state.population over city.population):
// the question's subject decided which table, not a meaning of the word,
// so it is neither remembered nor reused.
func entityChoice(chosen ontology.Term, over []ontology.Term) bool {
	mine, _ := namesAndTables(chosen.ColumnRefs())
	if len(mine) == 0 || len(over) == 0 {
		return false
	}
	for _, o := range over {
		names, _ := namesAndTables(o.ColumnRefs())
		if !slices.Equal(names, mine) || slices.Equal(o.ColumnRefs(), chosen.ColumnRefs()) {
			return false
		}
	}
	return true
}

// namesAndTables are the column names and the tables of table.column
// references, lower-case, sorted, each once.
func namesAndTables(cols []string) (names, tables []string) {
	for _, tc := range cols {
		t, c := splitTC(tc)
		names, tables = append(names, strings.ToLower(c)), append(tables, strings.ToLower(t))
	}
	slices.Sort(names)
	slices.Sort(tables)
	return slices.Compact(names), slices.Compact(tables)
}

// conditionElsewhere reports whether a choice about a condition on one
// column meets a point about a condition on another: "the largest depot:
// the top one" was said of its floor area; a condition on its staff is
// another decision.
func conditionElsewhere(t ontology.Target, key sqlshape.SlotKey) bool {
	return key.Name == sqlshape.SlotWhere && t.Slot == string(sqlshape.SlotWhere) && t.Arg != "" && !strings.EqualFold(t.Arg, key.Arg)
}

// entityPoint reports whether every plausible reading at a point that
// does not hold the remembered token reads columns of the same names in
// other tables: the point chooses a table, not a meaning.
func entityPoint(tok ontology.Term, pt point) bool {
	mine, myTables := namesAndTables(tok.ColumnRefs())
	if len(mine) == 0 {
		return false
	}
	others := 0
	for i, v := range pt.Values {
		if i >= 2 && v.P < 0.1*pt.Values[0].P {
			break
		}
		if holds(v.Value, tok) {
			continue
		}
		var cols []string
		for _, p := range v.Value.Parts {
			cols = append(cols, p.Columns()...)
		}
		ns, ts := namesAndTables(cols)
		if !slices.Equal(ns, mine) || slices.Equal(ts, myTables) {
			return false
		}
		others++
	}
	return others > 0
}

// qualifiesOther reports whether the question puts phrase right before
// the name of a table other than subject ("major wards" when 'major' was
// defined for clinics).
func (m *Manager) qualifiesOther(text, phrase, subject string) bool {
	if subject == "" {
		return false
	}
	words := strings.Fields(text)
	n := len(strings.Fields(phrase))
	tables := map[string]string{}
	for _, t := range m.deps.Catalog.Snapshot().Schema.Tables {
		tables[strings.Join(m.deps.Catalog.Terms(t.Name), " ")] = strings.ToLower(t.Name)
	}
	for i := 0; i+n < len(words); i++ {
		if strings.Join(words[i:i+n], " ") != phrase {
			continue
		}
		next := strings.Join(m.deps.Catalog.Terms(words[i+n]), " ")
		if t, ok := tables[next]; ok && next != "" && t != strings.ToLower(subject) {
			return true
		}
	}
	return false
}

// valueNamesRow reports whether the question puts the value asked about
// next to the name of a table one of the offered readings takes it as
// the name of ("the missouri river", "lake erie"): the words say which
// row, whatever the value meant before.
func (m *Manager) valueNamesRow(text string, pt point) bool {
	value := strings.ToLower(pt.Key.Arg)
	if value == "" {
		return false
	}
	words := strings.Fields(text)
	for i, w := range words {
		if w != value && !strings.HasPrefix(value, w+" ") {
			continue
		}
		n := len(strings.Fields(value))
		var near []string
		if i > 0 {
			near = append(near, words[i-1])
		}
		if i+n < len(words) {
			near = append(near, words[i+n])
		}
		for _, v := range pt.Values {
			for _, p := range v.Value.Parts {
				for _, tc := range p.Columns() {
					table, col := splitTC(tc)
					if !slices.Contains(m.deps.Catalog.Terms(col), "name") {
						continue
					}
					tt := strings.Join(m.deps.Catalog.Terms(table), " ")
					for _, nw := range near {
						if tt != "" && strings.Join(m.deps.Catalog.Terms(nw), " ") == tt {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
