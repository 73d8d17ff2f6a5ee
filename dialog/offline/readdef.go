package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Definitions read as questions: the words a person gives for a term
// ("loyal" = "customers with 25 or more orders", "has a refund in the
// last 30 days", "in Texas or Ohio") are read by the reader questions go
// through, as a question listing the term's subject: counts of related
// rows, periods, value sets, comparisons, measures compared. The reading
// is accepted only when it lists the subject's rows, compares something,
// and accounts for every word; its conditions (filters, grouped counts,
// the tables they read) become the term's meaning, applied to later
// questions by reading the same words again (fromTerm), so a relative
// period ("in the last 90 days") stays relative.

var _ dialog.ConditionReader = (*Engine)(nil)

// ReadCondition reads words as a condition on subject's rows with the
// question reader; ok is false when no reading lists the subject's rows
// under a condition that uses every word.
func (e *Engine) ReadCondition(ctx context.Context, subject, words string, facts []ontology.Fact) (dialog.ConditionRead, bool) {
	if ctx.Err() != nil {
		return dialog.ConditionRead{}, false
	}
	rd, ok := e.readCondition(subject, words, facts)
	if !ok {
		return dialog.ConditionRead{}, false
	}
	var labels []string
	for _, d := range rd.Parts.Defines {
		labels = append(labels, strings.ToLower(d.Label[:1])+d.Label[1:])
	}
	return dialog.ConditionRead{Term: rd.Term, SQL: rd.Listing, Label: sqlshape.JoinAnd(labels)}, true
}

// readCondition frames the words as a question about subject's rows
// ("customers with …", "customers that …") and keeps the likeliest
// reading of any framing that accounts for every word.
func (e *Engine) readCondition(subject, words string, facts []ontology.Fact) (plan.ConditionReading, bool) {
	t := e.m.ByName[strings.ToLower(subject)]
	words = strings.Join(strings.Fields(strings.TrimRight(words, " .!?")), " ")
	if t == nil || t.Key == nil || words == "" {
		return plan.ConditionReading{}, false
	}
	noun := strings.ToLower(plan.Humanize(t.Name))
	low := strings.ToLower(words)
	var framings []string
	if strings.HasPrefix(low, noun+" ") || strings.HasPrefix(low, links.SingularOf(noun)+" ") {
		framings = []string{"list " + words}
	} else {
		framings = []string{"list " + noun + " " + words, "list " + noun + " that " + words, "list " + noun + " with " + words, "list " + noun + " whose " + words}
		// "has no visits" said of one of them is "that have no visits".
		for _, verb := range []string{"has ", "is ", "was "} {
			if rest, ok := strings.CutPrefix(low, verb); ok {
				framings = append(framings, "list "+noun+" that "+map[string]string{"has ": "have ", "is ": "are ", "was ": "were "}[verb]+rest)
			}
		}
	}
	var best plan.ConditionReading
	bestW := 0.0
	for _, q := range framings {
		a := read.Analyse(e.reader, q, nil, facts, e.now())
		for _, p := range e.planner.Readings(a, 0, facts) {
			if p.Weight <= bestW || !listsUnder(p, t) {
				continue
			}
			trees, err := e.m.Cat.JoinPaths(2, p.TableList()...)
			if err != nil {
				continue
			}
			if unused := e.unexplained(a, p, e.partsOf(p, trees[0])); len(unused) > 0 {
				continue
			}
			listing := e.listing(p, t, trees[0])
			best, bestW = plan.ConditionReading{
				Parts: &plan.ReadParts{Filters: slices.Clone(p.Filters), Derived: slices.Clone(p.Derived), Tables: p.TableList(), Defines: slices.Clone(p.Defines)},
				Term: ontology.Term{Kind: ontology.TermPredicate, Subject: strings.ToLower(t.Name), Op: plan.ReadOp, Items: []string{words},
					Expr: strings.ToLower(t.Name+"."+t.Key.Name) + " IN (" + strings.Join(strings.Fields(listing), " ") + ")"},
				Listing: listing,
			}, p.Weight
		}
	}
	return best, bestW > 0
}

// listsUnder says whether p lists rows of t, and nothing else, under at
// least one condition: no totals, groups, order or limit.
func listsUnder(p *plan.Plan, t *schema.Table) bool {
	if p.Aggregated || len(p.Groups) > 0 || len(p.Having) > 0 || p.Order != nil || p.Limit > 0 || p.Wrap != "" || p.PerEntity != nil {
		return false
	}
	if len(p.Filters)+len(p.Derived) == 0 || len(p.Selects) == 0 {
		return false
	}
	for _, s := range p.Selects {
		cols := columnsOf(s.X)
		if len(cols) == 0 || aggregates(s.X) {
			return false
		}
		for _, c := range cols {
			// Only what names the rows: a column shown would account for
			// words the condition leaves out ("gross minus net amount").
			if !strings.EqualFold(c.Table, t.Name) || !slices.ContainsFunc(t.Details, func(d *warehouse.Column) bool { return strings.EqualFold(d.Name, c.Column) }) &&
				(t.Key == nil || !strings.EqualFold(t.Key.Name, c.Column)) && (t.Label == nil || !strings.EqualFold(t.Label.Name, c.Column)) {
				return false
			}
		}
	}
	return true
}

// listing renders the subject's keys that meet p's conditions.
func (e *Engine) listing(p *plan.Plan, t *schema.Table, tree *catalog.JoinTree) string {
	q := p.Clone()
	q.Selects = []plan.Sel{{X: col(t.Name, t.Key.Name)}}
	q.Distinct, q.DistinctForJoins = len(tree.Edges) > 0, false
	return e.render(q, tree)
}
