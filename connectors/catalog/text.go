package catalog

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryTerms bounds the work one search can cause: a pasted 10 kB
// message must not turn into thousands of posting-list scans.
const maxQueryTerms = 32

// splitWords splits an identifier or a piece of prose into lower-case words.
// Besides non-alphanumeric separators it breaks at camelCase humps
// ("customerID" → customer, id), at the end of an acronym ("HTTPServer" →
// http, server) and between letters and digits ("line2" → line, 2), because
// warehouse names mix all of these conventions.
func splitWords(s string) []string {
	var words []string
	start := -1 // byte offset of the current word, -1 outside a word
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = 0
			continue
		}
		if start < 0 {
			start = i
			prev = r
			continue
		}
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev):
			// "HTTPServer": the upper-case letter before this one opens the next word.
			p := i - utf8.RuneLen(prev)
			flush(p)
			start = p
		}
		prev = r
	}
	flush(len(s))
	return words
}

// stopWords are question words that carry no schema meaning. "when" is left
// out on purpose: it is a synonym of the date columns.
func stopWords() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`a an the of to in on at by for per from with into over
		and or not no nor is are was were be been being am do does did done has have had
		what which who whom whose where why how many much
		me my i we our us you your it its they them their this that these those there here
		show list give get find tell display return want need please can could would should
		all any each every some than then so as if`) {
		m[w] = true
	}
	return m
}

func isDigits(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stem is a deliberately light English suffix stripper: plurals, -ed and
// -ing, and a final e. It only has to map the forms people type and the
// forms schemas use onto the same key ("orders"/"order", "shipped"/"ship",
// "categories"/"category", "priced"/"price"), so it applies the same
// rules to both sides and never needs to produce a real word.
func stem(w string) string {
	if len(w) <= 2 || !isASCIILower(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "eed"):
		// "speed", "feed": not a past tense.
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]) && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]) && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	}
	if strings.HasSuffix(w, "e") && len(w) >= 4 {
		w = w[:len(w)-1]
	}
	return w
}

func isASCIILower(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

// undouble turns "shipp" (from "shipped") back into "ship"; l, s and z are
// kept doubled as in "billing" → "bill".
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// analyzer turns text into index terms; it is built once per Catalog.
type analyzer struct {
	stop map[string]bool
}

func newAnalyzer() analyzer { return analyzer{stop: stopWords()} }

// terms returns the stemmed terms of s. Identifiers keep every word
// (the "at" of "shipped_at" means a time); prose drops stop words and bare
// numbers, which are noise in comments and sample values.
func (a analyzer) terms(s string, prose bool) []string {
	words := splitWords(s)
	out := words[:0]
	for _, w := range words {
		if prose && (a.stop[w] || isDigits(w)) {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// queryWord is one word of a user's phrase: the surface form reported back
// in ColumnHit.Matched and the stemmed term that is looked up.
type queryWord struct {
	surface, term string
}

// queryWords analyses a search phrase: stop words dropped, duplicates
// removed, at most maxQueryTerms words.
func (a analyzer) queryWords(s string) []queryWord {
	var out []queryWord
	seen := make(map[string]bool)
	for _, w := range splitWords(s) {
		if a.stop[w] {
			continue
		}
		t := stem(w)
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, queryWord{surface: w, term: t})
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}
