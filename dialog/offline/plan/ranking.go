package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
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
	x       sqlexpr.Expr
	alias   string
	tables  []string
	countOf *schema.Table
	phrase  string
	weight  float64
}

func (r *reader) entityAt(i int) *links.EntityMention {
	for _, em := range r.a.Entities {
		if em.At == i {
			return em
		}
	}
	return nil
}

func (r *reader) columnAt(i int) *links.ColMention {
	for _, cm := range r.a.Columns {
		if cm.At == i && cm.Clause == 0 {
			return cm
		}
	}
	return nil
}

// countRead counts the rows of t ("number of books").
func (r *reader) countRead(t *schema.Table, distinct bool, phrase string) aggRead {
	alias := "number_of_" + strings.ToLower(t.Name)
	if distinct && t.Key != nil {
		return aggRead{x: sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: sqlexpr.Col(t.Name, t.Key.Name)}, alias: alias, tables: []string{t.Name}, phrase: phrase, weight: 1}
	}
	return aggRead{x: sqlexpr.CountAll, alias: alias, tables: []string{t.Name}, countOf: t, phrase: phrase, weight: 1}
}

// countWords ask for how many: "total visit count", "and their counts"
// (countnouns.tsv).
var countWords = words.Set("countnoun")

// aggregateArticles may open an aggregate phrase: "top 3 depots by the
// total mileage", "their total fine" (articles.tsv).
var aggregateArticles = words.Set("leadarticle")

// aggregateAt reads an aggregate phrase starting at token i: "number of
// [distinct] X", "total/average/maximum M", "the count of X", a bare
// measure M (a total, or its average), a bare table noun ("most
// shops": a count). It returns the readings and the token after
// the phrase; none when i starts no aggregate.
func (r *reader) aggregateAt(i int) ([]aggRead, int) {
	a := r.a
	for aggregateArticles[a.Word(i)] {
		i++
	}
	start := i
	fn, i, counts := aggregateWordAt(a, i)
	if counts {
		return nil, i // "their counts": the caller knows what is counted
	}
	for a.Word(i) == "the" {
		i++
	}
	distinct := false
	if read.KindWords[a.Word(i)] && fn == "COUNT" {
		distinct = true
		i++
	}
	// "the number of unread promotional messages": values qualify
	// the rows counted (they are conditions of their own).
	if fn == "COUNT" {
		k := i
		for k < len(a.Toks) && r.entityAt(k) == nil && r.inValueMention(k) {
			k++
		}
		if k > i && r.entityAt(k) != nil {
			i = k
		}
	}
	phraseOf := func(end int) string { return a.Phrase(start, end) }
	if em := r.entityAt(i); em != nil && (fn == "" || fn == "COUNT") {
		end := i + len(strings.Fields(em.Phrase))
		return []aggRead{r.countRead(em.Tables[0], distinct, phraseOf(end))}, end
	}
	// "average member age", "total loan fee": a table word may
	// qualify the measure, or be part of its column's name (tot_drug_amt).
	var qualifier *links.EntityMention
	if em := r.entityAt(i); em != nil && fn != "" {
		qualifier = em
		i += len(strings.Fields(em.Phrase))
		if countWords[a.Word(i)] {
			// "total transaction count": how many of them.
			return []aggRead{r.countRead(em.Tables[0], false, phraseOf(i+1))}, i + 1
		}
	}
	cm := r.columnAt(i)
	if cm == nil {
		return nil, start
	}
	alts := cm.Alts
	if qualifier != nil {
		alts = r.qualifiedAlts(qualifier, cm)
	}
	out := r.aggregatesOver(fn, distinct, alts, phraseOf(cm.End))
	if len(out) == 0 {
		return nil, start
	}
	r.usedCols[cm] = true
	return out, cm.End
}

// countOfNouns before "of" ask for a count: "number of trips", "no. of
// drivers" (countnouns.tsv).
var countOfNouns = words.Set("countof")

// aggregateWordAt reads the words that say which aggregate ("number of",
// "count of", an aggregate word such as "average", "total number of"); fn
// is "" when none does. counts: a bare "count(s)", whose thing the caller
// knows.
func aggregateWordAt(a *links.Analysis, i int) (fn string, next int, counts bool) {
	switch {
	case countOfNouns[a.Word(i)] && a.Word(i+1) == "of":
		return "COUNT", i + 2, false
	case countWords[a.Word(i)]:
		return "", i + 1, true
	case read.AggWords[a.Word(i)] != "":
		fn = read.AggWords[a.Word(i)]
		i++
		if a.Word(i) == "of" {
			i++
		}
		if fn == "SUM" && a.Word(i) == "number" && a.Word(i+1) == "of" {
			fn, i = "COUNT", i+2 // "total number of"
		}
	}
	return fn, i, false
}

