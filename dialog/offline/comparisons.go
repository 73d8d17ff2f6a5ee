package offline

// Recognising comparisons with numbers ("more than 3", "at least 1,000",
// "between 2 and 5", "or more"); the conditions are built in filters.go and
// groupconds.go.

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

type compMention struct {
	phrase string
	op     string
	value  float64
	upper  float64 // the second bound of "between"
	at     int
	// target words before (or after) the comparison.
	target string
	// keyOf is set for "shop with ID 1": the named table, whose key
	// (or a column referring to it) equals the value.
	keyOf *schema.Table
}

// compPhrases are the comparisons of words/comparisons.tsv, tried in its
// order.
var compPhrases = func() []compPhrase {
	var out []compPhrase
	for _, e := range words.Entries("comparison") {
		out = append(out, compPhrase{words: strings.Fields(e.Word), op: e.Fields[0]})
	}
	return out
}()

type compPhrase struct {
	words []string
	op    string
}

// findComparisons recognises "more than 100", "over 500", "at least 3".
func (a *analysis) findComparisons() {
	for i := 0; i < len(a.toks); i++ {
		for _, cp := range compPhrases {
			n := len(cp.words)
			// "writers above age 40": the column's word between the
			// comparison and its number.
			if a.seq(i, cp.words...) && i+n+1 < len(a.toks) && a.toks[i+n+1].IsNum && !a.toks[i+n+1].Used && a.columnWordAt(i+n) {
				c := &compMention{phrase: a.phrase(i, i+n+2), op: cp.op, value: a.toks[i+n+1].Num, at: i, target: a.toks[i+n].Low}
				a.comps = append(a.comps, c)
				for k := i; k <= i+n+1; k++ {
					a.toks[k].Used = true
				}
				break
			}
			if !a.seq(i, cp.words...) || i+n >= len(a.toks) || !a.toks[i+n].IsNum || a.toks[i+n].Used {
				continue
			}
			c := &compMention{phrase: a.phrase(i, i+n+1), op: cp.op, value: a.toks[i+n].Num, at: i}
			c.target = a.comparisonTarget(i, i+n+1)
			a.comps = append(a.comps, c)
			for k := i; k <= i+n; k++ {
				a.toks[k].Used = true
			}
			break
		}
	}
	// "between 100 and 200", both included as in SQL.
	for i := 0; i+3 < len(a.toks); i++ {
		if a.word(i) != "between" || !a.toks[i+1].IsNum || a.word(i+2) != "and" || !a.toks[i+3].IsNum || a.toks[i+1].Used || a.toks[i+3].Used {
			continue
		}
		lo, hi := a.toks[i+1].Num, a.toks[i+3].Num
		if lo > hi {
			lo, hi = hi, lo
		}
		target := a.comparisonTarget(i, i+4)
		phrase := a.phrase(i, i+4)
		a.comps = append(a.comps, &compMention{phrase: phrase, op: "between", value: lo, upper: hi, at: i, target: target})
		for k := i; k < i+4; k++ {
			a.toks[k].Used = true
		}
	}
	a.findOrMore()
}

// columnWordAt says whether token k is a plain word that may name a
// column: no number, no quoted text, no function word, not yet read.
func (a *analysis) columnWordAt(k int) bool {
	t := a.toks[k]
	return !t.IsNum && !t.Quoted && !t.Used && !stopWords[t.Low] && !isFunctionWord(t) && t.Break == 0 && t.Clause == a.toks[k+1].Clause
}

// comparisonTarget finds the words a comparison at [i, end) is about:
// content words just before ("population over 100000"), else just after
// ("over 500 in revenue", "more than 10 orders").
func (a *analysis) comparisonTarget(i, end int) string {
	var before []string
	start := i - 1
	if a.word(start) == "of" {
		start-- // "a top speed of over 90 mph"
	}
	for j := start; j >= 0 && j >= start-2; j-- {
		w := a.word(j)
		if w == "with" || w == "whose" || w == "that" || w == "have" || w == "has" || w == "is" || w == "are" || w == "of" || a.toks[j].Used {
			break
		}
		if !stopWords[w] {
			before = append([]string{a.toks[j].Low}, before...)
		}
	}
	var after []string
	for j := end; j < len(a.toks) && j <= end+2; j++ {
		w := a.word(j)
		if a.toks[j].Used || a.toks[j].IsNum {
			break
		}
		if stopWords[w] && len(after) > 0 {
			break
		}
		if !stopWords[w] {
			after = append(after, a.toks[j].Low)
		}
	}
	if len(after) > 0 && (len(before) == 0 || a.word(i-1) == "with" || a.word(i-1) == "have" || a.word(i-1) == "has") {
		return strings.Join(after, " ")
	}
	return strings.Join(before, " ")
}

// findOrMore reads "N or more" / "N or less".
func (a *analysis) findOrMore() {
	for i := 0; i+2 < len(a.toks); i++ {
		if a.toks[i].IsNum && !a.toks[i].Used && a.word(i+1) == "or" && (a.word(i+2) == "more" || a.word(i+2) == "less" || a.word(i+2) == "fewer") {
			op := ">="
			if a.word(i+2) != "more" {
				op = "<="
			}
			target := ""
			if i+3 < len(a.toks) {
				target = a.toks[i+3].Low
			}
			a.comps = append(a.comps, &compMention{phrase: a.phrase(i, i+3), op: op, value: a.toks[i].Num, at: i, target: target})
			a.toks[i].Used, a.toks[i+1].Used, a.toks[i+2].Used = true, true, true
		}
	}
}

// comparedNumber says whether a number after this word is compared with
// ("of over 2010", "more than 2000"), which makes it no calendar year.
func comparedNumber(prev string) bool {
	switch prev {
	case "over", "above", "under", "below", "than", "least", "exceeding", "exceeds":
		return true
	}
	return false
}
