package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/lexicon/internal/format"
)

// minKinStem is the shortest stem that stemKin accepts.
const minKinStem = 4

// derivationalSuffix reports common English derivational endings, as what
// the longer of two stem-sharing words adds to the shorter one's stem. Other
// tails mostly make compounds ("roadbed", "shorthorn") or names.
func derivationalSuffix(s string) bool {
	switch s {
	case "t", "th", "er", "or", "ar", "ee", "ist", "ism", "ment", "ion", "tion", "sion", "ation", "ition",
		"ance", "ence", "ancy", "ency", "al", "ial", "ual", "ic", "ical", "ive", "ative", "ous", "ious",
		"ly", "ally", "ness", "ity", "ty", "age", "ure", "ing", "ed", "en", "y", "ery", "ry", "ize", "ise",
		"ify", "fy", "able", "ible", "ful", "less", "ship", "hood", "ant", "ent", "ary", "ory", "an", "ian",
		"ese", "ish", "dom":
		return true
	}
	return false
}

// glossKin adds, in both directions, links between a single-word lemma and
// the words of the definitions of its first `senses` senses in each part of
// speech that share its stem: WordNet defines "weigh" as "have a certain
// weight" but has no derivation pointer between the two.
func (wn *wordNet) glossKin(id map[string]uint32, lemmas []string, senses int, rel [][]uint32, show bool) int {
	added := 0
	rules := format.DetachmentRules()
	for i, l := range lemmas {
		if strings.ContainsAny(l, " -'") {
			continue
		}
		for _, e := range wn.index[l] {
			if e == nil {
				continue
			}
			for rank, key := range e.synsets {
				s := wn.data[key]
				if rank >= senses || s == nil {
					continue
				}
				for _, tok := range strings.FieldsFunc(strings.ToLower(s.gloss), notLetter) {
					for _, c := range wn.baseForms(tok, rules) {
						if c == l || !stemKin(l, c) {
							continue
						}
						to := id[c]
						rel[i] = append(rel[i], to)
						rel[to] = append(rel[to], uint32(i))
						added++
						if show {
							fmt.Fprintf(os.Stderr, "gloss-kin %s ~ %s\t(%s)\n", l, c, s.gloss)
						}
					}
				}
			}
		}
	}
	return added
}

func notLetter(r rune) bool { return r < 'a' || r > 'z' }

// baseForms is a plain morphy over all parts of speech: the token itself,
// its exception-list bases or its rule-detached forms, if WordNet has them.
func (wn *wordNet) baseForms(tok string, rules [format.NumPOS][]format.Rule) []string {
	var out []string
	addLemma := func(c string, p int) {
		if e := wn.index[c]; e != nil && e[p] != nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for p := range format.NumPOS {
		addLemma(tok, p)
		if bases, ok := wn.except[p][tok]; ok {
			for _, b := range bases {
				addLemma(b, p)
			}
			continue
		}
		for _, r := range rules[p] {
			if len(tok) > len(r.Suffix) && strings.HasSuffix(tok, r.Suffix) {
				addLemma(tok[:len(tok)-len(r.Suffix)]+r.Ending, p)
			}
		}
	}
	return out
}

// stemKin reports whether a and b look like forms of one stem: the shorter
// has at least minKinStem letters and shares all but possibly its last
// letter with the longer, whose remaining letters are a derivational suffix
// ("weigh"/"weight", "operate"/"operation", "enlarged"/"enlargement").
func stemKin(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < minKinStem {
		return false
	}
	k := 0
	for k < len(a) && a[k] == b[k] {
		k++
	}
	return k >= len(a)-1 && k >= minKinStem && derivationalSuffix(b[k:])
}