// aggregatesOver reads an aggregate of each column alternative: counts of
// distinct values (or the sum of a stored count: "number of citations" may
// be citation_num), the aggregate named, or for a bare measure its sum and
// (less likely) its average. Only numbers that are no keys are added up.
func (r *reader) aggregatesOver(fn string, distinct bool, alts []links.ColAlt, phrase string) []aggRead {
	var out []aggRead
	for _, al := range alts {
		c := r.e.m.Column(al.Table, al.Column)
		if c == nil && !al.Computed() {
			continue
		}
		x := r.exprOf(al)
		t := r.e.m.ByName[strings.ToLower(al.Table)]
		numeric := al.Computed() || c.Kind() == warehouse.KindNumber && t != nil && !r.e.m.IsKeyish(t.Def, c)
		if al.Computed() {
			c = &warehouse.Column{Name: al.Column}
		}
		read := func(x sqlexpr.Expr, alias string, weight float64) aggRead {
			return aggRead{x: x, alias: alias, tables: []string{al.Table}, phrase: phrase, weight: weight}
		}
		countDistinct := sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: x}
		switch {
		case fn == "COUNT" && distinct:
			out = append(out, read(countDistinct, "number_of_"+strings.ToLower(al.Column), al.Weight))
		case fn == "COUNT":
			if n := strings.ToLower(c.Name); numeric && (strings.Contains(n, "num") || strings.HasPrefix(n, "total")) {
				out = append(out, read(sqlexpr.AggOver("SUM", x), aliasFor("SUM", al.Column), al.Weight))
			}
			out = append(out, read(countDistinct, "number_of_"+strings.ToLower(al.Column), al.Weight*0.6))
		case !numeric:
		case fn != "":
			out = append(out, read(sqlexpr.AggOver(fn, x), aliasFor(fn, al.Column), al.Weight))
		default:
			out = append(out, read(sqlexpr.AggOver("SUM", x), aliasFor("SUM", al.Column), al.Weight*0.7),
				read(sqlexpr.AggOver("AVG", x), aliasFor("AVG", al.Column), al.Weight*0.3))
		}
	}
	return out
}

// groupable says whether a column can name groups: text or a few-valued
// code, not a key or a free-form measure.
func (r *reader) groupable(al links.ColAlt) bool {
	c := r.e.m.Column(al.Table, al.Column)
	t := r.e.m.ByName[strings.ToLower(al.Table)]
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
		pr := r.e.m.Profile(al.Table, al.Column)
		return pr != nil && pr.Distinct > 0 && pr.Distinct <= 50
	}
	return false
}

// whichWords ask which things: "which depot", "what vehicles"
// (questionwords.tsv).
var whichWords = words.Set("whichwhat")

// whichBefore says whether "which" or "what" comes right before token k.
func whichBefore(a *links.Analysis, k int) bool {
	return whichWords[a.Word(k-1)]
}

// qualifiedStart is where a column mention starts counting the name of
// its own table said right before it ("room type code" → the code of
// rooms): the qualifier is part of the column's name.
func (r *reader) qualifiedStart(cm *links.ColMention) int {
	// "which canal crosses the most towns": a verb after the table's
	// noun is what it does, not a column qualified by it.
	if r.e.words != nil && r.e.words.MostlyVerb(r.a.Word(cm.End-1)) {
		return cm.At
	}
	for _, em := range r.a.Entities {
		if r.a.SpanOf(em.At, em.Phrase) != cm.At {
			continue
		}
		for _, t := range em.Tables {
			for _, al := range cm.Alts {
				if strings.EqualFold(al.Table, t.Name) {
					return em.At
				}
			}
		}
	}
	return cm.At
}

