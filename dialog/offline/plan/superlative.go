package plan

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Row superlatives and top-k: "the longest river", "which branch lends the most books", "top 5 products by list price".

// groupByHead groups by the head's key and label and shows the label.
func (r *reader) groupByHead(p *Plan, h *schema.Table, details bool) {
	if h.Key != nil && h.Key != h.Label {
		p.Groups = append(p.Groups, Sel{X: sqlexpr.Col(h.Name, h.Key.Name)})
	}
	if h.Label != nil {
		p.Groups = append(p.Groups, Sel{X: sqlexpr.Col(h.Name, h.Label.Name)})
	}
	cols := []*warehouse.Column{h.Label}
	if details {
		cols = h.Details
		for _, c := range h.Details {
			if c != h.Key && c != h.Label {
				p.Groups = append(p.Groups, Sel{X: sqlexpr.Col(h.Name, c.Name)})
			}
		}
	}
	for _, c := range cols {
		if c != nil {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, c.Name)})
		}
	}
	p.use(h.Name)
}

// superlative builds "which X has the most Y", "the biggest city", "top 5
// products by units sold", and "the branch with the oldest book" (where the
// ranked rows are books and the answer is their branch).
func (r *reader) superlative() []*element {
	a := r.a
	s := a.Sup
	h := r.h.t
	rankPhrase := s.Phrase
	em, cm := r.superlativeNoun(s)
	if em != nil && h != nil && em.Tables[0] == h {
		// "which carrier handled the most shipments": the head's rows are
		// counted per value of a column named before the superlative.
		if gc := r.groupingColumnBefore(s.At, h); gc != nil && countSuperlatives[s.Phrase] {
			return r.mostPerColumn(gc, h, s, s.Phrase+" "+em.Phrase)
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
	s          *links.SuperMention
	h, ranked  *schema.Table
	em         *links.EntityMention
	cm         *links.ColMention
	rankPhrase string
}

// superlativeNoun finds the thing or column the superlative is about: the
// mention after it in the same sentence, else a measure named before it.
func (r *reader) superlativeNoun(s *links.SuperMention) (*links.EntityMention, *links.ColMention) {
	var em *links.EntityMention
	var cm *links.ColMention
	// "…paid the most? Give the name": no noun after the sentence ends.
	if !sentenceBetween(r.a, s.At, s.NounAt) {
		em, cm = r.mentionAt(s.NounAt)
	}
	if em == nil && cm == nil {
		cm = r.measureBefore(s)
	}
	return em, cm
}

// rankedRows picks the rows being ranked, which may differ from the head
// shown, and drops the entity mention when it names those rows by size.
func (r *reader) rankedRows(s *links.SuperMention, h *schema.Table, em *links.EntityMention, cm *links.ColMention) (*schema.Table, *links.EntityMention) {
	sized := s.Hint != "" && s.Hint != "value"
	// The rows being ranked: the entity just before the superlative ("the
	// branch with the largest stock"), or a sized noun after it ("the
	// longest river"), when that is not the head.
	ranked := h
	if subj := r.subjectBefore(s.At); subj != nil && h != nil && subj != h {
		ranked = subj
	} else if em != nil && sized {
		ranked, em = em.Tables[0], nil
	}
	if ranked == nil && cm != nil && len(cm.Alts) > 0 {
		ranked = r.e.m.ByName[strings.ToLower(cm.Alts[0].Table)]
	}
	return ranked, em
}

// rankMeasure offers what the superlative ranks by: an aggregate named, a
// count of related rows, a column (or its numeric sibling), else a size hint.
func (r *reader) rankMeasure(rk *superlativeRank) *element {
	s := rk.s
	measure := &element{name: "rank"}
	aggs, _ := r.aggregateAt(s.NounAt)
	if w := r.a.Word(s.NounAt); read.AggWords[w] == "" || read.AggWords[w] == "MAX" || read.AggWords[w] == "MIN" || len(aggs) == 0 || sqlexpr.IsCount(aggs[0].x) {
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
		measure.add(ag.weight, func(p *Plan) {
			p.Order = &Sel{X: ag.x}
			p.Aggregated = true
			p.use(ag.tables...)
			p.Phrases[keyMeasure] = ag.phrase
		})
	}
}

// rankByCount ranks by how many of another table's rows each head has ("the
// branch with the most books").
func (r *reader) rankByCount(measure *element, rk *superlativeRank) {
	e2 := rk.em.Tables[0]
	r.countedVia = e2
	r.measureTables[strings.ToLower(e2.Name)] = true
	rk.rankPhrase = rk.s.Phrase + " " + rk.em.Phrase
	rankPhrase := rk.rankPhrase
	measure.add(1, func(p *Plan) {
		p.Order = &Sel{X: sqlexpr.CountAll}
		p.Aggregated = true
		p.CountRows = e2
		p.use(e2.Name)
		p.Phrases[keyMeasure] = rankPhrase
	})
}

// rankBySibling ranks a non-numeric column by the numeric one sharing the
// superlative ("the highest point" by highest_elevation) and shows the named one.
func (r *reader) rankBySibling(measure *element, rk *superlativeRank) {
	cm, rankPhrase := rk.cm, rk.rankPhrase
	r.usedCols[cm] = true
	out := cm.Alts[0]
	for _, sib := range r.siblingMeasures(cm, rk.s) {
		measure.add(1, func(p *Plan) {
			p.Order = &Sel{X: sqlexpr.Col(sib.Table, sib.Column)}
			p.use(sib.Table)
			p.Phrases[keyOrder] = rankPhrase
		})
	}
	if rk.ranked == nil || rk.ranked == rk.h {
		rk.ranked = r.e.m.ByName[strings.ToLower(out.Table)]
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
		r.measureTables[strings.ToLower(al.Table)] = true
		w := al.Weight * r.boost(al.Table, al.Column)
		if ranked != h && strings.EqualFold(al.Table, ranked.Name) {
			w *= 2
		}
		if strings.EqualFold(al.Table, ranked.Name) || ranked == h && strings.EqualFold(al.Table, h.Name) {
			measure.add(w, func(p *Plan) {
				p.Order = &Sel{X: r.exprOf(al)}
				p.use(al.Table)
				p.Phrases[keyOrder] = rankPhrase
				p.Phrases[keyMeasure] = cm.Phrase
			})
		} else {
			if ranked != h {
				w *= 0.7
			}
			measure.add(w, func(p *Plan) {
				p.Order = &Sel{X: sqlexpr.AggOver("SUM", r.exprOf(al))}
				p.Aggregated = true
				p.use(al.Table)
				p.Phrases[keyMeasure] = cm.Phrase
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
func (r *reader) headOutput(h *schema.Table, hp string, details bool) func(p *Plan) {
	return func(p *Plan) {
		switch {
		case p.Aggregated:
			r.groupByHead(p, h, details)
		case details:
			for _, c := range h.Details {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, c.Name)})
			}
			p.use(h.Name)
		case h.Label != nil:
			p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, h.Label.Name)})
			p.use(h.Name)
		}
		if hp != "" {
			p.Phrases[keyOutput] = hp
		}
	}
}

// headOutputs offers the head's own columns, or a column naming it on the
// counted or ranked table, which answers without joining the head.
func (r *reader) headOutputs(output *element, rk *superlativeRank, hp string) {
	h, ranked := rk.h, rk.ranked
	if po := r.pendingOutput; po != nil {
		output.add(1.5, func(p *Plan) {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(po.Table, po.Column)})
			p.use(po.Table)
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
				output.add(0.6, func(p *Plan) {
					x := sqlexpr.Col(j.FromTable, j.FromColumn)
					p.Groups = append(p.Groups, Sel{X: x})
					p.Selects = append(p.Selects, Sel{X: x})
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
				output.add(1.2, func(p *Plan) {
					p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(j.FromTable, j.FromColumn)})
					p.use(j.FromTable)
					if hp != "" {
						p.Phrases[keyOutput] = hp
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
	var listed []*links.ColMention
	for _, fc := range r.freeColumns() {
		if (fc.At < s.At || sentenceBetween(a, s.At, fc.At)) && slices.ContainsFunc(fc.Alts, func(al links.ColAlt) bool {
			return strings.EqualFold(al.Table, h.Name) || strings.EqualFold(al.Table, ranked.Name)
		}) {
			listed = append(listed, fc)
		}
	}
	if len(listed) > 1 {
		r.severalOutputs(output, listed)
	}
	if len(listed) == 1 {
		r.alsoShown(output, listItem{phrase: listed[0].Phrase, col: listed[0]})
	}
	// "the address of the biggest branch": another column of the head is the answer.
	for _, fc := range r.freeColumns() {
		for _, al := range fc.Alts {
			if !strings.EqualFold(al.Table, h.Name) && !strings.EqualFold(al.Table, ranked.Name) {
				continue
			}
			r.usedCols[fc] = true
			output.add(1.3*al.Weight, func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
				p.use(al.Table)
				p.Phrases[keyOutput] = fc.Phrase
			})
		}
	}
}

// sizeOutputs offers where the ranked thing is ("where does the newest nurse
// live") or its size ("how long is the longest route").
func (r *reader) sizeOutputs(output *element, ranked *schema.Table) {
	a := r.a
	if a.Where {
		// "where does the newest nurse live": where the thing ranked is.
		for i, c := range r.hintColumns(ranked, "", true) {
			output.add(2/float64(i+1), func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(ranked.Name, c.Name)})
				p.use(ranked.Name)
			})
		}
	}
	if a.HowAdj != "" {
		// "how long is the longest route of the fleet": the size itself.
		for i, c := range r.hintColumns(ranked, a.HowAdj, false) {
			output.add(1.5/float64(i+1), func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(ranked.Name, c.Name)})
				p.use(ranked.Name)
			})
		}
	}
}

