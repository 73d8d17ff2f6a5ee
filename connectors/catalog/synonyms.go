package catalog

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

// synonymWeight scales a term reached through a synonym, so that the word
// the user actually typed still outranks its equivalents.
const synonymWeight = 0.5

// maxSynonymWords is the longest phrase key looked up in a question.
const maxSynonymWords = 3

// synonymFile is the built-in vocabulary; see its header for the format.
// A string, not a []byte, so that nothing can change it.
//
//go:embed synonyms.tsv
var synonymFile string

// builtinSynonyms is the embedded vocabulary, parsed at each call so that
// every catalog gets a fresh map and no package state can be mutated;
// parsing its few dozen lines costs nothing next to indexing a schema. A
// broken file is as good as a build error, and the package's tests parse
// it.
func builtinSynonyms() map[string][]string {
	m, err := parseSynonyms(synonymFile)
	if err != nil {
		panic(fmt.Sprintf("catalog: synonyms.tsv: %v", err))
	}
	return m
}

// parseSynonyms reads a synonym file: per line a phrase, a tab and its
// equivalents separated by commas; "#" lines and blank lines are skipped.
// A phrase has one line and no equivalent is empty or given twice, so that
// a slip in the file is an error naming its line rather than a silently
// merged or lost entry.
func parseSynonyms(content string) (map[string][]string, error) {
	out := make(map[string][]string)
	lineOf := make(map[string]int)
	for i, line := range strings.Split(content, "\n") {
		n := i + 1
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		row := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if len(row) != 2 {
			return nil, fmt.Errorf("line %d: want 2 tab-separated fields (a phrase and its equivalents), got %d", n, len(row))
		}
		phrase := strings.Join(strings.Fields(row[0]), " ")
		if phrase == "" {
			return nil, fmt.Errorf("line %d: empty phrase", n)
		}
		if at, dup := lineOf[phrase]; dup {
			return nil, fmt.Errorf("line %d: %q has a line already (line %d)", n, phrase, at)
		}
		lineOf[phrase] = n
		var tos []string
		for _, f := range strings.Split(row[1], ",") {
			to := strings.Join(strings.Fields(f), " ")
			switch {
			case to == "":
				return nil, fmt.Errorf("line %d: %q has an empty equivalent", n, phrase)
			case slices.Contains(tos, to):
				return nil, fmt.Errorf("line %d: %q lists %q twice", n, phrase, to)
			}
			tos = append(tos, to)
		}
		out[phrase] = tos
	}
	return out, nil
}

// synonyms maps an analysed phrase (stemmed terms joined by one space) to
// the stemmed terms it may also be written as.
type synonyms map[string][]string

// buildSynonyms analyses the built-in table and the caller's additions with
// the same analyzer as the index, and makes every pair work both ways: a
// question saying "sales" should find a "revenue" comment and vice versa.
func buildSynonyms(a analyzer, extra map[string][]string) synonyms {
	s := make(synonyms)
	add := func(from, to string) {
		key := strings.Join(a.terms(from, true), " ")
		// The expansion side keeps stop words: "at" and "on" are how
		// schemas spell a time ("shipped_at", "created_on").
		toTerms := a.terms(to, false)
		if key == "" || len(toTerms) == 0 {
			return
		}
		for _, t := range toTerms {
			if !slices.Contains(s[key], t) && !slices.Contains(strings.Fields(key), t) {
				s[key] = append(s[key], t)
			}
		}
	}
	for _, m := range []map[string][]string{builtinSynonyms(), extra} {
		for from, tos := range m {
			for _, to := range tos {
				add(from, to)
				add(to, from)
			}
		}
	}
	return s
}
