package read

import (
	"math"
	"slices"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Recognising what a question asks for: counts, aggregates, superlatives
// and rankings, groupings. The plan stage builds them (package offline:
// measures.go, ranking.go, superlative.go and grouping.go).

// HowAdjectives map the adjective of "how big/long/old" to the measure it
// asks for (words/how.tsv).
var HowAdjectives = words.HowAdjectives()

// findIntents recognises counting, aggregates, superlatives, grouping and
// how-adjectives.
func findIntents(a *links.Analysis) {
	findCountsAndAggregates(a)
	findSuperlative(a)
	findGroupings(a)
}

// averageWords ask for the mean (aggregates.tsv); whereVerbs after
// "where" ask for a place (grammar.tsv).
var (
	averageWords = words.Set("average")
	whereVerbs   = words.Set("isare")
)

// findCountsAndAggregates recognises "how many", "number of", "total", "average", "how big", "where is": what the answer computes.
func findCountsAndAggregates(a *links.Analysis) {
	for i := 0; i < len(a.Toks); i++ {
		t := a.Toks[i]
		if t.Used {
			continue
		}
		switch {
		case a.Seq(i, "how", "many"):
			a.Count, a.CountAt = true, i
			a.Toks[i].Used, a.Toks[i+1].Used = true, true
			findCountKinds(a, i+2)
		case a.Seq(i, "number", "of") || a.Seq(i, "count", "of") || t.Low == "count" && i == 0:
			// The first count asks; a later one ("… Give the id and the
			// number of X") lists what to show.
			// "Count the number of…" is one count.
			restated := a.Count && a.Word(a.CountAt) == "count" && i-a.CountAt <= 2
			if !a.Count {
				a.Count, a.CountAt = true, i
			}
			// "the number of different specialties" counts values ("the
			// count of distinct type of…" is left to the column "type").
			if w := a.Word(i + 2); (a.CountAt == i || restated) && a.Word(i+1) == "of" && DistinctWords[w] && !KindWords[a.Word(i+3)] {
				findCountKinds(a, i+2)
			}
			a.Toks[i].Used = true
			if a.Word(i+1) == "of" {
				a.Toks[i+1].Used = true
			}
		case a.Seq(i, "how", "much"):
			a.Agg, a.AggAt = "SUM", i
			a.Toks[i].Used, a.Toks[i+1].Used = true, true
		case sumWords[t.Low]:
			if a.Agg == "" {
				a.Agg, a.AggAt = "SUM", i
			}
			a.Toks[i].Used = true
		case averageWords[t.Low]:
			a.Agg, a.AggAt = "AVG", i
			a.Toks[i].Used = true
		case a.Word(i-1) == "how" && HowAdjectives[t.Low] != "":
			a.HowAdj = HowAdjectives[t.Low]
			a.Toks[i].Used, a.Toks[i-1].Used = true, true
		case t.Low == "where" && whereVerbs[a.Word(i+1)]:
			a.Where = true
			a.Toks[i].Used = true
		}
	}
}

// findSuperlative recognises the first superlative or top-k ("the 3 largest"), with its limit, direction and the noun it ranks by.
func findSuperlative(a *links.Analysis) {
	// Superlatives and top-k.
	for i := 0; i < len(a.Toks) && a.Sup == nil; i++ {
		sm, last, ok := superlativeAt(a, i)
		if !ok {
			continue
		}
		i = superlativeModifiers(a, sm, last)
		rankedNoun(a, sm, i)
		a.Sup = sm
	}
}

// extremeOf before "of" take the largest or smallest of a measure, no
// ranking (aggregates.tsv).
var extremeOf = words.Set("extremeof")

// superlativeAt reads a superlative at i ("highest", "top 5", "5 most"),
// with the number that limits it; last is its last token.
func superlativeAt(a *links.Analysis, i int) (sm *links.SuperMention, last int, ok bool) {
	t := a.Toks[i]
	if t.Used {
		return nil, i, false
	}
	s, ok := links.Superlatives[t.Low]
	limit, explicit := 1, false
	start := i
	if t.IsNum && !t.Used && t.Num >= 1 && t.Num <= 1000 && t.Num == math.Trunc(t.Num) && i+1 < len(a.Toks) {
		if s2, ok2 := links.Superlatives[a.Word(i+1)]; ok2 {
			s, ok, limit, explicit = s2, true, int(t.Num), true
			a.Toks[i].Used = true
			i++
		}
	}
	if !ok {
		return nil, i, false
	}
	// "first/last" only rank when they qualify a noun, not in "first 2024"…
	if extremeOf[t.Low] && a.Agg == "" && a.Word(i+1) == "of" {
		return nil, i, false
	}
	if i+1 < len(a.Toks) && a.Toks[i+1].IsNum && !a.Toks[i+1].IsYear() && !a.Toks[i+1].Used {
		limit, explicit = int(a.Toks[i+1].Num), true
		a.Toks[i+1].Used = true
	}
	sm = &links.SuperMention{Phrase: a.Toks[i].Raw, Desc: s.Desc, Limit: limit, Hint: s.Hint, At: start, ExplicitLimit: explicit}
	a.Toks[i].Used = true
	return sm, i, true
}

// countRanks before "number of" rank by the count, and mostLeast before a
// how-adjective rank by it (superlatives.tsv).
var (
	countRanks = words.Set("countrank")
	mostLeast  = words.Set("mostleast")
)

// superlativeModifiers reads what follows a superlative's word at i: "the
// greatest number of" (maybe a count), "most populous" (the adjective sets
// the measure), "top 3 most often borrowed" (how often, not a column). It
// returns the superlative's last token.
func superlativeModifiers(a *links.Analysis, sm *links.SuperMention, i int) int {
	if n := i + 1; a.Seq(n, "number", "of") && !countRanks[a.Word(i)] {
		sm.NumberOf = n
	}
	if mostLeast[a.Toks[i].Low] && HowAdjectives[a.Word(i+1)] != "" {
		sm.Hint = HowAdjectives[a.Word(i+1)]
		sm.Phrase += " " + a.Toks[i+1].Raw
		a.Toks[i+1].Used = true
		i++
	}
	from := i + 1
	if sm.ExplicitLimit && i+1 < len(a.Toks) && a.Toks[i+1].IsNum {
		from++ // past the "2" of "top 2"
	}
	for k := from; k < len(a.Toks) && k <= from+3 && !a.Toks[k].Used; k++ {
		if w := a.Word(k); !mostLeast[w] {
			if !CommonWords[w] {
				break
			}
			a.Toks[k].Used = true
		}
	}
	return i
}

// articles are skipped before the noun a superlative ranks by (grammar.tsv).
var articles = words.Set("article")

// rankedNoun finds the noun a superlative ranks by: "highest revenue",
// "most orders", "top 5 products by units sold", or a second superlative
// ("top 3 shops with the highest ratings") that says what ranks them and
// which way.
func rankedNoun(a *links.Analysis, sm *links.SuperMention, i int) {
	j := i + 1
	for j < len(a.Toks) && articles[a.Word(j)] {
		j++
	}
	sm.NounAt = j
	if by := indexOf(a, "by", i+1); by >= 0 && by+1 < len(a.Toks) {
		sm.NounAt = by + 1
		a.Toks[by].Used = true
	} else if at, s2 := rankedWith(a, j); at > 0 {
		sm.NounAt, sm.Desc = at+1, s2.Desc
		sm.Phrase += " " + a.Toks[at].Raw
		a.Toks[at].Used = true
	}
}

// groupFillers are skipped after a grouping word (grammar.tsv).
var groupFillers = words.Set("groupfiller")

// findGroupings recognises groupings ("per X", "by X", "for each X", "monthly"), which split the answer into one row per group.
func findGroupings(a *links.Analysis) {
	for i := 0; i < len(a.Toks); i++ {
		t := a.Toks[i]
		if t.Used || periodAdverb(a, i) || ofEach(a, i) {
			continue
		}
		at, ok := groupedAfter(a, i)
		if !ok {
			continue
		}
		for at < len(a.Toks) && groupFillers[a.Word(at)] {
			at++
		}
		if at >= len(a.Toks) || a.Toks[at].Used || a.Toks[at].IsNum {
			continue
		}
		a.Toks[i].Used = true
		g := &links.GroupMention{Phrase: a.Toks[at].Raw, At: at, Per: t.Low == "per"}
		if timeUnits[links.SingularOf(a.Word(at))] {
			g.TimeUnit = links.SingularOf(a.Word(at))
			a.Toks[at].Used = true
		}
		a.Groups = append(a.Groups, g)
	}
}

// periodUnits are the adverbs that group by a period.
var periodUnits = words.Map("periodadverb")

// periodAdverb: "monthly", "yearly"… group by that period.
func periodAdverb(a *links.Analysis, i int) bool {
	unit, ok := periodUnits[a.Toks[i].Low]
	if ok {
		a.Groups = append(a.Groups, &links.GroupMention{Phrase: a.Toks[i].Raw, At: i, TimeUnit: unit})
		a.Toks[i].Used = true
	}
	return ok
}

// distributive words take each of the things named (grammar.tsv).
var distributive = words.Set("distributive")

// ofEach: "what are the refund reasons and how many of each" — each of the
// things named before, the last word that is not a function word. True
// when "of each" ends the clause (read or not).
func ofEach(a *links.Analysis, i int) bool {
	t := a.Toks[i]
	if !(distributive[t.Low] && a.Word(i-1) == "of" && (i+1 >= len(a.Toks) || t.Break != 0 || a.Toks[i+1].Clause != t.Clause)) {
		return false
	}
	for k := i - 2; k >= 0; k-- {
		if a.Toks[k].Clause != t.Clause {
			break
		}
		if !links.IsFunctionWord(a.Toks[k]) && !a.Toks[k].IsNum {
			a.Toks[i].Used, a.Toks[i-1].Used = true, true
			a.Groups = append(a.Groups, &links.GroupMention{Phrase: a.Toks[k].Raw, At: k})
			break
		}
	}
	return true
}

// acrossAll after "across" and varyVerbs before it open a grouping,
// acrossSkips are taken with "across" (aggregates.tsv, verbs.tsv).
var (
	acrossAll   = words.Set("acrossall")
	acrossSkips = words.Set("acrossskip")
	varyVerbs   = words.Set("vary")
)

// groupedAfter reads a word that opens a grouping ("per", "by", "for
// each", "each", "across different") and where the grouped thing starts;
// not "the ratio of loans per member" (a quotient) or "cited by
// publications" (an agent).
func groupedAfter(a *links.Analysis, i int) (int, bool) {
	t := a.Toks[i]
	switch {
	case t.Low == "per" && indexOf(a, "ratio", max(i-5, 0)) >= 0 && indexOf(a, "ratio", max(i-5, 0)) < i:
		return 0, false
	case t.Low == "by" && links.PassiveAgent(a.Word(i-1)):
		return 0, false
	case t.Low == "per" || t.Low == "by" && !a.Toks[min(i+1, len(a.Toks)-1)].IsNum:
		return i + 1, true
	case a.Seq(i, "for", "each") || a.Seq(i, "for", "every"):
		a.Toks[i+1].Used = true
		return i + 2, true
	case distributive[t.Low]:
		return i + 1, true
	case t.Low == "across" && (acrossAll[a.Word(i+1)] || varyVerbs[a.Word(i-1)]):
		// "how does X vary across (different) manufacturers"
		at := i + 1
		if acrossSkips[a.Word(at)] {
			a.Toks[at].Used = true
			at++
		}
		return at, true
	}
	return 0, false
}

// possessionWords say a top-N's things have what ranks them, and
// possessionFillers may follow before the superlative (grammar.tsv).
var (
	possessionWords   = words.Set("possession")
	possessionFillers = words.Set("possessionfiller")
)

// rankedWith finds "with/having/has the highest" within a few words after
// from: the superlative that names what a top-N ranks by.
func rankedWith(a *links.Analysis, from int) (int, links.Superlative) {
	for k := from; k < from+5 && k < len(a.Toks); k++ {
		if !possessionWords[a.Word(k)] {
			continue
		}
		j := k + 1
		for possessionFillers[a.Word(j)] {
			j++
		}
		if s, ok := links.Superlatives[a.Word(j)]; ok && !a.Toks[j].Used {
			return j, s
		}
	}
	return -1, links.Superlatives["top"]
}

// KindWords ask for distinct values: "how many kinds of", "different".
var KindWords = words.Set("kind")

// sumWords ask for a total: "total sales", "how many altogether".
var sumWords = words.Set("sum")

// DistinctWords ask for each value once: "the number of different
// specialties".
var DistinctWords = words.Set("distinct")

// findCountKinds reads "kinds of", "different" right after "how many".
func findCountKinds(a *links.Analysis, j int) {
	for j < len(a.Toks) && KindWords[a.Word(j)] {
		a.CountKinds = true
		a.Toks[j].Used = true
		j++
	}
	if a.CountKinds && a.Word(j) == "of" {
		a.Toks[j].Used = true
	}
}

func indexOf(a *links.Analysis, w string, from int) int {
	for i := from; i < len(a.Toks); i++ {
		if a.Toks[i].Low == w && !a.Toks[i].Used {
			return i
		}
	}
	return -1
}

// countRanking reads "the greatest number of writers", "the smallest
// number of books" as "most"/"fewest": a count of the things named,
// ranked. A stored number ("the greatest number of seats", a column) stays
// that column's extreme.
func countRanking(e *links.Reader, a *links.Analysis) {
	sm := a.Sup
	if sm == nil || sm.NumberOf == 0 {
		return
	}
	noun := sm.NumberOf + 2
	for a.Word(noun) == "the" {
		noun++
	}
	counted := false
	for _, em := range a.Entities {
		counted = counted || em.At == noun
	}
	for _, cm := range a.Columns {
		if cm.At == noun {
			counted = false
		}
	}
	if !counted {
		return
	}
	sm.Phrase, sm.Hint = "fewest", ""
	if sm.Desc {
		sm.Phrase = "most"
	}
	a.Toks[sm.NumberOf].Used, a.Toks[sm.NumberOf+1].Used = true, true
	sm.NounAt = noun
}

// listJoins join aggregates listed together (grammar.tsv).
var listJoins = words.Set("listjoin")

// findAggList finds two or more aggregate words joined by commas, "and"
// or "or", ending right before the measure's words.
func findAggList(a *links.Analysis) {
	for i := 0; i < len(a.Toks); i++ {
		fn := AggWords[a.Word(i)]
		if fn == "" || a.Toks[i].Clause != 0 {
			continue
		}
		list := []links.AggItem{{Fn: fn, At: i}}
		k := i
		for {
			j := k + 1
			for listJoins[a.Word(j)] {
				j++
			}
			if j == k+1 && a.Toks[k].Break != ',' || AggWords[a.Word(j)] == "" {
				break
			}
			k = j
			if !slices.ContainsFunc(list, func(it links.AggItem) bool { return it.Fn == AggWords[a.Word(k)] }) {
				list = append(list, links.AggItem{Fn: AggWords[a.Word(k)], At: k})
			}
		}
		if len(list) > 1 {
			a.AggList = list
			return
		}
	}
}
