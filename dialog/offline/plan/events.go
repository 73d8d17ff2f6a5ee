package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// Events at their own dates and participants. A past participle that
// names something that happened to the subject — "orders placed in
// 2025", "shipped by UPS", "shipped to California", "delivered last
// month" — is first that event: its date, its agent, its destination.
// A status column often stores the same word ('placed', 'shipped') for the
// rows whose latest step it was, so filtering on it answers another
// question (an order shipped and since delivered is no longer 'shipped').
// The status stays an option, asked about when the two differ; it is never
// applied silently.
//
// Evidence that a word names an event of the data: the schema has a
// column the word names — a date column "shipped_at", a comment "Date the
// order was placed", a "Shipping carrier" — besides the stored value.

// eventWeight is how much likelier the event reading of a participle
// followed by a time, an agent or a place is than the stored status.
const eventWeight = 1.5

// eventDate weighs a date column by the event verbs of the question: 12
// (more than a related table's date is discounted) when its name or comment is the event's ("placed in 2025" →
// ordered_at, "Date the order was placed").
func eventDate(a *links.Analysis, name, comment string) float64 {
	if len(a.EventVerbs) > 0 && read.NamesVerb(name+" "+comment, a.EventVerbs) {
		return 12
	}
	return 1
}

// foreignDatePenalty discounts a time condition on a table other than the
// aggregated fact's when the fact has dates of its own: "which rep sold
// the most in 2024" counts the sales of 2024, not the reps hired in 2024.
const foreignDatePenalty = 0.02

// factDates weighs a reading by whether its time conditions are on the
// dates of the rows it aggregates (the fact's own event dates) rather than
// on a related table's.
func (e *Builder) factDates(p *Plan, a *links.Analysis) float64 {
	facts := p.aggregatedTables()
	if len(facts) == 0 || len(p.DateCols) == 0 {
		return 1
	}
	// A date the question's event names is the question's ("customers who
	// placed an order in 2025").
	named := map[sqlexpr.ColRef]bool{}
	for dc := range p.DateCols {
		if c := e.m.Column(dc.Table, dc.Column); c != nil && eventDate(a, c.Name, c.Comment) > 1 {
			named[dc] = true
		}
	}
	// Counting things related through a fact (the tools a member
	// borrowed): the fact's rows are counted, and its dates are theirs.
	for _, t := range p.TableList() {
		for f := range facts {
			if lt := e.linking(t, f); lt != nil {
				facts[strings.ToLower(lt.Name)] = true
			}
		}
	}
	// Order lines have no date; the orders they belong to do.
	for t := range facts {
		if ti := e.m.ByName[t]; ti != nil && len(ti.Dates) == 0 {
			for _, j := range e.m.Snap.Schema.Joins {
				if strings.EqualFold(j.FromTable, t) {
					facts[strings.ToLower(j.ToTable)] = true
				}
			}
		}
	}
	dated := false
	for t := range facts {
		if ti := e.m.ByName[t]; ti != nil && len(ti.Dates) > 0 {
			dated = true
		}
	}
	if !dated {
		return 1 // order lines have no date: their order's is theirs
	}
	w := 1.0
	for dc := range p.DateCols {
		if !facts[strings.ToLower(dc.Table)] && !named[dc] {
			w *= foreignDatePenalty
		}
	}
	return w
}

// aggregatedTables are the lower-case tables whose rows the reading's
// aggregates add up or count.
func (p *Plan) aggregatedTables() map[string]bool {
	out := map[string]bool{}
	for _, t := range []*schema.Table{p.CountOf, p.CountRows} {
		if t != nil && p.Aggregated {
			out[strings.ToLower(t.Name)] = true
		}
	}
	for _, x := range p.AggregateParts() {
		for _, c := range sqlexpr.Columns(x) {
			out[strings.ToLower(c.Table)] = true
		}
	}
	return out
}

// linking is a table whose rows refer to both a and b (the loans between
// members and tools), nil when there is none or a and b are the same.
func (e *Builder) linking(a, b string) *schema.Table {
	if strings.EqualFold(a, b) {
		return nil
	}
	refs := e.m.Refs
	for _, name := range read.SortedNames(ToSet(refs)) {
		if refs[name][strings.ToLower(a)] && refs[name][strings.ToLower(b)] {
			return e.m.ByName[name]
		}
	}
	return nil
}