// valueOutputs offers the ranked value beside the head ("and what is that
// number?") or alone ("what is the lowest list price").
func (r *reader) valueOutputs(output *element, rk *superlativeRank, hp string) {
	a, s, h, cm := r.a, rk.s, rk.h, rk.cm
	if s.ExplicitLimit && s.Limit > 1 || a.Order != nil || r.asksForTheValue(s.At) {
		// "Which genre has the most books, and what is that number?"
		w := 0.6
		if r.asksForTheValue(s.At) {
			w = 2
		}
		output.add(w, func(p *Plan) {
			r.headOutput(h, hp, false)(p)
			if p.Order != nil {
				p.Selects = append(p.Selects, Sel{X: p.Order.X, Alias: measureAlias(p.Order.X)})
			}
		})
	}
	if cm != nil && len(r.numericAlts(cm)) > 0 && !s.ExplicitLimit {
		// "what is the lowest list price": the value, not the product.
		fn := "MIN"
		if s.Desc {
			fn = "MAX"
		}
		phrase := s.Phrase + " " + cm.Phrase
		output.add(r.extremeValueWeight(s), func(p *Plan) {
			if p.Order == nil || !sqlexpr.Arithmetic(p.Order.X) || len(p.Groups) > 0 {
				return
			}
			name := ""
			if cols := sqlexpr.Columns(p.Order.X); len(cols) > 0 {
				name = cols[len(cols)-1].Column
			}
			p.Selects = append(p.Selects[:0], Sel{X: sqlexpr.AggOver(fn, p.Order.X), Alias: aliasFor(fn, name)})
			p.Order, p.Aggregated, p.extremeValue = nil, true, true
			p.Phrases[keyOutput] = phrase
		})
	}
}

