package offline

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Row superlatives and top-k: "the longest river", "which branch lends the most books", "top 5 products by list price".

// groupByHead groups by the head's key and label and shows the label.
func (r *reader) groupByHead(p *plan, h *schema.Table, details bool) {
	if h.Key != nil && h.Key != h.Label {
		p.groups = append(p.groups, sel{x: col(h.Name, h.Key.Name)})
	}
	if h.Label != nil {
		p.groups = append(p.groups, sel{x: col(h.Name, h.Label.Name)})
	}
	cols := []*warehouse.Column{h.Label}
	if details {
		cols = h.Details
		for _, c := range h.Details {
			if c != h.Key && c != h.Label {
				p.groups = append(p.groups, sel{x: col(h.Name, c.Name)})
			}
		}
	}
	for _, c := range cols {
		if c != nil {
			p.selects = append(p.selects, sel{x: col(h.Name, c.Name)})
		}
	}
	p.use(h.Name)
}

// superlative builds "which X has the most Y", "the biggest city", "top 5
// products by units sold", and "the branch with the oldest book" (where the
// ranked rows are books and the answer is their branch).
func (r *reader) superlative() []*element {
	a := r.a
	s := a.sup
	h := r.h.t
	rankPhrase := s.phrase
	em, cm := r.superlativeNoun(s)
	if em != nil && h != nil && em.tables[0] == h {
		// "which carrier handled the most shipments": the head's rows are
		// counted per value of a column named before the superlative.
		if gc := r.groupingColumnBefore(s.at, h); gc != nil && countSuperlatives[s.phrase] {
			return r.mostPerColumn(gc, h, s, s.phrase+" "+em.phrase)
		}
		em = nil
	}
	var ranked *schema.Table
	ranked, em = r.rankedRows(s, h, em, cm)
	if h == nil {
		h = ranked
	}
	if h == nil {
		return nil
	}
	rk := &superlativeRank{s: s, h: h, ranked: ranked, em: em, cm: cm, rankPhrase: rankPhrase}
	measure := r.rankMeasure(rk)
	if len(measure.alts) == 0 {
		return nil
	}
	output := r.superlativeOutput(rk)
	direction := r.rankDirection(s, rk.rankPhrase)
	// The ranking must be decided before the output groups by it.
	return []*element{measure, output, direction}
}

// superlativeRank is what superlative has settled so far, shared by its
// steps: the mention, the rows ranked, the head shown and the mentions after
// the superlative; the measure's step may still change them.
type superlativeRank struct {
	s          *superMention
	h, ranked  *schema.Table
	em         *entityMention
	cm         *colMention
	rankPhrase string
}

// superlativeNoun finds the thing or column the superlative is about: the
// mention after it in the same sentence, else a measure named before it.
func (r *reader) superlativeNoun(s *superMention) (*entityMention, *colMention) {
	var em *entityMention
	var cm *colMention
	// "…paid the most? Give the name": no noun after the sentence ends.
	if !r.a.sentenceBetween(s.at, s.nounAt) {
		em, cm = r.mentionAt(s.nounAt)
	}
	if em == nil && cm == nil {
		cm = r.measureBefore(s)
	}
	return em, cm
}

// rankedRows picks the rows being ranked, which may differ from the head
// shown, and drops the entity mention when it names those rows by size.
func (r *reader) rankedRows(s *superMention, h *schema.Table, em *entityMention, cm *colMention) (*schema.Table, *entityMention) {
	sized := s.hint != "" && s.hint != "value"
	// The rows being ranked: the entity just before the superlative ("the
	// branch with the largest stock"), or a sized noun after it ("the
	// longest river"), when that is not the head.
	ranked := h
	if subj := r.subjectBefore(s.at); subj != nil && h != nil && subj != h {
		ranked = subj
	} else if em != nil && sized {
		ranked, em = em.tables[0], nil
	}
	if ranked == nil && cm != nil && len(cm.alts) > 0 {
		ranked = r.e.m.ByName[strings.ToLower(cm.alts[0].table)]
	}
	return ranked, em
}

