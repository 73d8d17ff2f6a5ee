package offline

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// sel is one select item.
type sel struct {
	sql, alias string
}

type cond struct {
	sql string
}

// plan is one reading of the question, before joins are chosen.
type plan struct {
	selects  []sel
	filters  []cond
	groups   []sel
	having   []cond
	order    *sel
	desc     bool
	limit    int
	distinct bool
	tables   map[string]bool
	weight   float64
	phrases  map[sqlshape.SlotKey]string
	// aggregated is set when the select list aggregates.
	aggregated bool
	// countOf is the table a COUNT(*) counts; with joins it counts its keys.
	countOf *tableInfo
	// dateCols are the date columns conditions and buckets use; one reading
	// rarely mixes two.
	dateCols   map[string]bool
	headPhrase string
	// extremeValue: the ranking's top value itself ("the maximum quantity"),
	// not the row that has it.
	extremeValue bool
	// defines are the meanings given to words the schema does not name.
	defines []dialog.Definition
}

func (p *plan) use(tables ...string) {
	for _, t := range tables {
		if t != "" {
			p.tables[strings.ToLower(t)] = true
		}
	}
}

func (p *plan) tableList() []string {
	out := make([]string, 0, len(p.tables))
	for t := range p.tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (p *plan) clone() *plan {
	c := *p
	c.selects = append([]sel(nil), p.selects...)
	c.filters = append([]cond(nil), p.filters...)
	c.groups = append([]sel(nil), p.groups...)
	c.having = append([]cond(nil), p.having...)
	c.tables = make(map[string]bool, len(p.tables))
	for k := range p.tables {
		c.tables[k] = true
	}
	c.dateCols = make(map[string]bool, len(p.dateCols))
	for k := range p.dateCols {
		c.dateCols[k] = true
	}
	c.defines = append([]dialog.Definition(nil), p.defines...)
	c.phrases = make(map[sqlshape.SlotKey]string, len(p.phrases))
	for k, v := range p.phrases {
		c.phrases[k] = v
	}
	if p.order != nil {
		o := *p.order
		c.order = &o
	}
	return &c
}

// alt is one way to read one element of the question.
type alt struct {
	weight float64
	apply  func(*plan)
}

// element is a part of the question with its possible readings.
type element struct {
	name string
	alts []alt
}

func (el *element) add(w float64, f func(*plan)) {
	if w > 0 {
		el.alts = append(el.alts, alt{weight: w, apply: f})
	}
}

// capped keeps the n heaviest alternatives, normalised.
func (el *element) capped(n int) []alt {
	alts := append([]alt(nil), el.alts...)
	sort.SliceStable(alts, func(i, j int) bool { return alts[i].weight > alts[j].weight })
	if len(alts) > n {
		alts = alts[:n]
	}
	var total float64
	for _, a := range alts {
		total += a.weight
	}
	for i := range alts {
		alts[i].weight /= total
	}
	return alts
}

// head is the table the question is about.
type head struct {
	t      *tableInfo
	phrase string
	at     int
	// entity is true when the question names the table itself.
	entity bool
}

// joinPenalty discounts a reading per table it joins: the plainer reading
// is likelier, but not so much likelier that "Texas customers" beats
// "orders shipped to TX" without asking.
const joinPenalty = 0.5

// readings enumerates plans: one alternative per element, every combination,
// weighted by the product of the alternatives' weights and a penalty per
// joined table.
func (e *Engine) readings(a *analysis, widen int, facts []ontology.Fact) []*plan {
	cap := 3 + 2*widen
	r := &reader{e: e, a: a, prefer: e.feedbackColumns(a), facts: facts}
	r.h = e.findHead(a)
	// An everyday word weakly matched to a stored name may be a term: its
	// words are free for the definitions too ("good restaurants").
	for _, vm := range a.values {
		if vm.weak = r.weakValue(vm); vm.weak {
			for k := vm.at; k < a.spanOf(vm.at, vm.phrase); k++ {
				a.toks[k].used = false
			}
		}
	}
	r.terms, r.stated = e.statedTerms(a, e.findTerms(a), r.h.t, e.now())
	r.exists = e.findExistence(a, r.h.t)
	els := r.elements()
	if len(els) == 0 {
		return nil
	}
	base := &plan{tables: map[string]bool{}, phrases: map[sqlshape.SlotKey]string{}, dateCols: map[string]bool{}, weight: 1}
	if r.h.t != nil {
		base.headPhrase = r.h.phrase
	}
	plans := []*plan{base}
	for _, el := range els {
		n := cap
		if el.name == "define" {
			n = max(cap, 5) // a word's meanings are one question's options
		}
		alts := el.capped(n)
		if len(alts) == 0 {
			continue
		}
		var next []*plan
		for _, p := range plans {
			for _, al := range alts {
				c := p.clone()
				c.weight *= al.weight
				al.apply(c)
				next = append(next, c)
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].weight > next[j].weight })
		if len(next) > 256 {
			next = next[:256]
		}
		plans = next
	}
	var out []*plan
	for _, p := range plans {
		if len(p.selects) == 0 || len(p.tables) == 0 {
			continue
		}
		p.weight *= math.Pow(joinPenalty, float64(len(p.tables)-1))
		if len(p.dateCols) > 1 {
			p.weight *= 0.2
		}
		// Repeated rows are noise: show each once, unless the rows are
		// entities with a key (two customers may share a name).
		if !p.aggregated && len(p.groups) == 0 && (len(p.tables) > 1 || !r.keyed(p)) {
			p.distinct = true
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// keyed says whether every table of the plan has a key, so that its rows
// are distinct things even when they print the same.
func (r *reader) keyed(p *plan) bool {
	for t := range p.tables {
		if ti := r.e.m.byName[t]; ti == nil || ti.key == nil {
			return false
		}
	}
	return true
}

// reader holds the state of building elements for one analysis.
type reader struct {
	e      *Engine
	a      *analysis
	h      head
	prefer map[string]bool // table.column named in feedback ("use ship date")
	// measureTables are the tables a measure may come from, for date filters.
	measureTables map[string]bool
	usedCols      map[*colMention]bool
	// pendingOutput is a column the ranking itself asks to show.
	pendingOutput *colAlt
	// countedVia is the table whose rows a superlative counts per head.
	countedVia *tableInfo
	// terms and exists are the words the schema does not name that qualify
	// a subject, and the negated related tables.
	terms  []*termMention
	exists []*existMention
	// stated are the meanings the person gave terms in their own words.
	stated map[*termMention]definition
	// facts are the asker's remembered choices and definitions.
	facts []ontology.Fact
}

// feedbackColumns are the columns named in feedback: they win wherever
// they are an alternative.
func (e *Engine) feedbackColumns(a *analysis) map[string]bool {
	out := map[string]bool{}
	for _, cm := range a.columns {
		if cm.clause > 0 && len(cm.alts) > 0 {
			out[strings.ToLower(cm.alts[0].table+"."+cm.alts[0].column)] = true
		}
	}
	return out
}

func (r *reader) boost(table, column string) float64 {
	if r.prefer[strings.ToLower(table+"."+column)] {
		return 8
	}
	return 1
}

// findHead picks the table the question is about: the first entity named
// (not the noun a superlative ranks by), else the table of the first
// column or value named.
func (e *Engine) findHead(a *analysis) head {
	for _, em := range a.entities {
		if a.sup != nil && em.at >= a.sup.nounAt && em.at <= a.sup.nounAt+1 && len(a.entities) > 1 {
			continue
		}
		if a.toks[em.at].clause > 0 {
			continue
		}
		return head{t: em.tables[0], phrase: em.phrase, at: em.at, entity: true}
	}
	for _, cm := range a.columns {
		if cm.clause == 0 && len(cm.alts) > 0 {
			return head{t: e.m.byName[strings.ToLower(cm.alts[0].table)], phrase: cm.phrase, at: cm.at}
		}
	}
	for _, vm := range a.values {
		if len(vm.alts) > 0 {
			return head{t: e.m.byName[strings.ToLower(vm.alts[0].table)], phrase: "", at: vm.at}
		}
	}
	return head{}
}

// mentionAt returns the entity or column mention starting within two
// tokens of i.
func (r *reader) mentionAt(i int) (*entityMention, *colMention) {
	for d := 0; d <= 2; d++ {
		for _, em := range r.a.entities {
			if em.at == i+d {
				return em, nil
			}
		}
		for _, cm := range r.a.columns {
			if cm.at == i+d {
				return nil, cm
			}
		}
	}
	return nil, nil
}

func (r *reader) numericAlts(cm *colMention) []colAlt {
	var out []colAlt
	for _, al := range cm.alts {
		if c := r.e.m.column(al.table, al.column); c != nil && c.Kind() == warehouse.KindNumber && !r.e.m.isKeyish(r.e.m.byName[strings.ToLower(al.table)].t, c) {
			out = append(out, al)
		}
	}
	return out
}

// elements builds the parts of the reading.
func (r *reader) elements() []*element {
	a := r.a
	r.measureTables = map[string]bool{}
	r.usedCols = map[*colMention]bool{}
	var els []*element
	// "the highest point in the us": a column named with a superlative
	// ranks unless a value picks out the row ("… in Wyoming").
	if a.sup == nil && a.supCol != nil && !r.valueNamesRowOf(a.supCol.at) && !a.count && a.agg == "" {
		a.sup = a.supCol
	}
	switch {
	case a.sup != nil:
		if g := r.groupRanking(); g != nil {
			els = append(els, g...)
		} else {
			els = append(els, r.superlative()...)
		}
	case a.count && a.agg != "" && a.aggAt == a.countAt-1 && r.aggregate(a.agg, a.countAt) != nil:
		// "the average number of pages": a stored number, averaged.
		r.usedCols = map[*colMention]bool{}
		els = append(els, r.aggregate(a.agg, a.countAt)...)
	case a.count:
		els = append(els, r.count()...)
	case a.agg != "":
		els = append(els, r.aggregate(a.agg, a.aggAt)...)
	case len(a.groups) > 0 && r.hasNumericMention():
		els = append(els, r.aggregate("SUM", -1)...)
	case len(a.groups) > 0:
		// "customers by state": how many per group.
		els = append(els, r.count()...)
	default:
		els = append(els, r.projection()...)
	}
	if g := r.groupElement(); g != nil {
		els = append(els, g...)
	}
	els = append(els, r.filterElements()...)
	els = append(els, r.defineElements(r.e.now())...)
	// Sorting comes last: it sorts what the other parts computed.
	els = append(els, r.orderElement()...)
	return els
}

func (r *reader) hasNumericMention() bool {
	for _, cm := range r.a.columns {
		if cm.clause == 0 && len(r.numericAlts(cm)) > 0 {
			return true
		}
	}
	return false
}

// freeColumns are question column mentions not yet given a role.
func (r *reader) freeColumns() []*colMention {
	var out []*colMention
	for _, cm := range r.a.columns {
		if cm.clause == 0 && !r.usedCols[cm] && !r.isGroupMention(cm) && !r.isComparisonTarget(cm) {
			out = append(out, cm)
		}
	}
	return out
}

func (r *reader) isGroupMention(cm *colMention) bool {
	for _, g := range r.a.groups {
		if g.at == cm.at {
			return true
		}
	}
	return false
}

func (r *reader) isComparisonTarget(cm *colMention) bool {
	for _, c := range r.a.comps {
		if c.target != "" && strings.Contains(c.target, strings.ToLower(cm.phrase)) {
			return true
		}
	}
	return false
}

func aliasFor(fn, column string) string {
	switch fn {
	case "SUM":
		return "total_" + column
	case "AVG":
		return "avg_" + column
	case "MAX":
		return "max_" + column
	case "MIN":
		return "min_" + column
	}
	return strings.ToLower(fn) + "_" + column
}

// count builds "how many X".
func (r *reader) count() []*element {
	a := r.a
	if a.countKinds {
		if els := r.countKinds(); els != nil {
			return els
		}
	}
	el := &element{name: "measure"}
	phrase := ""
	var target *tableInfo
	if a.countAt >= 0 {
		em, cm := r.mentionAt(a.countAt + 2)
		if em == nil && cm == nil {
			em, cm = r.mentionAt(a.countAt + 1)
		}
		switch {
		case em != nil:
			target, phrase = em.tables[0], em.phrase
		case cm != nil && len(r.numericAlts(cm)) > 0:
			// "how many people live in texas": the number is a column.
			r.usedCols[cm] = true
			for _, al := range r.numericAlts(cm) {
				w := al.weight * r.boost(al.table, al.column)
				r.measureTables[strings.ToLower(al.table)] = true
				el.add(w*0.6, func(p *plan) {
					p.selects = append(p.selects, sel{sql: r.e.m.col(al.table, al.column)})
					p.use(al.table)
					p.phrases[keyOutput] = cm.phrase
				})
				el.add(w*0.4, func(p *plan) {
					p.selects = append(p.selects, sel{sql: "SUM(" + r.e.m.col(al.table, al.column) + ")", alias: aliasFor("SUM", al.column)})
					p.aggregated = true
					p.use(al.table)
					p.phrases[keyMeasure] = cm.phrase
				})
			}
			return []*element{el}
		}
	}
	if target == nil {
		target = r.h.t
		phrase = r.h.phrase
	}
	if target == nil {
		return nil
	}
	r.measureTables[strings.ToLower(target.name)] = true
	t := target
	el.add(1, func(p *plan) {
		p.selects = append(p.selects, sel{sql: "COUNT(*)", alias: "count"})
		p.aggregated = true
		p.countOf = t
		p.use(t.name)
		if phrase != "" {
			p.phrases[keyMeasure] = phrase
		}
	})
	// "how many states border texas": what is counted may be the rows of
	// another table the question names.
	for _, cm := range r.freeColumns() {
		if len(cm.alts) == 0 || strings.EqualFold(cm.alts[0].table, t.name) {
			continue
		}
		other := cm.alts[0]
		el.add(0.35, func(p *plan) {
			p.selects = append(p.selects, sel{sql: "COUNT(*)", alias: "count"})
			p.aggregated = true
			p.use(other.table)
			p.phrases[keyMeasure] = phrase
		})
		r.usedCols[cm] = true
		break
	}
	return []*element{el}
}

// measureAlts finds the numeric columns a measure phrase after position at
// may mean; without one, the head table's measures.
func (r *reader) measureAlts(at int) ([]colAlt, string) {
	var best *colMention
	for _, cm := range r.a.columns {
		if cm.clause != 0 || r.usedCols[cm] || cm.at < at || r.isGroupMention(cm) {
			continue
		}
		if len(r.numericAlts(cm)) > 0 {
			best = cm
			break
		}
	}
	if best == nil {
		for _, cm := range r.a.columns {
			if cm.clause == 0 && !r.usedCols[cm] && !r.isGroupMention(cm) && len(r.numericAlts(cm)) > 0 {
				best = cm
				break
			}
		}
	}
	if best != nil {
		r.usedCols[best] = true
		return r.numericAlts(best), best.phrase
	}
	var out []colAlt
	if r.h.t != nil {
		for _, c := range r.h.t.measures {
			out = append(out, colAlt{table: r.h.t.name, column: c.Name, weight: 1})
		}
	}
	return out, ""
}

// aggregate builds "total/average X [per Y]".
func (r *reader) aggregate(fn string, at int) []*element {
	alts, phrase := r.measureAlts(at)
	el := &element{name: "measure"}
	for _, al := range alts {
		r.measureTables[strings.ToLower(al.table)] = true
		el.add(al.weight*r.boost(al.table, al.column), func(p *plan) {
			p.selects = append(p.selects, sel{sql: fn + "(" + r.e.m.col(al.table, al.column) + ")", alias: aliasFor(fn, al.column)})
			p.aggregated = true
			p.use(al.table)
			if phrase != "" {
				p.phrases[keyMeasure] = phrase
			}
		})
	}
	if len(el.alts) == 0 {
		return nil
	}
	return []*element{el}
}

// projection builds "what is the X of Y", "list customers in Ohio".
func (r *reader) projection() []*element {
	a := r.a
	el := &element{name: "output"}
	free := r.freeColumns()
	r.severalOutputs(el, free)
	for _, cm := range free {
		// A column of the head's own name ("state" in "which state…") is the head, not an attribute.
		r.usedCols[cm] = true
		for _, al := range cm.alts {
			w := al.weight * r.boost(al.table, al.column)
			if r.h.t != nil && strings.EqualFold(al.table, r.h.t.name) {
				w *= 1.5
			}
			if r.valueTable(al.table) {
				w *= 1.5
			}
			phrase := cm.phrase
			plainW, sumW := w, 0.0
			if c := r.e.m.column(al.table, al.column); c != nil && c.Kind() == warehouse.KindNumber && !r.namesOneRow(al.table) &&
				(!r.h.entity || !strings.EqualFold(al.table, r.h.t.name)) {
				// "what was revenue in 2024", "net revenue from Texas
				// customers": a measure over many rows is a total.
				plainW, sumW = w*0.3, w*0.7
				r.measureTables[strings.ToLower(al.table)] = true
			}
			el.add(plainW, func(p *plan) {
				p.selects = append(p.selects, sel{sql: r.e.m.col(al.table, al.column)})
				p.use(al.table)
				p.phrases[keyOutput] = phrase
			})
			el.add(sumW, func(p *plan) {
				p.selects = append(p.selects, sel{sql: "SUM(" + r.e.m.col(al.table, al.column) + ")", alias: aliasFor("SUM", al.column)})
				p.aggregated = true
				p.use(al.table)
				p.phrases[keyMeasure] = phrase
			})
		}
		break
	}
	hint := a.howAdj
	if hint != "" || a.where {
		// "how big is alaska", "how high is the highest point of florida":
		// the adjective names the measure; columns of the table the value
		// names a row of come first, and those sharing words with the
		// question's other column words.
		for _, t := range r.valueTables() {
			for i, c := range r.hintColumns(t, hint, a.where) {
				w := 1.6 / float64(i+1)
				if r.namesOneRow(t.name) {
					w *= 2
				}
				for _, fc := range free {
					for _, word := range strings.Fields(strings.ToLower(fc.phrase)) {
						if len(word) > 3 && strings.Contains(strings.ToLower(c.Name), word) {
							w *= 1.5
						}
					}
				}
				el.add(w, func(p *plan) {
					p.selects = append(p.selects, sel{sql: r.e.m.col(t.name, c.Name)})
					p.use(t.name)
				})
			}
		}
	}
	if h := r.h.t; h != nil && h.label != nil {
		w := 0.7
		if len(el.alts) > 0 {
			w = 0.5
		}
		hp := r.h.phrase
		el.add(w, func(p *plan) {
			p.selects = append(p.selects, sel{sql: r.e.m.col(h.name, h.label.Name)})
			p.use(h.name)
			p.phrases[keyOutput] = hp
		})
		if len(h.details) > 1 {
			el.add(w*0.7, func(p *plan) {
				for _, c := range h.details {
					p.selects = append(p.selects, sel{sql: r.e.m.col(h.name, c.Name)})
				}
				p.use(h.name)
				p.phrases[keyOutput] = hp
			})
		}
	}
	if len(el.alts) == 0 {
		// Only values were named ("texas"): show their rows.
		for _, t := range r.valueTables() {
			el.add(1, func(p *plan) {
				cols := t.details
				if len(cols) == 0 && t.label != nil {
					cols = []*warehouse.Column{t.label}
				}
				for _, c := range cols {
					p.selects = append(p.selects, sel{sql: r.e.m.col(t.name, c.Name)})
				}
				p.use(t.name)
			})
		}
	}
	if len(el.alts) == 0 {
		return nil
	}
	return []*element{el}
}

// namesOneRow says whether a value in the question names a row of table by
// its label ("texas" for the state table): then a number is that row's.
func (r *reader) namesOneRow(table string) bool {
	t := r.e.m.byName[strings.ToLower(table)]
	if t == nil || t.label == nil {
		return false
	}
	for _, vm := range r.a.values {
		for _, al := range vm.alts {
			if strings.EqualFold(al.table, table) && strings.EqualFold(al.column, t.label.Name) {
				return true
			}
		}
	}
	return false
}

func (r *reader) valueTable(table string) bool {
	for _, vm := range r.a.values {
		for _, al := range vm.alts {
			if strings.EqualFold(al.table, table) {
				return true
			}
		}
	}
	return false
}

func (r *reader) valueTables() []*tableInfo {
	seen := map[string]bool{}
	var out []*tableInfo
	for _, vm := range r.a.values {
		for _, al := range vm.alts {
			k := strings.ToLower(al.table)
			if !seen[k] {
				seen[k] = true
				if t := r.e.m.byName[k]; t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// hintColumns are the columns of t a size word or "where" asks for.
func (r *reader) hintColumns(t *tableInfo, hint string, where bool) []*warehouse.Column {
	var out []*warehouse.Column
	if where {
		for _, c := range t.texts {
			n := strings.ToLower(c.Name)
			for _, w := range []string{"state", "city", "country", "location", "address", "region", "place"} {
				if strings.Contains(n, w) {
					out = append(out, c)
					break
				}
			}
		}
		return out
	}
	stems := hintStems[hint]
	for _, c := range t.measures {
		n := strings.ToLower(c.Name)
		for _, s := range stems {
			if strings.Contains(n, s) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// relatedFacts are tables joined to t whose rows refer to it (orders for
// customers), directly or through one more table (order lines).
func (r *reader) relatedFacts(t *tableInfo) []*tableInfo {
	var out []*tableInfo
	seen := map[string]bool{strings.ToLower(t.name): true}
	frontier := []string{strings.ToLower(t.name)}
	for depth := 0; depth < 2; depth++ {
		var next []string
		for _, j := range r.e.m.snap.Schema.Joins {
			for _, f := range frontier {
				if strings.EqualFold(j.ToTable, f) && !seen[strings.ToLower(j.FromTable)] {
					seen[strings.ToLower(j.FromTable)] = true
					if ft := r.e.m.byName[strings.ToLower(j.FromTable)]; ft != nil {
						out = append(out, ft)
						next = append(next, strings.ToLower(j.FromTable))
					}
				}
			}
		}
		frontier = next
	}
	return out
}

// groupByHead groups by the head's key and label and shows the label.
func (r *reader) groupByHead(p *plan, h *tableInfo, details bool) {
	if h.key != nil && h.key != h.label {
		p.groups = append(p.groups, sel{sql: r.e.m.col(h.name, h.key.Name)})
	}
	if h.label != nil {
		p.groups = append(p.groups, sel{sql: r.e.m.col(h.name, h.label.Name)})
	}
	cols := []*warehouse.Column{h.label}
	if details {
		cols = h.details
		for _, c := range h.details {
			if c != h.key && c != h.label {
				p.groups = append(p.groups, sel{sql: r.e.m.col(h.name, c.Name)})
			}
		}
	}
	for _, c := range cols {
		if c != nil {
			p.selects = append(p.selects, sel{sql: r.e.m.col(h.name, c.Name)})
		}
	}
	p.use(h.name)
}

// superlative builds "which X has the most Y", "the biggest city", "top 5
// products by units sold", and "the state with the largest city" (where the
// ranked rows are cities and the answer is their state).
func (r *reader) superlative() []*element {
	a := r.a
	s := a.sup
	h := r.h.t
	measure := &element{name: "rank"}
	rankPhrase := s.phrase
	em, cm := r.mentionAt(s.nounAt)
	if em != nil && h != nil && em.tables[0] == h {
		// "which carrier handled the most shipments": the head's rows are
		// counted per value of a column named before the superlative.
		if gc := r.groupingColumnBefore(s.at, h); gc != nil && (s.phrase == "most" || s.phrase == "fewest" || s.phrase == "least") {
			return r.mostPerColumn(gc, h, s, s.phrase+" "+em.phrase)
		}
		em = nil
	}
	sized := s.hint != "" && s.hint != "value"
	// The rows being ranked: the entity just before the superlative ("the
	// city with the largest population"), or a sized noun after it ("the
	// longest river"), when that is not the head.
	ranked := h
	if subj := r.subjectBefore(s.at); subj != nil && h != nil && subj != h {
		ranked = subj
	} else if em != nil && sized {
		ranked, em = em.tables[0], nil
	}
	if ranked == nil && cm != nil && len(cm.alts) > 0 {
		ranked = r.e.m.byName[strings.ToLower(cm.alts[0].table)]
	}
	if h == nil {
		h = ranked
	}
	if h == nil {
		return nil
	}
	switch {
	case em != nil:
		// "the state with the most rivers": count the other table's rows per head.
		e2 := em.tables[0]
		r.countedVia = e2
		r.measureTables[strings.ToLower(e2.name)] = true
		rankPhrase = s.phrase + " " + em.phrase
		measure.add(1, func(p *plan) {
			p.order = &sel{sql: "COUNT(*)"}
			p.aggregated = true
			p.use(e2.name)
			p.phrases[keyMeasure] = rankPhrase
		})
	case cm != nil && len(r.numericAlts(cm)) == 0 && len(r.siblingMeasures(cm, s)) > 0:
		// "the highest point": rank by the numeric column that shares the
		// superlative (highest_elevation) and show the named one.
		r.usedCols[cm] = true
		out := cm.alts[0]
		for _, sib := range r.siblingMeasures(cm, s) {
			measure.add(1, func(p *plan) {
				p.order = &sel{sql: r.e.m.col(sib.table, sib.column)}
				p.use(sib.table)
				p.phrases[keyOrder] = rankPhrase
			})
		}
		if ranked == nil || ranked == h {
			ranked = r.e.m.byName[strings.ToLower(out.table)]
			if r.h.t == nil || !r.h.entity {
				h = ranked
			}
		}
		r.pendingOutput = &out
	case cm != nil && len(r.numericAlts(cm)) > 0:
		r.usedCols[cm] = true
		for _, al := range r.numericAlts(cm) {
			r.measureTables[strings.ToLower(al.table)] = true
			w := al.weight * r.boost(al.table, al.column)
			if ranked != h && strings.EqualFold(al.table, ranked.name) {
				w *= 2
			}
			if strings.EqualFold(al.table, ranked.name) || ranked == h && strings.EqualFold(al.table, h.name) {
				measure.add(w, func(p *plan) {
					p.order = &sel{sql: r.e.m.col(al.table, al.column)}
					p.use(al.table)
					p.phrases[keyOrder] = rankPhrase
					p.phrases[keyMeasure] = cm.phrase
				})
			} else {
				if ranked != h {
					w *= 0.7
				}
				measure.add(w, func(p *plan) {
					p.order = &sel{sql: "SUM(" + r.e.m.col(al.table, al.column) + ")"}
					p.aggregated = true
					p.use(al.table)
					p.phrases[keyMeasure] = cm.phrase
				})
			}
		}
	default:
		r.hintMeasures(measure, ranked, s)
	}
	if len(measure.alts) == 0 {
		return nil
	}
	output := &element{name: "output"}
	hp := r.h.phrase
	headOutput := func(details bool) func(p *plan) {
		return func(p *plan) {
			switch {
			case p.aggregated:
				r.groupByHead(p, h, details)
			case details:
				for _, c := range h.details {
					p.selects = append(p.selects, sel{sql: r.e.m.col(h.name, c.Name)})
				}
				p.use(h.name)
			case h.label != nil:
				p.selects = append(p.selects, sel{sql: r.e.m.col(h.name, h.label.Name)})
				p.use(h.name)
			}
			if hp != "" {
				p.phrases[keyOutput] = hp
			}
		}
	}
	if po := r.pendingOutput; po != nil {
		output.add(1.5, func(p *plan) {
			p.selects = append(p.selects, sel{sql: r.e.m.col(po.table, po.column)})
			p.use(po.table)
		})
	}
	output.add(1, headOutput(false))
	if len(h.details) > 1 {
		output.add(0.6, headOutput(true))
	}
	if f := r.countedVia; f != nil && h.key != nil {
		// "which state had the most orders": the orders' own state code
		// answers without the states table.
		for _, j := range r.e.m.snap.Schema.Joins {
			if strings.EqualFold(j.FromTable, f.name) && strings.EqualFold(j.ToTable, h.name) && strings.EqualFold(j.ToColumn, h.key.Name) {
				output.add(0.6, func(p *plan) {
					expr := r.e.m.col(j.FromTable, j.FromColumn)
					p.groups = append(p.groups, sel{sql: expr})
					p.selects = append(p.selects, sel{sql: expr})
					p.use(j.FromTable)
				})
				break
			}
		}
	}
	if ranked != h {
		// The ranked table may name the head itself (river.traverse holds
		// state names): show that column without the join.
		for _, j := range r.e.m.snap.Schema.Joins {
			if strings.EqualFold(j.FromTable, ranked.name) && strings.EqualFold(j.ToTable, h.name) && h.label != nil && strings.EqualFold(j.ToColumn, h.label.Name) {
				output.add(1.2, func(p *plan) {
					p.selects = append(p.selects, sel{sql: r.e.m.col(j.FromTable, j.FromColumn)})
					p.use(j.FromTable)
					if hp != "" {
						p.phrases[keyOutput] = hp
					}
				})
			}
		}
	}
	// "the population of the largest state": another column of the head is the answer.
	for _, fc := range r.freeColumns() {
		for _, al := range fc.alts {
			if !strings.EqualFold(al.table, h.name) && !strings.EqualFold(al.table, ranked.name) {
				continue
			}
			r.usedCols[fc] = true
			output.add(1.3*al.weight, func(p *plan) {
				p.selects = append(p.selects, sel{sql: r.e.m.col(al.table, al.column)})
				p.use(al.table)
				p.phrases[keyOutput] = fc.phrase
			})
		}
	}
	if a.howAdj != "" {
		// "how large is the largest city in alaska": the size itself.
		for i, c := range r.hintColumns(ranked, a.howAdj, false) {
			output.add(1.5/float64(i+1), func(p *plan) {
				p.selects = append(p.selects, sel{sql: r.e.m.col(ranked.name, c.Name)})
				p.use(ranked.name)
			})
		}
	}
	if s.explicitLimit && s.limit > 1 || a.order != nil {
		output.add(0.6, func(p *plan) {
			headOutput(false)(p)
			if p.order != nil {
				p.selects = append(p.selects, sel{sql: p.order.sql})
			}
		})
	}
	if cm != nil && len(r.numericAlts(cm)) > 0 && !s.explicitLimit {
		// "what is the lowest list price": the value, not the product.
		fn := "MIN"
		if s.desc {
			fn = "MAX"
		}
		phrase := s.phrase + " " + cm.phrase
		output.add(r.extremeValueWeight(s), func(p *plan) {
			if p.order == nil || strings.Contains(p.order.sql, "(") || len(p.groups) > 0 {
				return
			}
			p.selects = append(p.selects[:0], sel{sql: fn + "(" + p.order.sql + ")", alias: aliasFor(fn, strings.Trim(p.order.sql[strings.LastIndexByte(p.order.sql, '.')+1:], "`"))})
			p.order, p.aggregated, p.extremeValue = nil, true, true
			p.phrases[keyOutput] = phrase
		})
	}
	direction := &element{name: "order"}
	direction.add(1, func(p *plan) {
		if p.extremeValue {
			return
		}
		p.desc = s.desc
		p.limit = s.limit
		if a.order != nil && !s.explicitLimit {
			// "the longest rivers, ordered from longest to shortest": all
			// of them, sorted.
			p.limit = 0
		}
		p.phrases[keyOrder] = rankPhrase
		p.phrases[keyLimit] = rankPhrase
	})
	// The ranking must be decided before the output groups by it.
	return []*element{measure, output, direction}
}

// extremeValueWeight says how likely a superlative asks for the top value
// rather than the row holding it: "maximum quantity" and "what is the
// highest price" ask for the value; "which product has the highest price"
// for the row.
func (r *reader) extremeValueWeight(s *superMention) float64 {
	a := r.a
	prev := a.word(s.at - 1)
	if prev == "the" || prev == "a" {
		prev = a.word(s.at - 2)
	}
	switch {
	case prev == "with" || prev == "has" || prev == "have" || prev == "had" || prev == "whose":
		return 0.15
	case s.phrase == "maximum" || s.phrase == "minimum":
		return 1.6
	case a.word(0) == "what" || a.word(0) == "how":
		return 1
	case a.word(0) == "which" || a.word(0) == "who" || a.word(0) == "list" || a.word(0) == "name":
		return 0.3
	}
	return 0.5
}

// groupingColumnBefore finds a descriptive (text) column of the head named
// before the superlative: the thing whose values are ranked.
func (r *reader) groupingColumnBefore(at int, h *tableInfo) *colMention {
	for _, cm := range r.a.columns {
		if cm.clause != 0 || cm.at >= at || r.usedCols[cm] {
			continue
		}
		for _, al := range cm.alts {
			c := r.e.m.column(al.table, al.column)
			if c != nil && strings.EqualFold(al.table, h.name) && c.Kind() == warehouse.KindText && c != h.key && c != h.label {
				return cm
			}
		}
	}
	return nil
}

// mostPerColumn ranks the values of a column by how many of the head's
// rows carry each.
func (r *reader) mostPerColumn(cm *colMention, h *tableInfo, s *superMention, rankPhrase string) []*element {
	r.usedCols[cm] = true
	r.countedVia = h
	measure := &element{name: "rank"}
	measure.add(1, func(p *plan) {
		p.order = &sel{sql: "COUNT(*)"}
		p.aggregated = true
		p.use(h.name)
		p.phrases[keyMeasure] = rankPhrase
	})
	output := &element{name: "output"}
	for _, al := range cm.alts {
		c := r.e.m.column(al.table, al.column)
		if c == nil || !strings.EqualFold(al.table, h.name) || c.Kind() != warehouse.KindText {
			continue
		}
		output.add(al.weight, func(p *plan) {
			expr := r.e.m.col(al.table, al.column)
			p.groups = append(p.groups, sel{sql: expr})
			p.selects = append(p.selects, sel{sql: expr})
			p.phrases[keyOutput] = cm.phrase
		})
	}
	direction := &element{name: "order"}
	direction.add(1, func(p *plan) {
		p.desc = s.desc
		p.limit = s.limit
		p.phrases[keyOrder] = rankPhrase
		p.phrases[keyLimit] = rankPhrase
	})
	return []*element{measure, output, direction}
}

// siblingMeasures are the numeric columns of a column's table whose name
// shares the superlative word ("highest_elevation" for "highest point").
func (r *reader) siblingMeasures(cm *colMention, s *superMention) []colAlt {
	if len(cm.alts) == 0 {
		return nil
	}
	t := r.e.m.byName[strings.ToLower(cm.alts[0].table)]
	if t == nil {
		return nil
	}
	word := strings.ToLower(strings.Fields(s.phrase)[0])
	var out []colAlt
	for _, c := range t.measures {
		if strings.Contains(strings.ToLower(c.Name), word) {
			out = append(out, colAlt{table: t.name, column: c.Name, weight: 1})
		}
	}
	return out
}

// valueNamesRowOf says whether a value in the question names a row of the
// table of the column mentioned at position at.
func (r *reader) valueNamesRowOf(at int) bool {
	for _, cm := range r.a.columns {
		if cm.at == at && len(cm.alts) > 0 {
			return r.namesOneRow(cm.alts[0].table)
		}
	}
	return false
}

// subjectBefore finds the entity a superlative qualifies when it follows
// "with the", "that has the", "having the": "the city with the largest
// population" ranks cities.
func (r *reader) subjectBefore(at int) *tableInfo {
	j := at - 1
	for j >= 0 && (r.a.word(j) == "the" || r.a.word(j) == "a") {
		j--
	}
	switch r.a.word(j) {
	case "with", "having", "has", "have", "containing":
	default:
		return nil
	}
	if r.a.word(j-1) == "that" || r.a.word(j-1) == "which" {
		j--
	}
	for _, em := range r.a.entities {
		if em.at == j-1 || em.at == j-2 {
			return em.tables[0]
		}
	}
	return nil
}

// hintMeasures fills the ranking for a superlative without a noun: "the
// biggest city" (size columns), "our best customer" (most orders or most
// revenue), "our first customer" (earliest own date or earliest order).
func (r *reader) hintMeasures(el *element, h *tableInfo, s *superMention) {
	switch s.hint {
	case "date":
		for _, c := range h.dates {
			el.add(1, func(p *plan) {
				p.order = &sel{sql: r.e.m.col(h.name, c.Name)}
				p.use(h.name)
				p.phrases[keyMeasure] = s.phrase
			})
		}
		for _, f := range r.relatedFacts(h) {
			for _, c := range f.dates {
				fn := "MIN"
				if s.desc {
					fn = "MAX"
				}
				el.add(0.8, func(p *plan) {
					p.order = &sel{sql: fn + "(" + r.e.m.col(f.name, c.Name) + ")"}
					p.aggregated = true
					p.use(f.name)
					p.phrases[keyMeasure] = s.phrase
				})
				break
			}
		}
	case "value", "":
		direct := map[string]bool{}
		for _, j := range r.e.m.snap.Schema.Joins {
			if strings.EqualFold(j.ToTable, h.name) {
				direct[strings.ToLower(j.FromTable)] = true
			}
		}
		for i, f := range r.relatedFacts(h) {
			w := 1.0 / float64(i+1)
			// Counting rows two joins away (refunds of a customer's orders)
			// is rarely what "best" means; adding up their amounts may be.
			if direct[strings.ToLower(f.name)] {
				el.add(w, func(p *plan) {
					p.order = &sel{sql: "COUNT(*)"}
					p.aggregated = true
					p.use(f.name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
			for k, c := range moneyFirst(f.measures) {
				if k == 2 {
					break
				}
				el.add(w*0.8/float64(k+1), func(p *plan) {
					p.order = &sel{sql: "SUM(" + r.e.m.col(f.name, c.Name) + ")"}
					p.aggregated = true
					p.use(f.name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
		if len(el.alts) == 0 {
			for _, c := range h.measures {
				el.add(1, func(p *plan) {
					p.order = &sel{sql: r.e.m.col(h.name, c.Name)}
					p.use(h.name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
	default:
		cols := r.hintColumns(h, s.hint, false)
		if len(cols) == 0 {
			cols = h.measures
		}
		for i, c := range cols {
			el.add(1/float64(i+1), func(p *plan) {
				p.order = &sel{sql: r.e.m.col(h.name, c.Name)}
				p.use(h.name)
				p.phrases[keyMeasure] = s.phrase
			})
		}
	}
}

// moneyFirst orders measures so that amounts come before counts and prices.
func moneyFirst(cols []*warehouse.Column) []*warehouse.Column {
	out := append([]*warehouse.Column(nil), cols...)
	score := func(c *warehouse.Column) int {
		n := strings.ToLower(c.Name + " " + c.Comment)
		switch {
		case strings.Contains(strings.ToLower(c.Name), "discount") || strings.Contains(strings.ToLower(c.Name), "fee") ||
			strings.Contains(strings.ToLower(c.Name), "tax") || strings.Contains(strings.ToLower(c.Name), "cost"):
			return 3
		case strings.Contains(n, "revenue") || strings.Contains(n, "net") || strings.Contains(n, "amount"):
			return 0
		case strings.Contains(n, "total") || strings.Contains(n, "sales"):
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) < score(out[j]) })
	return out
}

// groupElement builds "per X", "by month".
func (r *reader) groupElement() []*element {
	var els []*element
	for _, g := range r.a.groups {
		el := &element{name: "group"}
		if g.timeUnit != "" {
			yearFiltered := false
			for _, t := range r.a.times {
				if t.year != "" {
					yearFiltered = true
				}
			}
			for _, dc := range r.dateColumns() {
				expr := r.timeBucket(dc.table, dc.column, g.timeUnit, yearFiltered)
				el.add(dc.weight, func(p *plan) {
					p.dateCols[r.e.m.col(dc.table, dc.column)] = true
					p.groups = append(p.groups, sel{sql: expr})
					p.selects = append([]sel{{sql: expr, alias: g.timeUnit}}, p.selects...)
					p.order = &sel{sql: expr}
					p.desc = false
					p.use(dc.table)
					p.phrases[keyGroup] = g.phrase
				})
			}
		} else {
			em, cm := r.mentionAt(g.at)
			switch {
			case em != nil:
				t := em.tables[0]
				el.add(1, func(p *plan) {
					r.prependGroup(p, t)
					p.phrases[keyGroup] = g.phrase
				})
				// "lakes in each state": the measured rows may carry the
				// group's name themselves (lake.state_name), no join needed.
				for _, fk := range r.namingColumns(t) {
					el.add(0.8, func(p *plan) {
						expr := r.e.m.col(fk.table, fk.column)
						p.groups = append(p.groups, sel{sql: expr})
						p.selects = append([]sel{{sql: expr}}, p.selects...)
						p.use(fk.table)
						p.phrases[keyGroup] = g.phrase
					})
				}
			case cm != nil:
				r.usedCols[cm] = true
				for _, al := range cm.alts {
					c := r.e.m.column(al.table, al.column)
					if c == nil || c.Kind() == warehouse.KindNumber && r.e.m.isKeyish(r.e.m.byName[strings.ToLower(al.table)].t, c) {
						continue
					}
					w := al.weight * r.boost(al.table, al.column)
					// "length of rivers in each country": the country
					// column of the rivers, not of some other table.
					if r.measureTables[strings.ToLower(al.table)] || r.h.t != nil && strings.EqualFold(al.table, r.h.t.name) {
						w *= 2.5
					}
					el.add(w, func(p *plan) {
						expr := r.e.m.col(al.table, al.column)
						p.groups = append(p.groups, sel{sql: expr})
						p.selects = append([]sel{{sql: expr}}, p.selects...)
						p.use(al.table)
						p.phrases[keyGroup] = g.phrase
					})
				}
			}
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

// namingColumns are the columns of the measured tables that hold t's
// label through a join (lake.state_name for state.state_name).
func (r *reader) namingColumns(t *tableInfo) []colAlt {
	if t.label == nil {
		return nil
	}
	var out []colAlt
	for _, j := range r.e.m.snap.Schema.Joins {
		if strings.EqualFold(j.ToTable, t.name) && strings.EqualFold(j.ToColumn, t.label.Name) && r.measureTables[strings.ToLower(j.FromTable)] && !strings.EqualFold(j.FromTable, t.name) {
			out = append(out, colAlt{table: j.FromTable, column: j.FromColumn, weight: 1})
		}
	}
	return out
}

func (r *reader) prependGroup(p *plan, t *tableInfo) {
	var keys []sel
	if t.key != nil && t.key != t.label {
		keys = append(keys, sel{sql: r.e.m.col(t.name, t.key.Name)})
	}
	if t.label != nil {
		keys = append(keys, sel{sql: r.e.m.col(t.name, t.label.Name)})
		p.selects = append([]sel{{sql: r.e.m.col(t.name, t.label.Name)}}, p.selects...)
	}
	p.groups = append(p.groups, keys...)
	p.use(t.name)
}

func (r *reader) timeBucket(table, column, unit string, withinYear bool) string {
	c := r.e.m.col(table, column)
	switch unit {
	case "year":
		return "YEAR(" + c + ")"
	case "quarter":
		if withinYear {
			return "QUARTER(" + c + ")"
		}
		return "CONCAT(YEAR(" + c + "), '-Q', QUARTER(" + c + "))"
	case "month":
		if withinYear {
			return "MONTH(" + c + ")"
		}
		return "DATE_FORMAT(" + c + ", '%Y-%m')"
	case "week":
		return "YEARWEEK(" + c + ")"
	}
	return "DATE(" + c + ")"
}

// dateColumns are the date columns a time condition may apply to: those of
// the measure's tables and the head first, then of tables that refer to
// the head.
func (r *reader) dateColumns() []colAlt {
	var out []colAlt
	seen := map[string]bool{}
	add := func(t *tableInfo, w float64) {
		for _, c := range t.dates {
			k := strings.ToLower(t.name + "." + c.Name)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, colAlt{table: t.name, column: c.Name, weight: w * r.boost(t.name, c.Name) * r.mentioned(t.name, c.Name)})
		}
	}
	for _, name := range sortedNames(r.measureTables) {
		if t := r.e.m.byName[name]; t != nil {
			add(t, 1)
			// Order lines have no date; the orders they belong to do.
			if len(t.dates) == 0 {
				for _, ref := range r.referenced(t) {
					add(ref, 0.8)
				}
			}
		}
	}
	if r.h.t != nil {
		add(r.h.t, 1)
		for _, f := range r.relatedFacts(r.h.t) {
			add(f, 0.1)
		}
	}
	// A table joined only for a value ("Texas customers") rarely holds
	// the date the question means.
	for _, vt := range r.valueTables() {
		add(vt, 0.15)
	}
	if len(out) == 0 {
		for _, t := range r.e.m.tables {
			add(t, 0.2)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	return out
}

// referenced are the tables t's rows point to (order lines → orders, products).
func (r *reader) referenced(t *tableInfo) []*tableInfo {
	var out []*tableInfo
	for _, j := range r.e.m.snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, t.name) {
			if rt := r.e.m.byName[strings.ToLower(j.ToTable)]; rt != nil && rt != t {
				out = append(out, rt)
			}
		}
	}
	return out
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mentioned favours a date column the question itself names ("shipped in 2024").
func (r *reader) mentioned(table, column string) float64 {
	for _, cm := range r.a.columns {
		for i, al := range cm.alts {
			if i < 2 && strings.EqualFold(al.table, table) && strings.EqualFold(al.column, column) {
				r.usedCols[cm] = true
				return 4
			}
		}
	}
	name := strings.ToLower(column)
	for _, t := range r.a.toks {
		if len(t.low) > 3 && !t.isNum && strings.HasPrefix(name, strings.TrimSuffix(strings.TrimSuffix(t.low, "ed"), "ped")) && strings.Contains(name, "_") {
			return 3
		}
	}
	return 1
}

// filterElements builds the conditions: stored values, dates, comparisons.
func (r *reader) filterElements() []*element {
	var els []*element
	for _, vm := range r.a.values {
		el := &element{name: "value"}
		weak := vm.weak
		for _, al := range vm.alts {
			w := al.weight
			if weak {
				w *= weakValueFactor
			}
			if r.h.t != nil && strings.EqualFold(al.table, r.h.t.name) {
				w *= 1.5
			}
			// 'Texas' in the states table, joined through the code, reads
			// the same as 'TX' where the code is stored.
			if r.e.m.aliasTables[strings.ToLower(al.table)] && len(vm.alts) > 1 && (r.h.t == nil || !strings.EqualFold(al.table, r.h.t.name)) {
				w *= 0.2
			}
			if r.measureTables[strings.ToLower(al.table)] {
				w *= 1.5
			}
			op := "="
			if vm.negated {
				op = "<>"
			}
			key := sqlshape.FilterOnKey([]string{al.value}, r.e.m.canon)
			el.add(w, func(p *plan) {
				p.filters = append(p.filters, cond{sql: r.e.m.col(al.table, al.column) + " " + op + " " + quote(al.value)})
				p.use(al.table)
				p.phrases[key] = vm.phrase
			})
		}
		switch {
		case weak:
			el.add(1, func(p *plan) {})
		case vm.optional:
			el.add(0.3, func(p *plan) {})
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	// The latest time condition wins: "only 2023" after "in 2024".
	times := r.a.times
	if n := len(times); n > 1 && times[n-1].clause > times[0].clause {
		times = times[n-1:]
	}
	for _, tm := range times {
		el := &element{name: "time"}
		for _, dc := range r.dateColumns() {
			col := r.e.m.col(dc.table, dc.column)
			key := sqlshape.FilterOnKey([]string{tm.year}, nil)
			el.add(dc.weight, func(p *plan) {
				p.dateCols[col] = true
				if tm.from != "" {
					p.filters = append(p.filters, cond{sql: col + " >= " + quote(tm.from)})
				}
				if tm.to != "" {
					p.filters = append(p.filters, cond{sql: col + " < " + quote(tm.to)})
				}
				p.use(dc.table)
				if tm.year != "" {
					p.phrases[key] = tm.phrase
				}
			})
		}
		// A numeric year column ("year = 2024").
		if tm.year != "" {
			for _, t := range r.e.m.tables {
				for ci := range t.t.Columns {
					c := &t.t.Columns[ci]
					if strings.EqualFold(c.Name, "year") || strings.HasSuffix(strings.ToLower(c.Name), "_year") {
						el.add(0.5, func(p *plan) {
							p.filters = append(p.filters, cond{sql: r.e.m.col(t.name, c.Name) + " = " + tm.year})
							p.use(t.name)
						})
					}
				}
			}
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	for _, cp := range r.a.comps {
		el := &element{name: "compare"}
		var alts []colAlt
		if cp.target != "" {
			for _, h := range r.e.m.cat.SearchColumns(cp.target, 6) {
				if c := r.e.m.column(h.Table, h.Column); c != nil && c.Kind() == warehouse.KindNumber {
					alts = append(alts, colAlt{table: h.Table, column: h.Column, weight: h.Score})
				}
			}
		}
		if len(alts) == 0 && r.h.t != nil {
			for _, c := range r.h.t.measures {
				alts = append(alts, colAlt{table: r.h.t.name, column: c.Name, weight: 1})
			}
		}
		for _, al := range alts {
			col := r.e.m.col(al.table, al.column)
			key := sqlshape.WhereKey(strings.ToLower(al.table + "." + al.column))
			sql := col + " " + cp.op + " " + strconv.FormatFloat(cp.value, 'f', -1, 64)
			if cp.op == "between" {
				sql = col + " BETWEEN " + strconv.FormatFloat(cp.value, 'f', -1, 64) + " AND " + strconv.FormatFloat(cp.upper, 'f', -1, 64)
			}
			el.add(al.weight, func(p *plan) {
				p.filters = append(p.filters, cond{sql: sql})
				p.use(al.table)
				p.phrases[key] = cp.phrase
			})
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

// String helps debugging.
func (p *plan) String() string {
	return fmt.Sprintf("%.3f %v %v", p.weight, p.selects, p.filters)
}
