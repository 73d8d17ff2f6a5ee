package plan

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// severalOutputs reads "return the name, country and capacity", "list
// the titles and years": columns named in a row, joined by "and" or
// commas, are all shown, in the question's order. Each mention's likeliest
// column stands for it; a mention of the head table's column is preferred.
func (r *reader) severalOutputs(el *element, free []*links.ColMention) {
	if len(free) < 1 {
		return
	}
	ol, ok := r.columnsInRow(free)
	if !ok {
		return
	}
	r.labelBeforeList(&ol, free[0].At)
	r.labelClosingList(&ol)
	if len(ol.picked) < 2 {
		return
	}
	w := 0.4
	if ol.enumerated {
		w = 2
	}
	picked, phrase := ol.picked, strings.Join(ol.phrases, ", ")
	el.add(w, func(p *Plan) {
		for _, al := range picked {
			p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
			p.use(al.Table)
		}
		p.Phrases[keyOutput] = phrase
	})
}

// outputList is the columns a row of mentions lists, with their words;
// enumerated when "and" or a comma joins them.
type outputList struct {
	picked     []links.ColAlt
	phrases    []string
	enumerated bool
	lastEnd    int
}

// columnsInRow takes each mention's likeliest column (the head table's
// when nearly as likely) until two mentions are far apart; false when a
// mention has no column that can be shown.
func (r *reader) columnsInRow(free []*links.ColMention) (outputList, bool) {
	a := r.a
	ol := outputList{lastEnd: -1}
	for i, cm := range free {
		if len(cm.Alts) == 0 {
			return ol, false
		}
		if i > 0 && cm.At-free[i-1].End > 3 {
			break // far apart: the list has ended
		}
		best := cm.Alts[0]
		for _, al := range cm.Alts {
			if r.h.t != nil && strings.EqualFold(al.Table, r.h.t.Name) && al.Weight >= 0.8*cm.Alts[0].Weight {
				best = al
				break
			}
		}
		if c := r.e.m.Column(best.Table, best.Column); c == nil || c.Kind() == warehouse.KindOther {
			return ol, false
		}
		ol.picked = append(ol.picked, best)
		ol.phrases = append(ol.phrases, cm.Phrase)
		ol.lastEnd = cm.End
		if i > 0 {
			for k := free[i-1].End - 1; k < cm.At; k++ {
				if a.Word(k) == "and" || a.Toks[k].Break == ',' {
					ol.enumerated = true
				}
			}
		}
	}
	return ol, true
}

// listArticles come before a list's items without being one: "show the
// plate, and the depot of the vans" (connectives.tsv).
var listArticles = words.Set("listarticle")

