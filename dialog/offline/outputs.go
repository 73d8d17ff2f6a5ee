package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// severalOutputs reads "return the name, country and capacity", "list
// the titles and years": columns named in a row, joined by "and" or
// commas, are all shown, in the question's order. Each mention's likeliest
// column stands for it; a mention of the head table's column is preferred.
func (r *reader) severalOutputs(el *element, free []*colMention) {
	if len(free) < 1 {
		return
	}
	ol, ok := r.columnsInRow(free)
	if !ok {
		return
	}
	r.labelBeforeList(&ol, free[0].at)
	r.labelClosingList(&ol)
	if len(ol.picked) < 2 {
		return
	}
	w := 0.4
	if ol.enumerated {
		w = 2
	}
	picked, phrase := ol.picked, strings.Join(ol.phrases, ", ")
	el.add(w, func(p *plan) {
		for _, al := range picked {
			p.selects = append(p.selects, sel{x: r.exprOf(al)})
			p.use(al.table)
		}
		p.phrases[keyOutput] = phrase
	})
}

// outputList is the columns a row of mentions lists, with their words;
// enumerated when "and" or a comma joins them.
type outputList struct {
	picked     []colAlt
	phrases    []string
	enumerated bool
	lastEnd    int
}

// columnsInRow takes each mention's likeliest column (the head table's
// when nearly as likely) until two mentions are far apart; false when a
// mention has no column that can be shown.
func (r *reader) columnsInRow(free []*colMention) (outputList, bool) {
	a := r.a
	ol := outputList{lastEnd: -1}
	for i, cm := range free {
		if len(cm.alts) == 0 {
			return ol, false
		}
		if i > 0 && cm.at-free[i-1].end > 3 {
			break // far apart: the list has ended
		}
		best := cm.alts[0]
		for _, al := range cm.alts {
			if r.h.t != nil && strings.EqualFold(al.table, r.h.t.Name) && al.weight >= 0.8*cm.alts[0].weight {
				best = al
				break
			}
		}
		if c := r.e.m.Column(best.table, best.column); c == nil || c.Kind() == warehouse.KindOther {
			return ol, false
		}
		ol.picked = append(ol.picked, best)
		ol.phrases = append(ol.phrases, cm.phrase)
		ol.lastEnd = cm.end
		if i > 0 {
			for k := free[i-1].end - 1; k < cm.at; k++ {
				if a.word(k) == "and" || a.toks[k].Break == ',' {
					ol.enumerated = true
				}
			}
		}
	}
	return ol, true
}

// labelBeforeList: "the name, email and city" — "name" is the head's
// label; "the cities in Texas and their population" — the things, then
// theirs.
func (r *reader) labelBeforeList(ol *outputList, first int) {
	a := r.a
	j := first - 1
	for j >= 0 && (a.toks[j].Break == ',' || a.word(j) == "and" || a.word(j) == "the" || a.word(j) == "their") {
		if a.word(j) != "the" && a.word(j) != "their" {
			ol.enumerated = true
		}
		if a.toks[j].Break == ',' && a.word(j) != "and" && a.word(j) != "the" && a.word(j) != "their" {
			break // "name, email": j is the list's first item
		}
		j--
	}
	h := r.h.t
	if h == nil || h.Label == nil {
		return
	}
	label := colAlt{table: h.Name, column: h.Label.Name, weight: 1}
	if isNameWord(a.word(j)) {
		ol.picked = append([]colAlt{label}, ol.picked...)
		ol.phrases = append([]string{a.toks[j].Raw}, ol.phrases...)
	} else if r.h.entity && (a.seq(first-2, "and", "their") || a.seq(first-2, "and", "its") || a.seq(first-3, "along", "with", "their")) {
		ol.picked = append([]colAlt{label}, ol.picked...)
		ol.phrases = append([]string{r.h.phrase}, ol.phrases...)
		ol.enumerated = true
	}
}

