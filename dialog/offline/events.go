package offline

import (
	"strings"

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

// findEvents marks the value mentions that are events and records the
// verbs, for the time conditions to prefer the event's own date.
func (e *Engine) findEvents(a *analysis) {
	for _, vm := range a.values {
		if vm.negated || len(vm.alts) == 0 {
			continue
		}
		end := a.spanOf(vm.at, vm.phrase)
		verb := a.word(end - 1)
		// "members made payments in 2025": the value read with its
		// table's noun, used as the verb of the thing named before it; after
		// a function word it qualifies the noun ("how many failed
		// payments", "the lost loans").
		if !participle(verb) && participle(a.word(vm.at)) && e.tableNamed(a, end-1) != nil && vm.at > 0 && !isFunctionWord(a.toks[vm.at-1]) {
			verb = a.word(vm.at)
		}
		if !participle(verb) || !a.eventFollows(end) {
			continue
		}
		stems := verbStems(verb)
		if !e.schemaNamesEvent(stems, vm) {
			continue
		}
		vm.event = true
		a.eventVerbs = append(a.eventVerbs, stems...)
	}
}

// participle says whether a word looks like a past participle: regular
// ("placed", "shipped") or one of the common irregular ones of data.
func participle(w string) bool {
	if len(w) > 4 && strings.HasSuffix(w, "ed") {
		return true
	}
	return irregularParticiples[w] != ""
}

// irregularParticiples maps the past participles of everyday business
// verbs that do not end in -ed to their base form.
var irregularParticiples = words.Map("participle")

// verbStems are the forms a participle's verb takes in names: "shipped" →
// shipped, shipp, ship; "placed" → placed, place; "sold" → sold, sell.
func verbStems(w string) []string {
	out := []string{w}
	if base := irregularParticiples[w]; base != "" {
		return append(out, base)
	}
	stem := strings.TrimSuffix(w, "ed")
	out = append(out, stem, stem+"e")
	if n := len(stem); n > 2 && stem[n-1] == stem[n-2] {
		out = append(out, stem[:n-1]) // shipp → ship
	}
	if strings.HasSuffix(stem, "i") {
		out = append(out, strings.TrimSuffix(stem, "i")+"y") // applied → apply
	}
	var kept []string
	for _, s := range out {
		if len(s) >= 4 {
			kept = append(kept, s)
		}
	}
	return kept
}

// eventFollows says whether a time ("in 2025", "last month"), an agent
// ("by UPS") or a place or recipient ("to California") follows token i.
func (a *analysis) eventFollows(i int) bool {
	for _, tm := range a.times {
		// "placed in 2025", "borrowed the most tools in 2024"
		if tm.at >= i && tm.at <= i+5 && !a.verbBetween(i, tm.at) {
			return true
		}
	}
	switch a.word(i) {
	case "by", "to", "from", "via", "through", "with", "in", "at", "on", "during", "since", "before", "after":
	default:
		return false
	}
	for _, vm := range a.values {
		if vm.at == i+1 || vm.at == i+2 && a.word(i+1) == "the" {
			return true
		}
	}
	return false
}

// verbBetween says whether another participle or a clause break lies in
// [from, to): the time then belongs to another event.
func (a *analysis) verbBetween(from, to int) bool {
	for k := from; k < to && k < len(a.toks); k++ {
		if participle(a.word(k)) || a.toks[k].Break != 0 {
			return true
		}
	}
	return false
}

// schemaNamesEvent says whether a column other than the value's own is
// named by the verb: a date "shipped_at", a comment "Date the order was
// placed", a "Shipping carrier", in the value's table or one related to it.
func (e *Engine) schemaNamesEvent(stems []string, vm *valueMention) bool {
	tables := map[string]bool{}
	for _, al := range vm.alts {
		t := strings.ToLower(al.table)
		tables[t] = true
		for _, j := range e.m.Snap.Schema.Joins {
			if strings.EqualFold(j.ToTable, t) {
				tables[strings.ToLower(j.FromTable)] = true
			}
			if strings.EqualFold(j.FromTable, t) {
				tables[strings.ToLower(j.ToTable)] = true
			}
		}
	}
	for name := range tables {
		t := e.m.ByName[name]
		if t == nil {
			continue
		}
		for ci := range t.Def.Columns {
			c := &t.Def.Columns[ci]
			own := false
			for _, al := range vm.alts {
				own = own || strings.EqualFold(al.table, t.Name) && strings.EqualFold(al.column, c.Name)
			}
			if !own && namesVerb(c.Name+" "+c.Comment, stems) {
				return true
			}
		}
	}
	return false
}

// namesVerb says whether a column's name or comment holds a word starting
// with one of the verb's stems ("shipped_at", "Shipping carrier").
func namesVerb(text string, stems []string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
	for _, w := range words {
		for _, s := range stems {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// eventDate weighs a date column by the event verbs of the question: 12
// (more than a related table's date is discounted) when its name or comment is the event's ("placed in 2025" →
// ordered_at, "Date the order was placed").
func (a *analysis) eventDate(name, comment string) float64 {
	if len(a.eventVerbs) > 0 && namesVerb(name+" "+comment, a.eventVerbs) {
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
func (e *Engine) factDates(p *plan, a *analysis) float64 {
	facts := p.aggregatedTables()
	if len(facts) == 0 || len(p.dateCols) == 0 {
		return 1
	}
	// A date the question's event names is the question's ("customers who
	// placed an order in 2025").
	named := map[colRef]bool{}
	for dc := range p.dateCols {
		if c := e.m.Column(dc.Table, dc.Column); c != nil && a.eventDate(c.Name, c.Comment) > 1 {
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
func (e *Engine) eventVerbBefore(a *analysis, at int, p *plan) (int, bool) {
	k := at - 1
	switch a.word(k) {
	case "in", "during", "on", "since", "before", "after", "by", "at", "from":
		k--
	}
	if particles[a.word(k)] {
		k--
	}
	if k < 0 || !participle(a.word(k)) {
		return 0, false
	}
	stems := verbStems(a.word(k))
	for dc := range p.dateCols {
		c := e.m.Column(dc.Table, dc.Column)
		if c != nil && namesVerb(c.Name+" "+c.Comment, stems) {
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
	for _, name := range sortedNames(toSet(refs)) {
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
func (e *Engine) onlyEventBefore(a *analysis, parts *readingParts, at int) (int, bool) {
	k := at - 1
	for n := 0; n < 3 && timeLead[a.word(k)]; n++ {
		k--
	}
	if !participle(a.word(k)) {
		k = -1
		for i := at + 1; i < len(a.toks) && a.toks[i].Clause == a.toks[at].Clause; i++ {
			if participle(a.word(i)) && passiveAux[a.word(i-1)] && (i+1 == len(a.toks) || a.toks[i+1].Clause != a.toks[at].Clause || isFunctionWord(a.toks[i+1]) && !relationPreps[a.word(i+1)]) {
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
	stems := verbStems(a.word(k))
	for _, t := range e.m.Snap.Schema.Tables {
		for _, c := range t.Columns {
			if !e.dateLike(t.Name, &c) {
				continue
			}
			if strings.EqualFold(t.Name, dated[0]) {
				n++
			} else if namesVerb(c.Name+" "+c.Comment, stems) {
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
