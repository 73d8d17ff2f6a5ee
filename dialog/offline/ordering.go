package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Ordering clauses: "ordered by the count of loans in descending
// order", "sorted from highest to lowest", "sort the rows by the
// region name", "alphabetically", "starting from the top scores". They
// sort whatever the rest of the question computes; they never rank or cut
// by themselves.

// orderMention is an ordering clause.
type orderMention struct {
	phrase string
	at     int
	// by is the first token of what to sort by, -1 when unnamed.
	by   int
	desc bool
	// alpha: by name, A to Z.
	alpha bool
}

// directionWords say which way a sort goes; the rank tells the first of
// "from X to Y".
var directionWords = words.Flags("direction", "highest", "lowest")

// unitWords are units of measure: "in square kilometers", "people per
// square mile" describe a number, they do not group or name columns.
var unitWords = words.Set("unit")

func isDirection(w string) bool { _, ok := directionWords[w]; return ok }

func isUnit(w string) bool { return unitWords[w] || unitWords[singularOf(w)] }

// findUnits marks unit phrases used: "in meters", "per square kilometer",
// "in loans per member per year".
func (a *analysis) findUnits() {
	for i := range a.toks {
		if !isUnit(a.word(i)) || a.toks[i].Used || a.toks[i].Quoted {
			continue
		}
		// Only after a number or "in"/"per": "named pounds" is a name.
		if prev := a.word(i - 1); !(i > 0 && a.toks[i-1].IsNum) && prev != "in" && prev != "per" && !(prev == "square" || prev == "cubic") {
			continue
		}
		a.toks[i].Used = true
		for j := i + 1; isUnit(a.word(j)); j++ {
			a.toks[j].Used = true
		}
		// "per square kilometer", "in meters": the connective goes too.
		if w := a.word(i - 1); w == "per" || w == "in" {
			a.toks[i-1].Used = true
			if w == "per" && a.word(i-3) == "in" {
				a.toks[i-2].Used, a.toks[i-3].Used = true, true // "in people per km"
			}
		}
	}
}

// findOrdering reads an ordering clause; its words are then no
// superlative ("from highest to lowest") and no grouping ("ordered by").
// sortFollows are the words after "ordered" or "sorted" that make it a
// sort ("ordered by age", "sorted in descending order"); "tools never
// ranked" is no sort.
// alphaWords say text is sorted by its letters.
var alphaWords = words.Set("alphabetical")

var sortFollows = words.Set("sortfollow")

// The words of an ordering clause (words/ordering.tsv).
var (
	sortVerbs    = words.Set("sortverb")
	sortNouns    = words.Set("sortnoun")
	sortedList   = words.Set("sortedlist")
	reverseWords = words.Set("reverse")
	sortFillers  = words.Set("sortfiller")
	sortWays     = words.Map("sortway")
)

func (a *analysis) findOrdering() {
	for i := 0; i < len(a.toks); i++ {
		if a.alphabeticalOrder(i) {
			return
		}
		if !a.opensOrdering(i) {
			continue
		}
		om, end := a.orderClause(i)
		// "starting from the top scores": a sort key after the direction.
		if om.by < 0 && a.word(i) == "starting" {
			for k := i + 1; k < end; k++ {
				if !isDirection(a.word(k)) && !stopWords[a.word(k)] && a.word(k) != "starting" {
					om.by = k
					break
				}
			}
		}
		om.phrase = a.phrase(i, end)
		for k := i; k < end; k++ {
			if om.by >= 0 && k >= om.by && !isDirection(a.word(k)) && !stopWords[a.word(k)] && aggWords[a.word(k)] == "" && a.word(k) != "order" {
				continue // the sort key's words are linked as columns
			}
			a.toks[k].Used = true
		}
		a.order = om
		return
	}
}

