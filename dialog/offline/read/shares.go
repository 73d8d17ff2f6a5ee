package read

import (
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// shareWords ask for a part of the whole.
var shareWords = words.Set("share")

// shareOf follow a share word (prepositions.tsv); changeFrom and
// priorPeriod read "compared to the previous month" (prepositions.tsv,
// periods.tsv).
var (
	shareOf     = words.Set("shareof")
	changeFrom  = words.Set("changefrom")
	priorPeriod = words.Set("priorperiod")
)

// findShares reads "share of", "percentage of", "% of" and
// "month-over-month", "year over year", "compared to the previous month".
func findShares(a *links.Analysis) {
	for i, t := range a.Toks {
		if t.Used || t.Clause != 0 {
			continue
		}
		if shareWords[t.Low] && shareOf[a.Word(i+1)] && !withinGroups(a, i+2) {
			a.Share = &links.Span{At: i, End: i + 2}
			a.MarkUsed(i, i+2)
			continue
		}
		unit := links.SingularOf(t.Low)
		if !timeUnits[unit] {
			continue
		}
		switch {
		case a.Word(i+1) == "over" && links.SingularOf(a.Word(i+2)) == unit:
			// "month-over-month", "year over year"
			a.Change = &links.ChangeMention{Unit: unit, At: i, End: i + 3}
			a.MarkUsed(i, i+3)
		case priorPeriod[a.Word(i-1)] && a.Word(i-2) == "the" && changeFrom[a.Word(i-3)]:
			// "compared to the previous month", "change from the prior year"
			a.Change = &links.ChangeMention{Unit: unit, At: i - 3, End: i + 1}
			a.MarkUsed(i-3, i+1)
		}
	}
	if c := a.Change; c != nil {
		// The change is between periods: the result is per period.
		has := false
		for _, g := range a.Groups {
			has = has || g.TimeUnit != ""
		}
		if !has {
			a.Groups = append(a.Groups, &links.GroupMention{Phrase: a.Phrase(c.At, c.End), At: c.At, TimeUnit: c.Unit})
		}
	}
}

var timeUnits = words.Set("timeunit")

// withinGroups says whether a share asks for a part of each group's own
// rows ("the proportion of loans with fees out of all loans"), which
// is no share of the total over groups.
func withinGroups(a *links.Analysis, from int) bool {
	for k := from; k < len(a.Toks) && a.Toks[k].Clause == 0; k++ {
		if a.Word(k) == "out" && a.Word(k+1) == "of" || a.Word(k) == "among" {
			return true
		}
	}
	return false
}
