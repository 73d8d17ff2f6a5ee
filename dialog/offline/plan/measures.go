package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Counts and aggregates: "how many X", "total/average X [per Y]".

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

// measureAlias names a shown aggregate of one column after it
// ("total_net_amount"), so its header reads as the measure even when the
// plan later rewrites the aggregate (a split across detail rows); "" for
// anything else.
func measureAlias(x sqlexpr.Expr) string {
	a, ok := x.(sqlexpr.Agg)
	if !ok || a.Distinct {
		return ""
	}
	c, ok := a.Arg.(sqlexpr.ColRef)
	if !ok {
		return ""
	}
	return aliasFor(a.Fn, c.Column)
}

// count builds "how many X".
func (r *reader) count() []*element {
	a := r.a
	if a.CountKinds {
		if els := r.countKinds(); els != nil {
			return els
		}
	}
	el := &element{name: "measure"}
	phrase := ""
	var target *schema.Table
	if a.CountAt >= 0 {
		em, cm := r.mentionAt(a.CountAt + 2)
		if em == nil && cm == nil {
			em, cm = r.mentionAt(a.CountAt + 1)
		}
		switch {
		case em != nil:
			target, phrase = em.Tables[0], em.Phrase
		case cm != nil && len(r.numericAlts(cm)) > 0:
			// "how many beds does the north ward have": the number is a column.
			r.usedCols[cm] = true
			for _, al := range r.numericAlts(cm) {
				w := al.Weight * r.boost(al.Table, al.Column)
				r.measureTables[strings.ToLower(al.Table)] = true
				if t := r.e.m.ByName[strings.ToLower(al.Table)]; !al.Computed() && t != nil && r.e.m.Unique(al.Table, al.Column) {
					// "how many meals" of meal_number: a number of its own in
					// every row names the rows, it is no quantity.
					el.add(w*1.2, func(p *Plan) {
						p.Selects = append(p.Selects, Sel{X: sqlexpr.CountAll, Alias: "count"})
						p.Aggregated = true
						p.CountOf = t
						p.use(t.Name)
						p.Phrases[keyMeasure] = cm.Phrase
						p.Covered = append(p.Covered, cm.Phrase)
					})
				}
				el.add(w*0.6, func(p *Plan) {
					p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
					p.use(al.Table)
					p.Phrases[keyOutput] = cm.Phrase
				})
				el.add(w*0.4, func(p *Plan) {
					p.Selects = append(p.Selects, Sel{X: sqlexpr.AggOver("SUM", r.exprOf(al)), Alias: aliasFor("SUM", al.Column)})
					p.Aggregated = true
					p.use(al.Table)
					p.Phrases[keyMeasure] = cm.Phrase
				})
			}
			return []*element{el}
		}
	}
	if target != nil {
		r.storedCounts(el, target, phrase)
	}
	if target == nil {
		target = r.h.t
		phrase = r.h.phrase
	}
	if target == nil {
		return nil
	}
	r.measureTables[strings.ToLower(target.Name)] = true
	t := target
	el.add(1, func(p *Plan) {
		p.Selects = append(p.Selects, Sel{X: sqlexpr.CountAll, Alias: "count"})
		p.Aggregated = true
		p.CountOf = t
		p.use(t.Name)
		if phrase != "" {
			p.Phrases[keyMeasure] = phrase
		}
	})
	// "how many depots supply Leeds": what is counted may be the rows of
	// another table the question names.
	for _, cm := range r.freeColumns() {
		if len(cm.Alts) == 0 || strings.EqualFold(cm.Alts[0].Table, t.Name) {
			continue
		}
		other := cm.Alts[0]
		el.add(0.35, func(p *Plan) {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.CountAll, Alias: "count"})
			p.Aggregated = true
			p.use(other.Table)
			p.Phrases[keyMeasure] = phrase
		})
		r.usedCols[cm] = true
		break
	}
	return []*element{el}
}

