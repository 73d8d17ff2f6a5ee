package offline

// Recognising what a question asks for: counts, aggregates, superlatives
// and rankings, groupings; built in measures.go, ranking.go, superlative.go
// and grouping.go.

import (
	"math"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

type superMention struct {
	phrase string
	desc   bool
	limit  int
	hint   string // "size", "length", "height", "population", "date", "value", "" (any measure)
	nounAt int
	at     int
	// explicitLimit is true for "top 5", "3 largest".
	explicitLimit bool
	// numberOf is where "number of" follows the superlative ("the
	// greatest number of writers"), 0 if it does not.
	numberOf int
}

type groupMention struct {
	phrase   string
	at       int
	timeUnit string // "month", "year", "quarter", "week", "day" for time buckets
	// per: "per order", which after an average may name what is averaged
	// over rather than groups.
	per bool
}

// superlatives, hintStems and howAdjectives are data: words/superlatives.tsv,
// words/measures.tsv and words/how.tsv.
var (
	superlatives  = superlativesOf(words.Superlatives())
	hintStems     = words.Measures()
	howAdjectives = words.HowAdjectives()
)

// superlative is a ranking word: its direction and the measure it ranks
// by when the question names none ("" for what the question counts).
type superlative struct {
	desc bool
	hint string
}

func superlativesOf(ws map[string]words.Superlative) map[string]superlative {
	out := map[string]superlative{}
	for w, s := range ws {
		out[w] = superlative{desc: s.Desc, hint: s.Measure}
	}
	return out
}

// findIntents recognises counting, aggregates, superlatives, grouping and
// how-adjectives.
func (a *analysis) findIntents() {
	a.findCountsAndAggregates()
	a.findSuperlative()
	a.findGroupings()
}

// findCountsAndAggregates recognises "how many", "number of", "total", "average", "how big", "where is": what the answer computes.
func (a *analysis) findCountsAndAggregates() {
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.Used {
			continue
		}
		switch {
		case a.seq(i, "how", "many"):
			a.count, a.countAt = true, i
			a.toks[i].Used, a.toks[i+1].Used = true, true
			a.findCountKinds(i + 2)
		case a.seq(i, "number", "of") || a.seq(i, "count", "of") || t.Low == "count" && i == 0:
			// The first count asks; a later one ("… Give the id and the
			// number of X") lists what to show.
			// "Count the number of…" is one count.
			restated := a.count && a.word(a.countAt) == "count" && i-a.countAt <= 2
			if !a.count {
				a.count, a.countAt = true, i
			}
			// "the number of different specialties" counts values ("the
			// count of distinct type of…" is left to the column "type").
			if w := a.word(i + 2); (a.countAt == i || restated) && a.word(i+1) == "of" && distinctWords[w] && !kindWords[a.word(i+3)] {
				a.findCountKinds(i + 2)
			}
			a.toks[i].Used = true
			if a.word(i+1) == "of" {
				a.toks[i+1].Used = true
			}
		case a.seq(i, "how", "much"):
			a.agg, a.aggAt = "SUM", i
			a.toks[i].Used, a.toks[i+1].Used = true, true
		case sumWords[t.Low]:
			if a.agg == "" {
				a.agg, a.aggAt = "SUM", i
			}
			a.toks[i].Used = true
		case t.Low == "average" || t.Low == "avg" || t.Low == "mean":
			a.agg, a.aggAt = "AVG", i
			a.toks[i].Used = true
		case a.word(i-1) == "how" && howAdjectives[t.Low] != "":
			a.howAdj = howAdjectives[t.Low]
			a.toks[i].Used, a.toks[i-1].Used = true, true
		case t.Low == "where" && (a.word(i+1) == "is" || a.word(i+1) == "are"):
			a.where = true
			a.toks[i].Used = true
		}
	}
}

// findSuperlative recognises the first superlative or top-k ("the 3 largest"), with its limit, direction and the noun it ranks by.
func (a *analysis) findSuperlative() {
	// Superlatives and top-k.
	for i := 0; i < len(a.toks) && a.sup == nil; i++ {
		sm, last, ok := a.superlativeAt(i)
		if !ok {
			continue
		}
		i = a.superlativeModifiers(sm, last)
		a.rankedNoun(sm, i)
		a.sup = sm
	}
}

