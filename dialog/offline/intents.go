package offline

// Recognising what a question asks for: counts, aggregates, superlatives
// and rankings, groupings; built in measures.go, ranking.go, superlative.go
// and grouping.go.

import (
	"math"
	"strings"

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
		if t.used {
			continue
		}
		switch {
		case a.seq(i, "how", "many"):
			a.count, a.countAt = true, i
			a.toks[i].used, a.toks[i+1].used = true, true
			a.findCountKinds(i + 2)
		case a.seq(i, "number", "of") || a.seq(i, "count", "of") || t.low == "count" && i == 0:
			// The first count asks; a later one ("… Give the id and the
			// number of X") lists what to show.
			// "Count the number of…" is one count.
			restated := a.count && a.word(a.countAt) == "count" && i-a.countAt <= 2
			if !a.count {
				a.count, a.countAt = true, i
			}
			// "the number of different specialties" counts values ("the
			// count of distinct type of…" is left to the column "type").
			if w := a.word(i + 2); (a.countAt == i || restated) && a.word(i+1) == "of" && (w == "different" || w == "distinct" || w == "unique") && !kindWords[a.word(i+3)] {
				a.findCountKinds(i + 2)
			}
			a.toks[i].used = true
			if a.word(i+1) == "of" {
				a.toks[i+1].used = true
			}
		case a.seq(i, "how", "much"):
			a.agg, a.aggAt = "SUM", i
			a.toks[i].used, a.toks[i+1].used = true, true
		case t.low == "total" || t.low == "sum" || t.low == "overall" || t.low == "combined" || t.low == "altogether":
			if a.agg == "" {
				a.agg, a.aggAt = "SUM", i
			}
			a.toks[i].used = true
		case t.low == "average" || t.low == "avg" || t.low == "mean":
			a.agg, a.aggAt = "AVG", i
			a.toks[i].used = true
		case a.word(i-1) == "how" && howAdjectives[t.low] != "":
			a.howAdj = howAdjectives[t.low]
			a.toks[i].used, a.toks[i-1].used = true, true
		case t.low == "where" && (a.word(i+1) == "is" || a.word(i+1) == "are"):
			a.where = true
			a.toks[i].used = true
		}
	}
}

// findSuperlative recognises the first superlative or top-k ("the 3 largest"), with its limit, direction and the noun it ranks by.
func (a *analysis) findSuperlative() {
	// Superlatives and top-k.
	for i := 0; i < len(a.toks) && a.sup == nil; i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		s, ok := superlatives[t.low]
		limit, explicit := 1, false
		start := i
		if t.isNum && !t.used && t.num >= 1 && t.num <= 1000 && t.num == math.Trunc(t.num) && i+1 < len(a.toks) {
			if s2, ok2 := superlatives[a.word(i+1)]; ok2 {
				s, ok, limit, explicit = s2, true, int(t.num), true
				a.toks[i].used = true
				i++
			}
		}
		if !ok {
			continue
		}
		// "first/last" only rank when they qualify a noun, not in "first 2024"…
		if (t.low == "max" || t.low == "maximum" || t.low == "minimum") && a.agg == "" && a.word(i+1) == "of" {
			continue
		}
		if i+1 < len(a.toks) && a.toks[i+1].isNum && !a.toks[i+1].isYear() && !a.toks[i+1].used {
			limit, explicit = int(a.toks[i+1].num), true
			a.toks[i+1].used = true
		}
		sm := &superMention{phrase: a.toks[i].raw, desc: s.desc, limit: limit, hint: s.hint, at: start, explicitLimit: explicit}
		a.toks[i].used = true
		// "the greatest number of writers": maybe a count (countRanking).
		if n := i + 1; a.seq(n, "number", "of") && a.word(i) != "most" && a.word(i) != "least" && a.word(i) != "top" {
			sm.numberOf = n
		}
		// "most populous", "least expensive": the adjective sets the measure.
		if (a.toks[i].low == "most" || a.toks[i].low == "least") && howAdjectives[a.word(i+1)] != "" {
			sm.hint = howAdjectives[a.word(i+1)]
			sm.phrase += " " + a.toks[i+1].raw
			a.toks[i+1].used = true
			i++
		}
		// "top 3 most often borrowed genres": how often, not a column.
		from := i + 1
		if explicit && i+1 < len(a.toks) && a.toks[i+1].isNum {
			from++ // past the "2" of "top 2"
		}
		for k := from; k < len(a.toks) && k <= from+3 && !a.toks[k].used; k++ {
			if w := a.word(k); w != "most" && w != "least" {
				if !commonWords[w] {
					break
				}
				a.toks[k].used = true
			}
		}
		// The noun it ranks by: "highest revenue", "most orders", "top 5 products by units sold".
		j := i + 1
		for j < len(a.toks) && (a.word(j) == "the" || a.word(j) == "a") {
			j++
		}
		sm.nounAt = j
		if by := a.indexOf("by", i+1); by >= 0 && by+1 < len(a.toks) {
			sm.nounAt = by + 1
			a.toks[by].used = true
		} else if at, s2 := a.rankedWith(j); at > 0 {
			// "top 3 shops with the highest ratings": the second
			// superlative says what ranks them, and which way.
			sm.nounAt, sm.desc = at+1, s2.desc
			sm.phrase += " " + a.toks[at].raw
			a.toks[at].used = true
		}
		a.sup = sm
	}
}

