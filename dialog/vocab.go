package dialog

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/dialog/link"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// vocabKey marks a question about a word the schema does not use ("By
// 'clients', do you mean: Customers · …"); its options carry elements.
var vocabKey = sqlshape.SlotKey{Name: "vocab"}

// maxWordQuestions is the most words one conversation asks about: more
// would be an interrogation, and the readings' own questions still come.
const maxWordQuestions = 2

// wordUse is a word of the question read as a schema element: remembered
// (a fact of the person or the team) or taught in this conversation.
type wordUse struct {
	Word    string          `json:"word"`
	Element link.Element    `json:"element"`
	FactID  string          `json:"fact,omitempty"`
	Scope   ontology.Scope  `json:"scope,omitempty"`
	Source  ontology.Source `json:"source,omitempty"`
	Meaning string          `json:"meaning,omitempty"`
}

// newLinker builds the linking stage of a manager; without the lexicon
// the links keep the schema's own evidence.
func newLinker(deps Deps) *link.Linker {
	lex, err := lexicon.Default()
	if err != nil {
		lex = nil
	}
	return link.New(deps.Catalog, lex)
}

// vocabulary are the remembered words among facts: the person's, the
// channel's and the team's (the glossary's synonyms), less those set aside
// in this conversation.
func vocabulary(facts []ontology.Fact, skipped []string) []link.Word {
	var out []link.Word
	for _, f := range facts {
		if f.Kind != ontology.KindWord || slices.Contains(skipped, f.ID) {
			continue
		}
		if el, ok := elementOf(f.Target.Choice); ok {
			out = append(out, link.Word{Word: f.Phrase, Element: el, Team: f.Scope != ontology.ScopeUser || f.FromGlossary()})
		}
	}
	return out
}

// elementOf reads a word fact's term as a schema element.
func elementOf(t ontology.Term) (link.Element, bool) {
	switch t.Kind {
	case ontology.TermTable:
		if len(t.Tables) == 1 {
			return link.Element{Kind: "table", Table: t.Tables[0]}, true
		}
	case ontology.TermColumn:
		if tb, c, ok := strings.Cut(t.Column, "."); ok {
			return link.Element{Kind: "column", Table: tb, Column: c}, true
		}
	case ontology.TermValues:
		if tb, c, ok := strings.Cut(t.Column, "."); ok && t.Op == "=" && len(t.Values) == 1 {
			return link.Element{Kind: "value", Table: tb, Column: c, Value: t.Values[0]}, true
		}
	}
	return link.Element{}, false
}

// termOf is the fact's term for an element.
func termOf(e link.Element) ontology.Term {
	switch e.Kind {
	case "table":
		return ontology.TableTerm(e.Table)
	case "value":
		return ontology.Term{Kind: ontology.TermValues, Column: e.Table + "." + e.Column, Op: "=", Values: []string{e.Value}}
	}
	return ontology.ColumnTerm(e.Table + "." + e.Column)
}

// linkQuestion links the question's words, and takes the remembered ones
// (the person's vocabulary, the team glossary's synonyms) as the elements
// they stand for.
func (m *Manager) linkQuestion(st *convState, facts []ontology.Fact) []link.Link {
	links := m.linker.Question(st.Question, vocabulary(facts, st.Skipped))
	for _, lk := range links {
		if len(lk.Candidates) == 0 || st.word(lk.Span) != nil {
			continue
		}
		c := lk.Candidates[0]
		if c.Evidence != link.Vocabulary && c.Evidence != link.Glossary || m.schemaWord(lk) {
			continue
		}
		for _, f := range facts {
			el, ok := elementOf(f.Target.Choice)
			if f.Kind != ontology.KindWord || !ok || el != c.Element || slices.Contains(st.Skipped, f.ID) || !m.linker.Same(lk.Span, f.Phrase) {
				continue
			}
			st.Words = append(st.Words, wordUse{Word: lk.Span, Element: el, FactID: f.ID, Scope: f.Scope, Source: f.Source, Meaning: lowerFirst(m.elementLabel(el))})
			break
		}
	}
	// A word set aside ("change", "not what I meant") is read afresh.
	st.Words = slices.DeleteFunc(st.Words, func(w wordUse) bool { return w.FactID != "" && slices.Contains(st.Skipped, w.FactID) })
	return links
}

// schemaWord reports whether a span is a word of the schema's own names
// (the name, another form of it, a word of a longer name): the engines
// read it as the schema does, and a remembered meaning does not rewrite
// it ("fines" stays fines, whatever "fine" was once taken for).
func (m *Manager) schemaWord(lk link.Link) bool {
	for _, c := range m.linker.Span(lk.Span, nil).Candidates {
		switch c.Evidence {
		case link.Exact, link.Inflection, link.Part:
			return true
		}
	}
	return false
}

