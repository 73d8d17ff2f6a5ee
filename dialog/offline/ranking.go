package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Per-group rankings: "top 2 genres by number of books", "which
// road has the most depots", "the 3 most common loan
// states", "top 5 regions by total mileage". The ranked things are the
// values of a column, so the reading groups by it and orders the groups
// by an aggregate: a count of the rows named ("number of books", "most
// shops", "most common"), or a total, average or extreme of a
// measure ("by total amount", "by average height"; a bare measure is a
// total, its average the other option).

// aggRead is one way to compute an aggregate phrase.
type aggRead struct {
	x       expr
	alias   string
	tables  []string
	countOf *schema.Table
	phrase  string
	weight  float64
}

// aggWords name an aggregate function before a measure.
var aggWords = words.Map("aggregate")

// commonWords ask how often a value occurs: "most common status".
var commonWords = words.Set("common")

func (r *reader) entityAt(i int) *entityMention {
	for _, em := range r.a.entities {
		if em.at == i {
			return em
		}
	}
	return nil
}

func (r *reader) columnAt(i int) *colMention {
	for _, cm := range r.a.columns {
		if cm.at == i && cm.clause == 0 {
			return cm
		}
	}
	return nil
}

// countRead counts the rows of t ("number of books").
func (r *reader) countRead(t *schema.Table, distinct bool, phrase string) aggRead {
	alias := "number_of_" + strings.ToLower(t.Name)
	if distinct && t.Key != nil {
		return aggRead{x: aggExpr{Fn: "COUNT", Distinct: true, Arg: col(t.Name, t.Key.Name)}, alias: alias, tables: []string{t.Name}, phrase: phrase, weight: 1}
	}
	return aggRead{x: countAll, alias: alias, tables: []string{t.Name}, countOf: t, phrase: phrase, weight: 1}
}

// aggregateAt reads an aggregate phrase starting at token i: "number of
// [distinct] X", "total/average/maximum M", "the count of X", a bare
// measure M (a total, or its average), a bare table noun ("most
// shops": a count). It returns the readings and the token after
// the phrase; none when i starts no aggregate.
func (r *reader) aggregateAt(i int) ([]aggRead, int) {
	a := r.a
	for a.word(i) == "the" || a.word(i) == "a" || a.word(i) == "their" {
		i++
	}
	start := i
	fn, i, counts := a.aggregateWordAt(i)
	if counts {
		return nil, i // "their counts": the caller knows what is counted
	}
	for a.word(i) == "the" {
		i++
	}
	distinct := false
	if kindWords[a.word(i)] && fn == "COUNT" {
		distinct = true
		i++
	}
	// "the number of unread promotional messages": values qualify
	// the rows counted (they are conditions of their own).
	if fn == "COUNT" {
		k := i
		for k < len(a.toks) && r.entityAt(k) == nil && r.inValueMention(k) {
			k++
		}
		if k > i && r.entityAt(k) != nil {
			i = k
		}
	}
	phraseOf := func(end int) string { return a.phrase(start, end) }
	if em := r.entityAt(i); em != nil && (fn == "" || fn == "COUNT") {
		end := i + len(strings.Fields(em.phrase))
		return []aggRead{r.countRead(em.tables[0], distinct, phraseOf(end))}, end
	}
	// "average member age", "total loan fee": a table word may
	// qualify the measure, or be part of its column's name (tot_drug_amt).
	var qualifier *entityMention
	if em := r.entityAt(i); em != nil && fn != "" {
		qualifier = em
		i += len(strings.Fields(em.phrase))
		if a.word(i) == "count" || a.word(i) == "counts" {
			// "total transaction count": how many of them.
			return []aggRead{r.countRead(em.tables[0], false, phraseOf(i+1))}, i + 1
		}
	}
	cm := r.columnAt(i)
	if cm == nil {
		return nil, start
	}
	alts := cm.alts
	if qualifier != nil {
		alts = r.qualifiedAlts(qualifier, cm)
	}
	out := r.aggregatesOver(fn, distinct, alts, phraseOf(cm.end))
	if len(out) == 0 {
		return nil, start
	}
	r.usedCols[cm] = true
	return out, cm.end
}

