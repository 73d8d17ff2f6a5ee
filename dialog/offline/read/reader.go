// Package read is the offline engine's second stage: it reads a question
// (tokens from package token, with the person's feedback and facts) into
// an Analysis, the hand-off to the plan stage. An Analysis holds the links
// of the question's words to the schema — stored values, columns, tables,
// times — and the elements the question asks for: counts, aggregates,
// superlatives, orderings, comparisons, groups, text patterns, computed
// measures. Each recogniser marks the tokens it used, so that later stages
// can tell which words a reading explains.
//
// The stage imports only the stages before it (words, token, schema,
// sqlexpr); it knows nothing of plans or SQL.
package read

import "github.com/clarify-bot/clarify/dialog/offline/schema"

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
	m     *schema.Model
	words Words
}

// NewReader reads against m; words may be nil (every stored value a word
// matches then counts as meant).
func NewReader(m *schema.Model, words Words) *Reader {
	return &Reader{m: m, words: words}
}