// alphabeticalOrder reads "alphabetically", "(in) alphabetical order" and
// "in reverse alphabetical order" (Z to A) at i.
func (a *analysis) alphabeticalOrder(i int) bool {
	w := a.word(i)
	if !(alphaWords[w] && (strings.HasSuffix(w, "ly") || a.word(i+1) == "order") || w == "in" && alphaWords[a.word(i+1)]) {
		return false
	}
	end := i + 1
	if w == "in" {
		end++
	}
	if a.word(end) == "order" {
		end++
	}
	a.order = &orderMention{phrase: a.phrase(i, end), at: i, by: -1, alpha: true}
	a.markUsed(i, end)
	if sortedList[a.word(i-1)] {
		a.markUsed(i-1, i)
	}
	if reverseWords[a.word(i-1)] {
		a.order.desc = true
		a.markUsed(i-1, i)
	}
	return true
}

// opensOrdering: "ordered by", "sort the…", "in descending", "starting
// from", "from highest to…".
func (a *analysis) opensOrdering(i int) bool {
	w := a.word(i)
	switch {
	case sortVerbs[w] && sortFollows[a.word(i+1)] ||
		sortNouns[w] && (a.word(i+1) == "by" || a.word(i+1) == "the" || a.word(i+1) == "them" || a.word(i+1) == "results"):
		return true
	case a.seq(i, "in", "descending") || a.seq(i, "in", "ascending"):
		return true
	case w == "starting" && a.word(i+1) == "from" || w == "from" && isDirection(a.word(i+1)) && a.word(i+2) == "to":
		return true
	}
	return false
}

// orderClause reads the clause an ordering opens at i, up to the
// punctuation that ends it: its direction and where its sort key starts.
// Ascending unless the words say otherwise, as SQL.
func (a *analysis) orderClause(i int) (*orderMention, int) {
	om := &orderMention{at: i, by: -1}
	end := i + 1
	for end < len(a.toks) && end < i+14 {
		if !a.orderWord(om, i, end) {
			break // the clause has ended
		}
		brk := a.toks[end].Break
		end++
		if brk != 0 && (brk != ',' || om.by >= 0 && end > om.by) {
			break
		}
	}
	return om, end
}

// orderWord reads the word at end of the ordering clause opened at i into
// om; false when the word is past the clause.
func (a *analysis) orderWord(om *orderMention, i, end int) bool {
	x := a.word(end)
	switch {
	case (x == "by" || x == "of" && a.word(end-1) == "order") && om.by < 0:
		// "ordered by price", "in ascending order of price"
		om.by = end + 1
		for a.word(om.by) == "the" || a.word(om.by) == "their" || a.word(om.by) == "its" {
			om.by++
		}
	case sortFillers[x]:
	case sortWays[x] != "":
		om.desc = directionWords[x]
	case isDirection(x) && (a.word(end-1) == "from" || a.word(end-1) == "to" || a.word(end-1) == "the"):
		if a.word(end-1) != "to" {
			om.desc = directionWords[x]
		}
	case x == "alphabetically" || x == "alphabetical":
		om.alpha, om.desc = true, false
	case om.by < 0 && a.word(end-1) == "the" && sortNouns[a.word(i)]:
		om.by = end // "sort the product codes in ascending order"
	default:
		return om.by >= 0 && end >= om.by
	}
	return true
}

func (a *analysis) markUsed(from, to int) {
	for k := max(from, 0); k < to && k < len(a.toks); k++ {
		a.toks[k].Used = true
	}
}