// aggregateWordAt reads the words that say which aggregate ("number of",
// "count of", an aggregate word such as "average", "total number of"); fn
// is "" when none does. counts: a bare "count(s)", whose thing the caller
// knows.
func (a *analysis) aggregateWordAt(i int) (fn string, next int, counts bool) {
	switch {
	case (a.word(i) == "number" || a.word(i) == "count" || a.word(i) == "no") && a.word(i+1) == "of":
		return "COUNT", i + 2, false
	case a.word(i) == "counts" || a.word(i) == "count":
		return "", i + 1, true
	case aggWords[a.word(i)] != "":
		fn = aggWords[a.word(i)]
		i++
		if a.word(i) == "of" {
			i++
		}
		if fn == "SUM" && a.word(i) == "number" && a.word(i+1) == "of" {
			fn, i = "COUNT", i+2 // "total number of"
		}
	}
	return fn, i, false
}

// aggregatesOver reads an aggregate of each column alternative: counts of
// distinct values (or the sum of a stored count: "number of citations" may
// be citation_num), the aggregate named, or for a bare measure its sum and
// (less likely) its average. Only numbers that are no keys are added up.
func (r *reader) aggregatesOver(fn string, distinct bool, alts []colAlt, phrase string) []aggRead {
	var out []aggRead
	for _, al := range alts {
		c := r.e.m.Column(al.table, al.column)
		if c == nil && !al.computed() {
			continue
		}
		x := r.exprOf(al)
		t := r.e.m.ByName[strings.ToLower(al.table)]
		numeric := al.computed() || c.Kind() == warehouse.KindNumber && t != nil && !r.e.m.IsKeyish(t.Def, c)
		if al.computed() {
			c = &warehouse.Column{Name: al.column}
		}
		read := func(x expr, alias string, weight float64) aggRead {
			return aggRead{x: x, alias: alias, tables: []string{al.table}, phrase: phrase, weight: weight}
		}
		countDistinct := aggExpr{Fn: "COUNT", Distinct: true, Arg: x}
		switch {
		case fn == "COUNT" && distinct:
			out = append(out, read(countDistinct, "number_of_"+strings.ToLower(al.column), al.weight))
		case fn == "COUNT":
			if n := strings.ToLower(c.Name); numeric && (strings.Contains(n, "num") || strings.HasPrefix(n, "total")) {
				out = append(out, read(aggOver("SUM", x), aliasFor("SUM", al.column), al.weight))
			}
			out = append(out, read(countDistinct, "number_of_"+strings.ToLower(al.column), al.weight*0.6))
		case !numeric:
		case fn != "":
			out = append(out, read(aggOver(fn, x), aliasFor(fn, al.column), al.weight))
		default:
			out = append(out, read(aggOver("SUM", x), aliasFor("SUM", al.column), al.weight*0.7),
				read(aggOver("AVG", x), aliasFor("AVG", al.column), al.weight*0.3))
		}
	}
	return out
}

// groupable says whether a column can name groups: text or a few-valued
// code, not a key or a free-form measure.
func (r *reader) groupable(al colAlt) bool {
	c := r.e.m.Column(al.table, al.column)
	t := r.e.m.ByName[strings.ToLower(al.table)]
	// A label names its own rows, unless it refers to another table's
	// (beds labelled by their ward's code): its values are groups then.
	ref := c != nil && t != nil && r.e.m.JoinCols[strings.ToLower(t.Name+"."+c.Name)]
	if c == nil || t == nil || r.e.m.IsKeyish(t.Def, c) || c == t.Label && t.Key != nil && !ref {
		return false
	}
	switch c.Kind() {
	case warehouse.KindText, warehouse.KindBool:
		return true
	case warehouse.KindNumber:
		pr := r.e.m.Profile(al.table, al.column)
		return pr != nil && pr.Distinct > 0 && pr.Distinct <= 50
	}
	return false
}

