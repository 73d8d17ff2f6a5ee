package offline

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// sel is one select item, grouping or ordering.
type sel struct {
	x     expr
	alias string
}

// cond is one condition of WHERE or HAVING.
type cond struct {
	x expr
}

// plan is one reading of the question, before joins are chosen.
type plan struct {
	selects []sel
	filters []cond
	groups  []sel
	having  []cond
	order   *sel
	// both: "both X … and X …" read as two rows of X (both.go); the
	// second mention needs no instance of its own.
	both bool
	// thenBy breaks the order's ties, the same way round: "the top 5
	// makers by number of models and average production".
	thenBy   *sel
	desc     bool
	limit    int
	distinct bool
	// distinctForJoins: rows are shown once only because tables are
	// joined, which may repeat them (engine.go keeps them when the joins
	// cannot).
	distinctForJoins bool
	tables           map[string]bool
	weight           float64
	phrases          map[sqlshape.SlotKey]string
	// aggregated is set when the select list aggregates.
	aggregated bool
	// countOf is the table a COUNT(*) counts; with joins it counts its keys.
	countOf *schema.Table
	// countRows is the table whose rows a COUNT(*) over joins counts, when
	// it is not counted by key ("the rep with the most orders").
	countRows *schema.Table
	// dateCols are the date columns conditions and buckets use; one reading
	// rarely mixes two.
	dateCols   map[colRef]bool
	headPhrase string
	// invert: the ranking's measure grows the other way from its words
	// (the oldest has the largest age, the earliest date).
	invert bool
	// extremeValue: the ranking's top value itself ("the maximum quantity"),
	// not the row that has it.
	extremeValue bool
	// defines are the meanings given to words the schema does not name.
	defines []dialog.Definition
	// derived are joins to grouped tables (group conditions).
	derived []derivedJoin
	// wrap is "share" or "change": a measure over the grouped result.
	wrap string
	// perEntity is the table a "for each <thing>" groups by, by its key
	// and label.
	perEntity *schema.Table
	// covered are phrases the reading accounts for without their table:
	// "members" in a stored "number of members who …".
	covered []string
	// shares are joins to the totals a measure is split by, and allocated
	// what was split (grain.go).
	shares    []joinClause
	allocated []allocation
	// onceEach are tables read as their distinct rows of the columns
	// listed (grain.go): a measure grouped by them counts each of its
	// things once per group.
	onceEach map[string][]string
}

// derivedJoin is a JOIN to a grouped subquery on its key column equal to
// the subject's; left: a LEFT JOIN that keeps the subjects missing from it
// (the condition in WHERE that they are): the related rows counted per
// subject.
type derivedJoin struct {
	left    bool
	sub     selectQuery
	key     string
	subject colRef
	// tables are the tables the subquery counts rows of; count is the
	// number its HAVING compares the count with.
	tables []string
	count  float64
	cols   []colRef
}

