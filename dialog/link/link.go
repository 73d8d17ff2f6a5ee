// Package link is the linking stage: each word (or two-word phrase) of a
// question is linked to the schema elements it may stand for — tables,
// columns, stored values — with a score and the evidence that links them:
// the element's own name or an inflection of it, a related word in the
// lexicon, the catalog's synonyms, a column comment, a stored value, the
// person's own vocabulary or the team glossary. Both engines read the same
// links; a content word that links to nothing with confidence is what the
// dialog asks about ("By 'clients', do you mean: Customers · …").
package link

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Evidence is why a span links to an element.
type Evidence string

// Kinds of evidence, strongest first.
const (
	Exact      Evidence = "exact"      // the element's own name
	Inflection Evidence = "inflection" // the name in another form: "customer" for customers
	Vocabulary Evidence = "vocabulary" // the person's own word, remembered from an answer
	Glossary   Evidence = "glossary"   // the team glossary's synonyms
	Value      Evidence = "value"      // a stored value of the column
	Synonym    Evidence = "synonym"    // a lexicon synonym: "clients" for customers
	Part       Evidence = "part"       // a word of a longer name: "fines" for loans.fine_amount
	Derivation Evidence = "derivation" // a lexicon derivation: "shipping" for shipments
	Hypernym   Evidence = "hypernym"   // the lexicon says it is a kind of it: "trucks" for vehicles
	Hyponym    Evidence = "hyponym"    // the lexicon says the element is a kind of it: "employees" for sales reps
	Catalog    Evidence = "catalog"    // the catalog's synonyms: "buyers" for customers
	Comment    Evidence = "comment"    // a word of the element's comment
	Context    Evidence = "context"    // nothing but the tables the rest of the question names
)

// score is the weight of each kind of evidence; a link of Confident or
// more settles the word.
var score = map[Evidence]float64{
	Exact: 1, Inflection: 0.95, Vocabulary: 1, Glossary: 0.95, Value: 0.9,
	Synonym: 0.7, Part: 0.65, Derivation: 0.6, Catalog: 0.55, Comment: 0.5, Hypernym: 0.45, Hyponym: 0.4, Context: 0.2,
}

// Confident is the score from which a link settles what a word means.
const Confident = 0.9

// Element is a part of the schema a word may stand for.
type Element struct {
	Kind   string `json:"kind"` // "table", "column" or "value"
	Table  string `json:"table"`
	Column string `json:"column,omitempty"`
	Value  string `json:"value,omitempty"`
}

// Name is the element as the schema names it: "customers",
// "shipments.carrier", "shipments.carrier = UPS".
func (e Element) Name() string {
	switch e.Kind {
	case "table":
		return e.Table
	case "value":
		return e.Table + "." + e.Column + " = " + e.Value
	}
	return e.Table + "." + e.Column
}

// Words is the element in the words a question would use for it: the
// table's or column's name with underscores as spaces ("sales reps").
func (e Element) Words() string {
	switch e.Kind {
	case "table":
		return strings.ReplaceAll(e.Table, "_", " ")
	case "value":
		return e.Value
	}
	return strings.ReplaceAll(e.Column, "_", " ")
}

// Candidate is one element a span may stand for.
type Candidate struct {
	Element  Element  `json:"element"`
	Score    float64  `json:"score"`
	Evidence Evidence `json:"evidence"`
}