// rankMeasure offers what the superlative ranks by: an aggregate named, a
// count of related rows, a column (or its numeric sibling), else a size hint.
func (r *reader) rankMeasure(rk *superlativeRank) *element {
	s := rk.s
	measure := &element{name: "rank"}
	aggs, _ := r.aggregateAt(s.nounAt)
	if w := r.a.word(s.nounAt); aggWords[w] == "" || aggWords[w] == "MAX" || aggWords[w] == "MIN" || len(aggs) == 0 || isCount(aggs[0].x) {
		aggs = nil
	}
	switch {
	case len(aggs) > 0:
		r.rankByAggregates(measure, aggs)
		rk.cm = nil
	case rk.em != nil:
		r.rankByCount(measure, rk)
	case rk.cm != nil && len(r.numericAlts(rk.cm)) == 0 && len(r.siblingMeasures(rk.cm, s)) > 0:
		r.rankBySibling(measure, rk)
	case rk.cm != nil && len(r.numericAlts(rk.cm)) > 0:
		r.rankByColumn(measure, rk)
	default:
		r.hintMeasures(measure, rk.ranked, s)
	}
	return measure
}

// rankByAggregates ranks by an aggregate named after the superlative ("top 2
// shops by total sale amount"): the total of the measure per head.
func (r *reader) rankByAggregates(measure *element, aggs []aggRead) {
	best := 0.0
	for _, ag := range aggs {
		best = max(best, ag.weight)
	}
	for _, ag := range aggs {
		if ag.weight >= 0.8*best {
			for _, t := range ag.tables {
				r.measureTables[strings.ToLower(t)] = true
			}
		}
		measure.add(ag.weight, func(p *plan) {
			p.order = &sel{x: ag.x}
			p.aggregated = true
			p.use(ag.tables...)
			p.phrases[keyMeasure] = ag.phrase
		})
	}
}

// rankByCount ranks by how many of another table's rows each head has ("the
// branch with the most books").
func (r *reader) rankByCount(measure *element, rk *superlativeRank) {
	e2 := rk.em.tables[0]
	r.countedVia = e2
	r.measureTables[strings.ToLower(e2.Name)] = true
	rk.rankPhrase = rk.s.phrase + " " + rk.em.phrase
	rankPhrase := rk.rankPhrase
	measure.add(1, func(p *plan) {
		p.order = &sel{x: countAll}
		p.aggregated = true
		p.countRows = e2
		p.use(e2.Name)
		p.phrases[keyMeasure] = rankPhrase
	})
}

// rankBySibling ranks a non-numeric column by the numeric one sharing the
// superlative ("the highest point" by highest_elevation) and shows the named one.
func (r *reader) rankBySibling(measure *element, rk *superlativeRank) {
	cm, rankPhrase := rk.cm, rk.rankPhrase
	r.usedCols[cm] = true
	out := cm.alts[0]
	for _, sib := range r.siblingMeasures(cm, rk.s) {
		measure.add(1, func(p *plan) {
			p.order = &sel{x: col(sib.table, sib.column)}
			p.use(sib.table)
			p.phrases[keyOrder] = rankPhrase
		})
	}
	if rk.ranked == nil || rk.ranked == rk.h {
		rk.ranked = r.e.m.ByName[strings.ToLower(out.table)]
		if r.h.t == nil || !r.h.entity {
			rk.h = rk.ranked
		}
	}
	r.pendingOutput = &out
}