// groupRanking builds a per-group ranking when the ranked things are a
// column's values. It returns nil when the question ranks rows or a
// table's entities (superlative() reads those).
func (r *reader) groupRanking() []*element {
	a := r.a
	s := a.Sup
	if s == nil {
		return nil
	}
	g, common := r.rankedGroup(s)
	if g == nil {
		return nil
	}
	var groupAlts []links.ColAlt
	for _, al := range g.Alts {
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
		from := s.NounAt
		if from == g.At {
			from = g.End
		}
		aggs, _ = r.aggregateAt(from)
	}
	if len(aggs) == 0 {
		if !common {
			return nil
		}
		// "most common status": how many rows carry each value, in the
		// grouped column's own table.
		aggs = append(aggs, aggRead{x: sqlexpr.CountAll, alias: "count", phrase: a.Phrase(s.At, g.End), weight: 1})
	}
	r.usedCols[g] = true
	rankPhrase := a.Phrase(s.At, g.End)
	measure := r.groupRankMeasure(aggs)
	output := r.rankOutput(g, groupAlts, aggs)
	r.listedOutputs(output, groupAlts)
	direction := &element{name: "order"}
	direction.add(1, func(p *Plan) {
		p.Desc = s.Desc
		p.Limit = s.Limit
		p.Phrases[keyOrder] = rankPhrase
		p.Phrases[keyLimit] = rankPhrase
	})
	return []*element{measure, output, direction}
}

// mostLeast may stand between a ranking's count and its grouped column:
// "top 3 most common genres" (superlatives.tsv).
var mostLeast = words.Set("mostleast")