// labelBeforeList: "the name, email and city" — "name" is the head's
// label; "the cities in Texas and their population" — the things, then
// theirs.
func (r *reader) labelBeforeList(ol *outputList, first int) {
	a := r.a
	j := first - 1
	for j >= 0 && (a.Toks[j].Break == ',' || a.Word(j) == "and" || listArticles[a.Word(j)]) {
		if !listArticles[a.Word(j)] {
			ol.enumerated = true
		}
		if a.Toks[j].Break == ',' && a.Word(j) != "and" && !listArticles[a.Word(j)] {
			break // "name, email": j is the list's first item
		}
		j--
	}
	h := r.h.t
	if h == nil || h.Label == nil {
		return
	}
	label := links.ColAlt{Table: h.Name, Column: h.Label.Name, Weight: 1}
	if IsNameWord(a.Word(j)) {
		ol.picked = append([]links.ColAlt{label}, ol.picked...)
		ol.phrases = append([]string{a.Toks[j].Raw}, ol.phrases...)
	} else if r.h.entity && (a.Seq(first-2, "and", "their") || a.Seq(first-2, "and", "its") || a.Seq(first-3, "along", "with", "their")) {
		ol.picked = append([]links.ColAlt{label}, ol.picked...)
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
	if !(a.Word(k) == "and" || a.Toks[k-1].Break == ',' && a.Word(k) != "and") {
		return
	}
	if a.Word(k) == "and" {
		k++
	}
	if IsNameWord(a.Word(k)) && !slices.ContainsFunc(ol.picked, func(al links.ColAlt) bool {
		return strings.EqualFold(al.Column, h.Label.Name) && strings.EqualFold(al.Table, h.Name)
	}) {
		ol.picked = append(ol.picked, links.ColAlt{Table: h.Name, Column: h.Label.Name, Weight: 1})
		ol.phrases = append(ol.phrases, a.Toks[k].Raw)
		ol.enumerated = true
	}
}

// listItem is one thing a "return the A, B and C" list asks for: a column,
// an aggregate ("number of loans", "total amount") or a table's rows.
type listItem struct {
	phrase string
	col    *links.ColMention
	aggs   []aggRead
	entity *links.EntityMention
}

// returnList reads the outputs a question lists after a verb such as
// "return" ("Return the genre, number of loans, and total fee
// amount"), in order. Fewer than two items is no list, except one item
// after a verb opening a later sentence ("… ? Show the owner.").
func (r *reader) returnList() []listItem {
	a := r.a
	var single []listItem
	for k := range a.Toks {
		if !links.ListVerbs[a.Word(k)] || a.Toks[k].Clause != 0 {
			continue
		}
		items := r.listAfter(k + 1)
		if len(items) >= 2 {
			return items
		}
		if len(items) == 1 && single == nil && OutputSentence(a, k+1) {
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
	for j < len(a.Toks) {
		for listFillers[a.Word(j)] {
			j++
		}
		it, end, ok := r.listItemAt(j, items)
		if !ok {
			break
		}
		items = append(items, it)
		j = pastRelativeClause(a, end)
		if j == 0 || j >= len(a.Toks) || a.Toks[j-1].Break != 0 && a.Toks[j-1].Break != ',' {
			break
		}
		if a.Toks[j-1].Break != ',' && a.Word(j) != "and" {
			break
		}
	}
	return items
}

// countNouns open an aggregate said outright: "number of loans",
// "count of visits" (countnouns.tsv).
var countNouns = words.Set("numbercount")

// listItemAt reads one item at j: an aggregate said outright ("number of
// loans", "total fee"), a column, a table's rows ("the shop name": its
// label), or "name" after an item of a table ("the drug id and name").
func (r *reader) listItemAt(j int, items []listItem) (listItem, int, bool) {
	a := r.a
	start := j
	explicit := countNouns[a.Word(j)] || read.AggWords[a.Word(j)] != ""
	var it listItem
	if aggs, end := r.aggregateAt(j); explicit && len(aggs) > 0 {
		it.aggs, j = aggs, end
	} else if cm := r.columnAt(j); cm != nil {
		it.col, j = cm, cm.End
	} else if em := r.entityAt(j); em != nil {
		it.entity, j = em, j+len(strings.Fields(em.Phrase))
		if t := em.Tables[0]; t.Label != nil && IsNameWord(a.Word(j)) && a.Toks[j-1].Break == 0 {
			it.entity, it.col = nil, &links.ColMention{Phrase: a.Phrase(start, j+1), At: start, End: j + 1, Alts: []links.ColAlt{{Table: t.Name, Column: t.Label.Name, Weight: 1}}}
			j++
		}
	} else if t := r.lastItemTable(items); t != nil && t.Label != nil && IsNameWord(a.Word(j)) {
		it.col, j = &links.ColMention{Phrase: a.Toks[j].Raw, At: j, End: j + 1, Alts: []links.ColAlt{{Table: t.Name, Column: t.Label.Name, Weight: 1}}}, j+1
	} else {
		return it, j, false
	}
	it.phrase = a.Phrase(start, j)
	return it, j, true
}

// pastRelativeClause: "number of distinct members who borrowed, and …" —
// a short relative clause on an item does not end the list; j moves past
// it when a comma or "and" follows it.
func pastRelativeClause(a *links.Analysis, j int) int {
	if relativeWords[a.Word(j)] && j > 0 && a.Toks[j-1].Break == 0 {
		k := j
		for k < len(a.Toks) && k < j+4 && a.Toks[k].Break == 0 && a.Word(k+1) != "and" {
			k++
		}
		if k < len(a.Toks) && k < j+4 && (a.Toks[k].Break == ',' || a.Word(k+1) == "and") {
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
	if len(items) == 0 || items[len(items)-1].col == nil || len(items[len(items)-1].col.Alts) == 0 || len(strings.Fields(items[len(items)-1].col.Phrase)) < 2 {
		return nil
	}
	al := items[len(items)-1].col.Alts[0]
	// "the model id and name": an id referring to another table's rows
	// is that table's, and so is the name.
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, al.Table) && strings.EqualFold(j.FromColumn, al.Column) {
			return r.e.m.ByName[strings.ToLower(j.ToTable)]
		}
	}
	return r.e.m.ByName[strings.ToLower(al.Table)]
}

// sameColumn says whether a list item names the column al.
func (it listItem) sameColumn(al links.ColAlt) bool {
	if it.col == nil {
		return false
	}
	for _, c := range it.col.Alts {
		if strings.EqualFold(c.Table, al.Table) && strings.EqualFold(c.Column, al.Column) {
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
	el.add(0.5, func(p *Plan) {})
	el.add(1.5, func(p *Plan) {
		if !p.Aggregated {
			return
		}
		var selects, groups []Sel
		for _, it := range list {
			switch {
			case len(it.aggs) > 0:
				ag := it.aggs[0]
				for _, s := range p.Selects {
					for _, o := range it.aggs {
						if SameExpr(r.e.m, s.X, o.x) {
							ag = o
						}
					}
				}
				selects = append(selects, Sel{X: ag.x, Alias: ag.alias})
				p.use(ag.tables...)
				if ag.countOf != nil {
					p.CountOf = ag.countOf
				}
			case it.col != nil:
				var found sqlexpr.Expr
				for _, g := range p.Groups {
					for _, al := range it.col.Alts {
						if SameExpr(r.e.m, g.X, r.exprOf(al)) {
							found = g.X
						}
					}
				}
				if found == nil && len(p.Groups) == 0 && len(it.col.Alts) > 0 {
					// "How many wards have beds? Give the ward
					// name and the count of beds": a count per name.
					al := it.col.Alts[0]
					for _, c := range it.col.Alts {
						if p.Tables[strings.ToLower(c.Table)] {
							al = c
							break
						}
					}
					found = r.exprOf(al)
					groups = append(groups, Sel{X: found})
					p.use(al.Table)
				}
				if found == nil {
					return // a column the reading does not group by: keep its own outputs
				}
				selects = append(selects, Sel{X: found})
			default:
				return
			}
		}
		p.Selects = selects
		p.Groups = append(p.Groups, groups...)
		p.Phrases[keyOutput] = strings.Join(phrases, ", ")
	})
	return []*element{el}
}

// labelFillers sit between the columns a bracket lists: "vehicles
// (plate and its depot)" (connectives.tsv).
var labelFillers = words.Set("labelfiller")

// idNouns in brackets ask for the rows' key: "patients (id and name)"
// (countnouns.tsv).
var idNouns = words.Set("bracketid")

// parenthesisedOutputs reads "shops (shop ID and name)": a list
// in brackets right after the noun naming the rows says which of their
// columns to show, in order; "name" is the rows' label, "ID" their key.
func (r *reader) parenthesisedOutputs(el *element) {
	a := r.a
	for _, em := range a.Entities {
		t := em.Tables[0]
		last := a.SpanOf(em.At, em.Phrase) - 1
		if a.Toks[last].Break != '(' || a.Toks[last].Clause != 0 {
			continue
		}
		var picked []links.ColAlt
		var used []*links.ColMention
		k := last + 1
		for k < len(a.Toks) {
			switch w := a.Word(k); {
			case labelFillers[w]:
				k++
				continue
			case nameWords[w] && t.Label != nil:
				picked = append(picked, links.ColAlt{Table: t.Name, Column: t.Label.Name, Weight: 1})
				k++
			case idNouns[w] && t.Key != nil:
				picked = append(picked, links.ColAlt{Table: t.Name, Column: t.Key.Name, Weight: 1})
				k++
			default:
				cm := r.columnAt(k)
				if cm == nil || len(cm.Alts) == 0 {
					return
				}
				best := cm.Alts[0]
				for _, al := range cm.Alts {
					if strings.EqualFold(al.Table, t.Name) {
						best = al
						break
					}
				}
				picked = append(picked, best)
				used = append(used, cm)
				k = cm.End
			}
			if b := a.Toks[k-1].Break; b == ')' {
				break
			} else if b != 0 && b != ',' {
				return
			}
		}
		if len(picked) < 2 || k > len(a.Toks) || a.Toks[k-1].Break != ')' {
			return
		}
		for _, cm := range used {
			r.usedCols[cm] = true
		}
		phrase := a.Phrase(last+1, k)
		a.MarkUsed(last+1, k)
		el.add(3, func(p *Plan) {
			for _, al := range picked {
				p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
				p.use(al.Table)
			}
			p.Phrases[keyOutput] = phrase
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
	var picked []links.ColAlt
	var phrases []string
	for _, it := range list {
		switch {
		case len(it.aggs) > 0:
			return
		case it.col != nil && len(it.col.Alts) > 0:
			picked = append(picked, r.listedAlt(it.col))
		case it.entity != nil:
			t := it.entity.Tables[0]
			c := t.Label
			if c == nil {
				c = t.Key
			}
			if c == nil {
				return
			}
			picked = append(picked, links.ColAlt{Table: t.Name, Column: c.Name, Weight: 1})
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
	el.add(3, func(p *Plan) {
		for _, al := range picked {
			p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
			p.use(al.Table)
		}
		p.Phrases[keyOutput] = phrase
	})
}

// alsoShown reads "Which depots have the fewest vans? Show the van
// count.": a later sentence asking for one column of the things the
// question is about shows them (their label) and that column.
func (r *reader) alsoShown(el *element, it listItem) {
	h := r.h.t
	if h == nil || !r.h.entity || h.Label == nil || it.col == nil || !OutputSentence(r.a, it.col.At) {
		return
	}
	i := slices.IndexFunc(it.col.Alts, func(al links.ColAlt) bool { return !al.Computed() && strings.EqualFold(al.Table, h.Name) })
	if i < 0 || strings.EqualFold(it.col.Alts[i].Column, h.Label.Name) {
		return
	}
	al := it.col.Alts[i]
	el.add(3, func(p *Plan) {
		p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, h.Label.Name)}, Sel{X: r.exprOf(al)})
		p.use(h.Name)
		p.Phrases[keyOutput] = it.phrase
	})
}

// listedAlt is the column a listed item stands for: the one an earlier
// mention of the question named, else one of the subject's table nearly as
// likely as the first, else the first.
func (r *reader) listedAlt(cm *links.ColMention) links.ColAlt {
	for _, prev := range r.a.Columns {
		if prev.At >= cm.At || prev.Clause != 0 || len(prev.Alts) == 0 {
			continue
		}
		for _, al := range cm.Alts {
			if strings.EqualFold(al.Table, prev.Alts[0].Table) && strings.EqualFold(al.Column, prev.Alts[0].Column) && SameExpr(r.e.m, al.X, prev.Alts[0].X) {
				return al
			}
		}
	}
	for _, al := range cm.Alts {
		if r.h.t != nil && strings.EqualFold(al.Table, r.h.t.Name) && al.Weight >= 0.8*cm.Alts[0].Weight {
			return al
		}
	}
	return cm.Alts[0]
}