// labelClosingList: "the ids and titles of the books" — "names" closing
// the list is the head's label too.
func (r *reader) labelClosingList(ol *outputList) {
	a := r.a
	h := r.h.t
	if h == nil || h.Label == nil || ol.lastEnd <= 0 {
		return
	}
	k := ol.lastEnd
	if !(a.word(k) == "and" || a.toks[k-1].Break == ',' && a.word(k) != "and") {
		return
	}
	if a.word(k) == "and" {
		k++
	}
	if isNameWord(a.word(k)) && !slices.ContainsFunc(ol.picked, func(al colAlt) bool {
		return strings.EqualFold(al.column, h.Label.Name) && strings.EqualFold(al.table, h.Name)
	}) {
		ol.picked = append(ol.picked, colAlt{table: h.Name, column: h.Label.Name, weight: 1})
		ol.phrases = append(ol.phrases, a.toks[k].Raw)
		ol.enumerated = true
	}
}

// listItem is one thing a "return the A, B and C" list asks for: a column,
// an aggregate ("number of loans", "total amount") or a table's rows.
type listItem struct {
	phrase string
	col    *colMention
	aggs   []aggRead
	entity *entityMention
}

// listVerbs open a list of outputs.
var listVerbs = words.Set("listverb")

// returnList reads the outputs a question lists after a verb such as
// "return" ("Return the genre, number of loans, and total fee
// amount"), in order. Fewer than two items is no list, except one item
// after a verb opening a later sentence ("… ? Show the owner.").
func (r *reader) returnList() []listItem {
	a := r.a
	var single []listItem
	for k := range a.toks {
		if !listVerbs[a.word(k)] || a.toks[k].Clause != 0 {
			continue
		}
		items := r.listAfter(k + 1)
		if len(items) >= 2 {
			return items
		}
		if len(items) == 1 && single == nil && a.outputSentence(k+1) {
			single = items
		}
	}
	return single
}

// listFillers are the words between a list's items that are no item.
var listFillers = words.Set("listfiller")

// listAfter reads the items listed from j on, while commas or "and" join
// them.
func (r *reader) listAfter(j int) []listItem {
	a := r.a
	var items []listItem
	for j < len(a.toks) {
		for listFillers[a.word(j)] {
			j++
		}
		it, end, ok := r.listItemAt(j, items)
		if !ok {
			break
		}
		items = append(items, it)
		j = a.pastRelativeClause(end)
		if j == 0 || j >= len(a.toks) || a.toks[j-1].Break != 0 && a.toks[j-1].Break != ',' {
			break
		}
		if a.toks[j-1].Break != ',' && a.word(j) != "and" {
			break
		}
	}
	return items
}

// listItemAt reads one item at j: an aggregate said outright ("number of
// loans", "total fee"), a column, a table's rows ("the shop name": its
// label), or "name" after an item of a table ("the drug id and name").
func (r *reader) listItemAt(j int, items []listItem) (listItem, int, bool) {
	a := r.a
	start := j
	explicit := a.word(j) == "number" || a.word(j) == "count" || aggWords[a.word(j)] != ""
	var it listItem
	if aggs, end := r.aggregateAt(j); explicit && len(aggs) > 0 {
		it.aggs, j = aggs, end
	} else if cm := r.columnAt(j); cm != nil {
		it.col, j = cm, cm.end
	} else if em := r.entityAt(j); em != nil {
		it.entity, j = em, j+len(strings.Fields(em.phrase))
		if t := em.tables[0]; t.Label != nil && isNameWord(a.word(j)) && a.toks[j-1].Break == 0 {
			it.entity, it.col = nil, &colMention{phrase: a.phrase(start, j+1), at: start, end: j + 1, alts: []colAlt{{table: t.Name, column: t.Label.Name, weight: 1}}}
			j++
		}
	} else if t := r.lastItemTable(items); t != nil && t.Label != nil && isNameWord(a.word(j)) {
		it.col, j = &colMention{phrase: a.toks[j].Raw, at: j, end: j + 1, alts: []colAlt{{table: t.Name, column: t.Label.Name, weight: 1}}}, j+1
	} else {
		return it, j, false
	}
	it.phrase = a.phrase(start, j)
	return it, j, true
}

// pastRelativeClause: "number of distinct members who borrowed, and …" —
// a short relative clause on an item does not end the list; j moves past
// it when a comma or "and" follows it.
func (a *analysis) pastRelativeClause(j int) int {
	if relativeWords[a.word(j)] && j > 0 && a.toks[j-1].Break == 0 {
		k := j
		for k < len(a.toks) && k < j+4 && a.toks[k].Break == 0 && a.word(k+1) != "and" {
			k++
		}
		if k < len(a.toks) && k < j+4 && (a.toks[k].Break == ',' || a.word(k+1) == "and") {
			return k + 1
		}
	}
	return j
}

