package links

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/ontology"
)

// SuperMention is a superlative phrase ("the three oldest"): its
// direction, how many rows it keeps, and the measure it hints at.
type SuperMention struct {
	Phrase string
	Desc   bool
	Limit  int
	Hint   string // "size", "length", "height", "population", "date", "value", "" (any measure)
	NounAt int
	At     int
	// ExplicitLimit is true for "top 5", "3 largest".
	ExplicitLimit bool
	// numberOf is where "number of" follows the superlative ("the
	// greatest number of writers"), 0 if it does not.
	NumberOf int
}

// GroupMention is a grouping phrase ("per depot", "by month").
type GroupMention struct {
	Phrase   string
	At       int
	TimeUnit string // "month", "year", "quarter", "week", "day" for time buckets
	// Per: "per order", which after an average may name what is averaged
	// over rather than groups.
	Per bool
}

// Superlatives are the ranking words by spelling (words/superlatives.tsv).
var Superlatives = superlativesOf(words.Superlatives())

// Superlative is a ranking word: its direction and the measure it ranks
// by when the question names none ("" for what the question counts).
type Superlative struct {
	Desc bool
	Hint string
}

func superlativesOf(ws map[string]words.Superlative) map[string]Superlative {
	out := map[string]Superlative{}
	for w, s := range ws {
		out[w] = Superlative{Desc: s.Desc, Hint: s.Measure}
	}
	return out
}

// stopWord is a stop word written as one: "US" in capitals is a country,
// not "us".
func stopWord(t token.Token) bool {
	return StopWords[t.Low] && !(len(t.Raw) >= 2 && t.Raw == strings.ToUpper(t.Raw) && t.Raw != t.Low)
}

// PassiveAgent says whether "by" after w introduces who did something
// ("written by", "sent by", "taken by") rather than a grouping ("grouped
// by", "split by").
func PassiveAgent(w string) bool {
	if groupingVerbs[w] {
		return false
	}
	return len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) || agentParticiples[w]
}

var groupingVerbs = words.Set("grouping")

var agentParticiples = words.Set("agent")

// NestedMention is a superlative phrase that names one related thing.
type NestedMention struct {
	Sup *SuperMention
	// Subject is the table whose top row is meant; measure, when set, is
	// the column named after the superlative ("with the largest population").
	Subject *schema.Table
	Measure *ColMention
	// At..end are the phrase's tokens ("the depot with the most vans").
	At, End int
}

// AggItem is one aggregate word of a list and where it stands.
type AggItem struct {
	Fn string
	At int
}

// CompMention is a comparison of a number: its phrase, operator and
// the number compared with ("more than 20").
type CompMention struct {
	Phrase string
	Op     string
	Value  float64
	Upper  float64 // the second bound of "between"
	At     int
	// Target words before (or after) the comparison.
	Target string
	// KeyOf is set for "shop with ID 1": the named table, whose key
	// (or a column referring to it) equals the value.
	KeyOf *schema.Table
}

// comparedNumber says whether a number after this word is compared with
// ("of over 2010", "more than 2000"), which makes it no calendar year.
func comparedNumber(prev string) bool {
	return comparedBefore[prev]
}

// comparedBefore are the words comparedNumber looks for (comparisons.tsv).
var comparedBefore = words.Set("comparednumber")

// OrderMention is an ordering clause.
type OrderMention struct {
	Phrase string
	At     int
	// By is the first token of what to sort by, -1 when unnamed.
	By   int
	Desc bool
	// Alpha: by name, A to Z.
	Alpha bool
}

// MarkUsed marks tokens from..to as taken by a recogniser.
func (a *Analysis) MarkUsed(from, to int) {
	for k := max(from, 0); k < to && k < len(a.Toks); k++ {
		a.Toks[k].Used = true
	}
}

// LikeMention is one pattern condition.
type LikeMention struct {
	Phrase  string
	At      int // the verb
	Pattern string
	// Target is the first token of the words before the verb that may
	// name the column, -1 for none.
	Target int
	// Table and column, when set, are the column the pattern is read in.
	Table, Column string
	// Owner is the token of the noun before "whose" ("depots whose
	// names start with…"), -1 for none.
	Owner int
}

// ChangeMention is a request for the change between consecutive periods.
type ChangeMention struct {
	Unit    string // "month", "quarter", "year", "week", "day"
	At, End int
}

// Span is a run of tokens a recogniser took.
type Span struct{ At, End int }

// Computed says whether the alternative is a computed measure rather than
// a stored column.
func (al ColAlt) Computed() bool { return al.X != nil }

func SortMentions(a *Analysis) {
	for i := 1; i < len(a.Columns); i++ {
		for j := i; j > 0 && a.Columns[j].At < a.Columns[j-1].At; j-- {
			a.Columns[j], a.Columns[j-1] = a.Columns[j-1], a.Columns[j]
		}
	}
}

// Participle says whether a word looks like a past participle: regular
// ("placed", "shipped") or one of the common irregular ones of data.
func Participle(w string) bool {
	if len(w) > 4 && strings.HasSuffix(w, "ed") {
		return true
	}
	return IrregularParticiples[w] != ""
}

// irregularParticiples maps the past participles of everyday business
// verbs that do not end in -ed to their base form.
var IrregularParticiples = words.Map("participle")

// LinkedFact is a defined phrase the question spelled.
type LinkedFact struct {
	FactID string
	// Column is the defined column as table.column; x, when set, is the
	// computed measure a definition stands for instead.
	Column string
	X      sqlexpr.Expr
}

// TypedDef is one typed meaning of a phrase.
type TypedDef struct {
	Phrase string
	Term   ontology.Term
	Label  string
	// FactID is set for a person's remembered definition: readings that
	// use it name the fact (Candidate.Linked).
	FactID string
}

// TypedMeasure is a computed measure built into readings: a reading whose
// parts hold marker uses it.
type TypedMeasure struct {
	Marker sqlexpr.Expr
	Def    dialog.Definition
}
