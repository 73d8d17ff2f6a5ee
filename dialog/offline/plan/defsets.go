package plan

import (
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Meanings of a word over a few-valued column ("active" orders over a
// status column): the single values, and the sets a person is likely to
// mean, ranked by how each value relates to the word — the same stem, a
// synonym, a form the lexicon relates — with the word's opposites left
// out: a value that negates the word ("inactive", "non-member", "unpaid")
// or that the lexicon relates to its negation ("dormant" to "inactive")
// is never offered as its meaning, and "everything but the opposites" is
// offered as a set. Two values are offered together only when both relate
// to the word: no pair by an unclear likeness.

// negationPrefixes turn a word into its opposite: active → inactive.
var negationPrefixes = words.List("negprefix")

// scoredValue is a stored value and how it relates to the word.
type scoredValue struct {
	value    string
	sim      float64
	opposite bool
}

// valueMeanings are the meanings of tm over the few-valued column c with
// these values, colSim being how much the column's name and comment relate
// to the word.
func (e *Builder) valueMeanings(tm *termMention, c *warehouse.Column, values []string, colSim float64) []definition {
	var vals []scoredValue
	for _, v := range values {
		vals = append(vals, scoredValue{value: v, sim: e.similarity(tm.phrase, v), opposite: e.opposed(tm.phrase, v)})
	}
	sort.SliceStable(vals, func(i, j int) bool { return vals[i].sim > vals[j].sim })
	var out []definition
	singles := 0
	for _, v := range vals {
		if v.opposite || singles == 3 {
			continue
		}
		singles++
		out = append(out, e.valueMeaning(tm, c, []string{v.value}, 0.25+v.sim+0.5*colSim))
	}
	// The values the word names, together.
	var related []string
	var total float64
	for _, v := range vals {
		if !v.opposite && v.sim > 0 {
			related = append(related, v.value)
			total += v.sim
		}
	}
	if len(related) >= 2 && len(related) < len(vals) {
		out = append(out, e.valueMeaning(tm, c, related, 0.35+total/float64(len(related))+0.5*colSim))
	}
	// Everything but the word's opposites: "active" is what is not
	// "inactive".
	var rest []string
	for _, v := range vals {
		if !v.opposite {
			rest = append(rest, v.value)
		}
	}
	if len(rest) >= 2 && len(rest) < len(vals) && !slices.Equal(rest, related) {
		out = append(out, e.valueMeaning(tm, c, rest, 0.75+0.5*colSim))
	}
	return out
}

// opposed reports whether value negates word, or the lexicon relates it
// to the word's negation: "inactive", "dormant" for "active"; "unpaid"
// for "paid".
func (e *Builder) opposed(word, value string) bool {
	w := strings.ToLower(strings.TrimSpace(word))
	v := strings.ToLower(strings.TrimSpace(value))
	if w == "" || v == "" || w == v {
		return false
	}
	for _, p := range negationPrefixes {
		if rest, ok := strings.CutPrefix(v, p); ok && rest != "" && (rest == w || e.similarity(w, rest) >= 0.8) {
			return true // "inactive", "non-operational"
		}
		if rest, ok := strings.CutPrefix(w, p); ok && rest == v {
			return true // "active" asked as "inactive"
		}
	}
	if strings.HasPrefix(v, "not ") && strings.TrimPrefix(v, "not ") == w || strings.HasPrefix(v, "no ") && strings.TrimPrefix(v, "no ") == w {
		return true
	}
	if e.words == nil || strings.Contains(w, " ") {
		return false
	}
	for _, p := range negationPrefixes {
		neg := p + w
		if e.words.Commonness(neg) > 0 && e.words.RelatedTo(neg, v) {
			return true
		}
	}
	return false
}