// rankByColumn ranks by a numeric column named: as it is on the ranked rows,
// summed per head when it is another table's.
func (r *reader) rankByColumn(measure *element, rk *superlativeRank) {
	cm, h, ranked, rankPhrase := rk.cm, rk.h, rk.ranked, rk.rankPhrase
	r.usedCols[cm] = true
	for _, al := range r.numericAlts(cm) {
		r.measureTables[strings.ToLower(al.table)] = true
		w := al.weight * r.boost(al.table, al.column)
		if ranked != h && strings.EqualFold(al.table, ranked.Name) {
			w *= 2
		}
		if strings.EqualFold(al.table, ranked.Name) || ranked == h && strings.EqualFold(al.table, h.Name) {
			measure.add(w, func(p *plan) {
				p.order = &sel{x: r.exprOf(al)}
				p.use(al.table)
				p.phrases[keyOrder] = rankPhrase
				p.phrases[keyMeasure] = cm.phrase
			})
		} else {
			if ranked != h {
				w *= 0.7
			}
			measure.add(w, func(p *plan) {
				p.order = &sel{x: aggOver("SUM", r.exprOf(al))}
				p.aggregated = true
				p.use(al.table)
				p.phrases[keyMeasure] = cm.phrase
			})
		}
	}
}

// superlativeOutput offers what the answer shows: the head, columns asked
// for, where or how big the ranked thing is, the ranked value itself.
func (r *reader) superlativeOutput(rk *superlativeRank) *element {
	output := &element{name: "output"}
	hp := r.h.phrase
	r.headOutputs(output, rk, hp)
	r.askedColumnOutputs(output, rk)
	r.sizeOutputs(output, rk.ranked)
	r.valueOutputs(output, rk, hp)
	return output
}

// headOutput shows the head: grouped by when the plan aggregates, with its
// details or its label otherwise.
func (r *reader) headOutput(h *schema.Table, hp string, details bool) func(p *plan) {
	return func(p *plan) {
		switch {
		case p.aggregated:
			r.groupByHead(p, h, details)
		case details:
			for _, c := range h.Details {
				p.selects = append(p.selects, sel{x: col(h.Name, c.Name)})
			}
			p.use(h.Name)
		case h.Label != nil:
			p.selects = append(p.selects, sel{x: col(h.Name, h.Label.Name)})
			p.use(h.Name)
		}
		if hp != "" {
			p.phrases[keyOutput] = hp
		}
	}
}

// headOutputs offers the head's own columns, or a column naming it on the
// counted or ranked table, which answers without joining the head.
func (r *reader) headOutputs(output *element, rk *superlativeRank, hp string) {
	h, ranked := rk.h, rk.ranked
	if po := r.pendingOutput; po != nil {
		output.add(1.5, func(p *plan) {
			p.selects = append(p.selects, sel{x: col(po.table, po.column)})
			p.use(po.table)
		})
	}
	output.add(1, r.headOutput(h, hp, false))
	if len(h.Details) > 1 {
		output.add(0.6, r.headOutput(h, hp, true))
	}
	if f := r.countedVia; f != nil && h.Key != nil {
		// "which state had the most orders": the orders' own state code
		// answers without the states table.
		for _, j := range r.e.m.Snap.Schema.Joins {
			if strings.EqualFold(j.FromTable, f.Name) && strings.EqualFold(j.ToTable, h.Name) && strings.EqualFold(j.ToColumn, h.Key.Name) && j.When == nil {
				output.add(0.6, func(p *plan) {
					x := col(j.FromTable, j.FromColumn)
					p.groups = append(p.groups, sel{x: x})
					p.selects = append(p.selects, sel{x: x})
					p.use(j.FromTable)
				})
				break
			}
		}
	}
	if ranked != h {
		// The ranked table may name the head itself (river.traverse holds
		// state names): show that column without the join.
		for _, j := range r.e.m.Snap.Schema.Joins {
			if strings.EqualFold(j.FromTable, ranked.Name) && strings.EqualFold(j.ToTable, h.Name) && h.Label != nil && strings.EqualFold(j.ToColumn, h.Label.Name) {
				output.add(1.2, func(p *plan) {
					p.selects = append(p.selects, sel{x: col(j.FromTable, j.FromColumn)})
					p.use(j.FromTable)
					if hp != "" {
						p.phrases[keyOutput] = hp
					}
				})
			}
		}
	}
}

