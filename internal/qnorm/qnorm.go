// Package qnorm normalises questions so that two wordings of the same
// question compare equal: "How many orders were placed in 2025?" and "how
// many orders placed in 2025" are one verified question.
package qnorm

import (
	"strings"
	"unicode"
)

// stop are function words whose presence does not change what a question
// asks. Words that do ("not", "no", "without", "top", "per", "by") are kept.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of is are was were be been do does did what which
		show me list give tell please our we us i you there their its it this that these those
		to for from in on at as and please`) {
		stop[w] = true
	}
	// "in", "on", "at", "for", "from" tie values to columns ("in 2025");
	// keep them: dropping them could merge questions that differ.
	for _, w := range []string{"in", "on", "at", "for", "from"} {
		delete(stop, w)
	}
}

// Question is the normalised form: lower case, punctuation dropped, stop
// words dropped, simple plurals made singular ("orders" → "order",
// "categories" → "category"), one space between words.
func Question(q string) string {
	fields := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-' || r == '.' || r == '_')
	})
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		f = strings.Trim(f, "'-._")
		if f == "" || stop[f] {
			continue
		}
		out = append(out, singular(f))
	}
	return strings.Join(out, " ")
}

// singular strips the common English plural endings from words of more
// than three letters; it needs no dictionary and errs on the safe side
// ("status", "class", "analysis" stay).
func singular(w string) string {
	n := len(w)
	switch {
	case n <= 3 || strings.IndexFunc(w, unicode.IsDigit) >= 0:
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	}
	return w
}