// lastItemTable is the table of the last listed item when it is one of
// that table's own columns, nil otherwise.
func (r *reader) lastItemTable(items []listItem) *schema.Table {
	// A bare "ids and names" says nothing of whose: the head's, read
	// elsewhere.
	if len(items) == 0 || items[len(items)-1].col == nil || len(items[len(items)-1].col.alts) == 0 || len(strings.Fields(items[len(items)-1].col.phrase)) < 2 {
		return nil
	}
	al := items[len(items)-1].col.alts[0]
	// "the model id and name": an id referring to another table's rows
	// is that table's, and so is the name.
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, al.table) && strings.EqualFold(j.FromColumn, al.column) {
			return r.e.m.ByName[strings.ToLower(j.ToTable)]
		}
	}
	return r.e.m.ByName[strings.ToLower(al.table)]
}

// sameColumn says whether a list item names the column al.
func (it listItem) sameColumn(al colAlt) bool {
	if it.col == nil {
		return false
	}
	for _, c := range it.col.alts {
		if strings.EqualFold(c.table, al.table) && strings.EqualFold(c.column, al.column) {
			return true
		}
	}
	return false
}

// listElement shows what a "return …" list names on an aggregated
// reading ("How many loans…? Give the count of loans
// and the total fines"): the listed aggregates and grouping columns in
// the list's order. Keeping the reading's own outputs stays an option.
func (r *reader) listElement() []*element {
	list := r.returnList()
	if len(list) < 2 {
		return nil
	}
	hasAgg := false
	for _, it := range list {
		hasAgg = hasAgg || len(it.aggs) > 0
	}
	if !hasAgg {
		return nil
	}
	var phrases []string
	for _, it := range list {
		phrases = append(phrases, it.phrase)
	}
	el := &element{name: "listed"}
	el.add(0.5, func(p *plan) {})
	el.add(1.5, func(p *plan) {
		if !p.aggregated {
			return
		}
		var selects, groups []sel
		for _, it := range list {
			switch {
			case len(it.aggs) > 0:
				ag := it.aggs[0]
				for _, s := range p.selects {
					for _, o := range it.aggs {
						if sameExpr(r.e.m, s.x, o.x) {
							ag = o
						}
					}
				}
				selects = append(selects, sel{x: ag.x, alias: ag.alias})
				p.use(ag.tables...)
				if ag.countOf != nil {
					p.countOf = ag.countOf
				}
			case it.col != nil:
				var found expr
				for _, g := range p.groups {
					for _, al := range it.col.alts {
						if sameExpr(r.e.m, g.x, r.exprOf(al)) {
							found = g.x
						}
					}
				}
				if found == nil && len(p.groups) == 0 && len(it.col.alts) > 0 {
					// "How many wards have beds? Give the ward
					// name and the count of beds": a count per name.
					al := it.col.alts[0]
					for _, c := range it.col.alts {
						if p.tables[strings.ToLower(c.table)] {
							al = c
							break
						}
					}
					found = r.exprOf(al)
					groups = append(groups, sel{x: found})
					p.use(al.table)
				}
				if found == nil {
					return // a column the reading does not group by: keep its own outputs
				}
				selects = append(selects, sel{x: found})
			default:
				return
			}
		}
		p.selects = selects
		p.groups = append(p.groups, groups...)
		p.phrases[keyOutput] = strings.Join(phrases, ", ")
	})
	return []*element{el}
}