// whichBefore says whether "which" or "what" comes right before token k.
func whichBefore(a *analysis, k int) bool {
	return a.word(k-1) == "which" || a.word(k-1) == "what"
}

// qualifiedStart is where a column mention starts counting the name of
// its own table said right before it ("room type code" → the code of
// rooms): the qualifier is part of the column's name.
func (r *reader) qualifiedStart(cm *colMention) int {
	// "which canal crosses the most towns": a verb after the table's
	// noun is what it does, not a column qualified by it.
	if r.e.words != nil && r.e.words.MostlyVerb(r.a.word(cm.end-1)) {
		return cm.at
	}
	for _, em := range r.a.entities {
		if r.a.spanOf(em.at, em.phrase) != cm.at {
			continue
		}
		for _, t := range em.tables {
			for _, al := range cm.alts {
				if strings.EqualFold(al.table, t.Name) {
					return em.at
				}
			}
		}
	}
	return cm.at
}

// groupRanking builds a per-group ranking when the ranked things are a
// column's values. It returns nil when the question ranks rows or a
// table's entities (superlative() reads those).
func (r *reader) groupRanking() []*element {
	a := r.a
	s := a.sup
	if s == nil {
		return nil
	}
	g, common := r.rankedGroup(s)
	if g == nil {
		return nil
	}
	var groupAlts []colAlt
	for _, al := range g.alts {
		if r.groupable(al) {
			groupAlts = append(groupAlts, al)
		}
	}
	if len(groupAlts) == 0 {
		return nil
	}
	// What the groups are ranked by.
	var aggs []aggRead
	if !common {
		from := s.nounAt
		if from == g.at {
			from = g.end
		}
		aggs, _ = r.aggregateAt(from)
	}
	if len(aggs) == 0 {
		if !common {
			return nil
		}
		// "most common status": how many rows carry each value, in the
		// grouped column's own table.
		aggs = append(aggs, aggRead{x: countAll, alias: "count", phrase: a.phrase(s.at, g.end), weight: 1})
	}
	r.usedCols[g] = true
	rankPhrase := a.phrase(s.at, g.end)
	measure := r.groupRankMeasure(aggs)
	output := r.rankOutput(g, groupAlts, aggs)
	r.listedOutputs(output, groupAlts)
	direction := &element{name: "order"}
	direction.add(1, func(p *plan) {
		p.desc = s.desc
		p.limit = s.limit
		p.phrases[keyOrder] = rankPhrase
		p.phrases[keyLimit] = rankPhrase
	})
	return []*element{measure, output, direction}
}

// rankedGroup finds the grouped column of a ranking: right after "top N
// [most common]", or before "has/have the most" ("which road has the most
// depots"); common when the ranking counts rows per value ("the most
// common genres").
func (r *reader) rankedGroup(s *superMention) (*colMention, bool) {
	a := r.a
	j := s.at + 1
	if s.explicitLimit {
		j++
	}
	common := false
	for (a.word(j) == "most" || a.word(j) == "least" || commonWords[a.word(j)]) && r.columnAt(j) == nil {
		if commonWords[a.word(j)] {
			common = true
		}
		j++
	}
	var g *colMention
	if em := r.entityAt(j); em != nil && r.columnAt(j+len(strings.Fields(em.phrase))) != nil && a.toks[a.spanOf(em.at, em.phrase)-1].Break == 0 {
		j += len(strings.Fields(em.phrase)) // "top 3 book genres", not "top 2 shops (receiver type 1)"
	}
	if cm := r.columnAt(j); cm != nil && commonWords[a.word(j)] {
		common = true // "common genres" linked as one phrase
	}
	if cm := r.columnAt(j); cm != nil && (s.nounAt > cm.at || common) {
		g = cm
		if r.entityAt(j) != nil {
			g = nil
		}
	}
	if g == nil && countSuperlatives[s.phrase] {
		// Only the question's subject: "which street has…", "which
		// format is used by…" (one word of its own between at most), not
		// a verb ("which canal crosses the most towns").
		for _, cm := range a.columns {
			if cm.clause == 0 && cm.at < s.at && a.contentWords(cm.end, s.at) <= 1 && whichBefore(a, r.qualifiedStart(cm)) {
				g = cm
			}
		}
	}
	return g, common
}