// askedColumnOutputs offers the columns of the head or ranked rows the question
// asks for ("the id and title of the book with the most chapters").
func (r *reader) askedColumnOutputs(output *element, rk *superlativeRank) {
	a, s, h, ranked := r.a, rk.s, rk.h, rk.ranked
	// "the id and title of the book with the most chapters", "who is the
	// first member to join? List the first name and last name": the
	// columns listed together are one answer.
	var listed []*colMention
	for _, fc := range r.freeColumns() {
		if (fc.at < s.at || a.sentenceBetween(s.at, fc.at)) && slices.ContainsFunc(fc.alts, func(al colAlt) bool {
			return strings.EqualFold(al.table, h.Name) || strings.EqualFold(al.table, ranked.Name)
		}) {
			listed = append(listed, fc)
		}
	}
	if len(listed) > 1 {
		r.severalOutputs(output, listed)
	}
	if len(listed) == 1 {
		r.alsoShown(output, listItem{phrase: listed[0].phrase, col: listed[0]})
	}
	// "the address of the biggest branch": another column of the head is the answer.
	for _, fc := range r.freeColumns() {
		for _, al := range fc.alts {
			if !strings.EqualFold(al.table, h.Name) && !strings.EqualFold(al.table, ranked.Name) {
				continue
			}
			r.usedCols[fc] = true
			output.add(1.3*al.weight, func(p *plan) {
				p.selects = append(p.selects, sel{x: r.exprOf(al)})
				p.use(al.table)
				p.phrases[keyOutput] = fc.phrase
			})
		}
	}
}

// sizeOutputs offers where the ranked thing is ("where does the newest nurse
// live") or its size ("how long is the longest route").
func (r *reader) sizeOutputs(output *element, ranked *schema.Table) {
	a := r.a
	if a.where {
		// "where does the newest nurse live": where the thing ranked is.
		for i, c := range r.hintColumns(ranked, "", true) {
			output.add(2/float64(i+1), func(p *plan) {
				p.selects = append(p.selects, sel{x: col(ranked.Name, c.Name)})
				p.use(ranked.Name)
			})
		}
	}
	if a.howAdj != "" {
		// "how long is the longest route of the fleet": the size itself.
		for i, c := range r.hintColumns(ranked, a.howAdj, false) {
			output.add(1.5/float64(i+1), func(p *plan) {
				p.selects = append(p.selects, sel{x: col(ranked.Name, c.Name)})
				p.use(ranked.Name)
			})
		}
	}
}

