package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Projections: "what is the X of Y", "list customers in Ohio", "where is X".

// projection builds "what is the X of Y", "list customers in Ohio".
func (r *reader) projection() []*element {
	el := &element{name: "output"}
	r.parenthesisedOutputs(el)
	free := r.freeColumns()
	r.severalOutputs(el, free)
	r.listedColumns(el)
	free = r.nounColumns(free)
	r.freeColumnOutputs(el, free)
	r.hintOutputs(el, free)
	r.headLabelOutputs(el)
	if len(el.alts) == 0 {
		r.valueRowOutputs(el)
	}
	if len(el.alts) == 0 {
		return nil
	}
	return []*element{el}
}

// nounColumns keeps the column mentions that are nouns, if any, since a
// verb names no output when a noun does.
func (r *reader) nounColumns(free []*links.ColMention) []*links.ColMention {
	// "trains that run … the train numbers": a verb names no output
	// when a noun does.
	var nouns []*links.ColMention
	for _, cm := range free {
		if !r.verbMention(cm) {
			nouns = append(nouns, cm)
		}
	}
	if len(nouns) > 0 {
		free = nouns
	}
	return free
}

// freeColumnOutputs shows the first column named, summed when it measures many rows ("what was revenue in 2024").
func (r *reader) freeColumnOutputs(el *element, free []*links.ColMention) {
	if len(free) > 0 {
		cm := free[0] // the first free column is the answer
		// A column of the head's own name ("state" in "which state…") is the head, not an attribute.
		r.usedCols[cm] = true
		for _, al := range cm.Alts {
			w := al.Weight * r.boost(al.Table, al.Column)
			if r.h.t != nil && strings.EqualFold(al.Table, r.h.t.Name) {
				w *= 1.5
			}
			if r.valueTable(al.Table) {
				w *= 1.5
			}
			phrase := cm.Phrase
			plainW, sumW := w, 0.0
			if c := r.e.m.Column(al.Table, al.Column); c != nil && c.Kind() == warehouse.KindNumber && !r.namesOneRow(al.Table) &&
				(!r.h.entity || !strings.EqualFold(al.Table, r.h.t.Name)) && !r.isIdentifier(al) {
				// "what was revenue in 2024", "net revenue from Texas
				// customers": a measure over many rows is a total.
				plainW, sumW = w*0.3, w*0.7
				r.measureTables[strings.ToLower(al.Table)] = true
			}
			el.add(plainW, func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: r.exprOf(al)})
				p.use(al.Table)
				p.Phrases[keyOutput] = phrase
			})
			el.add(sumW, func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.AggOver("SUM", r.exprOf(al)), Alias: aliasFor("SUM", al.Column)})
				p.Aggregated = true
				p.use(al.Table)
				p.Phrases[keyMeasure] = phrase
			})
		}
	}
}

// hintOutputs shows what "how big" or "where" asks of the rows the values name ("where is Ohio").
func (r *reader) hintOutputs(el *element, free []*links.ColMention) {
	a := r.a
	hint := a.HowAdj
	if hint != "" || a.Where {
		// "how big is the north depot", "how tall is the tallest van of the fleet":
		// the adjective names the measure; columns of the table the value
		// names a row of come first, and those sharing words with the
		// question's other column words.
		tables := r.valueTables()
		if a.Where {
			// "where is New Hampshire": where the thing the value names
			// is — columns of the table whose rows it names.
			var named []*schema.Table
			for _, t := range tables {
				if t.Label != nil && r.valueColumn(t.Name, t.Label.Name) || t.Key != nil && r.valueColumn(t.Name, t.Key.Name) {
					named = append(named, t)
				}
			}
			if len(named) > 0 {
				tables = named
			}
		}
		for _, t := range tables {
			if a.Where {
				// Where a thing is: all its place columns, in the
				// table's order (city and state, or latitude and
				// longitude); each alone stays an option.
				var all []*warehouse.Column
				for _, c := range r.hintColumns(t, hint, true) {
					if !r.valueColumn(t.Name, c.Name) {
						all = append(all, c)
					}
				}
				if len(all) > 1 {
					w := 2.4
					if r.namesOneRow(t.Name) {
						w *= 2
					}
					el.add(w, func(p *Plan) {
						for _, c := range all {
							p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(t.Name, c.Name)})
						}
						p.use(t.Name)
					})
				}
			}
			for i, c := range r.hintColumns(t, hint, a.Where) {
				if a.Where && r.valueColumn(t.Name, c.Name) {
					continue // "where is Ohio" is not answered by "Ohio"
				}
				w := 1.6 / float64(i+1)
				if r.namesOneRow(t.Name) {
					w *= 2
				}
				for _, fc := range free {
					for _, word := range strings.Fields(strings.ToLower(fc.Phrase)) {
						if len(word) > 3 && strings.Contains(strings.ToLower(c.Name), word) {
							w *= 1.5
						}
					}
				}
				el.add(w, func(p *Plan) {
					p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(t.Name, c.Name)})
					p.use(t.Name)
				})
			}
		}
	}
}

