package offline

import (
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Ordering clauses: "ordered by the count of loans in descending
// order", "sorted from highest to lowest", "sort the rows by the
// region name", "alphabetically", "starting from the top scores". They
// sort whatever the rest of the question computes; they never rank or cut
// by themselves.

// The words of an ordering clause (words/ordering.tsv).

// tieBreak is the second measure a ranking names after its first, "top 5
// makers by number of models and average production": the one aggregate
// of that kind the reading shows besides the one it orders by. Nil when
// the ranking names one measure.
func tieBreak(a *links.Analysis, m *schema.Model, p *plan.Plan) expr {
	if p.Order == nil || p.ThenBy != nil || a.Sup == nil {
		return nil
	}
	if _, ok := aggOf(p.Order.X); !ok {
		return nil
	}
	by := -1
	for k := a.Sup.At + 1; k < len(a.Toks) && k <= a.Sup.At+6 && a.Toks[k].Clause == 0; k++ {
		if a.Word(k) == "by" {
			by = k
			break
		}
	}
	if by < 0 {
		return nil
	}
	fn := ""
	for k := by + 2; k+1 < len(a.Toks) && a.Toks[k].Clause == 0 && !plan.SentenceBreak(a, by, k); k++ {
		if a.Word(k) == "by" || a.Word(k) == "and" && fn != "" {
			return nil
		}
		if a.Word(k) == "and" {
			if fn = read.AggWords[a.Word(k+1)]; fn == "" {
				return nil
			}
		}
	}
	if fn == "" {
		return nil
	}
	var found expr
	for _, s := range p.Selects {
		if ag, ok := aggOf(s.X); ok && ag.Fn == fn && !plan.SameExpr(m, s.X, p.Order.X) {
			if found != nil {
				return nil
			}
			found = s.X
		}
	}
	return found
}
