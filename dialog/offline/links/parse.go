package links

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
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

// SingularOf is the singular of a plural noun (sqlshape.Singular).
func SingularOf(w string) string { return sqlshape.Singular(w) }

// functionWords carry no meaning of their own in a question about data:
// closed-class words (articles, pronouns, prepositions, conjunctions,
// auxiliaries, question words) and the verbs of asking.
var functionWords = words.Set("function")

// IsFunctionWord says whether a token needs no explaining.
func IsFunctionWord(t token.Token) bool {
	return t.IsNum && !t.Quoted || functionWords[t.Low] || StopWords[t.Low] || len([]rune(t.Low)) < 2
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

// ListVerbs open a list of outputs.
var ListVerbs = words.Set("listverb")

// stopWords carry no meaning for linking.
var StopWords = words.Set("stop")
