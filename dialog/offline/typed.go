package offline

import (
	"slices"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Typed meanings: what the dialog understood from words a person typed
// (dialog.Feedback.Term, "revenue" = net revenue minus the amount
// refunded; "active" = status is placed or shipped), and what a person's
// definition of a phrase says when it is a computed measure. They are
// built as the typed parts of readings, not re-read from the words:
//
//   - a condition becomes the phrase's stated definition (define.go's
//     stated meanings), whatever the engine would have offered for it;
//   - a computed measure replaces the alternatives of the phrase's column
//     mention with one per-row expression: the first measure's column
//     minus (plus) each other measure of a related table summed per row
//     of the first's table, so that totals, averages and rankings over it
//     are the measures' difference and a join never repeats a row.
//
// Engine hooks (the only changes outside this file): analyse skips the
// words of typed feedback (parse.go), readings calls typedMeasures and
// typedTerms (build.go), and Candidates adds withTyped's definitions
// (engine.go).

// typedUnaggregated reports whether a reading lists a computed measure row
// by row: a measure computed from totals is only ever a total (or an
// average, a ranking) of them.
func typedUnaggregated(a *links.Analysis, m *schema.Model, p *plan.Plan) bool {
	if len(a.TypedMarkers) == 0 {
		return false
	}
	found := false
	var visit func(x expr, inAgg bool)
	visit = func(x expr, inAgg bool) {
		if x == nil || found {
			return
		}
		if !inAgg && slices.ContainsFunc(a.TypedMarkers, func(mk expr) bool { return plan.SameExpr(m, mk, x) }) {
			found = true
			return
		}
		_, agg := x.(aggExpr)
		for _, sub := range subExprs(x) {
			visit(sub, inAgg || agg)
		}
	}
	for _, x := range p.OuterParts() {
		visit(x, false)
	}
	return found
}

// withTyped adds to a reading's definitions the computed measures its
// parts use.
func withTyped(a *links.Analysis, m *schema.Model, defs []dialog.Definition, parts *readingParts) []dialog.Definition {
	for _, tm := range a.TypedMeasures {
		if parts.holds(m, tm.Marker) && !slices.ContainsFunc(defs, func(d dialog.Definition) bool { return d.Phrase == tm.Def.Phrase }) {
			defs = append(slices.Clip(defs), tm.Def)
		}
	}
	return defs
}
