// Package links is the offline engine's linking stage and the shape of
// what the reading stages hand on. A Reader links a question's words to
// the schema — stored values (values.go), tables (entities.go), columns
// (columns.go), times (times.go) — marking the tokens each link takes;
// Analysis holds those links and, filled in by package read, the
// elements the question asks for (elements.go), the way go/ast holds what
// go/parser finds. Mentions lists them for people (bot readings).
//
// The stage imports only the ones before it (words, token, schema,
// sqlexpr).
package links

import (
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Words is what the reader asks an English lexicon: how common a word is
// (0 for words a dictionary does not know, such as names; about 3 to 9
// for everyday words), and whether two words are related (the same lemma,
// synonyms, derived forms: "operating" and "operational"), and whether it
// is mostly a verb.
type Words interface {
	Commonness(word string) float64
	RelatedTo(a, b string) bool
	// Related lists the lemmas related to the word's own.
	Related(word string) []string
	// MostlyVerb says whether most senses of the word are verbs.
	MostlyVerb(word string) bool
	// OftenVerb says whether a fair share of its senses are verbs
	// ("flow"), for frames that already say verb.
	OftenVerb(word string) bool
}

// Reader reads questions against one schema. It is safe for concurrent
// use: each Analyse builds its own Analysis.
type Reader struct {
	M     *schema.Model
	words Words
}

// NewReader reads against m; words may be nil (every stored value a word
// matches then counts as meant).
func NewReader(m *schema.Model, words Words) *Reader {
	return &Reader{M: m, words: words}
}
