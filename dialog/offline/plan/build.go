package plan

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Sel is one select item, grouping or ordering.
type Sel struct {
	X     sqlexpr.Expr
	Alias string
}

// Cond is one condition of WHERE or HAVING.
type Cond struct {
	X sqlexpr.Expr
}

// Plan is one reading of the question, before joins are chosen.
type Plan struct {
	Selects []Sel
	Filters []Cond
	Groups  []Sel
	Having  []Cond
	Order   *Sel
	// Both: "both X … and X …" read as two rows of X (both.go); the
	// second mention needs no instance of its own.
	Both bool
	// ThenBy breaks the order's ties, the same way round: "the top 5
	// makers by number of models and average production".
	ThenBy   *Sel
	Desc     bool
	Limit    int
	Distinct bool
	// DistinctForJoins: rows are shown once only because tables are
	// joined, which may repeat them (engine.go keeps them when the joins
	// cannot).
	DistinctForJoins bool
	Tables           map[string]bool
	Weight           float64
	Phrases          map[sqlshape.SlotKey]string
	// Aggregated is set when the select list aggregates.
	Aggregated bool
	// CountOf is the table a COUNT(*) counts; with joins it counts its keys.
	CountOf *schema.Table
	// CountRows is the table whose rows a COUNT(*) over joins counts, when
	// it is not counted by key ("the rep with the most orders").
	CountRows *schema.Table
	// DateCols are the date columns conditions and buckets use; one reading
	// rarely mixes two.
	DateCols   map[sqlexpr.ColRef]bool
	HeadPhrase string
	// invert: the ranking's measure grows the other way from its words
	// (the oldest has the largest age, the earliest date).
	invert bool
	// extremeValue: the ranking's top value itself ("the maximum quantity"),
	// not the row that has it.
	extremeValue bool
	// Defines are the meanings given to words the schema does not name.
	Defines []dialog.Definition
	// Derived are joins to grouped tables (group conditions).
	Derived []DerivedJoin
	// Wrap is "share" or "change": a measure over the grouped result.
	Wrap string
	// PerEntity is the table a "for each <thing>" groups by, by its key
	// and label.
	PerEntity *schema.Table
	// Covered are phrases the reading accounts for without their table:
	// "members" in a stored "number of members who …".
	Covered []string
	// Shares are joins to the totals a measure is split by, and allocated
	// what was split (grain.go).
	Shares    []sqlexpr.Join
	Allocated []Allocation
	// OnceEach are tables read as their distinct rows of the columns
	// listed (grain.go): a measure grouped by them counts each of its
	// things once per group.
	OnceEach map[string][]string
}

// DerivedJoin is a JOIN to a grouped subquery on its key column equal to
// the subject's; left: a LEFT JOIN that keeps the subjects missing from it
// (the condition in WHERE that they are): the related rows counted per
// subject.
type DerivedJoin struct {
	Left    bool
	Sub     sqlexpr.Select
	Key     string
	Subject sqlexpr.ColRef
	// Tables are the tables the subquery counts rows of; count is the
	// number its HAVING compares the count with.
	Tables []string
	Count  float64
	Cols   []sqlexpr.ColRef
}

func (p *Plan) use(tables ...string) {
	for _, t := range tables {
		if t != "" {
			p.Tables[strings.ToLower(t)] = true
		}
	}
}