func (st *convState) word(span string) *wordUse {
	for i := range st.Words {
		if st.Words[i].Word == span {
			return &st.Words[i]
		}
	}
	return nil
}

// engineQuestion is the question in the schema's words: each word read as
// an element is replaced by the element's name ("how many clients" →
// "how many customers"), so that every engine reads it as the schema does.
func (st *convState) engineQuestion() string {
	q := st.Question
	for _, w := range st.Words {
		re, err := regexp.Compile(`(?i)\b` + strings.ReplaceAll(regexp.QuoteMeta(w.Word), " ", `\s+`) + `\b`)
		if err != nil {
			continue
		}
		q = re.ReplaceAllLiteralString(q, w.Element.Words())
	}
	return q
}

// wordsApplied are the remembered words as facts the answer says it used
// ("Using your word: 'clients' = customers · change"); like a linked
// phrase they rule out no reading (Key is zero), and "change" reads the
// question again without them.
func (st *convState) wordsApplied() []appliedFact {
	var out []appliedFact
	for _, w := range st.Words {
		if w.FactID == "" {
			continue
		}
		out = append(out, appliedFact{FactID: w.FactID, Token: termOf(w.Element), Phrase: w.Word, Meaning: w.Meaning, Scope: w.Scope, Word: true, Source: w.Source})
	}
	return out
}

// elementLabel is an element in plain words: "Customers", "Carrier",
// "Carrier is UPS".
func (m *Manager) elementLabel(e link.Element) string {
	switch e.Kind {
	case "table":
		return upperFirst(m.labels.Table(e.Table))
	case "value":
		return upperFirst(m.labels.Column(e.Table+"."+e.Column)) + " is " + e.Value
	}
	return upperFirst(m.labels.Column(e.Table + "." + e.Column))
}

// elementExample is one example value of an element: a table's first
// text column's, a column's own.
func (m *Manager) elementExample(e link.Element) string {
	if e.Kind == "column" {
		return m.labels.Example(e.Table + "." + e.Column)
	}
	if e.Kind != "table" {
		return ""
	}
	for _, t := range m.deps.Catalog.Snapshot().Schema.Tables {
		if t.Name != e.Table {
			continue
		}
		for _, c := range t.Columns {
			if c.DataType == "varchar" || c.DataType == "char" || c.DataType == "text" {
				if ex := m.labels.Example(t.Name + "." + c.Name); ex != "" {
					return ex
				}
			}
		}
	}
	return ""
}

// troubled are the words the readings could not place: left reports
// those the likeliest reading leaves out (every word when there is no
// reading), defined those a reading gives a meaning of its own to.
func (st *convState) troubled() (left, defined func(span string) bool) {
	live := st.live()
	if len(live) == 0 {
		all := func(string) bool { return true }
		return all, all
	}
	unused, defs := map[string]bool{}, map[string]bool{}
	best, _ := st.best()
	for _, i := range live {
		c := st.Candidates[i]
		if c.Group == best {
			for _, u := range c.Unused {
				for _, w := range strings.Fields(strings.ToLower(u)) {
					unused[w] = true
				}
			}
		}
		for _, d := range c.Defines {
			if !d.Stated {
				for _, w := range strings.Fields(strings.ToLower(d.Phrase)) {
					defs[w] = true
				}
			}
		}
	}
	in := func(set map[string]bool) func(string) bool {
		return func(span string) bool {
			for _, w := range strings.Fields(span) {
				if set[w] {
					return true
				}
			}
			return false
		}
	}
	return in(unused), in(defs)
}

// synonymOfTable reports whether the word's best link is a table by a
// synonym only ("clients" for customers): a reading may read the table
// for another word and count something else for this one (orders of
// customers for "how many clients"), so the word is asked about (once:
// the answer is remembered) and then read as the table's own name.
func (st *convState) synonymOfTable(lk link.Link) bool {
	c := lk.Candidates[0]
	return c.Element.Kind == "table" && (c.Evidence == link.Synonym || c.Evidence == link.Catalog)
}

// placed reports whether a live reading reads one of the elements the
// word links to by evidence of its own (its name, a part of a name, the
// lexicon, a comment): the readings already took it for one of them
// ("citations" read as citation_count), and asking would only repeat it.
func (st *convState) placed(lk link.Link) bool {
	for _, c := range lk.Candidates {
		if c.Score < 0.45 || c.Element.Kind == "value" {
			continue
		}
		name := c.Element.Table
		if c.Element.Kind == "column" {
			name = c.Element.Column
		}
		re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(name) + `\b`)
		for _, i := range st.live() {
			if re.MatchString(st.Candidates[i].SQL) {
				return true
			}
		}
	}
	return false
}