// measureAlts finds the numeric columns a measure phrase after position at
// may mean; without one, the head table's measures.
func (r *reader) measureAlts(at int) ([]links.ColAlt, string) {
	var best *links.ColMention
	for _, cm := range r.a.Columns {
		if cm.Clause != 0 || r.usedCols[cm] || cm.At < at || r.isGroupMention(cm) {
			continue
		}
		if len(r.numericAlts(cm)) > 0 {
			best = cm
			break
		}
	}
	if best == nil {
		for _, cm := range r.a.Columns {
			if cm.Clause == 0 && !r.usedCols[cm] && !r.isGroupMention(cm) && len(r.numericAlts(cm)) > 0 {
				best = cm
				break
			}
		}
	}
	if best != nil {
		r.usedCols[best] = true
		return r.numericAlts(best), best.Phrase
	}
	var out []links.ColAlt
	if r.h.t != nil {
		for _, c := range r.h.t.Measures {
			out = append(out, links.ColAlt{Table: r.h.t.Name, Column: c.Name, Weight: 1})
		}
	}
	return out, ""
}

// aggregate builds "total/average X [per Y]".
func (r *reader) aggregate(fn string, at int) []*element {
	alts, phrase := r.measureAlts(at)
	el := &element{name: "measure"}
	for _, al := range alts {
		r.measureTables[strings.ToLower(al.Table)] = true
		el.add(al.Weight*r.boost(al.Table, al.Column), func(p *Plan) {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.AggOver(fn, r.exprOf(al)), Alias: aliasFor(fn, al.Column)})
			p.Aggregated = true
			p.use(al.Table)
			if phrase != "" {
				p.Phrases[keyMeasure] = phrase
			}
		})
	}
	if len(el.alts) == 0 {
		return nil
	}
	return []*element{el}
}

// storedCounts reads "the number of members who found the librarian
// helpful" as a count the data keeps: a numeric column the clause after
// the counted noun names, whose comment says it is the number of those
// things ("Number of members who found the librarian to be
// helpful."). Adding it up is then the likelier reading; counting the
// table's rows stays an option.
func (r *reader) storedCounts(el *element, t *schema.Table, phrase string) {
	a := r.a
	at := -1
	for _, em := range a.Entities {
		if em.At > a.CountAt && em.Tables[0] == t {
			at = a.SpanOf(em.At, em.Phrase)
			break
		}
	}
	if at < 0 || !relativeWords[a.Word(at)] {
		return
	}
	forms := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(phrase)) {
		forms[w], forms[links.SingularOf(w)] = true, true
	}
	score := map[string]int{}
	byKey := map[string]links.ColAlt{}
	var clause []*links.ColMention
	for _, cm := range a.Columns {
		if cm.Clause != 0 || cm.At < at || r.usedCols[cm] || r.isGroupMention(cm) {
			continue
		}
		if cm.At > at+12 || a.Toks[max(cm.At-1, 0)].Break != 0 && cm.At > at {
			break
		}
		named := false
		for _, al := range r.numericAlts(cm) {
			c := r.e.m.Column(al.Table, al.Column)
			if al.Computed() || c == nil {
				continue
			}
			words := strings.Fields(strings.ToLower(c.Comment))
			if len(words) < 3 || words[0] != "number" || words[1] != "of" || !forms[words[2]] {
				continue
			}
			k := strings.ToLower(al.Table + "." + al.Column)
			score[k]++
			byKey[k] = al
			named = true
		}
		if named {
			clause = append(clause, cm)
		}
	}
	best := 0
	for _, n := range score {
		best = max(best, n)
	}
	if best == 0 {
		return
	}
	for _, k := range read.SortedNames(map[string]bool(keysOf(score, best))) {
		al := byKey[k]
		r.measureTables[strings.ToLower(al.Table)] = true
		el.add(1.5, func(p *Plan) {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.AggOver("SUM", r.exprOf(al)), Alias: aliasFor("SUM", al.Column)})
			p.Aggregated = true
			p.use(al.Table)
			p.Phrases[keyMeasure] = phrase
			p.Covered = append(p.Covered, phrase)
		})
	}
	for _, cm := range clause {
		r.usedCols[cm] = true
	}
}

// keysOf are the keys of m whose count is n.
func keysOf(m map[string]int, n int) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		if v == n {
			out[k] = true
		}
	}
	return out
}

// hintStems are data: words/measures.tsv.
var (
	hintStems = words.Measures()
)