// orderElement sorts the reading as the ordering clause says: by the
// column or aggregate it names, else by the reading's own measure (or its
// name, alphabetically).
func (r *reader) orderElement() []*element {
	om := r.a.order
	if om == nil {
		return nil
	}
	el := &element{name: "sort"}
	var key *colMention
	var keyAggs []aggRead
	if om.by >= 0 {
		if aggs, _ := r.aggregateAt(om.by); len(aggs) > 0 {
			keyAggs = aggs
		}
		// "in descending order of days on loan": the first column
		// named in the clause's words after "by"/"of".
		end := max(r.a.spanOf(om.at, om.phrase), om.by+2)
		for k := om.by; k < end && key == nil; k++ {
			key = r.columnAt(k)
		}
		if key != nil {
			r.usedCols[key] = true
		}
	}
	named := om.by >= 0 && key == nil && len(keyAggs) == 0
	el.add(1, func(p *plan) {
		if p.order != nil && p.limit > 0 {
			return // a ranking already sorts (and cuts)
		}
		if named {
			// The words name a sort key no column matches: sorting by
			// anything else would answer another question; leave the
			// words unused, to be said.
			return
		}
		if x := r.sortKey(p, key, keyAggs, om.alpha); x != nil {
			p.order = &sel{x: x}
			p.desc = om.desc
		}
	})
	return []*element{el}
}

// sortKey picks what a plan is sorted by.
func (r *reader) sortKey(p *plan, key *colMention, aggs []aggRead, alpha bool) expr {
	m := r.e.m
	// An aggregate the plan shows ("by the number of loans").
	for _, ag := range aggs {
		for _, s := range p.selects {
			if sameExpr(m, s.x, ag.x) {
				return s.x
			}
		}
	}
	if key != nil {
		for _, al := range key.alts {
			x := r.exprOf(al)
			for _, s := range p.selects {
				if sameExpr(m, s.x, x) || aggregatesOver(s.x, x, m) {
					return s.x
				}
			}
			if !p.tables[strings.ToLower(al.table)] {
				continue
			}
			if p.aggregated || len(p.groups) > 0 {
				for _, g := range p.groups {
					if sameExpr(m, g.x, x) {
						return x
					}
				}
				continue
			}
			return x
		}
	}
	if len(aggs) > 0 && p.aggregated {
		for _, s := range p.selects {
			if isCount(s.x) && isCount(aggs[0].x) {
				return s.x
			}
		}
	}
	// Unnamed: the plan's measure, or for "alphabetically" its first text.
	for _, s := range p.selects {
		isAgg := !arithmeticNoCall(s.x)
		if alpha && !isAgg {
			return s.x
		}
		if !alpha && isAgg {
			return s.x
		}
	}
	if !alpha {
		for _, s := range p.selects {
			if c, ok := isColumn(s.x); ok {
				if col := m.Column(c.Table, c.Column); col != nil && col.Kind() == warehouse.KindNumber {
					return s.x
				}
			}
		}
	}
	return nil
}

// tieBreak is the second measure a ranking names after its first, "top 5
// makers by number of models and average production": the one aggregate
// of that kind the reading shows besides the one it orders by. Nil when
// the ranking names one measure.
func (a *analysis) tieBreak(m *schema.Model, p *plan) expr {
	if p.order == nil || p.thenBy != nil || a.sup == nil {
		return nil
	}
	if _, ok := aggOf(p.order.x); !ok {
		return nil
	}
	by := -1
	for k := a.sup.at + 1; k < len(a.toks) && k <= a.sup.at+6 && a.toks[k].Clause == 0; k++ {
		if a.word(k) == "by" {
			by = k
			break
		}
	}
	if by < 0 {
		return nil
	}
	fn := ""
	for k := by + 2; k+1 < len(a.toks) && a.toks[k].Clause == 0 && !a.sentenceBreak(by, k); k++ {
		if a.word(k) == "by" || a.word(k) == "and" && fn != "" {
			return nil
		}
		if a.word(k) == "and" {
			if fn = aggWords[a.word(k+1)]; fn == "" {
				return nil
			}
		}
	}
	if fn == "" {
		return nil
	}
	var found expr
	for _, s := range p.selects {
		if ag, ok := aggOf(s.x); ok && ag.Fn == fn && !sameExpr(m, s.x, p.order.x) {
			if found != nil {
				return nil
			}
			found = s.x
		}
	}
	return found
}