// headLabelOutputs shows the head's label or details: things are shown by their names, less likely when a column is named.
func (r *reader) headLabelOutputs(el *element) {
	if h := r.h.t; h != nil && h.Label != nil {
		w := 0.7
		if len(el.alts) > 0 {
			w = 0.5
		}
		hp := r.h.phrase
		el.add(w, func(p *Plan) {
			p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, h.Label.Name)})
			p.use(h.Name)
			p.Phrases[keyOutput] = hp
		})
		if len(h.Details) > 1 {
			el.add(w*0.7, func(p *Plan) {
				for _, c := range h.Details {
					p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(h.Name, c.Name)})
				}
				p.use(h.Name)
				p.Phrases[keyOutput] = hp
			})
		}
	}
}

// valueRowOutputs shows the rows the values name when nothing else is asked ("texas").
func (r *reader) valueRowOutputs(el *element) {
	// Only values were named ("texas"): show their rows.
	for _, t := range r.valueTables() {
		el.add(1, func(p *Plan) {
			cols := t.Details
			if len(cols) == 0 && t.Label != nil {
				cols = []*warehouse.Column{t.Label}
			}
			for _, c := range cols {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Col(t.Name, c.Name)})
			}
			p.use(t.Name)
		})
	}
}

// namesOneRow says whether a value in the question names a row of table by
// its label ("texas" for the state table): then a number is that row's.
func (r *reader) namesOneRow(table string) bool {
	t := r.e.m.ByName[strings.ToLower(table)]
	if t == nil || t.Label == nil {
		return false
	}
	for _, vm := range r.a.Values {
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, table) && strings.EqualFold(al.Column, t.Label.Name) {
				return true
			}
		}
	}
	return false
}

func (r *reader) valueTable(table string) bool {
	for _, vm := range r.a.Values {
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, table) {
				return true
			}
		}
	}
	return false
}

func (r *reader) valueTables() []*schema.Table {
	seen := map[string]bool{}
	var out []*schema.Table
	for _, vm := range r.a.Values {
		for _, al := range vm.Alts {
			k := strings.ToLower(al.Table)
			if !seen[k] {
				seen[k] = true
				if t := r.e.m.ByName[k]; t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

var placeNames = words.List("place")

var coordinateNames = words.List("coordinate")

// hintColumns are the columns of t a size word or "where" asks for.
func (r *reader) hintColumns(t *schema.Table, hint string, where bool) []*warehouse.Column {
	var out []*warehouse.Column
	if where {
		for ci := range t.Def.Columns {
			c := &t.Def.Columns[ci]
			n := strings.ToLower(c.Name)
			names := placeNames
			if c.Kind() == warehouse.KindNumber {
				// Coordinates: "where is the plant" → its latitude and longitude.
				names = coordinateNames
			} else if c.Kind() != warehouse.KindText {
				continue
			}
			for _, w := range names {
				if n == w || strings.Contains(n, w) && len(w) > 3 {
					out = append(out, c)
					break
				}
			}
		}
		return out
	}
	stems := hintStems[hint]
	for _, c := range t.Measures {
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
func (r *reader) relatedFacts(t *schema.Table) []*schema.Table {
	var out []*schema.Table
	seen := map[string]bool{strings.ToLower(t.Name): true}
	frontier := []string{strings.ToLower(t.Name)}
	for depth := 0; depth < 2; depth++ {
		var next []string
		for _, j := range r.e.m.Snap.Schema.Joins {
			for _, f := range frontier {
				if strings.EqualFold(j.ToTable, f) && !seen[strings.ToLower(j.FromTable)] {
					seen[strings.ToLower(j.FromTable)] = true
					if ft := r.e.m.ByName[strings.ToLower(j.FromTable)]; ft != nil {
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

// isIdentifier says whether a column mention names row identifiers
// ("member IDs"), which are listed, never added up.
func (r *reader) isIdentifier(al links.ColAlt) bool {
	t := r.e.m.ByName[strings.ToLower(al.Table)]
	c := r.e.m.Column(al.Table, al.Column)
	return !al.Computed() && t != nil && c != nil && r.e.m.IsKeyish(t.Def, c)
}

// valueColumn says whether the question names a stored value of
// table.column.
func (r *reader) valueColumn(table, column string) bool {
	for _, vm := range r.a.Values {
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, table) && strings.EqualFold(al.Column, column) {
				return true
			}
		}
	}
	return false
}