// valueOutputs offers the ranked value beside the head ("and what is that
// number?") or alone ("what is the lowest list price").
func (r *reader) valueOutputs(output *element, rk *superlativeRank, hp string) {
	a, s, h, cm := r.a, rk.s, rk.h, rk.cm
	if s.explicitLimit && s.limit > 1 || a.order != nil || r.asksForTheValue(s.at) {
		// "Which genre has the most books, and what is that number?"
		w := 0.6
		if r.asksForTheValue(s.at) {
			w = 2
		}
		output.add(w, func(p *plan) {
			r.headOutput(h, hp, false)(p)
			if p.order != nil {
				p.selects = append(p.selects, sel{x: p.order.x, alias: measureAlias(p.order.x)})
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
			if p.order == nil || !arithmetic(p.order.x) || len(p.groups) > 0 {
				return
			}
			name := ""
			if cols := columnsOf(p.order.x); len(cols) > 0 {
				name = cols[len(cols)-1].Column
			}
			p.selects = append(p.selects[:0], sel{x: aggOver(fn, p.order.x), alias: aliasFor(fn, name)})
			p.order, p.aggregated, p.extremeValue = nil, true, true
			p.phrases[keyOutput] = phrase
		})
	}
}

// rankDirection sorts by the ranking, highest or lowest first, and keeps as
// many rows as the superlative asks for (all when an order is also asked).
func (r *reader) rankDirection(s *superMention, rankPhrase string) *element {
	a := r.a
	direction := &element{name: "order"}
	direction.add(1, func(p *plan) {
		if p.extremeValue {
			return
		}
		p.desc = s.desc != p.invert
		p.limit = s.limit
		if a.order != nil && !s.explicitLimit {
			// "the longest routes, listed from longest down": all
			// of them, sorted.
			p.limit = 0
		}
		p.phrases[keyOrder] = rankPhrase
		p.phrases[keyLimit] = rankPhrase
	})
	return direction
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
func (r *reader) groupingColumnBefore(at int, h *schema.Table) *colMention {
	for _, cm := range r.a.columns {
		if cm.clause != 0 || cm.at >= at || r.usedCols[cm] {
			continue
		}
		for _, al := range cm.alts {
			c := r.e.m.Column(al.table, al.column)
			if c != nil && strings.EqualFold(al.table, h.Name) && c.Kind() == warehouse.KindText && c != h.Key && c != h.Label {
				return cm
			}
		}
	}
	return nil
}

// mostPerColumn ranks the values of a column by how many of the head's
// rows carry each.
func (r *reader) mostPerColumn(cm *colMention, h *schema.Table, s *superMention, rankPhrase string) []*element {
	r.usedCols[cm] = true
	r.countedVia = h
	measure := &element{name: "rank"}
	measure.add(1, func(p *plan) {
		p.order = &sel{x: countAll}
		p.aggregated = true
		p.use(h.Name)
		p.phrases[keyMeasure] = rankPhrase
	})
	output := &element{name: "output"}
	for _, al := range cm.alts {
		c := r.e.m.Column(al.table, al.column)
		if c == nil || !strings.EqualFold(al.table, h.Name) || c.Kind() != warehouse.KindText {
			continue
		}
		output.add(al.weight, func(p *plan) {
			x := r.exprOf(al)
			p.groups = append(p.groups, sel{x: x})
			p.selects = append(p.selects, sel{x: x})
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
	t := r.e.m.ByName[strings.ToLower(cm.alts[0].table)]
	if t == nil {
		return nil
	}
	word := strings.ToLower(strings.Fields(s.phrase)[0])
	var out []colAlt
	for _, c := range t.Measures {
		if strings.Contains(strings.ToLower(c.Name), word) {
			out = append(out, colAlt{table: t.Name, column: c.Name, weight: 1})
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
// "with the", "that has the", "having the": "the branch with the largest
// stock" ranks branches.
func (r *reader) subjectBefore(at int) *schema.Table {
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

// countSuperlatives rank by how many of a thing there are: "the most
// loans", "the fewest members".
var countSuperlatives = words.Set("bycount")

// ageWords rank by age as well as by date.
var ageWords = words.Set("age")

// hintMeasures fills the ranking for a superlative without a noun: "the
// biggest city" (size columns), "our best customer" (most orders or most
// revenue), "our first customer" (earliest own date or earliest order).
func (r *reader) hintMeasures(el *element, h *schema.Table, s *superMention) {
	switch s.hint {
	case "date":
		// "the oldest warden" by an age: the largest age is the
		// earliest birth.
		if ageWords[strings.ToLower(s.phrase)] {
			for _, c := range h.Def.Columns {
				if !slices.Contains(r.e.m.Cat.NameTerms(c.Name), "age") {
					continue
				}
				var x expr = col(h.Name, c.Name)
				switch {
				case slices.ContainsFunc(h.Measures, func(m *warehouse.Column) bool { return m.Name == c.Name }):
				case c.Kind() == warehouse.KindText && r.wholeNumbers(h.Name, c.Name):
					x = binary{Op: "+", L: x, R: numLit("0")} // ages kept as text, compared as numbers
				default:
					continue
				}
				el.add(1, func(p *plan) {
					p.order = &sel{x: x}
					p.invert = true
					p.use(h.Name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
		for _, c := range h.Dates {
			el.add(1, func(p *plan) {
				p.order = &sel{x: col(h.Name, c.Name)}
				p.use(h.Name)
				p.phrases[keyMeasure] = s.phrase
			})
		}
		for _, f := range r.relatedFacts(h) {
			if len(f.Dates) > 0 {
				c := f.Dates[0] // the first date of the related rows
				fn := "MIN"
				if s.desc {
					fn = "MAX"
				}
				el.add(0.8, func(p *plan) {
					p.order = &sel{x: aggOver(fn, col(f.Name, c.Name))}
					p.aggregated = true
					p.use(f.Name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
	case "value", "":
		direct := map[string]bool{}
		for _, j := range r.e.m.Snap.Schema.Joins {
			if strings.EqualFold(j.ToTable, h.Name) {
				direct[strings.ToLower(j.FromTable)] = true
			}
		}
		for i, f := range r.relatedFacts(h) {
			w := 1.0 / float64(i+1)
			// Counting rows two joins away (refunds of a customer's orders)
			// is rarely what "best" means; adding up their amounts may be.
			if direct[strings.ToLower(f.Name)] {
				el.add(w, func(p *plan) {
					p.order = &sel{x: countAll}
					p.aggregated = true
					p.countRows = f
					p.use(f.Name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
			for k, c := range moneyFirst(f.Measures) {
				if k == 2 {
					break
				}
				el.add(w*0.8/float64(k+1), func(p *plan) {
					p.order = &sel{x: aggOver("SUM", col(f.Name, c.Name))}
					p.aggregated = true
					p.use(f.Name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
		if len(el.alts) == 0 {
			for _, c := range h.Measures {
				el.add(1, func(p *plan) {
					p.order = &sel{x: col(h.Name, c.Name)}
					p.use(h.Name)
					p.phrases[keyMeasure] = s.phrase
				})
			}
		}
	default:
		cols := r.hintColumns(h, s.hint, false)
		if len(cols) == 0 {
			cols = h.Measures
		}
		for i, c := range cols {
			el.add(1/float64(i+1), func(p *plan) {
				p.order = &sel{x: col(h.Name, c.Name)}
				p.use(h.Name)
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

// asksForTheValue says whether a clause after the superlative at asks for
// the ranked value too: "…, and what is its bed count?", "… and
// how many".
func (r *reader) asksForTheValue(at int) bool {
	a := r.a
	for i := at + 1; i+2 < len(a.toks); i++ {
		if a.toks[i].Clause != 0 {
			break
		}
		if a.seq(i, "and", "what") && (a.word(i+2) == "is" || a.word(i+2) == "was" || a.word(i+2) == "are") || a.seq(i, "and", "how", "many") || a.seq(i, "and", "how", "much") {
			return true
		}
	}
	return false
}

// measureBefore is the number a superlative ending its clause ranks by
// when it names none after it: "the member who has paid the most", "the
// van that weighs the least" (a numeric column named right before it).
func (r *reader) measureBefore(s *superMention) *colMention {
	a := r.a
	if s.nounAt < len(a.toks) && s.nounAt >= 0 && a.toks[s.nounAt].Clause == a.toks[s.at].Clause && !isFunctionWord(a.toks[s.nounAt]) && !a.sentenceBetween(s.at, s.nounAt) {
		return nil
	}
	end := s.at
	if a.word(end-1) == "the" {
		end--
	}
	for _, cm := range a.columns {
		if cm.end == end && len(r.numericAlts(cm)) > 0 {
			return cm
		}
	}
	return nil
}

// wholeNumbers says whether every profiled value of a text column is a
// whole number.
func (r *reader) wholeNumbers(table, column string) bool {
	p := r.e.m.Profile(table, column)
	if p == nil || !p.ValuesComplete || len(p.Values) == 0 {
		return false
	}
	for _, v := range p.Values {
		if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil {
			return false
		}
	}
	return true
}

// sentenceBetween says whether a sentence ends between tokens from and to.
func (a *analysis) sentenceBetween(from, to int) bool {
	for k := from; k < to && k < len(a.toks); k++ {
		if b := a.toks[k].Break; b == '?' || b == '.' || b == '!' || b == ';' {
			return true
		}
	}
	return false
}