// rankDirection sorts by the ranking, highest or lowest first, and keeps as
// many rows as the superlative asks for (all when an order is also asked).
func (r *reader) rankDirection(s *links.SuperMention, rankPhrase string) *element {
	a := r.a
	direction := &element{name: "order"}
	direction.add(1, func(p *Plan) {
		if p.extremeValue {
			return
		}
		p.Desc = s.Desc != p.invert
		p.Limit = s.Limit
		if a.Order != nil && !s.ExplicitLimit {
			// "the longest routes, listed from longest down": all
			// of them, sorted.
			p.Limit = 0
		}
		p.Phrases[keyOrder] = rankPhrase
		p.Phrases[keyLimit] = rankPhrase
	})
	return direction
}

// rowHave before a superlative rank rows by it: "the depot with the
// largest fleet", "a patient whose highest dose" (possession.tsv).
var rowHave = words.Set("superlativehave")

// valueSuperlatives name the value itself: "maximum fine"
// (quantifiers.tsv).
var valueSuperlatives = words.Set("valuesuperlative")

// valueLeads open a question asking for a value: "what is the latest due
// date" (questionwords.tsv).
var valueLeads = words.Set("whatlead")

// rowLeads open a question asking for rows: "which author wrote the
// longest book" (questionwords.tsv).
var rowLeads = words.Set("rowlead")

// extremeValueWeight says how likely a superlative asks for the top value
// rather than the row holding it: "maximum quantity" and "what is the
// highest price" ask for the value; "which product has the highest price"
// for the row.
func (r *reader) extremeValueWeight(s *links.SuperMention) float64 {
	a := r.a
	prev := a.Word(s.At - 1)
	if articles[prev] {
		prev = a.Word(s.At - 2)
	}
	switch {
	case rowHave[prev]:
		return 0.15
	case valueSuperlatives[s.Phrase]:
		return 1.6
	case valueLeads[a.Word(0)]:
		return 1
	case rowLeads[a.Word(0)]:
		return 0.3
	}
	return 0.5
}

