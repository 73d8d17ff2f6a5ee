package read

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Ordering clauses: "ordered by the count of loans in descending
// order", "sorted from highest to lowest", "sort the rows by the
// region name", "alphabetically", "starting from the top scores". They
// sort whatever the rest of the question computes; they never rank or cut
// by themselves.

// directionWords say which way a sort goes; the rank tells the first of
// "from X to Y".
var directionWords = words.Flags("direction", "highest", "lowest")

// unitWords are units of measure: "in square kilometers", "people per
// square mile" describe a number, they do not group or name columns.
var unitWords = words.Set("unit")

func isDirection(w string) bool { _, ok := directionWords[w]; return ok }

func isUnit(w string) bool { return unitWords[w] || unitWords[links.SingularOf(w)] }

// perUnit before a unit make it a rate's (prepositions.tsv); areaUnits
// raise it to a power (units.tsv).
var (
	perUnit   = words.Set("perunit")
	areaUnits = words.Set("areaunit")
)

// findUnits marks unit phrases used: "in meters", "per square kilometer",
// "in loans per member per year".
func findUnits(a *links.Analysis) {
	for i := range a.Toks {
		if !isUnit(a.Word(i)) || a.Toks[i].Used || a.Toks[i].Quoted {
			continue
		}
		// Only after a number or "in"/"per": "named pounds" is a name.
		if prev := a.Word(i - 1); !(i > 0 && a.Toks[i-1].IsNum) && !perUnit[prev] && !areaUnits[prev] {
			continue
		}
		a.Toks[i].Used = true
		for j := i + 1; isUnit(a.Word(j)); j++ {
			a.Toks[j].Used = true
		}
		// "per square kilometer", "in meters": the connective goes too.
		if w := a.Word(i - 1); perUnit[w] {
			a.Toks[i-1].Used = true
			if w == "per" && a.Word(i-3) == "in" {
				a.Toks[i-2].Used, a.Toks[i-3].Used = true, true // "in people per km"
			}
		}
	}
}

// alphaWords say text is sorted by its letters.
var alphaWords = words.Set("alphabetical")

// sortFollows are the words after "ordered" or "sorted" that make it a
// sort ("ordered by age", "sorted in descending order"); "tools never
// ranked" is no sort.
var sortFollows = words.Set("sortfollow")

var sortVerbs = words.Set("sortverb")

var sortNouns = words.Set("sortnoun")

// sortNounFollows after a sort noun open an ordering (nouns.tsv).
var sortNounFollows = words.Set("sortnounfollow")

// orderByFillers are skipped after "by" (grammar.tsv), directionLeads
// come before a direction word (prepositions.tsv) and alphaOrder sorts by
// name (ordering.tsv), in an ordering clause.
var (
	orderByFillers = words.Set("orderbyfiller")
	directionLeads = words.Set("directionlead")
	alphaOrder     = words.Set("alphaorder")
)

var sortedList = words.Set("sortedlist")

var reverseWords = words.Set("reverse")

var sortFillers = words.Set("sortfiller")

var sortWays = words.Map("sortway")

// findOrdering reads an ordering clause; its words are then no
// superlative ("from highest to lowest") and no grouping ("ordered by").
func findOrdering(a *links.Analysis) {
	for i := 0; i < len(a.Toks); i++ {
		if alphabeticalOrder(a, i) {
			return
		}
		if !opensOrdering(a, i) {
			continue
		}
		om, end := orderClause(a, i)
		if !saysHow(a, om, i, end) {
			continue // "ordered in 2024", "ordered from Leeds": an event
		}
		// "starting from the top scores": a sort key after the direction.
		if om.By < 0 && a.Word(i) == "starting" {
			for k := i + 1; k < end; k++ {
				if !isDirection(a.Word(k)) && !links.StopWords[a.Word(k)] && a.Word(k) != "starting" {
					om.By = k
					break
				}
			}
		}
		om.Phrase = a.Phrase(i, end)
		for k := i; k < end; k++ {
			if om.By >= 0 && k >= om.By && !isDirection(a.Word(k)) && !links.StopWords[a.Word(k)] && AggWords[a.Word(k)] == "" && a.Word(k) != "order" {
				continue // the sort key's words are linked as columns
			}
			a.Toks[k].Used = true
		}
		a.Order = om
		return
	}
}