// superlativeAt reads a superlative at i ("highest", "top 5", "5 most"),
// with the number that limits it; last is its last token.
func (a *analysis) superlativeAt(i int) (sm *superMention, last int, ok bool) {
	t := a.toks[i]
	if t.Used {
		return nil, i, false
	}
	s, ok := superlatives[t.Low]
	limit, explicit := 1, false
	start := i
	if t.IsNum && !t.Used && t.Num >= 1 && t.Num <= 1000 && t.Num == math.Trunc(t.Num) && i+1 < len(a.toks) {
		if s2, ok2 := superlatives[a.word(i+1)]; ok2 {
			s, ok, limit, explicit = s2, true, int(t.Num), true
			a.toks[i].Used = true
			i++
		}
	}
	if !ok {
		return nil, i, false
	}
	// "first/last" only rank when they qualify a noun, not in "first 2024"…
	if (t.Low == "max" || t.Low == "maximum" || t.Low == "minimum") && a.agg == "" && a.word(i+1) == "of" {
		return nil, i, false
	}
	if i+1 < len(a.toks) && a.toks[i+1].IsNum && !a.toks[i+1].IsYear() && !a.toks[i+1].Used {
		limit, explicit = int(a.toks[i+1].Num), true
		a.toks[i+1].Used = true
	}
	sm = &superMention{phrase: a.toks[i].Raw, desc: s.desc, limit: limit, hint: s.hint, at: start, explicitLimit: explicit}
	a.toks[i].Used = true
	return sm, i, true
}

// superlativeModifiers reads what follows a superlative's word at i: "the
// greatest number of" (maybe a count), "most populous" (the adjective sets
// the measure), "top 3 most often borrowed" (how often, not a column). It
// returns the superlative's last token.
func (a *analysis) superlativeModifiers(sm *superMention, i int) int {
	if n := i + 1; a.seq(n, "number", "of") && a.word(i) != "most" && a.word(i) != "least" && a.word(i) != "top" {
		sm.numberOf = n
	}
	if (a.toks[i].Low == "most" || a.toks[i].Low == "least") && howAdjectives[a.word(i+1)] != "" {
		sm.hint = howAdjectives[a.word(i+1)]
		sm.phrase += " " + a.toks[i+1].Raw
		a.toks[i+1].Used = true
		i++
	}
	from := i + 1
	if sm.explicitLimit && i+1 < len(a.toks) && a.toks[i+1].IsNum {
		from++ // past the "2" of "top 2"
	}
	for k := from; k < len(a.toks) && k <= from+3 && !a.toks[k].Used; k++ {
		if w := a.word(k); w != "most" && w != "least" {
			if !commonWords[w] {
				break
			}
			a.toks[k].Used = true
		}
	}
	return i
}

// rankedNoun finds the noun a superlative ranks by: "highest revenue",
// "most orders", "top 5 products by units sold", or a second superlative
// ("top 3 shops with the highest ratings") that says what ranks them and
// which way.
func (a *analysis) rankedNoun(sm *superMention, i int) {
	j := i + 1
	for j < len(a.toks) && (a.word(j) == "the" || a.word(j) == "a") {
		j++
	}
	sm.nounAt = j
	if by := a.indexOf("by", i+1); by >= 0 && by+1 < len(a.toks) {
		sm.nounAt = by + 1
		a.toks[by].Used = true
	} else if at, s2 := a.rankedWith(j); at > 0 {
		sm.nounAt, sm.desc = at+1, s2.desc
		sm.phrase += " " + a.toks[at].Raw
		a.toks[at].Used = true
	}
}

// findGroupings recognises groupings ("per X", "by X", "for each X", "monthly"), which split the answer into one row per group.
func (a *analysis) findGroupings() {
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.Used || a.periodAdverb(i) || a.ofEach(i) {
			continue
		}
		at, ok := a.groupedAfter(i)
		if !ok {
			continue
		}
		for at < len(a.toks) && (a.word(at) == "the" || a.word(at) == "a" || a.word(at) == "each") {
			at++
		}
		if at >= len(a.toks) || a.toks[at].Used || a.toks[at].IsNum {
			continue
		}
		a.toks[i].Used = true
		g := &groupMention{phrase: a.toks[at].Raw, at: at, per: t.Low == "per"}
		switch singularOf(a.word(at)) {
		case "month", "year", "quarter", "week", "day":
			g.timeUnit = singularOf(a.word(at))
			a.toks[at].Used = true
		}
		a.groups = append(a.groups, g)
	}
}

// periodUnits are the adverbs that group by a period.
var periodUnits = words.Map("periodadverb")

// periodAdverb: "monthly", "yearly"… group by that period.
func (a *analysis) periodAdverb(i int) bool {
	unit, ok := periodUnits[a.toks[i].Low]
	if ok {
		a.groups = append(a.groups, &groupMention{phrase: a.toks[i].Raw, at: i, timeUnit: unit})
		a.toks[i].Used = true
	}
	return ok
}

// ofEach: "what are the refund reasons and how many of each" — each of the
// things named before, the last word that is not a function word. True
// when "of each" ends the clause (read or not).
func (a *analysis) ofEach(i int) bool {
	t := a.toks[i]
	if !((t.Low == "each" || t.Low == "every") && a.word(i-1) == "of" && (i+1 >= len(a.toks) || t.Break != 0 || a.toks[i+1].Clause != t.Clause)) {
		return false
	}
	for k := i - 2; k >= 0; k-- {
		if a.toks[k].Clause != t.Clause {
			break
		}
		if !isFunctionWord(a.toks[k]) && !a.toks[k].IsNum {
			a.toks[i].Used, a.toks[i-1].Used = true, true
			a.groups = append(a.groups, &groupMention{phrase: a.toks[k].Raw, at: k})
			break
		}
	}
	return true
}

