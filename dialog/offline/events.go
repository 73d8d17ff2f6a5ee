package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
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
func eventDate(a *read.Analysis, name, comment string) float64 {
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
func (e *Engine) factDates(p *plan, a *read.Analysis) float64 {
	facts := p.aggregatedTables()
	if len(facts) == 0 || len(p.dateCols) == 0 {
		return 1
	}
	// A date the question's event names is the question's ("customers who
	// placed an order in 2025").
	named := map[colRef]bool{}
	for dc := range p.dateCols {
		if c := e.m.Column(dc.Table, dc.Column); c != nil && eventDate(a, c.Name, c.Comment) > 1 {
			named[dc] = true
		}
	}
	// Counting things related through a fact (the tools a member
	// borrowed): the fact's rows are counted, and its dates are theirs.
	for _, t := range p.tableList() {
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
	for dc := range p.dateCols {
		if !facts[strings.ToLower(dc.Table)] && !named[dc] {
			w *= foreignDatePenalty
		}
	}
	return w
}

// aggregatedTables are the lower-case tables whose rows the reading's
// aggregates add up or count.
func (p *plan) aggregatedTables() map[string]bool {
	out := map[string]bool{}
	for _, t := range []*schema.Table{p.countOf, p.countRows} {
		if t != nil && p.aggregated {
			out[strings.ToLower(t.Name)] = true
		}
	}
	for _, x := range p.aggregateParts() {
		for _, c := range columnsOf(x) {
			out[strings.ToLower(c.Table)] = true
		}
	}
	return out
}

// particles follow a verb without changing the event it names ("signed
// up", "checked out", "paid off").
var particles = words.Set("particle")

// eventVerbBefore finds a participle right before token at (a time
// condition), possibly with its particle, that names a date column the
// reading's conditions use: the tokens from it to at are the event.
func (e *Engine) eventVerbBefore(a *read.Analysis, at int, p *plan) (int, bool) {
	k := at - 1
	switch a.Word(k) {
	case "in", "during", "on", "since", "before", "after", "by", "at", "from":
		k--
	}
	if particles[a.Word(k)] {
		k--
	}
	if k < 0 || !read.Participle(a.Word(k)) {
		return 0, false
	}
	stems := read.VerbStems(a.Word(k))
	for dc := range p.dateCols {
		c := e.m.Column(dc.Table, dc.Column)
		if c != nil && read.NamesVerb(c.Name+" "+c.Comment, stems) {
			return k, true
		}
	}
	return 0, false
}

// linking is a table whose rows refer to both a and b (the loans between
// members and tools), nil when there is none or a and b are the same.
func (e *Engine) linking(a, b string) *schema.Table {
	if strings.EqualFold(a, b) {
		return nil
	}
	refs := e.m.Refs
	for _, name := range read.SortedNames(toSet(refs)) {
		if refs[name][strings.ToLower(a)] && refs[name][strings.ToLower(b)] {
			return e.m.ByName[name]
		}
	}
	return nil
}

// timeLead are the words between an event's verb and its time: "built
// in each year", "made during the war".
var timeLead = words.Set("timelead")

// passiveAux come before a passive participle: "looms were made".
var passiveAux = words.Set("passiveaux")

// onlyEventBefore finds the participle of an event whose date is the only
// one the reading's time could be on ("looms built in 1985", "in 1985,
// how many looms were made", "looms installed in each year"): the reading
// reads one date (or year) column, its table has no other, and no column
// anywhere names the verb, so the verb chooses nothing. at is where the
// time (or period) is said; the participle is right before it, or closes
// a passive clause after it.
func (e *Engine) onlyEventBefore(a *read.Analysis, parts *readingParts, at int) (int, bool) {
	k := at - 1
	for n := 0; n < 3 && timeLead[a.Word(k)]; n++ {
		k--
	}
	if !read.Participle(a.Word(k)) {
		k = -1
		for i := at + 1; i < len(a.Toks) && a.Toks[i].Clause == a.Toks[at].Clause; i++ {
			if read.Participle(a.Word(i)) && passiveAux[a.Word(i-1)] && (i+1 == len(a.Toks) || a.Toks[i+1].Clause != a.Toks[at].Clause || read.IsFunctionWord(a.Toks[i+1]) && !relationPreps[a.Word(i+1)]) {
				k = i
			}
		}
		if k < 0 {
			return 0, false
		}
	}
	var dated []string
	for key := range parts.columns {
		table, column, _ := strings.Cut(key, ".")
		if c := e.m.Column(table, column); c != nil && e.dateLike(table, c) {
			dated = append(dated, table)
		}
	}
	if len(dated) != 1 {
		return 0, false
	}
	n := 0
	stems := read.VerbStems(a.Word(k))
	for _, t := range e.m.Snap.Schema.Tables {
		for _, c := range t.Columns {
			if !e.dateLike(t.Name, &c) {
				continue
			}
			if strings.EqualFold(t.Name, dated[0]) {
				n++
			} else if read.NamesVerb(c.Name+" "+c.Comment, stems) {
				return 0, false
			}
		}
	}
	return k, n == 1
}

// dateLike says whether a column holds when something happened: a date or
// time, or a year stored as a number.
func (e *Engine) dateLike(table string, c *warehouse.Column) bool {
	if c.Kind() == warehouse.KindTime {
		return true
	}
	n := strings.ToLower(c.Name)
	return c.Kind() == warehouse.KindNumber && (n == "year" || strings.HasSuffix(n, "_year"))
}