// groupingColumnBefore finds a descriptive (text) column of the head named
// before the superlative: the thing whose values are ranked.
func (r *reader) groupingColumnBefore(at int, h *schema.Table) *links.ColMention {
	for _, cm := range r.a.Columns {
		if cm.Clause != 0 || cm.At >= at || r.usedCols[cm] {
			continue
		}
		for _, al := range cm.Alts {
			c := r.e.m.Column(al.Table, al.Column)
			if c != nil && strings.EqualFold(al.Table, h.Name) && c.Kind() == warehouse.KindText && c != h.Key && c != h.Label {
				return cm
			}
		}
	}
	return nil
}

// mostPerColumn ranks the values of a column by how many of the head's
// rows carry each.
func (r *reader) mostPerColumn(cm *links.ColMention, h *schema.Table, s *links.SuperMention, rankPhrase string) []*element {
	r.usedCols[cm] = true
	r.countedVia = h
	measure := &element{name: "rank"}
	measure.add(1, func(p *Plan) {
		p.Order = &Sel{X: sqlexpr.CountAll}
		p.Aggregated = true
		p.use(h.Name)
		p.Phrases[keyMeasure] = rankPhrase
	})
	output := &element{name: "output"}
	for _, al := range cm.Alts {
		c := r.e.m.Column(al.Table, al.Column)
		if c == nil || !strings.EqualFold(al.Table, h.Name) || c.Kind() != warehouse.KindText {
			continue
		}
		output.add(al.Weight, func(p *Plan) {
			x := r.exprOf(al)
			p.Groups = append(p.Groups, Sel{X: x})
			p.Selects = append(p.Selects, Sel{X: x})
			p.Phrases[keyOutput] = cm.Phrase
		})
	}
	direction := &element{name: "order"}
	direction.add(1, func(p *Plan) {
		p.Desc = s.Desc
		p.Limit = s.Limit
		p.Phrases[keyOrder] = rankPhrase
		p.Phrases[keyLimit] = rankPhrase
	})
	return []*element{measure, output, direction}
}

// siblingMeasures are the numeric columns of a column's table whose name
// shares the superlative word ("highest_elevation" for "highest point").
func (r *reader) siblingMeasures(cm *links.ColMention, s *links.SuperMention) []links.ColAlt {
	if len(cm.Alts) == 0 {
		return nil
	}
	t := r.e.m.ByName[strings.ToLower(cm.Alts[0].Table)]
	if t == nil {
		return nil
	}
	word := strings.ToLower(strings.Fields(s.Phrase)[0])
	var out []links.ColAlt
	for _, c := range t.Measures {
		if strings.Contains(strings.ToLower(c.Name), word) {
			out = append(out, links.ColAlt{Table: t.Name, Column: c.Name, Weight: 1})
		}
	}
	return out
}

// valueNamesRowOf says whether a value in the question names a row of the
// table of the column mentioned at position at.
func (r *reader) valueNamesRowOf(at int) bool {
	for _, cm := range r.a.Columns {
		if cm.At == at && len(cm.Alts) > 0 {
			return r.namesOneRow(cm.Alts[0].Table)
		}
	}
	return false
}

// subjectWith come between a thing and the superlative that ranks it:
// "the branch having the largest stock" (possession.tsv).
var subjectWith = words.Set("superlativewith")

// thatWhich may open the clause: "the depot that has the most vans"
// (questionwords.tsv).
var thatWhich = words.Set("relativewhich")