// join is the JOIN under the name alias, and the condition it needs in
// WHERE, if any.
func (d derivedJoin) join(alias string) (joinClause, expr) {
	sub := d.sub
	j := joinClause{Left: d.left, To: source{Sub: &sub, Alias: alias}, On: cmp(col(alias, d.key), "=", d.subject)}
	if d.left {
		return j, isNull{X: col(alias, d.key)}
	}
	return j, nil
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
	c.dateCols = make(map[colRef]bool, len(p.dateCols))
	for k := range p.dateCols {
		c.dateCols[k] = true
	}
	c.defines = append([]dialog.Definition(nil), p.defines...)
	c.derived = append([]derivedJoin(nil), p.derived...)
	c.covered = append([]string(nil), p.covered...)
	c.shares = append([]joinClause(nil), p.shares...)
	c.allocated = append([]allocation(nil), p.allocated...)
	c.phrases = make(map[sqlshape.SlotKey]string, len(p.phrases))
	for k, v := range p.phrases {
		c.phrases[k] = v
	}
	if p.order != nil {
		o := *p.order
		c.order = &o
	}
	if p.thenBy != nil {
		o := *p.thenBy
		c.thenBy = &o
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
	t      *schema.Table
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
func (e *Engine) readings(a *read.Analysis, widen int, facts []ontology.Fact) []*plan {
	cap := 3 + 2*widen
	e.typedMeasures(a, a.Typed)
	r := &reader{e: e, a: a, prefer: e.feedbackColumns(a), facts: facts}
	a.Nested = e.findNested(a)
	r.h = e.findHead(a)
	// An everyday word weakly matched to a stored name may be a term: its
	// words are free for the definitions too ("good shops").
	for _, vm := range a.Values {
		if vm.Weak = r.weakValue(vm); vm.Weak {
			for k := vm.At; k < a.SpanOf(vm.At, vm.Phrase); k++ {
				a.Toks[k].Used = false
			}
		}
	}
	// Existence first: the words qualifying its related rows are no terms.
	r.exists = e.findExistence(a, r.h.t)
	terms := e.findTerms(a)
	terms = append(terms, e.genericTerms(a, r.h, terms)...)
	r.terms, r.stated = e.statedTerms(a, terms, r.h.t, e.now())
	r.terms, r.stated = e.typedTerms(a, r.terms, r.stated, r.h.t, a.Typed, e.now())
	els := r.elements()
	if len(els) == 0 {
		return nil
	}
	base := &plan{tables: map[string]bool{}, phrases: map[sqlshape.SlotKey]string{}, dateCols: map[colRef]bool{}, weight: 1}
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
		// The tables a reading needs are those its parts read (a span
		// from an order's date to its shipment's reads both).
		for _, x := range p.outerParts() {
			for _, c := range outerColumns(x) {
				p.use(c.Table)
			}
		}
		p.weight *= math.Pow(joinPenalty, float64(len(p.tables)-1))
		if len(p.dateCols) > 1 {
			p.weight *= 0.2
		}
		p.weight *= r.e.factDates(p, r.a)
		if contradicts(r.e.m, p) {
			// name = 'A' AND name = 'B': no row can answer; two value
			// matches that overlap, not a question anybody asks — or
			// things with related rows of each value ("members who
			// borrowed 'Dune' and 'Emma'"), read below.
			if q := r.e.eachValue(p); q != nil {
				out = append(out, q)
			}
			if _, _, t := bothHalves(r.a); t == nil {
				continue // never proposed
			}
			// "both X … and X …" may read as two rows of X (both.go);
			// what is not rewritten so is dropped there.
			p.weight *= contradictionPenalty
		}
		// Repeated rows are noise: show each once, unless the rows are
		// entities with a key (two customers may share a name).
		for _, s := range p.selects {
			// A computed measure may aggregate itself (a ratio of totals).
			p.aggregated = p.aggregated || aggregates(s.x) && len(p.groups) == 0
		}
		listAggregates(r.a, p)
		shared := r.conditionalShare(p)
		rowWise := !shared && r.perRow(p)
		if !rowWise && !p.aggregated && len(p.groups) == 0 && (len(p.tables) > 1 || !r.keyed(p) || !r.showsIdentity(p)) && !r.sortedByUnshown(p) {
			p.distinct = true
			p.distinctForJoins = r.keyed(p) && r.showsIdentity(p)
		}
		if !shared {
			p.wrap = r.wrapFor(p)
		}
		out = append(out, p)
		if rowWise {
			out = append(out, r.rowOutputs(p)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// namesColumnsOfEach says whether the question names columns of the
// things it says "each" of ("the site and usage of every depot"):
// a list of those things, not a count per thing.
func (r *reader) namesColumnsOfEach() bool {
	for _, g := range r.a.Groups {
		if g.TimeUnit != "" || g.Per {
			continue
		}
		em, _ := r.mentionAt(g.At)
		if em == nil {
			continue
		}
		for _, cm := range r.a.Columns {
			if cm.At >= g.At || cm.Clause != 0 {
				continue
			}
			for _, al := range cm.Alts {
				if strings.EqualFold(al.Table, em.Tables[0].Name) && !al.Computed() {
					return true
				}
			}
		}
	}
	return false
}

// rankedWithoutGroups says whether a plan orders its rows by an aggregate
// but has nothing to aggregate per: plain columns shown, no grouping. The
// server would fold every row into one and show an arbitrary row's
// values beside the total.
func rankedWithoutGroups(p *plan) bool {
	if len(p.groups) > 0 || p.order == nil || !aggregates(p.order.x) {
		return false
	}
	for _, s := range p.selects {
		if !aggregates(s.x) {
			return true
		}
	}
	return false
}

// groupShownRows repairs a plan that ranks plain columns by an aggregate
// with nothing grouped: it groups by each shown column's row (its table's
// key) and the column, so the ranking counts per thing shown. Nil when a
// shown column is not a plain column.
func (e *Engine) groupShownRows(p *plan) *plan {
	q := p.clone()
	var added []expr
	add := func(x expr) {
		if !slices.ContainsFunc(added, func(y expr) bool { return sameExpr(e.m, x, y) }) {
			added = append(added, x)
			q.groups = append(q.groups, sel{x: x})
		}
	}
	for _, s := range p.selects {
		if aggregates(s.x) {
			continue
		}
		c, ok := isColumn(s.x)
		if !ok {
			return nil
		}
		if t := e.m.ByName[strings.ToLower(c.Table)]; t != nil && t.Key != nil {
			add(col(t.Name, t.Key.Name))
		}
		add(c)
	}
	q.distinct = false
	return q
}

// sortedByUnshown says whether rows are sorted by something they do not
// show ("record companies in order of founding year"): each row is then
// its own thing in that order, and folding equal ones would leave no
// order to keep.
func (r *reader) sortedByUnshown(p *plan) bool {
	if p.order == nil || p.limit > 0 || len(p.tables) != 1 {
		return false
	}
	for _, s := range p.selects {
		if sameExpr(r.e.m, s.x, p.order.x) {
			return false
		}
	}
	return true
}

// keyed says whether every table of the plan has a key, so that its rows
// are distinct things even when they print the same.
func (r *reader) keyed(p *plan) bool {
	for t := range p.tables {
		if ti := r.e.m.ByName[t]; ti == nil || ti.Key == nil {
			return false
		}
	}
	return true
}

// reader holds the state of building elements for one analysis.
type reader struct {
	e      *Engine
	a      *read.Analysis
	h      head
	prefer map[string]bool // table.column named in feedback ("use ship date")
	// measureTables are the tables a measure may come from, for date filters.
	measureTables map[string]bool
	usedCols      map[*read.ColMention]bool
	// pendingOutput is a column the ranking itself asks to show.
	pendingOutput *read.ColAlt
	// countedVia is the table whose rows a superlative counts per head.
	countedVia *schema.Table
	// terms and exists are the words the schema does not name that qualify
	// a subject, and the negated related tables.
	terms  []*termMention
	exists []*existMention
	// stated are the meanings the person gave terms in their own words.
	stated map[*termMention]definition
	// facts are the asker's remembered choices and definitions.
	facts []ontology.Fact
	// groupRankingUsed: the per-group ranking shows its own list.
	groupRankingUsed bool
}

// feedbackColumns are the columns named in feedback: they win wherever
// they are an alternative.
func (e *Engine) feedbackColumns(a *read.Analysis) map[string]bool {
	out := map[string]bool{}
	for _, cm := range a.Columns {
		if cm.Clause > 0 && len(cm.Alts) > 0 {
			out[strings.ToLower(cm.Alts[0].Table+"."+cm.Alts[0].Column)] = true
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
func (e *Engine) findHead(a *read.Analysis) head {
	var related *read.EntityMention
	// The thing a nested superlative picks out is a condition, not the
	// subject ("the longest route of the smallest depot").
	// Nor is the thing a grouping names ("the most expensive product in
	// each category").
	grouping := func(em *read.EntityMention) bool {
		for _, g := range a.Groups {
			if g.At == em.At {
				return true
			}
		}
		return false
	}
	outside := 0
	for _, em := range a.Entities {
		if (a.Nested == nil || em.At < a.Nested.At || em.At >= a.Nested.End) && !grouping(em) {
			outside++
		}
	}
	for _, em := range a.Entities {
		if a.Nested != nil && em.At >= a.Nested.At && em.At < a.Nested.End {
			continue
		}
		if grouping(em) && len(a.Entities) > 1 {
			continue
		}
		if a.Sup != nil && em.At >= a.Sup.NounAt && em.At <= a.Sup.NounAt+1 && outside > 1 {
			continue
		}
		if a.Toks[em.At].Clause > 0 {
			continue
		}
		if inRelativeClause(a, em.At) {
			// "customer IDs that have placed orders": the rows
			// the clause is about are the subject's condition, not it.
			if related == nil {
				related = em
			}
			continue
		}
		// "Return the shop IDs that …. Consider all sale
		// types…": identifiers named in an earlier sentence are the rows.
		if km := e.keyMention(a); km != nil && km.At < em.At && sentenceBreak(a, km.End, em.At) {
			return head{t: e.m.ByName[strings.ToLower(km.Alts[0].Table)], phrase: km.Phrase, at: km.At, entity: true}
		}
		return head{t: em.Tables[0], phrase: em.Phrase, at: em.At, entity: true}
	}
	for _, cm := range a.Columns {
		if cm.Clause == 0 && len(cm.Alts) > 0 && (related == nil || cm.At < related.At) {
			return head{t: e.m.ByName[strings.ToLower(cm.Alts[0].Table)], phrase: cm.Phrase, at: cm.At}
		}
	}
	if related != nil {
		return head{t: related.Tables[0], phrase: related.Phrase, at: related.At, entity: true}
	}
	for _, vm := range a.Values {
		if len(vm.Alts) > 0 {
			return head{t: e.m.ByName[strings.ToLower(vm.Alts[0].Table)], phrase: "", at: vm.At}
		}
	}
	return head{}
}

// mentionAt returns the entity or column mention starting within two
// tokens of i.
func (r *reader) mentionAt(i int) (*read.EntityMention, *read.ColMention) {
	for d := 0; d <= 2; d++ {
		for _, em := range r.a.Entities {
			if em.At == i+d {
				return em, nil
			}
		}
		for _, cm := range r.a.Columns {
			if cm.At == i+d {
				return nil, cm
			}
		}
	}
	return nil, nil
}

func (r *reader) numericAlts(cm *read.ColMention) []read.ColAlt {
	var out []read.ColAlt
	for _, al := range cm.Alts {
		if al.Computed() {
			out = append(out, al)
			continue
		}
		if c := r.e.m.Column(al.Table, al.Column); c != nil && c.Kind() == warehouse.KindNumber && !r.e.m.IsKeyish(r.e.m.ByName[strings.ToLower(al.Table)].Def, c) {
			out = append(out, al)
		}
	}
	return out
}

// elements builds the parts of the reading.
func (r *reader) elements() []*element {
	a := r.a
	r.measureTables = map[string]bool{}
	r.usedCols = map[*read.ColMention]bool{}
	flags := r.findFlags()
	var els []*element
	// "the greatest mileage in the fleet": a column named with a superlative
	// ranks unless a value picks out the row ("… at Leeds").
	if a.Sup == nil && a.SupCol != nil && !r.valueNamesRowOf(a.SupCol.At) && !a.Count && a.Agg == "" {
		a.Sup = a.SupCol
	}
	switch {
	case a.Sup != nil:
		if g := r.groupRanking(); g != nil {
			r.groupRankingUsed = true
			els = append(els, g...)
		} else {
			els = append(els, r.superlative()...)
		}
	case a.Count && a.Agg != "" && a.AggAt == a.CountAt-1 && r.numberIsStored(a.CountAt+2):
		// "the average number of pages": a stored number, averaged.
		els = append(els, r.aggregate(a.Agg, a.CountAt)...)
	case a.Count:
		els = append(els, r.count()...)
	case a.Agg != "":
		els = append(els, r.aggregate(a.Agg, a.AggAt)...)
	case len(a.Groups) > 0 && r.hasNumericMention():
		els = append(els, r.aggregate("SUM", -1)...)
	case len(a.Groups) > 0 && !r.namesColumnsOfEach():
		// "customers by state": how many per group.
		els = append(els, r.count()...)
	default:
		els = append(els, r.projection()...)
	}
	if a.Nested != nil {
		if el := r.nestedElement(a.Nested); el != nil {
			els = append(els, el)
		}
	}
	if g := r.groupElement(); g != nil {
		els = append(els, g...)
	}
	els = append(els, r.filterElements()...)
	els = append(els, r.patternElements()...)
	els = append(els, r.flagElements(flags)...)
	els = append(els, r.defineElements(r.e.now())...)
	if !r.groupRankingUsed {
		els = append(els, r.listElement()...)
	}
	// Sorting comes last: it sorts what the other parts computed.
	els = append(els, r.orderElement()...)
	return els
}

func (r *reader) hasNumericMention() bool {
	for _, cm := range r.a.Columns {
		if cm.Clause == 0 && len(r.numericAlts(cm)) > 0 {
			return true
		}
	}
	return false
}

// freeColumns are question column mentions not yet given a role.
func (r *reader) freeColumns() []*read.ColMention {
	var out []*read.ColMention
	for _, cm := range r.a.Columns {
		if cm.Clause == 0 && !r.usedCols[cm] && !r.isGroupMention(cm) && !r.isComparisonTarget(cm) && !r.isOrderKey(cm) && !r.namesItsValue(cm) {
			out = append(out, cm)
		}
	}
	return out
}

// namesItsValue says whether a participle names the column of the value right
// after it ("depots situated in Ashby", 'Ashby' a town): the column is
// the condition's, not what to show. A noun naming its value ("the
// department of Computer Science") may still be shown.
func (r *reader) namesItsValue(cm *read.ColMention) bool {
	if cm.End-cm.At != 1 || !read.Participle(r.a.Word(cm.At)) {
		return false
	}
	for _, vm := range r.a.Values {
		if vm.At < cm.End || vm.At > cm.End+2 {
			continue
		}
		for _, va := range vm.Alts {
			for _, ca := range cm.Alts {
				if strings.EqualFold(va.Table, ca.Table) && strings.EqualFold(va.Column, ca.Column) {
					return true
				}
			}
		}
	}
	return false
}

// isOrderKey says whether a column is what the question sorts by ("in
// ascending order of age"): it orders the rows, it is not what they show.
func (r *reader) isOrderKey(cm *read.ColMention) bool {
	om := r.a.Order
	return om != nil && om.By >= 0 && cm.At >= om.By && cm.At < max(r.a.SpanOf(om.At, om.Phrase), om.By+1)
}

func (r *reader) isGroupMention(cm *read.ColMention) bool {
	for _, g := range r.a.Groups {
		if g.At == cm.At {
			return true
		}
	}
	return false
}

func (r *reader) isComparisonTarget(cm *read.ColMention) bool {
	for _, c := range r.a.Comps {
		if c.Target != "" && strings.Contains(c.Target, strings.ToLower(cm.Phrase)) {
			return true
		}
		// "more than 2 models": the rows counted, no column to show;
		// "more than 7 sessions": the number compared.
		if em, _ := r.relatedCounted(c); em != nil && em.At == cm.At {
			return true
		}
		if cm.At == r.a.SpanOf(c.At, c.Phrase) && len(r.measuredAfter(c)) > 0 {
			return true
		}
	}
	return false
}

// numberIsStored says whether "number of X" at i names a numeric column
// (pages, citations) rather than rows to count (shops).
func (r *reader) numberIsStored(i int) bool {
	if r.a.Word(i) == "the" {
		i++
	}
	cm := r.columnAt(i)
	return cm != nil && r.entityAt(i) == nil && len(r.numericAlts(cm)) > 0
}

// inRelativeClause says whether token i ends "that have …", "who never …",
// "without …": a clause saying which related rows the subject has.
func inRelativeClause(a *read.Analysis, i int) bool {
	for k := i - 1; k >= 0 && k >= i-6; k-- {
		w := a.Toks[k].Low
		if a.Toks[k].Break != 0 {
			return false
		}
		if read.Negations[w] || (relativeWords[w] && haveWords[a.Word(k+1)]) {
			return true
		}
	}
	return false
}

// perRow undoes a grouping by a column that is unique in the only table
// measured ("the ratio of A to B for each product ID"): every group is one
// row, so the answer lists the rows' values rather than totals of one.
func (r *reader) perRow(p *plan) bool {
	if len(p.groups) == 0 || len(p.tables) != 1 || len(p.having) > 0 || p.countOf != nil {
		return false
	}
	// Grouped by a unique column, and perhaps the row's label beside it.
	unique := false
	for _, g := range p.groups {
		c, ok := isColumn(g.x)
		if !ok {
			return false
		}
		unique = unique || r.e.m.Unique(c.Table, c.Column)
	}
	if !unique {
		return false
	}
	grouped := func(x expr) bool {
		for _, g := range p.groups {
			if sameExpr(r.e.m, g.x, x) {
				return true
			}
		}
		return false
	}
	strip := func(s sel) (sel, bool) {
		if _, plain := isColumn(s.x); grouped(s.x) || plain {
			return s, true // the row's own column: one value per group
		}
		if ag, ok := aggOf(s.x); ok && ag.Arg != nil && !ag.Distinct && ag.Fn != "COUNT" {
			alias := s.alias
			if _, rest, ok := strings.Cut(alias, "_"); ok && alias == aliasFor(ag.Fn, rest) {
				alias = rest
			}
			return sel{x: ag.Arg, alias: alias}, true
		}
		return s, false
	}
	selects := make([]sel, len(p.selects))
	for i, s := range p.selects {
		var ok bool
		if selects[i], ok = strip(s); !ok {
			return false
		}
	}
	if p.order != nil {
		o, ok := strip(*p.order)
		if !ok {
			return false
		}
		p.order = &o
	}
	p.selects, p.groups, p.aggregated = selects, nil, false
	return true
}

// showsIdentity says whether a reading shows what tells its rows apart:
// a key, a label or a contact column. "Which cities…" over members shows
// an attribute many rows share, each value once.
func (r *reader) showsIdentity(p *plan) bool {
	for _, s := range p.selects {
		sc, ok := isColumn(s.x)
		if !ok {
			return true // an expression: keep every row
		}
		t := r.e.m.ByName[strings.ToLower(sc.Table)]
		if t == nil {
			return true
		}
		for _, c := range t.Details {
			if strings.EqualFold(c.Name, sc.Column) {
				return true
			}
		}
	}
	return false
}

// keyMention is the first mention of a table's identifiers in the
// question ("shop IDs"), or nil.
func (e *Engine) keyMention(a *read.Analysis) *read.ColMention {
	for _, cm := range a.Columns {
		if cm.Clause != 0 || len(cm.Alts) == 0 || !namesIdentifier(cm.Phrase) {
			continue
		}
		if t := e.m.ByName[strings.ToLower(cm.Alts[0].Table)]; t != nil && t.Key != nil && strings.EqualFold(t.Key.Name, cm.Alts[0].Column) {
			return cm
		}
	}
	return nil
}

// sentenceBreak says whether a sentence ends between tokens from and to.
func sentenceBreak(a *read.Analysis, from, to int) bool {
	for k := max(from, 0); k < to && k < len(a.Toks); k++ {
		if token.BreakRank(a.Toks[k].Break) == 3 {
			return true
		}
	}
	return false
}

// rowOutputs are the other ways to show a per-row figure "for each
// <thing>": the figure alone, or beside the thing's key rather than its
// label ("the ratio … for each loan": loan_id, ratio). Which one is meant
// is a question of output, asked when it matters.
func (r *reader) rowOutputs(p *plan) []*plan {
	t := p.perEntity
	if t == nil || t.Label == nil {
		return nil
	}
	label := col(t.Name, t.Label.Name)
	var figures []sel
	for _, s := range p.selects {
		if !sameExpr(r.e.m, s.x, label) {
			figures = append(figures, s)
		}
	}
	if len(figures) == len(p.selects) || len(figures) == 0 {
		return nil
	}
	var out []*plan
	alone := p.clone()
	alone.selects, alone.weight = figures, p.weight*0.3
	out = append(out, alone)
	if t.Key != nil && t.Key != t.Label {
		keyed := p.clone()
		keyed.selects = append([]sel{{x: col(t.Name, t.Key.Name)}}, figures...)
		keyed.weight = p.weight * 0.3
		out = append(out, keyed)
	}
	return out
}

// eachValue reads two equalities of one column with different values as
// rows of what is shown that have related rows of each value: the shown
// columns grouped, the column IN both values, and both found. Only when
// the column is another table's than every shown column (a row of its
// own table holds one value).
func (e *Engine) eachValue(p *plan) *plan {
	var on colRef
	var vals []expr
	var rest []cond
	for _, f := range p.filters {
		b, ok := f.x.(binary)
		if c, isCol := isColumn(b.L); ok && b.Op == "=" && isCol && (len(vals) == 0 || sameExpr(e.m, c, on)) {
			if lit, isLit := b.R.(strLit); isLit {
				on = c
				vals = append(vals, lit)
				continue
			}
		}
		rest = append(rest, f)
	}
	if len(vals) != 2 || len(p.selects) == 0 || p.aggregated || len(p.groups) > 0 || p.order != nil {
		return nil
	}
	for _, s := range p.selects {
		c, ok := isColumn(s.x)
		if !ok || strings.EqualFold(c.Table, on.Table) {
			return nil
		}
	}
	q := p.clone()
	q.filters = append(rest, cond{x: inList{X: on, Vals: vals}})
	q.groups = nil
	// Grouped by each shown thing's key too: two members may share a name.
	keyed := map[string]bool{}
	for _, s := range p.selects {
		c, _ := isColumn(s.x)
		if t := e.m.ByName[strings.ToLower(c.Table)]; t != nil && t.Key != nil && !keyed[t.Name] {
			keyed[t.Name] = true
			if k := col(t.Name, t.Key.Name); !slices.ContainsFunc(p.selects, func(s sel) bool { return sameExpr(e.m, s.x, k) }) {
				q.groups = append(q.groups, sel{x: k})
			}
		}
	}
	q.groups = append(q.groups, p.selects...)
	q.having = append(q.having, cond{x: binary{L: aggExpr{Fn: "COUNT", Distinct: true, Arg: on}, Op: "=", R: numLit("2")}})
	q.distinct, q.distinctForJoins = false, false
	return q
}

// contradictionPenalty discounts a reading whose conditions no row can
// meet until it is read as two rows ("both", engine.go).
const contradictionPenalty = 0.01

// contradicts says whether the conditions cannot hold together on any
// row: one column equal to (or in) sets of values with nothing in common,
// or bounds on one column that leave nothing between them.
func contradicts(m *schema.Model, p *plan) bool {
	// "customers who never ordered" joined to their orders: no related
	// row can both exist and not exist (the related rows have no other
	// condition than being related).
	for _, f := range p.filters {
		if ex, ok := f.x.(exists); ok && ex.Not && len(ex.Tables) == 1 && len(ex.Sub.Where) == 1 && len(ex.Sub.From.Joins) == 0 && !isConj(ex.Sub.Where[0]) && p.tables[strings.ToLower(ex.Tables[0])] {
			return true
		}
	}
	r := columnRanges{allowed: map[string]map[string]bool{}, lower: map[string]bound{}, upper: map[string]bound{}}
	for _, f := range p.filters {
		c, op, vals, ok := literalCondition(f.x)
		if ok && !r.add(strings.ToLower(c.Table+"."+c.Column), op, vals) {
			return true
		}
	}
	return r.empty()
}

// literalCondition reads a condition that compares a column with literals:
// column op value, or column IN (values).
func literalCondition(x expr) (c colRef, op string, vals []string, ok bool) {
	switch x := x.(type) {
	case binary:
		col, ok := isColumn(x.L)
		v, lit := literal(x.R)
		if !ok || !lit {
			return c, "", nil, false
		}
		return col, x.Op, []string{v}, true
	case inList:
		col, ok := isColumn(x.X)
		if !ok {
			return c, "", nil, false
		}
		for _, e := range x.Vals {
			v, lit := literal(e)
			if !lit {
				return c, "", nil, false
			}
			vals = append(vals, v)
		}
		return col, "in", vals, len(vals) > 0
	}
	return c, "", nil, false
}

// columnRanges are what the conditions of one reading leave each column:
// the values allowed, and the bounds below and above.
type columnRanges struct {
	allowed      map[string]map[string]bool
	lower, upper map[string]bound
}

// add narrows column k by one condition; false when no value is left.
func (r *columnRanges) add(k, op string, vals []string) bool {
	switch op {
	case "=", "in":
		set := map[string]bool{}
		for _, v := range vals {
			if prev, ok := r.allowed[k]; !ok || prev[v] {
				set[v] = true
			}
		}
		if len(set) == 0 {
			return false
		}
		r.allowed[k] = set
	case ">", ">=":
		if b := (bound{v: vals[0], strict: op == ">"}); tighter(b, r.lower[k], true) {
			r.lower[k] = b
		}
	case "<", "<=":
		if b := (bound{v: vals[0], strict: op == "<"}); tighter(b, r.upper[k], false) {
			r.upper[k] = b
		}
	}
	return true
}

// empty: bounds that leave nothing between them, or allowed values all
// outside the bounds.
func (r *columnRanges) empty() bool {
	for k, lo := range r.lower {
		if hi, ok := r.upper[k]; ok && lo.v != "" && hi.v != "" {
			if c := compareLit(lo.v, hi.v); c > 0 || c == 0 && (lo.strict || hi.strict) {
				return true
			}
		}
	}
	for k, set := range r.allowed {
		lo, hi := r.lower[k], r.upper[k]
		if lo.v == "" && hi.v == "" {
			continue
		}
		inside := false
		for v := range set {
			if (lo.v == "" || compareLit(v, lo.v) > 0 || compareLit(v, lo.v) == 0 && !lo.strict) &&
				(hi.v == "" || compareLit(v, hi.v) < 0 || compareLit(v, hi.v) == 0 && !hi.strict) {
				inside = true
			}
		}
		if !inside {
			return true
		}
	}
	return false
}

// bound is one end of a range a column is compared with.
type bound struct {
	v      string
	strict bool
}

// tighter says whether b narrows the range more than cur does, as a lower
// (or upper) end.
func tighter(b, cur bound, lower bool) bool {
	if cur.v == "" {
		return true
	}
	c := compareLit(b.v, cur.v)
	if !lower {
		c = -c
	}
	return c > 0 || c == 0 && b.strict
}

// literal is a literal's value: strings lower-case, numbers as written.
func literal(x expr) (string, bool) {
	switch l := x.(type) {
	case strLit:
		return strings.ToLower(string(l)), true
	case numLit:
		return string(l), true
	}
	return "", false
}

// compareLit orders two literals: as numbers when both are, else as text
// (ISO dates order so).
func compareLit(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}