// TableList are the tables the plan reads, in order.
func (p *Plan) TableList() []string {
	out := make([]string, 0, len(p.Tables))
	for t := range p.Tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Clone is a copy of the plan that can be changed without changing p.
func (p *Plan) Clone() *Plan {
	c := *p
	c.Selects = append([]Sel(nil), p.Selects...)
	c.Filters = append([]Cond(nil), p.Filters...)
	c.Groups = append([]Sel(nil), p.Groups...)
	c.Having = append([]Cond(nil), p.Having...)
	c.Tables = make(map[string]bool, len(p.Tables))
	for k := range p.Tables {
		c.Tables[k] = true
	}
	c.DateCols = make(map[sqlexpr.ColRef]bool, len(p.DateCols))
	for k := range p.DateCols {
		c.DateCols[k] = true
	}
	c.Defines = append([]dialog.Definition(nil), p.Defines...)
	c.Derived = append([]DerivedJoin(nil), p.Derived...)
	c.Covered = append([]string(nil), p.Covered...)
	c.Shares = append([]sqlexpr.Join(nil), p.Shares...)
	c.Allocated = append([]Allocation(nil), p.Allocated...)
	c.Phrases = make(map[sqlshape.SlotKey]string, len(p.Phrases))
	for k, v := range p.Phrases {
		c.Phrases[k] = v
	}
	if p.Order != nil {
		o := *p.Order
		c.Order = &o
	}
	if p.ThenBy != nil {
		o := *p.ThenBy
		c.ThenBy = &o
	}
	return &c
}

// alt is one way to read one element of the question.
type alt struct {
	weight float64
	apply  func(*Plan)
}

// element is a part of the question with its possible readings.
type element struct {
	name string
	alts []alt
}

func (el *element) add(w float64, f func(*Plan)) {
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

// Readings enumerates plans: one alternative per element, every combination,
// weighted by the product of the alternatives' weights and a penalty per
// joined table.
func (e *Builder) Readings(a *links.Analysis, widen int, facts []ontology.Fact) []*Plan {
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
	base := &Plan{Tables: map[string]bool{}, Phrases: map[sqlshape.SlotKey]string{}, DateCols: map[sqlexpr.ColRef]bool{}, Weight: 1}
	if r.h.t != nil {
		base.HeadPhrase = r.h.phrase
	}
	plans := []*Plan{base}
	for _, el := range els {
		n := cap
		if el.name == "define" {
			n = max(cap, 5) // a word's meanings are one question's options
		}
		alts := el.capped(n)
		if len(alts) == 0 {
			continue
		}
		var next []*Plan
		for _, p := range plans {
			for _, al := range alts {
				c := p.Clone()
				c.Weight *= al.weight
				al.apply(c)
				next = append(next, c)
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].Weight > next[j].Weight })
		if len(next) > 256 {
			next = next[:256]
		}
		plans = next
	}
	var out []*Plan
	for _, p := range plans {
		if len(p.Selects) == 0 || len(p.Tables) == 0 {
			continue
		}
		// The tables a reading needs are those its parts read (a span
		// from an order's date to its shipment's reads both).
		for _, x := range p.OuterParts() {
			for _, c := range sqlexpr.OuterColumns(x) {
				p.use(c.Table)
			}
		}
		p.Weight *= math.Pow(joinPenalty, float64(len(p.Tables)-1))
		if len(p.DateCols) > 1 {
			p.Weight *= 0.2
		}
		p.Weight *= r.e.factDates(p, r.a)
		if Contradicts(r.e.m, p) {
			// name = 'A' AND name = 'B': no row can answer; two value
			// matches that overlap, not a question anybody asks — or
			// things with related rows of each value ("members who
			// borrowed 'Dune' and 'Emma'"), read below.
			if q := r.e.eachValue(p); q != nil {
				out = append(out, q)
			}
			if _, _, t := BothHalves(r.a); t == nil {
				continue // never proposed
			}
			// "both X … and X …" may read as two rows of X (both.go);
			// what is not rewritten so is dropped there.
			p.Weight *= contradictionPenalty
		}
		// Repeated rows are noise: show each once, unless the rows are
		// entities with a key (two customers may share a name).
		for _, s := range p.Selects {
			// A computed measure may aggregate itself (a ratio of totals).
			p.Aggregated = p.Aggregated || sqlexpr.Aggregates(s.X) && len(p.Groups) == 0
		}
		listAggregates(r.a, p)
		shared := r.conditionalShare(p)
		rowWise := !shared && r.perRow(p)
		if !rowWise && !p.Aggregated && len(p.Groups) == 0 && (len(p.Tables) > 1 || !r.keyed(p) || !r.showsIdentity(p)) && !r.sortedByUnshown(p) {
			p.Distinct = true
			p.DistinctForJoins = r.keyed(p) && r.showsIdentity(p)
		}
		if !shared {
			p.Wrap = r.wrapFor(p)
		}
		out = append(out, p)
		if rowWise {
			out = append(out, r.rowOutputs(p)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
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

// sortedByUnshown says whether rows are sorted by something they do not
// show ("record companies in order of founding year"): each row is then
// its own thing in that order, and folding equal ones would leave no
// order to keep.
func (r *reader) sortedByUnshown(p *Plan) bool {
	if p.Order == nil || p.Limit > 0 || len(p.Tables) != 1 {
		return false
	}
	for _, s := range p.Selects {
		if SameExpr(r.e.m, s.X, p.Order.X) {
			return false
		}
	}
	return true
}

// keyed says whether every table of the plan has a key, so that its rows
// are distinct things even when they print the same.
func (r *reader) keyed(p *Plan) bool {
	for t := range p.Tables {
		if ti := r.e.m.ByName[t]; ti == nil || ti.Key == nil {
			return false
		}
	}
	return true
}

// reader holds the state of building elements for one analysis.
type reader struct {
	e      *Builder
	a      *links.Analysis
	h      head
	prefer map[string]bool // table.column named in feedback ("use ship date")
	// measureTables are the tables a measure may come from, for date filters.
	measureTables map[string]bool
	usedCols      map[*links.ColMention]bool
	// pendingOutput is a column the ranking itself asks to show.
	pendingOutput *links.ColAlt
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
func (e *Builder) feedbackColumns(a *links.Analysis) map[string]bool {
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
func (e *Builder) findHead(a *links.Analysis) head {
	var related *links.EntityMention
	// The thing a nested superlative picks out is a condition, not the
	// subject ("the longest route of the smallest depot").
	// Nor is the thing a grouping names ("the most expensive product in
	// each category").
	grouping := func(em *links.EntityMention) bool {
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
		if km := e.keyMention(a); km != nil && km.At < em.At && SentenceBreak(a, km.End, em.At) {
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
func (r *reader) mentionAt(i int) (*links.EntityMention, *links.ColMention) {
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

func (r *reader) numericAlts(cm *links.ColMention) []links.ColAlt {
	var out []links.ColAlt
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
	r.usedCols = map[*links.ColMention]bool{}
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
func (r *reader) freeColumns() []*links.ColMention {
	var out []*links.ColMention
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
// ward of Intensive Care") may still be shown.
func (r *reader) namesItsValue(cm *links.ColMention) bool {
	if cm.End-cm.At != 1 || !links.Participle(r.a.Word(cm.At)) {
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
// ascending order of weight"): it orders the rows, it is not what they show.
func (r *reader) isOrderKey(cm *links.ColMention) bool {
	om := r.a.Order
	return om != nil && om.By >= 0 && cm.At >= om.By && cm.At < max(r.a.SpanOf(om.At, om.Phrase), om.By+1)
}

func (r *reader) isGroupMention(cm *links.ColMention) bool {
	for _, g := range r.a.Groups {
		if g.At == cm.At {
			return true
		}
	}
	return false
}

func (r *reader) isComparisonTarget(cm *links.ColMention) bool {
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
func inRelativeClause(a *links.Analysis, i int) bool {
	for k := i - 1; k >= 0 && k >= i-6; k-- {
		w := a.Toks[k].Low
		if a.Toks[k].Break != 0 {
			return false
		}
		if links.Negations[w] || (relativeWords[w] && haveWords[a.Word(k+1)]) {
			return true
		}
	}
	return false
}

// perRow undoes a grouping by a column that is unique in the only table
// measured ("the ratio of A to B for each product ID"): every group is one
// row, so the answer lists the rows' values rather than totals of one.
func (r *reader) perRow(p *Plan) bool {
	if len(p.Groups) == 0 || len(p.Tables) != 1 || len(p.Having) > 0 || p.CountOf != nil {
		return false
	}
	// Grouped by a unique column, and perhaps the row's label beside it.
	unique := false
	for _, g := range p.Groups {
		c, ok := sqlexpr.IsColumn(g.X)
		if !ok {
			return false
		}
		unique = unique || r.e.m.Unique(c.Table, c.Column)
	}
	if !unique {
		return false
	}
	grouped := func(x sqlexpr.Expr) bool {
		for _, g := range p.Groups {
			if SameExpr(r.e.m, g.X, x) {
				return true
			}
		}
		return false
	}
	strip := func(s Sel) (Sel, bool) {
		if _, plain := sqlexpr.IsColumn(s.X); grouped(s.X) || plain {
			return s, true // the row's own column: one value per group
		}
		if ag, ok := sqlexpr.AggOf(s.X); ok && ag.Arg != nil && !ag.Distinct && ag.Fn != "COUNT" {
			alias := s.Alias
			if _, rest, ok := strings.Cut(alias, "_"); ok && alias == aliasFor(ag.Fn, rest) {
				alias = rest
			}
			return Sel{X: ag.Arg, Alias: alias}, true
		}
		return s, false
	}
	selects := make([]Sel, len(p.Selects))
	for i, s := range p.Selects {
		var ok bool
		if selects[i], ok = strip(s); !ok {
			return false
		}
	}
	if p.Order != nil {
		o, ok := strip(*p.Order)
		if !ok {
			return false
		}
		p.Order = &o
	}
	p.Selects, p.Groups, p.Aggregated = selects, nil, false
	return true
}

// showsIdentity says whether a reading shows what tells its rows apart:
// a key, a label or a contact column. "Which cities…" over members shows
// an attribute many rows share, each value once.
func (r *reader) showsIdentity(p *Plan) bool {
	for _, s := range p.Selects {
		sc, ok := sqlexpr.IsColumn(s.X)
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
func (e *Builder) keyMention(a *links.Analysis) *links.ColMention {
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

// SentenceBreak says whether a sentence ends between tokens from and to.
func SentenceBreak(a *links.Analysis, from, to int) bool {
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
func (r *reader) rowOutputs(p *Plan) []*Plan {
	t := p.PerEntity
	if t == nil || t.Label == nil {
		return nil
	}
	label := sqlexpr.Col(t.Name, t.Label.Name)
	var figures []Sel
	for _, s := range p.Selects {
		if !SameExpr(r.e.m, s.X, label) {
			figures = append(figures, s)
		}
	}
	if len(figures) == len(p.Selects) || len(figures) == 0 {
		return nil
	}
	var out []*Plan
	alone := p.Clone()
	alone.Selects, alone.Weight = figures, p.Weight*0.3
	out = append(out, alone)
	if t.Key != nil && t.Key != t.Label {
		keyed := p.Clone()
		keyed.Selects = append([]Sel{{X: sqlexpr.Col(t.Name, t.Key.Name)}}, figures...)
		keyed.Weight = p.Weight * 0.3
		out = append(out, keyed)
	}
	return out
}

// eachValue reads two equalities of one column with different values as
// rows of what is shown that have related rows of each value: the shown
// columns grouped, the column IN both values, and both found. Only when
// the column is another table's than every shown column (a row of its
// own table holds one value).
func (e *Builder) eachValue(p *Plan) *Plan {
	var on sqlexpr.ColRef
	var vals []sqlexpr.Expr
	var rest []Cond
	for _, f := range p.Filters {
		b, ok := f.X.(sqlexpr.Binary)
		if c, isCol := sqlexpr.IsColumn(b.L); ok && b.Op == "=" && isCol && (len(vals) == 0 || SameExpr(e.m, c, on)) {
			if lit, isLit := b.R.(sqlexpr.Str); isLit {
				on = c
				vals = append(vals, lit)
				continue
			}
		}
		rest = append(rest, f)
	}
	if len(vals) != 2 || len(p.Selects) == 0 || p.Aggregated || len(p.Groups) > 0 || p.Order != nil {
		return nil
	}
	for _, s := range p.Selects {
		c, ok := sqlexpr.IsColumn(s.X)
		if !ok || strings.EqualFold(c.Table, on.Table) {
			return nil
		}
	}
	q := p.Clone()
	q.Filters = append(rest, Cond{X: sqlexpr.InList{X: on, Vals: vals}})
	q.Groups = nil
	// Grouped by each shown thing's key too: two members may share a name.
	keyed := map[string]bool{}
	for _, s := range p.Selects {
		c, _ := sqlexpr.IsColumn(s.X)
		if t := e.m.ByName[strings.ToLower(c.Table)]; t != nil && t.Key != nil && !keyed[t.Name] {
			keyed[t.Name] = true
			if k := sqlexpr.Col(t.Name, t.Key.Name); !slices.ContainsFunc(p.Selects, func(s Sel) bool { return SameExpr(e.m, s.X, k) }) {
				q.Groups = append(q.Groups, Sel{X: k})
			}
		}
	}
	q.Groups = append(q.Groups, p.Selects...)
	q.Having = append(q.Having, Cond{X: sqlexpr.Binary{L: sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: on}, Op: "=", R: sqlexpr.Num("2")}})
	q.Distinct, q.DistinctForJoins = false, false
	return q
}

// contradictionPenalty discounts a reading whose conditions no row can
// meet until it is read as two rows ("both", engine.go).
const contradictionPenalty = 0.01

// Contradicts says whether the conditions cannot hold together on any
// row: one column equal to (or in) sets of values with nothing in common,
// or bounds on one column that leave nothing between them.
func Contradicts(m *schema.Model, p *Plan) bool {
	// "customers who never ordered" joined to their orders: no related
	// row can both exist and not exist (the related rows have no other
	// condition than being related).
	for _, f := range p.Filters {
		if ex, ok := f.X.(sqlexpr.Exists); ok && ex.Not && len(ex.Tables) == 1 && len(ex.Sub.Where) == 1 && len(ex.Sub.From.Joins) == 0 && !sqlexpr.IsAnd(ex.Sub.Where[0]) && p.Tables[strings.ToLower(ex.Tables[0])] {
			return true
		}
	}
	r := columnRanges{allowed: map[string]map[string]bool{}, lower: map[string]bound{}, upper: map[string]bound{}}
	for _, f := range p.Filters {
		c, op, vals, ok := literalCondition(f.X)
		if ok && !r.add(strings.ToLower(c.Table+"."+c.Column), op, vals) {
			return true
		}
	}
	return r.empty()
}

// literalCondition reads a condition that compares a column with literals:
// column op value, or column IN (values).
func literalCondition(x sqlexpr.Expr) (c sqlexpr.ColRef, op string, vals []string, ok bool) {
	switch x := x.(type) {
	case sqlexpr.Binary:
		col, ok := sqlexpr.IsColumn(x.L)
		v, lit := literal(x.R)
		if !ok || !lit {
			return c, "", nil, false
		}
		return col, x.Op, []string{v}, true
	case sqlexpr.InList:
		col, ok := sqlexpr.IsColumn(x.X)
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
func literal(x sqlexpr.Expr) (string, bool) {
	switch l := x.(type) {
	case sqlexpr.Str:
		return strings.ToLower(string(l)), true
	case sqlexpr.Num:
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