// wordQuestion finds a word worth asking about: a noun of the question
// that the schema's names do not use (a word of a name, "fine" of
// fine_amount, is left to the readings' own questions), that links
// to nothing with confidence and that the readings could not place. It is asked before the readings built on it.
func (m *Manager) wordQuestion(ctx context.Context, st *convState) *pendingQ {
	if m.cfg.MaxRounds == NeverAsk || st.Round >= m.cfg.MaxRounds+st.Rejected || len(st.WordsAsked) >= maxWordQuestions {
		return nil
	}
	facts := m.applicableFacts(ctx, st.Who)
	links := m.linker.Question(st.Question, vocabulary(facts, st.Skipped))
	left, defined := st.troubled()
	for _, lk := range links {
		if lk.Confident() || st.word(lk.Span) != nil || slices.Contains(st.WordsAsked, lk.Span) || !m.linker.NounIn(st.Question, lk.Span) || m.linker.Measure(lk.Span) || properName(st.Question, lk.Span) || m.schemaWord(lk) {
			continue
		}
		// Evidence of its own (the lexicon, a synonym, a comment) makes a
		// word worth asking about wherever the readings put it; a word
		// with none is asked about only when the readings left it out.
		own := len(lk.Candidates) > 0 && lk.Candidates[0].Score > 0.2
		// A word the readings define among themselves ("value" as one of
		// three amounts) gets their own question, which says more.
		elsewhere := own && !defined(lk.Span) && (!st.placed(lk) || st.synonymOfTable(lk)) && lk.Candidates[0].Score >= 0.55
		if !(own && (left(lk.Span) || elsewhere) || !own && left(lk.Span)) {
			continue
		}
		var sugg []link.Candidate
		for _, c := range m.linker.Suggest(lk, links, 3*MaxOptions) {
			if len(sugg) < MaxOptions && (c.Element.Kind == "table" || !m.joinColumn(c.Element) && !slices.ContainsFunc(sugg, func(o link.Candidate) bool { return o.Element.Table == c.Element.Table })) {
				sugg = append(sugg, c)
			}
		}
		if len(sugg) > 0 && sugg[0].Evidence == link.Context && !m.linker.Known(lk.Span) {
			// Only the question's own tables to offer for a word no
			// lexicon knows (a typo, a code): the readings' own
			// questions serve better.
			continue
		}
		span := lk.Span
		if len(sugg) == 0 {
			if len(st.live()) > 0 {
				continue
			}
			// Nothing in the data looks like it, and no reading was
			// found: the word is asked about in the person's own terms,
			// with the next unknown noun when the two make one phrase
			// ("basket size").
			if k := slices.IndexFunc(links, func(o link.Link) bool { return o.Span == lk.Span }); k+1 < len(links) && len(links[k+1].Candidates) == 0 &&
				strings.Contains(strings.ToLower(st.Question), lk.Span+" "+links[k+1].Span) {
				span = lk.Span + " " + links[k+1].Span
			}
		}
		q := &pendingQ{ID: newID(), Key: vocabKey, Phrase: span, Prompt: fmt.Sprintf("By '%s', do you mean:", span), Kind: AmbColumn}
		if len(sugg) == 0 {
			q.Prompt = fmt.Sprintf("I don't know '%s' in this data. What is it: a table or column name, or say it in words?", span)
		}
		for _, c := range sugg {
			el := c.Element
			q.Options = append(q.Options, pendingOpt{Label: m.elementLabel(el), Example: m.elementExample(el), Element: &el})
		}
		return q
	}
	return nil
}

// joinColumn reports whether a column is a key or a join column: a word
// for a thing is the thing's table, not the number that refers to it.
func (m *Manager) joinColumn(e link.Element) bool {
	if e.Kind != "column" {
		return false
	}
	if m.labels.IsKey(e.Table + "." + e.Column) {
		return true
	}
	for _, j := range m.deps.Catalog.Snapshot().Schema.Joins {
		if strings.EqualFold(j.FromTable, e.Table) && strings.EqualFold(j.FromColumn, e.Column) ||
			strings.EqualFold(j.ToTable, e.Table) && strings.EqualFold(j.ToColumn, e.Column) {
			return true
		}
	}
	return false
}

// properName reports whether the question writes the span capitalized
// inside a sentence ("French singers", "the United States"): a name or a
// nationality is a value to look for, not a word for a table or column.
func properName(question, span string) bool {
	re, err := regexp.Compile(`(?i)\b` + strings.ReplaceAll(regexp.QuoteMeta(span), " ", `\s+`) + `\b`)
	if err != nil {
		return false
	}
	locs := re.FindAllStringIndex(question, -1)
	for _, l := range locs {
		if l[0] == 0 || !unicode.IsUpper(rune(question[l[0]])) {
			return false
		}
	}
	return len(locs) > 0
}