// findGroupings recognises groupings ("per X", "by X", "for each X", "monthly"), which split the answer into one row per group.
func (a *analysis) findGroupings() {
	// Grouping.
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		switch t.low {
		case "monthly", "yearly", "annually", "annual", "quarterly", "weekly", "daily":
			unit := map[string]string{"monthly": "month", "yearly": "year", "annually": "year", "annual": "year", "quarterly": "quarter", "weekly": "week", "daily": "day"}[t.low]
			a.groups = append(a.groups, &groupMention{phrase: t.raw, at: i, timeUnit: unit})
			a.toks[i].used = true
			continue
		}
		if (t.low == "each" || t.low == "every") && a.word(i-1) == "of" && (i+1 >= len(a.toks) || t.brk != 0 || a.toks[i+1].clause != t.clause) {
			// "what are the refund reasons and how many of each": each of
			// the things named before, the last word that is not a
			// function word.
			for k := i - 2; k >= 0; k-- {
				if a.toks[k].clause != t.clause {
					break
				}
				if !isFunctionWord(a.toks[k]) && !a.toks[k].isNum {
					a.toks[i].used, a.toks[i-1].used = true, true
					a.groups = append(a.groups, &groupMention{phrase: a.toks[k].raw, at: k})
					break
				}
			}
			continue
		}
		var at int
		switch {
		case t.low == "per" && a.indexOf("ratio", max(i-5, 0)) >= 0 && a.indexOf("ratio", max(i-5, 0)) < i:
			continue // "the ratio of loans per member": a quotient
		case t.low == "by" && passiveAgent(a.word(i-1)):
			continue // "references cited by publications": who did it, not a grouping
		case t.low == "per" || t.low == "by" && !a.toks[min(i+1, len(a.toks)-1)].isNum:
			at = i + 1
		case a.seq(i, "for", "each") || a.seq(i, "for", "every"):
			at = i + 2
			a.toks[i+1].used = true
		case t.low == "each" || t.low == "every":
			at = i + 1
		case t.low == "across" && (a.word(i+1) == "different" || a.word(i+1) == "all" || a.word(i+1) == "the" || a.word(i-1) == "vary" || a.word(i-1) == "varies"):
			// "how does X vary across (different) manufacturers"
			at = i + 1
			if a.word(at) == "different" || a.word(at) == "all" {
				a.toks[at].used = true
				at++
			}
		default:
			continue
		}
		for at < len(a.toks) && (a.word(at) == "the" || a.word(at) == "a" || a.word(at) == "each") {
			at++
		}
		if at >= len(a.toks) || a.toks[at].used || a.toks[at].isNum {
			continue
		}
		a.toks[i].used = true
		g := &groupMention{phrase: a.toks[at].raw, at: at, per: t.low == "per"}
		switch singularOf(a.word(at)) {
		case "month", "year", "quarter", "week", "day":
			g.timeUnit = singularOf(a.word(at))
			a.toks[at].used = true
		}
		a.groups = append(a.groups, g)
	}
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
			if s, ok := superlatives[a.word(j)]; ok && !a.toks[j].used {
				return j, s
			}
		}
	}
	return -1, superlatives["top"]
}

// stopWord is a stop word written as one: "US" in capitals is a country,
// not "us".
func stopWord(t tok) bool {
	return stopWords[t.low] && !(len(t.raw) >= 2 && t.raw == strings.ToUpper(t.raw) && t.raw != t.low)
}

// passiveAgent says whether "by" after w introduces who did something
// ("written by", "sent by", "taken by") rather than a grouping ("grouped
// by", "split by").
func passiveAgent(w string) bool {
	switch w {
	case "grouped", "split", "broken", "segmented", "partitioned", "bucketed", "categorized", "categorised", "sorted", "ordered", "ranked", "organized", "organised":
		return false
	}
	return len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) || w == "sent" || w == "made" || w == "held" || w == "sold" || w == "built" || w == "paid" || w == "taught" || w == "bought" || w == "won" || w == "led"
}

// kindWords ask for distinct values: "how many kinds of", "different".
var kindWords = words.Set("kind")

// findCountKinds reads "kinds of", "different" right after "how many".
func (a *analysis) findCountKinds(j int) {
	for j < len(a.toks) && kindWords[a.word(j)] {
		a.countKinds = true
		a.toks[j].used = true
		j++
	}
	if a.countKinds && a.word(j) == "of" {
		a.toks[j].used = true
	}
}

func (a *analysis) indexOf(w string, from int) int {
	for i := from; i < len(a.toks); i++ {
		if a.toks[i].low == w && !a.toks[i].used {
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
	a.toks[sm.numberOf].used, a.toks[sm.numberOf+1].used = true, true
	sm.nounAt = noun
}