// subjectBefore finds the entity a superlative qualifies when it follows
// "with the", "that has the", "having the": "the branch with the largest
// stock" ranks branches.
func (r *reader) subjectBefore(at int) *schema.Table {
	j := at - 1
	for j >= 0 && articles[r.a.Word(j)] {
		j--
	}
	if !subjectWith[r.a.Word(j)] {
		return nil
	}
	if thatWhich[r.a.Word(j-1)] {
		j--
	}
	for _, em := range r.a.Entities {
		if em.At == j-1 || em.At == j-2 {
			return em.Tables[0]
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
func (r *reader) hintMeasures(el *element, h *schema.Table, s *links.SuperMention) {
	switch s.Hint {
	case "date":
		// "the oldest warden" by an age: the largest age is the
		// earliest birth.
		if ageWords[strings.ToLower(s.Phrase)] {
			for _, c := range h.Def.Columns {
				if !slices.Contains(r.e.m.Cat.NameTerms(c.Name), "age") {
					continue
				}
				var x sqlexpr.Expr = sqlexpr.Col(h.Name, c.Name)
				switch {
				case slices.ContainsFunc(h.Measures, func(m *warehouse.Column) bool { return m.Name == c.Name }):
				case c.Kind() == warehouse.KindText && r.wholeNumbers(h.Name, c.Name):
					x = sqlexpr.Binary{Op: "+", L: x, R: sqlexpr.Num("0")} // ages kept as text, compared as numbers
				default:
					continue
				}
				el.add(1, func(p *Plan) {
					p.Order = &Sel{X: x}
					p.invert = true
					p.use(h.Name)
					p.Phrases[keyMeasure] = s.Phrase
				})
			}
		}
		for _, c := range h.Dates {
			el.add(1, func(p *Plan) {
				p.Order = &Sel{X: sqlexpr.Col(h.Name, c.Name)}
				p.use(h.Name)
				p.Phrases[keyMeasure] = s.Phrase
			})
		}
		for _, f := range r.relatedFacts(h) {
			if len(f.Dates) > 0 {
				c := f.Dates[0] // the first date of the related rows
				fn := "MIN"
				if s.Desc {
					fn = "MAX"
				}
				el.add(0.8, func(p *Plan) {
					p.Order = &Sel{X: sqlexpr.AggOver(fn, sqlexpr.Col(f.Name, c.Name))}
					p.Aggregated = true
					p.use(f.Name)
					p.Phrases[keyMeasure] = s.Phrase
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
				el.add(w, func(p *Plan) {
					p.Order = &Sel{X: sqlexpr.CountAll}
					p.Aggregated = true
					p.CountRows = f
					p.use(f.Name)
					p.Phrases[keyMeasure] = s.Phrase
				})
			}
			for k, c := range moneyFirst(f.Measures) {
				if k == 2 {
					break
				}
				el.add(w*0.8/float64(k+1), func(p *Plan) {
					p.Order = &Sel{X: sqlexpr.AggOver("SUM", sqlexpr.Col(f.Name, c.Name))}
					p.Aggregated = true
					p.use(f.Name)
					p.Phrases[keyMeasure] = s.Phrase
				})
			}
		}
		if len(el.alts) == 0 {
			for _, c := range h.Measures {
				el.add(1, func(p *Plan) {
					p.Order = &Sel{X: sqlexpr.Col(h.Name, c.Name)}
					p.use(h.Name)
					p.Phrases[keyMeasure] = s.Phrase
				})
			}
		}
	default:
		cols := r.hintColumns(h, s.Hint, false)
		if len(cols) == 0 {
			cols = h.Measures
		}
		for i, c := range cols {
			el.add(1/float64(i+1), func(p *Plan) {
				p.Order = &Sel{X: sqlexpr.Col(h.Name, c.Name)}
				p.use(h.Name)
				p.Phrases[keyMeasure] = s.Phrase
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

// andWhatVerbs follow "and what" asking for the ranked value: "…, and
// what is its fine?" (copulas.tsv).
var andWhatVerbs = words.Set("andwhatverb")

// asksForTheValue says whether a clause after the superlative at asks for
// the ranked value too: "…, and what is its bed count?", "… and
// how many".
func (r *reader) asksForTheValue(at int) bool {
	a := r.a
	for i := at + 1; i+2 < len(a.Toks); i++ {
		if a.Toks[i].Clause != 0 {
			break
		}
		if a.Seq(i, "and", "what") && andWhatVerbs[a.Word(i+2)] || a.Seq(i, "and", "how", "many") || a.Seq(i, "and", "how", "much") {
			return true
		}
	}
	return false
}

// measureBefore is the number a superlative ending its clause ranks by
// when it names none after it: "the member who has paid the most", "the
// van that weighs the least" (a numeric column named right before it).
func (r *reader) measureBefore(s *links.SuperMention) *links.ColMention {
	a := r.a
	if s.NounAt < len(a.Toks) && s.NounAt >= 0 && a.Toks[s.NounAt].Clause == a.Toks[s.At].Clause && !links.IsFunctionWord(a.Toks[s.NounAt]) && !sentenceBetween(a, s.At, s.NounAt) {
		return nil
	}
	end := s.At
	if a.Word(end-1) == "the" {
		end--
	}
	for _, cm := range a.Columns {
		if cm.End == end && len(r.numericAlts(cm)) > 0 {
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
func sentenceBetween(a *links.Analysis, from, to int) bool {
	for k := from; k < to && k < len(a.Toks); k++ {
		if b := a.Toks[k].Break; b == '?' || b == '.' || b == '!' || b == ';' {
			return true
		}
	}
	return false
}