// Link is a span of the question with its candidates, best first.
type Link struct {
	Span       string      `json:"span"`
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Confident reports whether the best candidate settles the span.
func (l Link) Confident() bool {
	return len(l.Candidates) > 0 && l.Candidates[0].Score >= Confident
}

// Word is a remembered meaning of a word: the person's vocabulary or the
// team glossary's synonyms.
type Word struct {
	Word    string
	Element Element
	// Team is set for the glossary's words, unset for the person's own.
	Team bool
}

// Linker links questions against one schema. Build it with New; it is
// read-only afterwards and safe for concurrent use.
type Linker struct {
	cat *catalog.Catalog
	lex *lexicon.Lexicon
	// names are the tables' and columns' names in words, with the element.
	names []named
	// comments are the words of each element's comment.
	comments []named
	// cache holds schemaLinks by span; cached counts its entries.
	cache  sync.Map
	cached atomic.Int64
}

type named struct {
	words string // lower-case, spaces between words
	el    Element
}

// New indexes the catalog's schema; lex may be nil (no lexicon evidence).
func New(cat *catalog.Catalog, lex *lexicon.Lexicon) *Linker {
	l := &Linker{cat: cat, lex: lex}
	snap := cat.Snapshot()
	for _, t := range snap.Schema.Tables {
		te := Element{Kind: "table", Table: t.Name}
		l.names = append(l.names, named{words: Split(t.Name), el: te})
		for _, w := range commentWords(t.Comment) {
			l.comments = append(l.comments, named{words: w, el: te})
		}
		for _, c := range t.Columns {
			ce := Element{Kind: "column", Table: t.Name, Column: c.Name}
			if w := Split(c.Name); w != "id" {
				l.names = append(l.names, named{words: w, el: ce})
			}
			for _, w := range commentWords(c.Comment) {
				l.comments = append(l.comments, named{words: w, el: ce})
			}
		}
	}
	return l
}

// Split turns an identifier into lower-case words: "sales_reps" → "sales
// reps", "shippedAt" → "shipped at".
func Split(id string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range id {
		switch {
		case r == '_' || r == '-' || r == ' ':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// commentWords are the content words of a comment and its two-word phrases.
func commentWords(comment string) []string {
	ws := words(comment)
	var out []string
	for i, w := range ws {
		if !function[w] {
			out = append(out, w)
		}
		if i+1 < len(ws) && !function[w] && !function[ws[i+1]] {
			out = append(out, w+" "+ws[i+1])
		}
	}
	return out
}

// words are the lower-case words of s (letters, digits and apostrophes).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// Content reports whether w is a word that may name data: not a function
// word, not a number, at least three letters.
func Content(w string) bool {
	if len(w) < 3 || function[w] {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// Question links the content words of question, and each two-word phrase
// of them that names an element as a whole, in question order. vocab are
// the remembered words of the person and the team.
func (l *Linker) Question(question string, vocab []Word) []Link {
	ws := words(question)
	var out []Link
	for i := 0; i < len(ws); i++ {
		if i+1 < len(ws) && Content(ws[i]) && Content(ws[i+1]) {
			pair := ws[i] + " " + ws[i+1]
			if lk := l.Span(pair, vocab); lk.Confident() || remembered(lk) {
				out = append(out, lk)
				i++
				continue
			}
		}
		if !Content(ws[i]) {
			continue
		}
		out = append(out, l.Span(ws[i], vocab))
	}
	return out
}

func remembered(lk Link) bool {
	return len(lk.Candidates) > 0 && (lk.Candidates[0].Evidence == Vocabulary || lk.Candidates[0].Evidence == Glossary)
}

// Span links one word or phrase.
func (l *Linker) Span(span string, vocab []Word) Link {
	span = strings.Join(words(span), " ")
	lk := Link{Span: span}
	best := map[Element]Candidate{}
	add := func(c Candidate) {
		if old, ok := best[c.Element]; !ok || old.Score < c.Score {
			best[c.Element] = c
		}
	}
	for _, v := range vocab {
		if l.same(span, strings.ToLower(v.Word)) {
			ev := Vocabulary
			if v.Team {
				ev = Glossary
			}
			add(Candidate{Element: v.Element, Score: score[ev], Evidence: ev})
		}
	}
	for _, c := range l.schemaLinks(span) {
		add(c)
	}
	for _, c := range best {
		lk.Candidates = append(lk.Candidates, c)
	}
	sortCandidates(lk.Candidates)
	return lk
}

// schemaLinks are the span's candidates from the schema and the lexicon
// alone, computed once per span: the schema does not change under a
// Linker, and a question's words are linked several times a turn.
func (l *Linker) schemaLinks(span string) []Candidate {
	if v, ok := l.cache.Load(span); ok {
		return v.([]Candidate)
	}
	best := map[Element]Candidate{}
	add := func(e Element, ev Evidence) {
		c := Candidate{Element: e, Score: score[ev], Evidence: ev}
		if old, ok := best[e]; !ok || old.Score < c.Score {
			best[e] = c
		}
	}
	for _, n := range l.names {
		switch {
		case span == n.words:
			add(n.el, Exact)
		case l.same(span, n.words):
			add(n.el, Inflection)
		case l.lex != nil && l.lex.RelatedTo(span, n.words):
			add(n.el, l.relation(span, n.words))
		case l.lex != nil && l.lex.Broader(span, n.words):
			add(n.el, Hypernym)
		case l.part(span, n.words):
			add(n.el, Part)
		case l.lex != nil && l.lex.Broader(n.words, span):
			add(n.el, Hyponym)
		}
	}
	for _, c := range l.compoundHeads(span) {
		add(c, Hypernym)
	}
	for _, n := range l.comments {
		switch {
		case l.same(span, n.words):
			add(n.el, Comment)
		case l.lex != nil && strings.Contains(n.words, " ") && l.lex.RelatedTo(span, n.words):
			// "salespeople" and a comment's "sales representatives".
			add(n.el, l.relation(span, n.words))
		}
	}
	for _, t := range l.cat.Terms(span) {
		for _, syn := range l.cat.Synonyms(t) {
			for _, n := range l.names {
				if ts := l.cat.Terms(n.words); len(ts) == 1 && ts[0] == syn {
					add(n.el, Catalog)
				}
			}
		}
	}
	for _, h := range l.cat.SearchValues(span, 5) {
		if h.Score >= 0.9 {
			add(Element{Kind: "value", Table: h.Table, Column: h.Column, Value: h.Value}, Value)
		}
	}
	out := make([]Candidate, 0, len(best))
	for _, c := range best {
		out = append(out, c)
	}
	sortCandidates(out)
	if l.cached.Add(1) <= maxCached {
		l.cache.Store(span, out)
	}
	return out
}

// compoundHeads are the elements named by the last word of a compound the
// lexicon relates to a one-word span: "farmhand" is a "farm worker", a
// kind of worker, so a workers table is what it names. Compounds with a
// function word ("plot of land") put their head first and are skipped.
func (l *Linker) compoundHeads(span string) []Element {
	if l.lex == nil || strings.Contains(span, " ") {
		return nil
	}
	var out []Element
	for _, r := range l.lex.Related(span) {
		ws := strings.Fields(r)
		if len(ws) < 2 || !all(ws, Content) {
			continue
		}
		for _, n := range l.names {
			if l.same(ws[len(ws)-1], n.words) && !slices.Contains(out, n.el) {
				out = append(out, n.el)
			}
		}
	}
	return out
}

func all(ws []string, f func(string) bool) bool {
	for _, w := range ws {
		if !f(w) {
			return false
		}
	}
	return true
}

// maxCached bounds the spans a Linker remembers (the words of questions
// are few; a flood of odd ones must not grow it for ever).
const maxCached = 20000

// sortCandidates orders by score, tables before columns before values on
// a tie, then by name, so that links are stable.
func sortCandidates(cs []Candidate) {
	rank := map[string]int{"table": 0, "column": 1, "value": 2}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if rank[a.Element.Kind] != rank[b.Element.Kind] {
			return rank[a.Element.Kind] < rank[b.Element.Kind]
		}
		return a.Element.Name() < b.Element.Name()
	})
}

// same reports whether a and b are the same words up to inflection.
func (l *Linker) same(a, b string) bool {
	if a == b {
		return true
	}
	if l.lex != nil {
		for _, x := range l.lex.Lemmas(a) {
			for _, y := range l.lex.Lemmas(b) {
				if x == y {
					return true
				}
			}
		}
	}
	ta, tb := l.cat.Terms(a), l.cat.Terms(b)
	return len(ta) > 0 && strings.Join(ta, " ") == strings.Join(tb, " ")
}

// part reports whether a one-word span is, up to inflection, a word of
// a longer name ("fines" of "fine amount"): the name's other words say
// what of it is kept, the span says what it is about. A column's name
// ending in "id" is the key of another thing, not the thing.
func (l *Linker) part(span, name string) bool {
	ws := strings.Fields(name)
	if strings.Contains(span, " ") || len(ws) < 2 || ws[len(ws)-1] == "id" {
		return false
	}
	for _, w := range ws {
		if Content(w) && l.same(span, w) {
			return true
		}
	}
	return false
}

// relation tells a derivation ("ship" and "shipment", one stem) from a
// synonym ("client" and "customer"): the lexicon relates both.
func (l *Linker) relation(a, b string) Evidence {
	la, lb := a, b
	if ls := l.lex.Lemmas(a); len(ls) > 0 {
		la = ls[0]
	}
	if ls := l.lex.Lemmas(b); len(ls) > 0 {
		lb = ls[0]
	}
	n := 0
	for n < len(la) && n < len(lb) && la[n] == lb[n] {
		n++
	}
	if n >= 4 {
		return Derivation
	}
	return Synonym
}

// Unknown are the spans of links that no candidate settles, in question
// order.
func Unknown(links []Link) []Link {
	var out []Link
	for _, lk := range links {
		if !lk.Confident() {
			out = append(out, lk)
		}
	}
	return out
}

// Suggest ranks what an unsettled span may stand for: its own candidates
// first, then, when it has fewer than n, the text columns of the tables the
// rest of the question names (a word beside "shipments" is likelier one of
// theirs), then those tables themselves. At most n, one per element.
func (l *Linker) Suggest(lk Link, links []Link, n int) []Candidate {
	var out []Candidate
	seen := map[Element]bool{}
	push := func(c Candidate) {
		if len(out) < n && !seen[c.Element] {
			seen[c.Element] = true
			out = append(out, c)
		}
	}
	for _, c := range lk.Candidates {
		if c.Element.Kind != "value" {
			push(c)
		}
	}
	var ctx []string
	for _, o := range links {
		if o.Span == lk.Span || !o.Confident() {
			continue
		}
		if t := o.Candidates[0].Element.Table; t != "" && !contains(ctx, t) {
			ctx = append(ctx, t)
		}
	}
	snap := l.cat.Snapshot()
	for _, t := range ctx {
		for _, c := range groupable(snap, t) {
			push(Candidate{Element: Element{Kind: "column", Table: t, Column: c}, Score: score[Context], Evidence: Context})
		}
	}
	return out
}

// groupable are a table's text columns with few distinct values, fewest
// first: the columns a word such as "courier" beside the table most often
// names.
func groupable(snap *warehouse.Snapshot, table string) []string {
	type col struct {
		name     string
		distinct int64
	}
	var cs []col
	for _, t := range snap.Schema.Tables {
		if !strings.EqualFold(t.Name, table) {
			continue
		}
		for _, c := range t.Columns {
			switch c.DataType {
			case "varchar", "char", "text", "enum":
			default:
				continue
			}
			p := snap.Profile(t.Name, c.Name)
			if p == nil || p.Distinct <= 1 || p.Rows > 0 && p.Distinct*2 > p.Rows {
				continue
			}
			cs = append(cs, col{c.Name, p.Distinct})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].distinct < cs[j].distinct })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// function are words that never name data: articles, pronouns,
// prepositions, auxiliaries, and the words questions are asked with.
var function = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the this that these those there here it its they them their we our us you your i me my he she his her
of in on at to from by for with without into onto over under about per as than then and or nor but not no yes
is are was were be been being am do does did done have has had having will would shall should can could may might must
what which who whom whose when where why how whats many much more most less least few each every all any some both either neither other others
list show give tell find get let see display return name names number count total sum average mean top bottom first last
please also only just ever very so such same own between during before after since until while within through
one two three four five six seven eight nine ten dont doesnt didnt isnt arent
among amongst id ids amount order ordered sort sorted ascending descending record records row rows entry entries
result results information info detail details data time times`) {
		function[w] = true
	}
}

// Same reports whether a and b are the same words up to inflection.
func (l *Linker) Same(a, b string) bool {
	return l.same(strings.Join(words(a), " "), strings.Join(words(b), " "))
}

// Known reports whether the lexicon knows the span's last word (a word
// it does not know may be a typo or a code rather than a thing's name).
func (l *Linker) Known(span string) bool {
	ws := words(span)
	return l.lex != nil && len(ws) > 0 && l.lex.Known(ws[len(ws)-1])
}

// Measure reports whether a span names a period, a unit or a number —
// how a question counts or when, not what it is about ("month",
// "weekends", "kilometers", "integer"): the lexicon says it is a kind of
// time period, unit of measurement or number.
func (l *Linker) Measure(span string) bool {
	ws := words(span)
	if l.lex == nil || len(ws) == 0 {
		return false
	}
	w := ws[len(ws)-1]
	for _, kind := range []string{"time period", "time unit", "unit of measurement", "number"} {
		if l.lex.Broader(w, kind) {
			return true
		}
	}
	return false
}

// NounIn reports whether span may name a thing where question says it:
// Noun says so, or its last word has a noun sense, is not mostly an
// adjective itself, and the word before it is ("the highest mark", "how
// many marks", "the lowest charge"): a word that is mostly a verb is a
// noun after an adjective. An adjective after another ("many active
// customers") stays one.
func (l *Linker) NounIn(question, span string) bool {
	if l.Noun(span) {
		return true
	}
	sp := words(span)
	if l.lex == nil || len(sp) == 0 {
		return false
	}
	if w := sp[len(sp)-1]; !l.lex.Is(w, lexicon.Noun) || l.lex.Share(w, lexicon.Adj) >= 0.5 || l.verbForm(w) {
		return false
	}
	ws := words(question)
	for i := 1; i+len(sp) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(sp)], sp) && l.lex.Share(ws[i-1], lexicon.Adj) >= 0.5 {
			return true
		}
	}
	return false
}

// verbForm reports whether w is a form of a verb whose base is not one of
// w's nouns: "lost" (lose), "given" (give) are verbs and adjectives
// wherever they stand; "marks" (mark) is either.
func (l *Linker) verbForm(w string) bool {
	nouns := map[string]bool{}
	ss := l.lex.Senses(w)
	for _, s := range ss {
		if s.POS == lexicon.Noun {
			nouns[s.Lemma] = true
		}
	}
	for _, s := range ss {
		if s.POS == lexicon.Verb && !nouns[s.Lemma] {
			return true
		}
	}
	return false
}

// Noun reports whether a span may name a thing: its last word is mostly a
// noun, or a word the lexicon does not know.
func (l *Linker) Noun(span string) bool {
	ws := words(span)
	if len(ws) == 0 {
		return false
	}
	if l.lex == nil {
		return true
	}
	w := ws[len(ws)-1]
	if !l.lex.Known(w) {
		return true
	}
	return l.lex.Share(w, lexicon.Noun) >= 0.5
}
