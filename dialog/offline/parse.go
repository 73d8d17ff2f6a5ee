package offline

import (
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/offline/token"

	"github.com/clarify-bot/clarify/ontology"

	"github.com/clarify-bot/clarify/dialog"
)

type analysis struct {
	// hits caches the catalog's column search by phrase: word accounting
	// looks the same phrases up for every reading.
	hits     map[string][]catalog.ColumnHit
	toks     []token.Token
	values   []*valueMention
	entities []*entityMention
	columns  []*colMention
	times    []*timeMention
	comps    []*compMention
	count    bool
	// countKinds: "how many kinds of / different X" counts distinct values.
	countKinds bool
	countAt    int
	agg        string
	aggAt      int
	// aggList: "the mean, lowest and highest loan count" asks for each of
	// those aggregates of one measure, in that order.
	aggList []aggItem
	sup     *superMention
	// supCol is a superlative inside a column name ("highest point").
	supCol *superMention
	// nested is a superlative naming a related thing: a condition.
	nested *nestedMention
	// share asks for each group's part of the total; change for each
	// period's change from the one before.
	share  *span
	change *changeMention
	groups []*groupMention
	// linked are the defined phrases linked to their columns (defined.go).
	linked []linkedFact
	howAdj string // "big", "long", "high", "old" in "how big is…"
	// order is an ordering clause ("sorted from highest to lowest").
	order *orderMention
	// likes are text patterns ("whose name starts with 'J'").
	likes []*likeMention
	// eventVerbs are the stems of the events the question names
	// ("shipped" → ship…), whose dates time conditions prefer.
	eventVerbs []string
	where      bool // "where is…"
	removes    []string
	// about maps a feedback clause to the phrase it answered ("active").
	about map[int]string
	// typed are the typed meanings of the request, and typedMeasures the
	// computed measures built into readings (typed.go).
	typed         []typedDef
	typedMeasures []typedMeasure
	typedMarkers  []expr
}

func (a *analysis) word(i int) string {
	if i < 0 || i >= len(a.toks) {
		return ""
	}
	return a.toks[i].Low
}

func (a *analysis) seq(i int, words ...string) bool {
	for k, w := range words {
		if a.word(i+k) != w {
			return false
		}
	}
	return true
}

func (a *analysis) phrase(from, to int) string {
	var parts []string
	for i := from; i < to && i < len(a.toks); i++ {
		parts = append(parts, a.toks[i].Raw)
	}
	return strings.Join(parts, " ")
}

// analyse runs the recognisers over the question and its feedback.
func (e *Engine) analyse(question string, feedback []dialog.Feedback, facts []ontology.Fact, now time.Time) *analysis {
	a := &analysis{countAt: -1, aggAt: -1, about: map[int]string{}, typed: typedDefs(feedback, facts)}
	question = percentSign.ReplaceAllString(question, "${1} percent of")
	a.toks = token.JoinNumbers(token.Lex(question, 0))
	for i, f := range feedback {
		if f.Term != nil {
			continue // read by the dialog already; built as typed (typed.go)
		}
		a.toks = append(a.toks, token.JoinNumbers(token.Lex(f.Text, i+1))...)
		if f.About != "" {
			a.about[i+1] = strings.ToLower(f.About)
		}
	}
	a.findRemovals()
	a.findTimes(now)
	a.findComparisons()
	a.findUnits()
	a.findOrdering()
	a.findPatterns()
	e.protectColumnNames(a)
	e.protectStoredValues(a)
	a.findIntents()
	a.findAggList()
	e.findDefinedPhrases(a, facts)
	a.findShares()
	e.findKeyEquals(a)
	e.findKeyColumns(a)
	e.findNamedValues(a)
	e.findValues(a)
	e.protectColumnPhrases(a)
	e.findEntities(a)
	e.findColumns(a)
	e.countRanking(a)
	e.findListItems(a)
	e.superlativeOfColumn(a)
	e.bindNamedColumns(a)
	e.findRelatedEntities(a)
	e.preferNamedTable(a)
	e.findComputed(a)
	e.findDifferences(a)
	e.findRatio(a)
	e.findEvents(a)
	return a
}

// findRemovals notes "drop/remove/without the X column" feedback.
func (a *analysis) findRemovals() {
	for i, t := range a.toks {
		if t.Clause == 0 {
			continue
		}
		switch t.Low {
		case "drop", "remove", "hide":
			j := i + 1
			for a.word(j) == "the" {
				j++
			}
			var words []string
			for ; j < len(a.toks) && a.toks[j].Clause == t.Clause && a.word(j) != "column" && a.word(j) != "columns" && a.word(j) != "field"; j++ {
				words = append(words, a.toks[j].Low)
				a.toks[j].Used = true
			}
			a.toks[i].Used = true
			if a.word(j) == "column" || a.word(j) == "columns" || a.word(j) == "field" {
				a.toks[j].Used = true
			}
			if len(words) > 0 {
				a.removes = append(a.removes, strings.Join(words, " "))
			}
		}
	}
}

// searchColumns is the catalog's column search for phrase, once per
// question.
func (e *Engine) searchColumns(a *analysis, phrase string) []catalog.ColumnHit {
	if hits, ok := a.hits[phrase]; ok {
		return hits
	}
	if a.hits == nil {
		a.hits = map[string][]catalog.ColumnHit{}
	}
	a.hits[phrase] = e.m.Cat.SearchColumns(phrase, 8)
	return a.hits[phrase]
}