// groupedAfter reads a word that opens a grouping ("per", "by", "for
// each", "each", "across different") and where the grouped thing starts;
// not "the ratio of loans per member" (a quotient) or "cited by
// publications" (an agent).
func (a *analysis) groupedAfter(i int) (int, bool) {
	t := a.toks[i]
	switch {
	case t.Low == "per" && a.indexOf("ratio", max(i-5, 0)) >= 0 && a.indexOf("ratio", max(i-5, 0)) < i:
		return 0, false
	case t.Low == "by" && passiveAgent(a.word(i-1)):
		return 0, false
	case t.Low == "per" || t.Low == "by" && !a.toks[min(i+1, len(a.toks)-1)].IsNum:
		return i + 1, true
	case a.seq(i, "for", "each") || a.seq(i, "for", "every"):
		a.toks[i+1].Used = true
		return i + 2, true
	case t.Low == "each" || t.Low == "every":
		return i + 1, true
	case t.Low == "across" && (a.word(i+1) == "different" || a.word(i+1) == "all" || a.word(i+1) == "the" || a.word(i-1) == "vary" || a.word(i-1) == "varies"):
		// "how does X vary across (different) manufacturers"
		at := i + 1
		if a.word(at) == "different" || a.word(at) == "all" {
			a.toks[at].Used = true
			at++
		}
		return at, true
	}
	return 0, false
}

// rankedWith finds "with/having/has the highest" within a few words after
// from: the superlative that names what a top-N ranks by.
func (a *analysis) rankedWith(from int) (int, struct {
	desc bool
	hint string
}) {
	for k := from; k < from+5 && k < len(a.toks); k++ {
		switch a.word(k) {
		case "with", "having", "has", "have", "had":
			j := k + 1
			for a.word(j) == "the" || a.word(j) == "received" || a.word(j) == "got" {
				j++
			}
			if s, ok := superlatives[a.word(j)]; ok && !a.toks[j].Used {
				return j, s
			}
		}
	}
	return -1, superlatives["top"]
}

// stopWord is a stop word written as one: "US" in capitals is a country,
// not "us".
func stopWord(t token.Token) bool {
	return stopWords[t.Low] && !(len(t.Raw) >= 2 && t.Raw == strings.ToUpper(t.Raw) && t.Raw != t.Low)
}

// passiveAgent says whether "by" after w introduces who did something
// ("written by", "sent by", "taken by") rather than a grouping ("grouped
// by", "split by").
func passiveAgent(w string) bool {
	if groupingVerbs[w] {
		return false
	}
	return len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) || agentParticiples[w]
}

// groupingVerbs group by what follows "by"; agentParticiples take an
// agent after "by" though they end in neither -ed nor -en.
var (
	groupingVerbs    = words.Set("grouping")
	agentParticiples = words.Set("agent")
)

// kindWords ask for distinct values: "how many kinds of", "different".
var kindWords = words.Set("kind")

// sumWords ask for a total: "total sales", "how many altogether".
var sumWords = words.Set("sum")

// distinctWords ask for each value once: "the number of different
// specialties".
var distinctWords = words.Set("distinct")

// findCountKinds reads "kinds of", "different" right after "how many".
func (a *analysis) findCountKinds(j int) {
	for j < len(a.toks) && kindWords[a.word(j)] {
		a.countKinds = true
		a.toks[j].Used = true
		j++
	}
	if a.countKinds && a.word(j) == "of" {
		a.toks[j].Used = true
	}
}

func (a *analysis) indexOf(w string, from int) int {
	for i := from; i < len(a.toks); i++ {
		if a.toks[i].Low == w && !a.toks[i].Used {
			return i
		}
	}
	return -1
}

// countRanking reads "the greatest number of writers", "the smallest
// number of books" as "most"/"fewest": a count of the things named,
// ranked. A stored number ("the greatest number of seats", a column) stays
// that column's extreme.
func (e *Engine) countRanking(a *analysis) {
	sm := a.sup
	if sm == nil || sm.numberOf == 0 {
		return
	}
	noun := sm.numberOf + 2
	for a.word(noun) == "the" {
		noun++
	}
	counted := false
	for _, em := range a.entities {
		counted = counted || em.at == noun
	}
	for _, cm := range a.columns {
		if cm.at == noun {
			counted = false
		}
	}
	if !counted {
		return
	}
	sm.phrase, sm.hint = "fewest", ""
	if sm.desc {
		sm.phrase = "most"
	}
	a.toks[sm.numberOf].Used, a.toks[sm.numberOf+1].Used = true, true
	sm.nounAt = noun
}