// groupRankMeasure orders the groups by each aggregate read.
func (r *reader) groupRankMeasure(aggs []aggRead) *element {
	measure := &element{name: "rank"}
	for _, ag := range aggs {
		measure.add(ag.weight, func(p *plan) {
			p.order = &sel{x: ag.x}
			p.aggregated = true
			p.countOf = ag.countOf
			p.use(ag.tables...)
			for _, t := range ag.tables {
				r.measureTables[strings.ToLower(t)] = true
			}
			p.phrases[keyMeasure] = ag.phrase
		})
	}
	for _, ag := range aggs {
		for _, t := range ag.tables {
			r.measureTables[strings.ToLower(t)] = true
		}
	}
	return measure
}

// rankOutput shows the grouped column, with the measure beside it when
// the question asks for it, likelier for a column of the measured table
// or a table the question names.
func (r *reader) rankOutput(g *colMention, groupAlts []colAlt, aggs []aggRead) *element {
	withCount := r.asksForTheMeasure()
	output := &element{name: "output"}
	for _, al := range groupAlts {
		w := al.weight
		if r.measureTables[strings.ToLower(al.table)] || r.namedTable(al.table) {
			w *= 1.5
		}
		x := r.exprOf(al)
		group := func(p *plan) {
			p.groups = append(p.groups, sel{x: x})
			p.selects = append(p.selects, sel{x: x})
			p.use(al.table)
			p.phrases[keyOutput] = g.phrase
		}
		plainW, countW := w, w*0.15
		if withCount {
			plainW, countW = w*0.3, w*1.5
		}
		output.add(plainW, group)
		output.add(countW, func(p *plan) {
			group(p)
			if p.order != nil {
				p.selects = append(p.selects, sel{x: p.order.x, alias: r.aliasOfOrder(aggs, p.order.x)})
			}
		})
	}
	return output
}

// listedOutputs adds the reading that shows exactly what a "return …"
// list names, in its order, when one of its items is a grouping column:
// aggregates as listed (the ranking's own when it is the one named),
// other columns grouped too.
func (r *reader) listedOutputs(output *element, groupAlts []colAlt) {
	list := r.returnList()
	if len(list) < 2 {
		return
	}
	for _, al := range groupAlts {
		found := false
		for _, it := range list {
			found = found || it.sameColumn(al)
		}
		if !found {
			continue
		}
		var phrases []string
		for _, it := range list {
			phrases = append(phrases, it.phrase)
			if it.col != nil {
				r.usedCols[it.col] = true
			}
		}
		w := al.weight
		if r.namedTable(al.table) {
			w *= 1.5
		}
		output.add(3*w, func(p *plan) {
			for _, it := range list {
				switch {
				case it.sameColumn(al):
					x := r.exprOf(al)
					p.groups = append(p.groups, sel{x: x})
					p.selects = append(p.selects, sel{x: x})
					p.use(al.table)
				case len(it.aggs) > 0:
					ag := it.aggs[0]
					for _, o := range it.aggs {
						if p.order != nil && sameExpr(r.e.m, o.x, p.order.x) {
							ag = o
						}
					}
					if ag.x == expr(countAll) && p.countOf != nil && ag.countOf != p.countOf {
						// Two counts of different rows: count each by its key.
						if ag.countOf != nil && ag.countOf.Key != nil {
							ag.x = aggExpr{Fn: "COUNT", Distinct: true, Arg: col(ag.countOf.Name, ag.countOf.Key.Name)}
						}
					}
					p.selects = append(p.selects, sel{x: ag.x, alias: ag.alias})
					p.use(ag.tables...)
				case it.col != nil && len(it.col.alts) > 0:
					c := it.col.alts[0]
					x := col(c.table, c.column)
					p.groups = append(p.groups, sel{x: x})
					p.selects = append(p.selects, sel{x: x})
					p.use(c.table)
				case it.entity != nil && it.entity.tables[0].Label != nil:
					t := it.entity.tables[0]
					x := col(t.Name, t.Label.Name)
					p.groups = append(p.groups, sel{x: x})
					p.selects = append(p.selects, sel{x: x})
					p.use(t.Name)
				}
			}
			p.phrases[keyOutput] = strings.Join(phrases, ", ")
		})
	}
}

