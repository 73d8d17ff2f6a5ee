package read

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

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

// signs are the comparison signs a question may type between what it
// compares and a number, and the SQL operator each means.
var signs = map[string]string{">": ">", ">=": ">=", "≥": ">=", "<": "<", "<=": "<=", "≤": "<=", "=": "=", "==": "=", "!=": "<>", "<>": "<>", "≠": "<>"}

// findSigned reads a comparison typed as a sign: "rating > 4.5",
// "party size >= 3". What is compared is the words before the sign.
func findSigned(a *links.Analysis) {
	for i := 0; i+1 < len(a.Toks); i++ {
		op, ok := signs[a.Toks[i].Sign]
		if !ok || !a.Toks[i+1].IsNum || a.Toks[i+1].Used || a.Toks[i+1].Clause != a.Toks[i].Clause {
			continue
		}
		phrase := a.Toks[i].Raw + " " + a.Toks[i].Sign + " " + a.Toks[i+1].Raw
		a.Comps = append(a.Comps, &links.CompMention{Phrase: phrase, Op: op, Value: a.Toks[i+1].Num, At: i + 1, Target: comparisonTarget(a, i+1, i+2)})
		a.Toks[i+1].Used = true
	}
}

// findComparisons recognises "more than 100", "over 500", "at least 3",
// and comparisons typed as signs.
func findComparisons(a *links.Analysis) {
	findSigned(a)
	for i := 0; i < len(a.Toks); i++ {
		for _, cp := range compPhrases {
			n := len(cp.words)
			// "writers above age 40": the column's word between the
			// comparison and its number.
			if a.Seq(i, cp.words...) && i+n+1 < len(a.Toks) && a.Toks[i+n+1].IsNum && !a.Toks[i+n+1].Used && columnWordAt(a, i+n) {
				c := &links.CompMention{Phrase: a.Phrase(i, i+n+2), Op: cp.op, Value: a.Toks[i+n+1].Num, At: i, Target: a.Toks[i+n].Low}
				a.Comps = append(a.Comps, c)
				for k := i; k <= i+n+1; k++ {
					a.Toks[k].Used = true
				}
				break
			}
			if !a.Seq(i, cp.words...) || i+n >= len(a.Toks) || !a.Toks[i+n].IsNum || a.Toks[i+n].Used {
				continue
			}
			c := &links.CompMention{Phrase: a.Phrase(i, i+n+1), Op: cp.op, Value: a.Toks[i+n].Num, At: i}
			c.Target = comparisonTarget(a, i, i+n+1)
			a.Comps = append(a.Comps, c)
			for k := i; k <= i+n; k++ {
				a.Toks[k].Used = true
			}
			break
		}
	}
	// "between 100 and 200", both included as in SQL.
	for i := 0; i+3 < len(a.Toks); i++ {
		if a.Word(i) != "between" || !a.Toks[i+1].IsNum || a.Word(i+2) != "and" || !a.Toks[i+3].IsNum || a.Toks[i+1].Used || a.Toks[i+3].Used {
			continue
		}
		lo, hi := a.Toks[i+1].Num, a.Toks[i+3].Num
		if lo > hi {
			lo, hi = hi, lo
		}
		target := comparisonTarget(a, i, i+4)
		phrase := a.Phrase(i, i+4)
		a.Comps = append(a.Comps, &links.CompMention{Phrase: phrase, Op: "between", Value: lo, Upper: hi, At: i, Target: target})
		for k := i; k < i+4; k++ {
			a.Toks[k].Used = true
		}
	}
	findOrMore(a)
}

// columnWordAt says whether token k is a plain word that may name a
// column: no number, no quoted text, no function word, not yet read.
func columnWordAt(a *links.Analysis, k int) bool {
	t := a.Toks[k]
	return !t.IsNum && !t.Quoted && !t.Used && !links.StopWords[t.Low] && !links.IsFunctionWord(t) && t.Break == 0 && t.Clause == a.Toks[k+1].Clause
}

// comparisonStops end, going back, the words a comparison is about
// (grammar.tsv).
var comparisonStops = words.Set("comparisonstop")

// comparisonTarget finds the words a comparison at [i, end) is about:
// content words just before ("population over 100000"), else just after
// ("over 500 in revenue", "more than 10 orders").
func comparisonTarget(a *links.Analysis, i, end int) string {
	var before []string
	start := i - 1
	if a.Word(start) == "of" {
		start-- // "a top speed of over 90 mph"
	}
	for j := start; j >= 0 && j >= start-2; j-- {
		w := a.Word(j)
		if comparisonStops[w] || a.Toks[j].Used {
			break
		}
		if !links.StopWords[w] {
			before = append([]string{a.Toks[j].Low}, before...)
		}
	}
	var after []string
	for j := end; j < len(a.Toks) && j <= end+2; j++ {
		w := a.Word(j)
		if a.Toks[j].Used || a.Toks[j].IsNum {
			break
		}
		if links.StopWords[w] && len(after) > 0 {
			break
		}
		if !links.StopWords[w] {
			after = append(after, a.Toks[j].Low)
		}
	}
	// A comparison right after "with", "have" or "has" finds nothing before
	// it: those words are comparisonStops.
	if len(after) > 0 && len(before) == 0 {
		return strings.Join(after, " ")
	}
	return strings.Join(before, " ")
}

// orMore open a bound after "N or" (comparisons.tsv).
var orMore = words.Set("ormore")

// findOrMore reads "N or more" / "N or less".
func findOrMore(a *links.Analysis) {
	for i := 0; i+2 < len(a.Toks); i++ {
		if a.Toks[i].IsNum && !a.Toks[i].Used && a.Word(i+1) == "or" && orMore[a.Word(i+2)] {
			op := ">="
			if a.Word(i+2) != "more" {
				op = "<="
			}
			target := ""
			if i+3 < len(a.Toks) {
				target = a.Toks[i+3].Low
			}
			a.Comps = append(a.Comps, &links.CompMention{Phrase: a.Phrase(i, i+3), Op: op, Value: a.Toks[i].Num, At: i, Target: target})
			a.Toks[i].Used, a.Toks[i+1].Used, a.Toks[i+2].Used = true, true, true
		}
	}
}