// rankedGroup finds the grouped column of a ranking: right after "top N
// [most common]", or before "has/have the most" ("which road has the most
// depots"); common when the ranking counts rows per value ("the most
// common genres").
func (r *reader) rankedGroup(s *links.SuperMention) (*links.ColMention, bool) {
	a := r.a
	j := s.At + 1
	if s.ExplicitLimit {
		j++
	}
	common := false
	for (mostLeast[a.Word(j)] || read.CommonWords[a.Word(j)]) && r.columnAt(j) == nil {
		if read.CommonWords[a.Word(j)] {
			common = true
		}
		j++
	}
	var g *links.ColMention
	if em := r.entityAt(j); em != nil && r.columnAt(j+len(strings.Fields(em.Phrase))) != nil && a.Toks[a.SpanOf(em.At, em.Phrase)-1].Break == 0 {
		j += len(strings.Fields(em.Phrase)) // "top 3 book genres", not "top 2 shops (receiver type 1)"
	}
	if cm := r.columnAt(j); cm != nil && read.CommonWords[a.Word(j)] {
		common = true // "common genres" linked as one phrase
	}
	if cm := r.columnAt(j); cm != nil && (s.NounAt > cm.At || common) {
		g = cm
		if r.entityAt(j) != nil {
			g = nil
		}
	}
	if g == nil && countSuperlatives[s.Phrase] {
		// Only the question's subject: "which street has…", "which
		// format is used by…" (one word of its own between at most), not
		// a verb ("which canal crosses the most towns").
		for _, cm := range a.Columns {
			if cm.Clause == 0 && cm.At < s.At && contentWords(a, cm.End, s.At) <= 1 && whichBefore(a, r.qualifiedStart(cm)) {
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
		measure.add(ag.weight, func(p *Plan) {
			p.Order = &Sel{X: ag.x}
			p.Aggregated = true
			p.CountOf = ag.countOf
			p.use(ag.tables...)
			for _, t := range ag.tables {
				r.measureTables[strings.ToLower(t)] = true
			}
			p.Phrases[keyMeasure] = ag.phrase
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
func (r *reader) rankOutput(g *links.ColMention, groupAlts []links.ColAlt, aggs []aggRead) *element {
	withCount := r.asksForTheMeasure()
	output := &element{name: "output"}
	for _, al := range groupAlts {
		w := al.Weight
		if r.measureTables[strings.ToLower(al.Table)] || r.namedTable(al.Table) {
			w *= 1.5
		}
		x := r.exprOf(al)
		group := func(p *Plan) {
			p.Groups = append(p.Groups, Sel{X: x})
			p.Selects = append(p.Selects, Sel{X: x})
			p.use(al.Table)
			p.Phrases[keyOutput] = g.Phrase
		}
		plainW, countW := w, w*0.15
		if withCount {
			plainW, countW = w*0.3, w*1.5
		}
		output.add(plainW, group)
		output.add(countW, func(p *Plan) {
			group(p)
			if p.Order != nil {
				p.Selects = append(p.Selects, Sel{X: p.Order.X, Alias: r.aliasOfOrder(aggs, p.Order.X)})
			}
		})
	}
	return output
}

// listedOutputs adds the reading that shows exactly what a "return …"
// list names, in its order, when one of its items is a grouping column:
// aggregates as listed (the ranking's own when it is the one named),
// other columns grouped too.
func (r *reader) listedOutputs(output *element, groupAlts []links.ColAlt) {
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
		w := al.Weight
		if r.namedTable(al.Table) {
			w *= 1.5
		}
		output.add(3*w, func(p *Plan) {
			for _, it := range list {
				switch {
				case it.sameColumn(al):
					x := r.exprOf(al)
					p.Groups = append(p.Groups, Sel{X: x})
					p.Selects = append(p.Selects, Sel{X: x})
					p.use(al.Table)
				case len(it.aggs) > 0:
					ag := it.aggs[0]
					for _, o := range it.aggs {
						if p.Order != nil && SameExpr(r.e.m, o.x, p.Order.X) {
							ag = o
						}
					}
					if ag.x == sqlexpr.Expr(sqlexpr.CountAll) && p.CountOf != nil && ag.countOf != p.CountOf {
						// Two counts of different rows: count each by its key.
						if ag.countOf != nil && ag.countOf.Key != nil {
							ag.x = sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: sqlexpr.Col(ag.countOf.Name, ag.countOf.Key.Name)}
						}
					}
					p.Selects = append(p.Selects, Sel{X: ag.x, Alias: ag.alias})
					p.use(ag.tables...)
				case it.col != nil && len(it.col.Alts) > 0:
					c := it.col.Alts[0]
					x := sqlexpr.Col(c.Table, c.Column)
					p.Groups = append(p.Groups, Sel{X: x})
					p.Selects = append(p.Selects, Sel{X: x})
					p.use(c.Table)
				case it.entity != nil && it.entity.Tables[0].Label != nil:
					t := it.entity.Tables[0]
					x := sqlexpr.Col(t.Name, t.Label.Name)
					p.Groups = append(p.Groups, Sel{X: x})
					p.Selects = append(p.Selects, Sel{X: x})
					p.use(t.Name)
				}
			}
			p.Phrases[keyOutput] = strings.Join(phrases, ", ")
		})
	}
}

func (r *reader) aliasOfOrder(aggs []aggRead, x sqlexpr.Expr) string {
	for _, ag := range aggs {
		if SameExpr(r.e.m, ag.x, x) {
			return ag.alias
		}
	}
	return ""
}

// measureListVerbs ask for what follows them to be shown, the ranking's
// number among them: "return the genre and the count" (requests.tsv).
var measureListVerbs = words.Set("showverb")

// asksForTheMeasure says whether the question wants the ranking's numbers
// shown too: "and their counts", "and how many", "with the number of",
// "return the status and the count".
func (r *reader) asksForTheMeasure() bool {
	a := r.a
	for i := range a.Toks {
		switch {
		case a.Word(i) == "counts" || a.Word(i) == "count" && i > 0,
			a.Seq(i, "and", "how", "many"), a.Seq(i, "and", "how", "much"),
			a.Seq(i, "and", "the", "number"), a.Seq(i, "and", "number"), a.Seq(i, "with", "the", "number"),
			a.Seq(i, "along", "with"):
			return true
		case measureListVerbs[a.Word(i)]:
			for k := i + 1; k < len(a.Toks) && k < i+12; k++ {
				if _, ok := read.AggWords[a.Word(k)]; ok || a.Seq(k, "number", "of") || a.Word(k) == "count" {
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
func (r *reader) qualifiedAlts(q *links.EntityMention, cm *links.ColMention) []links.ColAlt {
	var out []links.ColAlt
	seen := map[string]bool{}
	word := links.SingularOf(strings.ToLower(strings.Fields(q.Phrase)[0]))
	top := 1.0
	for _, al := range cm.Alts {
		top = max(top, al.Weight)
	}
	for _, h := range r.e.m.Cat.SearchColumns(q.Phrase+" "+cm.Phrase, 8) {
		if strings.Contains(strings.ToLower(h.Column), word) {
			out = append(out, links.ColAlt{Table: h.Table, Column: h.Column, Weight: 1.2 * top})
			seen[strings.ToLower(h.Table+"."+h.Column)] = true
		}
	}
	for _, al := range cm.Alts {
		if !seen[strings.ToLower(al.Table+"."+al.Column)] {
			out = append(out, al)
		}
	}
	return out
}

// inValueMention says whether token k belongs to a value mention.
func (r *reader) inValueMention(k int) bool {
	for _, vm := range r.a.Values {
		if vm.At <= k && k < r.a.SpanOf(vm.At, vm.Phrase) {
			return true
		}
	}
	return false
}

// contentWords counts the words in [from, to) that are no function words.
func contentWords(a *links.Analysis, from, to int) int {
	n := 0
	for k := max(from, 0); k < to && k < len(a.Toks); k++ {
		if !links.IsFunctionWord(a.Toks[k]) {
			n++
		}
	}
	return n
}
