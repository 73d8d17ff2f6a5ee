package read

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
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

// typedDefs collects the typed meanings of a request: feedback the dialog
// read, and the active computed-measure definitions among the facts.
func typedDefs(feedback []dialog.Feedback, facts []ontology.Fact) []links.TypedDef {
	var out []links.TypedDef
	for _, fb := range feedback {
		if fb.Term != nil && fb.About != "" {
			out = append(out, links.TypedDef{Phrase: strings.ToLower(fb.About), Term: *fb.Term, Label: fb.Text})
		}
	}
	for _, f := range facts {
		if f.Active() && f.Kind == ontology.KindDefinition && f.Target.Choice.Kind == ontology.TermComputed &&
			!slices.ContainsFunc(out, func(d links.TypedDef) bool { return d.Phrase == f.Phrase }) {
			out = append(out, links.TypedDef{Phrase: f.Phrase, Term: f.Target.Choice, Label: f.Meaning, FactID: f.ID})
		}
	}
	return out
}
