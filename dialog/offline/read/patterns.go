package read

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Text patterns: "authors whose names begin with the letter 'J'",
// "surname contains 'ley'", "titles containing 'night'", "depots
// with a name beginning with "North"". They filter a text column with
// LIKE; the column is the one named just before the verb, else the
// label of the table the question is about.

// patternVerbs place a text at the start or end of a value ("starts
// with", before "with") or anywhere in it ("contains").
var patternVerbs = words.Map("pattern")

// patternHave before a pattern noun say a column matches it (grammar.tsv).
var patternHave = words.Set("patternhave")

// patternVerb returns how a verb places its text: "%s%" for contains,
// "%s" + "%" for starts, "%" + "%s" for ends.
func patternVerb(a *links.Analysis, i int) (prefix, suffix string, ok bool) {
	w := a.Word(i)
	next := a.Word(i + 1)
	switch {
	case patternVerbs[w] == "start" && next == "with":
		return "", "%", true
	case patternVerbs[w] == "end" && next == "with":
		return "%", "", true
	case patternVerbs[w] == "contain":
		return "%", "%", true
	case patternHave[w] && patternNounAfter(a, i+1):
		// "whose title has the word harbour", "with the substring 'ta'".
		return "%", "%", true
	}
	return "", "", false
}

// patternNouns name a piece of text looked for inside a value.
var patternNouns = words.Set("patternnoun")

// patternNounAfter says whether an article and a pattern noun start at
// token j ("the word", "a substring").
func patternNounAfter(a *links.Analysis, j int) bool {
	if articles[a.Word(j)] {
		j++
	}
	return patternNouns[a.Word(j)]
}

// patternFillers come between a pattern verb and its text, patternStops
// end the words naming its column going back, and patternOwners stand
// between that column and its owner (nouns.tsv, grammar.tsv).
var (
	patternFillers = words.Set("patternfiller")
	patternStops   = words.Set("patternstop")
	patternOwners  = words.Set("patternowner")
)

// findPatterns reads text patterns whose text is quoted or a single
// letter; their words are then no value to look up.
func findPatterns(a *links.Analysis) {
	for i := range a.Toks {
		if a.Toks[i].Clause != 0 {
			continue
		}
		prefix, suffix, ok := patternVerb(a, i)
		if !ok {
			continue
		}
		j := i + 1
		if a.Word(j) == "with" {
			j++
		}
		for patternFillers[a.Word(j)] {
			j++
		}
		if j >= len(a.Toks) {
			continue
		}
		t := a.Toks[j]
		single := len([]rune(t.Raw)) == 1 && !t.IsNum
		// "the word harbour": the noun says a piece of text follows.
		named := false
		for k := i + 1; k < j; k++ {
			named = named || patternNouns[a.Word(k)]
		}
		named = named && !t.IsNum && t.Clause == 0
		if !t.Quoted && !single && !named {
			continue
		}
		text := strings.NewReplacer("%", `\%`, "_", `\_`).Replace(t.Raw)
		lm := &links.LikeMention{Phrase: a.Phrase(i, j+1), At: i, Pattern: prefix + text + suffix, Target: -1, Owner: -1}
		// The words naming the column: up to four before the verb,
		// after "whose/that/which/with".
		for k := i - 1; k >= 0 && k >= i-4; k-- {
			if patternStops[a.Word(k)] || a.Toks[k].Break != 0 && k < i-1 {
				break
			}
			lm.Target = k
		}
		if lm.Target > 1 && patternOwners[a.Word(lm.Target-1)] {
			lm.Owner = lm.Target - 2
		}
		a.MarkUsed(i, j+1)
		a.Likes = append(a.Likes, lm)
	}
}

// findListItems reads "trains that run on Mondays and Wednesdays"
// where a text column stores short codes in delimited lists ("mon,wed"):
// a word that one of the codes begins ("Mondays", "mon") is a condition
// that the list contains the code. A word already read as another column
// gives way; one read as a stored value does not.
func findListItems(e *links.Reader, a *links.Analysis) {
	lists := listColumns(e)
	if len(lists) == 0 {
		return
	}
	var drop []*links.ColMention
	for i, t := range a.Toks {
		if t.Clause != 0 || t.IsNum || t.Quoted || links.IsFunctionWord(t) || len([]rune(t.Low)) < 3 {
			continue
		}
		cm := columnCovering(a, i)
		if t.Used && (cm == nil || cm.End-cm.At != 1) {
			continue
		}
		for _, lc := range lists {
			code := lc.codeOf(t.Low)
			if code == "" {
				continue
			}
			text := strings.NewReplacer("%", `\%`, "_", `\_`).Replace(code)
			a.Likes = append(a.Likes, &links.LikeMention{Phrase: t.Raw, At: i, Pattern: "%" + text + "%", Target: -1, Table: lc.table, Column: lc.column})
			a.Toks[i].Used = true
			if cm != nil {
				drop = append(drop, cm)
			}
			break
		}
	}
	if len(drop) > 0 {
		var kept []*links.ColMention
		for _, cm := range a.Columns {
			if !slices.Contains(drop, cm) {
				kept = append(kept, cm)
			}
		}
		a.Columns = kept
	}
}

// listColumn is a text column whose values are delimited lists of short
// codes, and the codes.
type listColumn struct {
	table, column string
	codes         []string
}

// codeOf is the code a word begins with ("mondays" → "mon"), the longest.
func (lc listColumn) codeOf(word string) string {
	best := ""
	for _, c := range lc.codes {
		if len(c) > len(best) && strings.HasPrefix(word, c) {
			best = c
		}
	}
	return best
}

// listColumns finds the text columns whose complete values are mostly
// comma-separated lists of a few distinct short codes.
func listColumns(e *links.Reader) []listColumn {
	var out []listColumn
	for _, t := range e.M.Tables {
		for _, c := range t.Texts {
			p := e.M.Profile(t.Name, c.Name)
			if p == nil || !p.ValuesComplete || len(p.Values) < 2 {
				continue
			}
			lists := 0
			codes := map[string]bool{}
			for _, v := range p.Values {
				parts := strings.Split(strings.ToLower(v), ",")
				if len(parts) > 1 {
					lists++
				}
				for _, part := range parts {
					if part = strings.TrimSpace(part); part != "" {
						codes[part] = true
					}
				}
			}
			if lists == 0 || len(codes) > 40 {
				continue
			}
			short := true
			for c := range codes {
				short = short && len([]rune(c)) <= 5 && !strings.Contains(c, " ")
			}
			if short {
				out = append(out, listColumn{table: t.Name, column: c.Name, codes: SortedNames(codes)})
			}
		}
	}
	return out
}