// saysHow: a sort verb asks for a sort only when its clause says how — a
// sort key, a direction or alphabetically. "Ordered in 2024" and "ordered
// from Leeds" name what happened, not a sort.
func saysHow(a *links.Analysis, om *links.OrderMention, i, end int) bool {
	if !sortVerbs[a.Word(i)] || om.By >= 0 || om.Alpha {
		return true
	}
	for k := i + 1; k < end; k++ {
		if isDirection(a.Word(k)) || sortWays[a.Word(k)] != "" {
			return true
		}
	}
	return false
}

// alphabeticalOrder reads "alphabetically", "(in) alphabetical order" and
// "in reverse alphabetical order" (Z to A) at i.
func alphabeticalOrder(a *links.Analysis, i int) bool {
	w := a.Word(i)
	if !(alphaWords[w] && (strings.HasSuffix(w, "ly") || a.Word(i+1) == "order") || w == "in" && alphaWords[a.Word(i+1)]) {
		return false
	}
	end := i + 1
	if w == "in" {
		end++
	}
	if a.Word(end) == "order" {
		end++
	}
	a.Order = &links.OrderMention{Phrase: a.Phrase(i, end), At: i, By: -1, Alpha: true}
	a.MarkUsed(i, end)
	if sortedList[a.Word(i-1)] {
		a.MarkUsed(i-1, i)
	}
	if reverseWords[a.Word(i-1)] {
		a.Order.Desc = true
		a.MarkUsed(i-1, i)
	}
	return true
}

// opensOrdering: "ordered by", "sort the…", "in descending", "starting
// from", "from highest to…".
func opensOrdering(a *links.Analysis, i int) bool {
	w := a.Word(i)
	switch {
	case sortVerbs[w] && sortFollows[a.Word(i+1)] ||
		sortNouns[w] && sortNounFollows[a.Word(i+1)]:
		return true
	case a.Seq(i, "in", "descending") || a.Seq(i, "in", "ascending"):
		return true
	case w == "starting" && a.Word(i+1) == "from" || w == "from" && isDirection(a.Word(i+1)) && a.Word(i+2) == "to":
		return true
	}
	return false
}

// orderClause reads the clause an ordering opens at i, up to the
// punctuation that ends it: its direction and where its sort key starts.
// Ascending unless the words say otherwise, as SQL.
func orderClause(a *links.Analysis, i int) (*links.OrderMention, int) {
	om := &links.OrderMention{At: i, By: -1}
	end := i + 1
	for end < len(a.Toks) && end < i+14 {
		if !orderWord(a, om, i, end) {
			break // the clause has ended
		}
		brk := a.Toks[end].Break
		end++
		if brk != 0 && (brk != ',' || om.By >= 0 && end > om.By) {
			break
		}
	}
	return om, end
}

// orderWord reads the word at end of the ordering clause opened at i into
// om; false when the word is past the clause.
func orderWord(a *links.Analysis, om *links.OrderMention, i, end int) bool {
	x := a.Word(end)
	switch {
	case (x == "by" || x == "of" && a.Word(end-1) == "order") && om.By < 0:
		// "ordered by price", "in ascending order of price"
		om.By = end + 1
		for orderByFillers[a.Word(om.By)] {
			om.By++
		}
	case sortFillers[x]:
	case sortWays[x] != "":
		om.Desc = directionWords[x]
	case isDirection(x) && directionLeads[a.Word(end-1)]:
		if a.Word(end-1) != "to" {
			om.Desc = directionWords[x]
		}
	case alphaOrder[x]:
		om.Alpha, om.Desc = true, false
	case om.By < 0 && a.Word(end-1) == "the" && sortNouns[a.Word(i)]:
		om.By = end // "sort the product codes in ascending order"
	default:
		return om.By >= 0 && end >= om.By
	}
	return true
}