func (r *reader) aliasOfOrder(aggs []aggRead, x expr) string {
	for _, ag := range aggs {
		if sameExpr(r.e.m, ag.x, x) {
			return ag.alias
		}
	}
	return ""
}

// asksForTheMeasure says whether the question wants the ranking's numbers
// shown too: "and their counts", "and how many", "with the number of",
// "return the status and the count".
func (r *reader) asksForTheMeasure() bool {
	a := r.a
	for i := range a.toks {
		switch {
		case a.word(i) == "counts" || a.word(i) == "count" && i > 0,
			a.seq(i, "and", "how", "many"), a.seq(i, "and", "how", "much"),
			a.seq(i, "and", "the", "number"), a.seq(i, "and", "number"), a.seq(i, "with", "the", "number"),
			a.seq(i, "along", "with"):
			return true
		case a.word(i) == "return" || a.word(i) == "show" || a.word(i) == "include":
			for k := i + 1; k < len(a.toks) && k < i+12; k++ {
				if _, ok := aggWords[a.word(k)]; ok || a.seq(k, "number", "of") || a.word(k) == "count" {
					return true
				}
			}
		}
	}
	return false
}

// qualifiedAlts re-reads a column phrase with the table word before it:
// columns whose own name holds the word come first ("drug amount" is
// tot_drug_amt before drugs.dos_amt), then the phrase's own columns.
func (r *reader) qualifiedAlts(q *entityMention, cm *colMention) []colAlt {
	var out []colAlt
	seen := map[string]bool{}
	word := singularOf(strings.ToLower(strings.Fields(q.phrase)[0]))
	top := 1.0
	for _, al := range cm.alts {
		top = max(top, al.weight)
	}
	for _, h := range r.e.m.Cat.SearchColumns(q.phrase+" "+cm.phrase, 8) {
		if strings.Contains(strings.ToLower(h.Column), word) {
			out = append(out, colAlt{table: h.Table, column: h.Column, weight: 1.2 * top})
			seen[strings.ToLower(h.Table+"."+h.Column)] = true
		}
	}
	for _, al := range cm.alts {
		if !seen[strings.ToLower(al.table+"."+al.column)] {
			out = append(out, al)
		}
	}
	return out
}

// inValueMention says whether token k belongs to a value mention.
func (r *reader) inValueMention(k int) bool {
	for _, vm := range r.a.values {
		if vm.at <= k && k < r.a.spanOf(vm.at, vm.phrase) {
			return true
		}
	}
	return false
}

// contentWords counts the words in [from, to) that are no function words.
func (a *analysis) contentWords(from, to int) int {
	n := 0
	for k := max(from, 0); k < to && k < len(a.toks); k++ {
		if !isFunctionWord(a.toks[k]) {
			n++
		}
	}
	return n
}