// parenthesisedOutputs reads "shops (shop ID and name)": a list
// in brackets right after the noun naming the rows says which of their
// columns to show, in order; "name" is the rows' label, "ID" their key.
func (r *reader) parenthesisedOutputs(el *element) {
	a := r.a
	for _, em := range a.entities {
		t := em.tables[0]
		last := a.spanOf(em.at, em.phrase) - 1
		if a.toks[last].Break != '(' || a.toks[last].Clause != 0 {
			continue
		}
		var picked []colAlt
		var used []*colMention
		k := last + 1
		for k < len(a.toks) {
			switch w := a.word(k); {
			case w == "and" || w == "the" || w == "its" || w == "their":
				k++
				continue
			case (w == "name" || w == "names") && t.Label != nil:
				picked = append(picked, colAlt{table: t.Name, column: t.Label.Name, weight: 1})
				k++
			case (w == "id" || w == "ids") && t.Key != nil:
				picked = append(picked, colAlt{table: t.Name, column: t.Key.Name, weight: 1})
				k++
			default:
				cm := r.columnAt(k)
				if cm == nil || len(cm.alts) == 0 {
					return
				}
				best := cm.alts[0]
				for _, al := range cm.alts {
					if strings.EqualFold(al.table, t.Name) {
						best = al
						break
					}
				}
				picked = append(picked, best)
				used = append(used, cm)
				k = cm.end
			}
			if b := a.toks[k-1].Break; b == ')' {
				break
			} else if b != 0 && b != ',' {
				return
			}
		}
		if len(picked) < 2 || k > len(a.toks) || a.toks[k-1].Break != ')' {
			return
		}
		for _, cm := range used {
			r.usedCols[cm] = true
		}
		phrase := a.phrase(last+1, k)
		a.markUsed(last+1, k)
		el.add(3, func(p *plan) {
			for _, al := range picked {
				p.selects = append(p.selects, sel{x: r.exprOf(al)})
				p.use(al.table)
			}
			p.phrases[keyOutput] = phrase
		})
		return
	}
}

// listedColumns reads a "show/list/give me the A and B" list on a plain
// reading: each item a column ("order id", "product description"), or a
// table's rows named by their label ("Show both books and ratings"), in
// the list's order. A column word that refers back to one named before
// ("the easiness scores … and scores") is that column.
func (r *reader) listedColumns(el *element) {
	list := r.returnList()
	if len(list) == 1 {
		r.alsoShown(el, list[0])
	}
	if len(list) < 2 {
		return
	}
	var picked []colAlt
	var phrases []string
	for _, it := range list {
		switch {
		case len(it.aggs) > 0:
			return
		case it.col != nil && len(it.col.alts) > 0:
			picked = append(picked, r.listedAlt(it.col))
		case it.entity != nil:
			t := it.entity.tables[0]
			c := t.Label
			if c == nil {
				c = t.Key
			}
			if c == nil {
				return
			}
			picked = append(picked, colAlt{table: t.Name, column: c.Name, weight: 1})
		default:
			return
		}
		phrases = append(phrases, it.phrase)
	}
	for _, it := range list {
		if it.col != nil {
			r.usedCols[it.col] = true
		}
	}
	phrase := strings.Join(phrases, ", ")
	el.add(3, func(p *plan) {
		for _, al := range picked {
			p.selects = append(p.selects, sel{x: r.exprOf(al)})
			p.use(al.table)
		}
		p.phrases[keyOutput] = phrase
	})
}

// alsoShown reads "Which depots have the fewest vans? Show the van
// count.": a later sentence asking for one column of the things the
// question is about shows them (their label) and that column.
func (r *reader) alsoShown(el *element, it listItem) {
	h := r.h.t
	if h == nil || !r.h.entity || h.Label == nil || it.col == nil || !r.a.outputSentence(it.col.at) {
		return
	}
	i := slices.IndexFunc(it.col.alts, func(al colAlt) bool { return !al.computed() && strings.EqualFold(al.table, h.Name) })
	if i < 0 || strings.EqualFold(it.col.alts[i].column, h.Label.Name) {
		return
	}
	al := it.col.alts[i]
	el.add(3, func(p *plan) {
		p.selects = append(p.selects, sel{x: col(h.Name, h.Label.Name)}, sel{x: r.exprOf(al)})
		p.use(h.Name)
		p.phrases[keyOutput] = it.phrase
	})
}

// listedAlt is the column a listed item stands for: the one an earlier
// mention of the question named, else one of the subject's table nearly as
// likely as the first, else the first.
func (r *reader) listedAlt(cm *colMention) colAlt {
	for _, prev := range r.a.columns {
		if prev.at >= cm.at || prev.clause != 0 || len(prev.alts) == 0 {
			continue
		}
		for _, al := range cm.alts {
			if strings.EqualFold(al.table, prev.alts[0].table) && strings.EqualFold(al.column, prev.alts[0].column) && sameExpr(r.e.m, al.x, prev.alts[0].x) {
				return al
			}
		}
	}
	for _, al := range cm.alts {
		if r.h.t != nil && strings.EqualFold(al.table, r.h.t.Name) && al.weight >= 0.8*cm.alts[0].weight {
			return al
		}
	}
	return cm.alts[0]
}
