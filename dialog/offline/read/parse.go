package read

import (
	"sort"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Analysis is what the reader found in a question and its feedback: the
// tokens (each marked when a recogniser took it) and the mentions of
// values, tables, columns, times and the elements asked for. It is the
// hand-off to the plan stage, which reads it and does not change its
// mentions.
type Analysis struct {
	// Hits caches the catalog's column search by phrase: word accounting
	// looks the same phrases up for every reading.
	Hits     map[string][]catalog.ColumnHit
	Toks     []token.Token
	Values   []*ValueMention
	Entities []*EntityMention
	Columns  []*ColMention
	Times    []*TimeMention
	Comps    []*CompMention
	Count    bool
	// CountKinds: "how many kinds of / different X" counts distinct values.
	CountKinds bool
	CountAt    int
	Agg        string
	AggAt      int
	// AggList: "the mean, lowest and highest loan count" asks for each of
	// those aggregates of one measure, in that order.
	AggList []AggItem
	Sup     *SuperMention
	// SupCol is a superlative inside a column name ("highest point").
	SupCol *SuperMention
	// Nested is a superlative naming a related thing: a condition.
	Nested *NestedMention
	// Share asks for each group's part of the total; change for each
	// period's change from the one before.
	Share  *Span
	Change *ChangeMention
	Groups []*GroupMention
	// Linked are the defined phrases linked to their columns (defined.go).
	Linked []LinkedFact
	HowAdj string // "big", "long", "high", "old" in "how big is…"
	// Order is an ordering clause ("sorted from highest to lowest").
	Order *OrderMention
	// Likes are text patterns ("whose name starts with 'J'").
	Likes []*LikeMention
	// EventVerbs are the stems of the events the question names
	// ("shipped" → ship…), whose dates time conditions prefer.
	EventVerbs []string
	Where      bool // "where is…"
	// Removes are what feedback asked to leave out of the answer ("drop
	// the city column" → "city").
	Removes []string
	// About maps a feedback clause to the phrase it answered ("active").
	About map[int]string
	// Typed are the typed meanings of the request, and typedMeasures the
	// computed measures built into readings (typed.go).
	Typed         []TypedDef
	TypedMeasures []TypedMeasure
	TypedMarkers  []sqlexpr.Expr
}

// Word is token i in lower case, "" past either end.
func (a *Analysis) Word(i int) string {
	if i < 0 || i >= len(a.Toks) {
		return ""
	}
	return a.Toks[i].Low
}

// Seq says whether the tokens from i are words, in order.
func (a *Analysis) Seq(i int, words ...string) bool {
	for k, w := range words {
		if a.Word(i+k) != w {
			return false
		}
	}
	return true
}

// Phrase is the tokens from..to as written.
func (a *Analysis) Phrase(from, to int) string {
	var parts []string
	for i := from; i < to && i < len(a.Toks); i++ {
		parts = append(parts, a.Toks[i].Raw)
	}
	return strings.Join(parts, " ")
}

// Analyse runs the recognisers over the question and its feedback.
func (e *Reader) Analyse(question string, feedback []dialog.Feedback, facts []ontology.Fact, now time.Time) *Analysis {
	a := &Analysis{CountAt: -1, AggAt: -1, About: map[int]string{}, Typed: typedDefs(feedback, facts)}
	question = percentSign.ReplaceAllString(question, "${1} percent of")
	a.Toks = token.JoinNumbers(token.Lex(question, 0))
	for i, f := range feedback {
		if f.Term != nil {
			continue // read by the dialog already; built as typed (typed.go)
		}
		a.Toks = append(a.Toks, token.JoinNumbers(token.Lex(f.Text, i+1))...)
		if f.About != "" {
			a.About[i+1] = strings.ToLower(f.About)
		}
	}
	a.findRemovals()
	a.findTimes(now)
	a.findComparisons()
	a.findUnits()
	a.findOrdering()
	a.findPatterns()
	e.protectColumnNames(a)
	e.protectStoredValues(a)
	a.findIntents()
	a.findAggList()
	e.findDefinedPhrases(a, facts)
	a.findShares()
	e.findKeyEquals(a)
	e.findKeyColumns(a)
	e.findNamedValues(a)
	e.findValues(a)
	e.protectColumnPhrases(a)
	e.findEntities(a)
	e.findColumns(a)
	e.findColumnNumbers(a)
	e.countRanking(a)
	e.findListItems(a)
	e.superlativeOfColumn(a)
	e.bindNamedColumns(a)
	e.findRelatedEntities(a)
	e.preferNamedTable(a)
	e.findComputed(a)
	e.findDifferences(a)
	e.findRatio(a)
	e.findEvents(a)
	return a
}

// dropVerbs take a column out of the answer (verbs.tsv); columnNouns end
// what they name (nouns.tsv).
var (
	dropVerbs   = words.Set("dropverb")
	columnNouns = words.Set("columnnoun")
)

// findRemovals notes "drop/remove/without the X column" feedback.
func (a *Analysis) findRemovals() {
	for i, t := range a.Toks {
		if t.Clause == 0 {
			continue
		}
		switch {
		case dropVerbs[t.Low]:
			j := i + 1
			for a.Word(j) == "the" {
				j++
			}
			var words []string
			for ; j < len(a.Toks) && a.Toks[j].Clause == t.Clause && !columnNouns[a.Word(j)]; j++ {
				words = append(words, a.Toks[j].Low)
				a.Toks[j].Used = true
			}
			a.Toks[i].Used = true
			if columnNouns[a.Word(j)] {
				a.Toks[j].Used = true
			}
			if len(words) > 0 {
				a.Removes = append(a.Removes, strings.Join(words, " "))
			}
		}
	}
}

// SingularOf is the singular of a plural noun (sqlshape.Singular).
func SingularOf(w string) string { return sqlshape.Singular(w) }

// functionWords carry no meaning of their own in a question about data:
// closed-class words (articles, pronouns, prepositions, conjunctions,
// auxiliaries, question words) and the verbs of asking.
var functionWords = words.Set("function")

// IsFunctionWord says whether a token needs no explaining.
func IsFunctionWord(t token.Token) bool {
	return t.IsNum && !t.Quoted || functionWords[t.Low] || stopWords[t.Low] || len([]rune(t.Low)) < 2
}

// SpanOf is where a mention's phrase ends when it starts at token at.
func (a *Analysis) SpanOf(at int, phrase string) int {
	for end := at + 1; end <= len(a.Toks); end++ {
		if a.Phrase(at, end) == phrase {
			return end
		}
	}
	return at + 1
}

// SortedNames are the set's members in order.
func SortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