// askWord asks about a word when one needs it; ok reports whether it did.
func (m *Manager) askWord(ctx context.Context, st *convState, conv string) ([]Reply, bool, error) {
	if m.cfg.NoWordQuestions {
		return nil, false, nil
	}
	q := m.wordQuestion(ctx, st)
	if q == nil {
		return nil, false, nil
	}
	st.WordsAsked = append(st.WordsAsked, q.Phrase)
	st.Pending = q
	st.Status = statusAsking
	st.Round++
	st.Questions++
	if err := m.save(ctx, st); err != nil {
		return nil, true, err
	}
	m.obs.Clarification(q.Kind)
	return []Reply{m.clarificationReply(st, conv)}, true, nil
}

// unknownWords names the question's nouns that link to nothing, for the
// reply that could not match the question at all.
func (m *Manager) unknownWords(st *convState) string {
	var out []string
	for _, lk := range m.linker.Question(st.Question, nil) {
		if len(lk.Candidates) == 0 && m.linker.NounIn(st.Question, lk.Span) {
			out = append(out, "'"+lk.Span+"'")
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " I don't know these words in this data: " + strings.Join(out, ", ") + "."
}

// chooseWord takes the element the person picked for a word: it is
// remembered as their word, and the question is read again with it.
func (m *Manager) chooseWord(ctx context.Context, st *convState, ev Event, q *pendingQ, el link.Element, label string, resolved *Resolved) ([]Reply, error) {
	use := wordUse{Word: q.Phrase, Element: el, Scope: ontology.ScopeUser, Meaning: lowerFirst(m.elementLabel(el))}
	f := ontology.Fact{Scope: ontology.ScopeUser, Owner: ownerKeys(ev.Who).User, Warehouse: m.cfg.Warehouse,
		Phrase: q.Phrase, Kind: ontology.KindWord, Target: ontology.Target{Slot: ontology.SlotWord, Choice: termOf(el)},
		Meaning: use.Meaning, Question: st.Question}
	if saved, err := m.deps.Facts.Learn(ctx, f); err != nil {
		m.log.Warn("cannot remember a word", "word", q.Phrase, "err", err)
	} else {
		use.FactID = saved.ID
	}
	st.Words = append(st.Words, use)
	st.History = append(st.History, closedQ{ID: q.ID, Prompt: q.Prompt, Choice: label})
	st.addStep(m.cfg.Now(), clarificationStep(q, label, false))
	st.Pending = nil
	st.Candidates = nil
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil || st.Candidates == nil {
		if err == nil && len(replies) > 0 && st.Pending == nil {
			err = m.save(ctx, st)
		}
		return withResolved(replies, resolved), err
	}
	more, err := m.advance(ctx, st, ev)
	return withResolved(append(replies, more...), resolved), err
}

// typedWord reads what was typed under Other… for a word: the name of a
// table or column is taken as the word's element; anything else is a
// definition in words, which the engine reads with the question.
func (m *Manager) typedWord(ctx context.Context, st *convState, ev Event, q *pendingQ, text string) ([]Reply, error) {
	resolved := &Resolved{ClarificationID: q.ID, Prompt: q.Prompt, Choice: text}
	if !noneOfThese(text) {
		lk := m.linker.Span(text, nil)
		if len(lk.Candidates) > 0 && (lk.Candidates[0].Evidence == link.Exact || lk.Candidates[0].Evidence == link.Inflection) && lk.Candidates[0].Element.Kind != "value" {
			return m.chooseWord(ctx, st, ev, q, lk.Candidates[0].Element, text, resolved)
		}
	}
	st.History = append(st.History, closedQ{ID: q.ID, Prompt: q.Prompt, Choice: text})
	st.addStep(m.cfg.Now(), clarificationStep(q, text, true))
	st.Pending = nil
	if !noneOfThese(text) {
		fb := Feedback{Kind: FeedbackEdit, Text: text, About: q.Phrase, Author: ownerKeys(ev.Who).User}
		st.Feedback = append(st.Feedback, fb)
	}
	replies, err := m.generate(ctx, st, ev.Conversation)
	if err != nil || st.Candidates == nil {
		if err == nil && st.Pending == nil {
			err = m.save(ctx, st)
		}
		return withResolved(replies, resolved), err
	}
	more, err := m.advance(ctx, st, ev)
	return withResolved(append(replies, more...), resolved), err
}
