package read

import (
	"sort"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/ontology"
)

// Analyse runs the recognisers over the question and its feedback.
func Analyse(e *links.Reader, question string, feedback []dialog.Feedback, facts []ontology.Fact, now time.Time) *links.Analysis {
	a := &links.Analysis{CountAt: -1, AggAt: -1, About: map[int]string{}, Typed: typedDefs(feedback, facts)}
	question = percentSign.ReplaceAllString(question, "${1} percent of")
	a.Toks = token.JoinNumbers(token.Lex(question, 0))
	for i, f := range feedback {
		if f.Term != nil {
			continue // read by the dialog already; built as typed (typed.go)
		}
		a.Toks = append(a.Toks, token.JoinNumbers(token.Lex(f.Text, i+1))...)
		if f.About != "" {
			a.About[i+1] = strings.ToLower(f.About)
		}
	}
	findRemovals(a)
	a.FindTimes(now)
	findComparisons(a)
	findUnits(a)
	findOrdering(a)
	findPatterns(a)
	e.ProtectColumnNames(a)
	e.ProtectStoredValues(a)
	findIntents(a)
	findAggList(a)
	findDefinedPhrases(e, a, facts)
	findShares(a)
	e.FindKeyEquals(a)
	e.FindKeyColumns(a)
	e.FindNamedValues(a)
	e.FindValues(a)
	e.ProtectColumnPhrases(a)
	e.FindEntities(a)
	e.FindColumns(a)
	e.FindColumnNumbers(a)
	countRanking(e, a)
	findListItems(e, a)
	superlativeOfColumn(e, a)
	e.BindNamedColumns(a)
	e.FindRelatedEntities(a)
	e.PreferNamedTable(a)
	findComputed(e, a)
	findDifferences(e, a)
	findRatio(e, a)
	findEvents(e, a)
	return a
}

// dropVerbs take a column out of the answer (verbs.tsv); columnNouns end
// what they name (nouns.tsv).
var (
	dropVerbs   = words.Set("dropverb")
	columnNouns = words.Set("columnnoun")
)

// findRemovals notes "drop/remove/without the X column" feedback.
func findRemovals(a *links.Analysis) {
	for i, t := range a.Toks {
		if t.Clause == 0 {
			continue
		}
		switch {
		case dropVerbs[t.Low]:
			j := i + 1
			for a.Word(j) == "the" {
				j++
			}
			var words []string
			for ; j < len(a.Toks) && a.Toks[j].Clause == t.Clause && !columnNouns[a.Word(j)]; j++ {
				words = append(words, a.Toks[j].Low)
				a.Toks[j].Used = true
			}
			a.Toks[i].Used = true
			if columnNouns[a.Word(j)] {
				a.Toks[j].Used = true
			}
			if len(words) > 0 {
				a.Removes = append(a.Removes, strings.Join(words, " "))
			}
		}
	}
}

// SortedNames are the set's members in order.
func SortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
