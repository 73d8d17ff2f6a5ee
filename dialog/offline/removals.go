package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// withoutRemoved leaves out of p the shown columns that feedback asked to
// drop ("drop the city column"): a shown column whose name has every word
// of the removal. A reading shows at least one thing, so a removal that
// names all it shows is not applied; p itself is not changed.
func withoutRemoved(a *links.Analysis, m *schema.Model, p *plan.Plan) *plan.Plan {
	if len(a.Removes) == 0 {
		return p
	}
	var kept []plan.Sel
	for _, s := range p.Selects {
		if !removed(a.Removes, m, s.X) {
			kept = append(kept, s)
		}
	}
	if len(kept) == len(p.Selects) || len(kept) == 0 {
		return p
	}
	q := p.Clone()
	q.Selects = kept
	return q
}

// removed says whether x is a column named by one of the removals.
func removed(removes []string, m *schema.Model, x sqlexpr.Expr) bool {
	c, ok := x.(sqlexpr.ColRef)
	if !ok {
		return false
	}
	name := m.Cat.NameTerms(c.Column)
	for _, r := range removes {
		words := m.Cat.Terms(r)
		if len(words) > 0 && !slices.ContainsFunc(words, func(w string) bool { return !slices.Contains(name, w) }) {
			return true
		}
		if strings.EqualFold(strings.ReplaceAll(r, " ", "_"), c.Column) {
			return true
		}
	}
	return false
}
