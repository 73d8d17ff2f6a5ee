package plan

import (
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Grouping: "per segment", "in each country", "monthly", and the date columns buckets and time conditions use.

// groupElement builds "per X", "by month".
func (r *reader) groupElement() []*element {
	var els []*element
	for _, g := range r.a.Groups {
		el := &element{name: "group"}
		if g.TimeUnit != "" {
			yearFiltered := false
			for _, t := range r.a.Times {
				if t.Year != "" {
					yearFiltered = true
				}
			}
			// Per period, in time order.
			byPeriod := func(p *Plan, x sqlexpr.Expr, table string) {
				p.Groups = append(p.Groups, Sel{X: x})
				p.Selects = append([]Sel{{X: x, Alias: g.TimeUnit}}, p.Selects...)
				p.Order = &Sel{X: x}
				p.Desc = false
				p.use(table)
				p.Phrases[keyGroup] = g.Phrase
			}
			// "in each year" over a table that stores the year itself.
			for _, pc := range r.periodColumns(g.TimeUnit) {
				el.add(2*pc.Weight, func(p *Plan) {
					byPeriod(p, sqlexpr.Col(pc.Table, pc.Column), pc.Table)
				})
			}
			for _, dc := range r.dateColumns() {
				bucket := timeBucket(sqlexpr.Col(dc.Table, dc.Column), g.TimeUnit, yearFiltered)
				el.add(dc.Weight, func(p *Plan) {
					p.DateCols[sqlexpr.Col(dc.Table, dc.Column)] = true
					byPeriod(p, bucket, dc.Table)
				})
			}
		} else {
			em, cm := r.mentionAt(g.At)
			if em != nil {
				// "across car makers": the table's column.
				if next := r.columnAt(r.a.SpanOf(em.At, em.Phrase)); next != nil {
					for _, al := range next.Alts {
						if strings.EqualFold(al.Table, em.Tables[0].Name) {
							em, cm = nil, next
							break
						}
					}
				}
			}
			if em != nil && r.pairGroups(el, em, g) {
				r.a.MarkUsed(r.a.SpanOf(em.At, em.Phrase), r.a.SpanOf(em.At, em.Phrase)+1)
				em = nil
			}
			switch {
			case em != nil:
				t := em.Tables[0]
				if g.Per && r.a.Agg == "AVG" && r.measureTables[strings.ToLower(t.Name)] {
					// "average shipping fee per order" where the fee is the
					// order's own: the average over orders, not one group
					// per order (each a single row).
					el.add(2, func(p *Plan) {
						p.Covered = append(p.Covered, g.Phrase)
					})
				}
				var named []links.ColAlt
				if r.a.Count || r.a.Agg != "" {
					named = r.namedColumnsOf(t, g.At)
				}
				w := 1.0
				if len(named) > 0 {
					// "book ids and the count of loans of each book":
					// the columns the question names show the group.
					w = 0.3
					el.add(1, func(p *Plan) {
						r.prependGroupShowing(p, t, named)
						p.PerEntity = t
						p.Phrases[keyGroup] = g.Phrase
					})
				}
				el.add(w, func(p *Plan) {
					r.prependGroup(p, t)
					p.PerEntity = t
					p.Phrases[keyGroup] = g.Phrase
				})
				// "lakes in each state": the measured rows may carry the
				// group's name themselves (lake.state_name), no join needed.
				for _, fk := range r.namingColumns(t) {
					el.add(0.8, func(p *Plan) {
						x := sqlexpr.Col(fk.Table, fk.Column)
						p.Groups = append(p.Groups, Sel{X: x})
						p.Selects = append([]Sel{{X: x}}, p.Selects...)
						p.use(fk.Table)
						p.Phrases[keyGroup] = g.Phrase
					})
				}
			case cm != nil:
				r.usedCols[cm] = true
				for _, al := range cm.Alts {
					c := r.e.m.Column(al.Table, al.Column)
					// Ids make poor groups unless named ("for each product ID").
					if c == nil || c.Kind() == warehouse.KindNumber && r.e.m.IsKeyish(r.e.m.ByName[strings.ToLower(al.Table)].Def, c) && !namesIdentifier(cm.Phrase) {
						continue
					}
					w := al.Weight * r.boost(al.Table, al.Column)
					// "length of routes in each region": the region
					// column of the routes, not of some other table.
					if r.measureTables[strings.ToLower(al.Table)] || r.h.t != nil && strings.EqualFold(al.Table, r.h.t.Name) {
						w *= 2.5
					}
					el.add(w, func(p *Plan) {
						x := r.exprOf(al)
						p.Groups = append(p.Groups, Sel{X: x})
						p.Selects = append([]Sel{{X: x}}, p.Selects...)
						p.use(al.Table)
						p.Phrases[keyGroup] = g.Phrase
					})
				}
			}
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

// namingColumns are the columns of the measured tables that hold t's
// label through a join (lake.state_name for state.state_name).
func (r *reader) namingColumns(t *schema.Table) []links.ColAlt {
	if t.Label == nil {
		return nil
	}
	var out []links.ColAlt
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.ToTable, t.Name) && strings.EqualFold(j.ToColumn, t.Label.Name) && r.measureTables[strings.ToLower(j.FromTable)] && !strings.EqualFold(j.FromTable, t.Name) {
			out = append(out, links.ColAlt{Table: j.FromTable, Column: j.FromColumn, Weight: 1})
		}
	}
	return out
}

// namedColumnsOf are the columns of t the question names before its
// grouping phrase and no other part reads ("book ids … in each book"):
// what the person wants each group shown by.
func (r *reader) namedColumnsOf(t *schema.Table, before int) []links.ColAlt {
	var out []links.ColAlt
	for _, cm := range r.a.Columns {
		if cm.At >= before || cm.Clause != 0 || r.isGroupMention(cm) || r.isComparisonTarget(cm) || r.isOrderKey(cm) {
			continue
		}
		for _, al := range cm.Alts {
			if strings.EqualFold(al.Table, t.Name) && !al.Computed() {
				r.usedCols[cm] = true
				out = append(out, al)
				break
			}
		}
	}
	return out
}

// prependGroupShowing groups by t's rows and shows the named columns of
// t in front instead of its label.
func (r *reader) prependGroupShowing(p *Plan, t *schema.Table, named []links.ColAlt) {
	var keys, shown []Sel
	if t.Key != nil {
		keys = append(keys, Sel{X: sqlexpr.Col(t.Name, t.Key.Name)})
	}
	for _, al := range named {
		x := sqlexpr.Col(al.Table, al.Column)
		shown = append(shown, Sel{X: x})
		if t.Key == nil || !strings.EqualFold(al.Column, t.Key.Name) {
			keys = append(keys, Sel{X: x})
		}
	}
	p.Selects = append(shown, p.Selects...)
	p.Groups = append(p.Groups, keys...)
	p.use(t.Name)
}

func (r *reader) prependGroup(p *Plan, t *schema.Table) {
	var keys []Sel
	if t.Key != nil && t.Key != t.Label {
		keys = append(keys, Sel{X: sqlexpr.Col(t.Name, t.Key.Name)})
	}
	if t.Label != nil {
		keys = append(keys, Sel{X: sqlexpr.Col(t.Name, t.Label.Name)})
		p.Selects = append([]Sel{{X: sqlexpr.Col(t.Name, t.Label.Name)}}, p.Selects...)
	}
	p.Groups = append(p.Groups, keys...)
	p.use(t.Name)
}

// timeBucket is the period of a date: its year, quarter, month, week or
// day; within one year the quarter or month number alone.
func timeBucket(c sqlexpr.Expr, unit string, withinYear bool) sqlexpr.Expr {
	switch unit {
	case "year":
		return sqlexpr.Fn("YEAR", c)
	case "quarter":
		if withinYear {
			return sqlexpr.Fn("QUARTER", c)
		}
		return sqlexpr.Fn("CONCAT", sqlexpr.Fn("YEAR", c), sqlexpr.Str("-Q"), sqlexpr.Fn("QUARTER", c))
	case "month":
		if withinYear {
			return sqlexpr.Fn("MONTH", c)
		}
		return sqlexpr.Fn("DATE_FORMAT", c, sqlexpr.Str("%Y-%m"))
	case "week":
		return sqlexpr.Fn("YEARWEEK", c)
	}
	return sqlexpr.Fn("DATE", c)
}

// dateColumns are the date columns a time condition may apply to: those of
// the measure's tables and the head first, then of tables that refer to
// the head.
func (r *reader) dateColumns() []links.ColAlt {
	var out []links.ColAlt
	seen := map[string]bool{}
	add := func(t *schema.Table, w float64) {
		for _, c := range t.Dates {
			k := strings.ToLower(t.Name + "." + c.Name)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, links.ColAlt{Table: t.Name, Column: c.Name, Weight: w * r.boost(t.Name, c.Name) * r.mentioned(t.Name, c.Name) * eventDate(r.a, c.Name, c.Comment)})
		}
	}
	for _, name := range read.SortedNames(r.measureTables) {
		if t := r.e.m.ByName[name]; t != nil {
			add(t, 1)
			// Order lines have no date; the orders they belong to do.
			if len(t.Dates) == 0 {
				for _, ref := range r.referenced(t) {
					add(ref, 0.8)
				}
			}
		}
	}
	if r.h.t != nil {
		add(r.h.t, 1)
		for _, f := range r.relatedFacts(r.h.t) {
			add(f, 0.1)
		}
	}
	// A table joined only for a value ("Texas customers") rarely holds
	// the date the question means.
	for _, vt := range r.valueTables() {
		add(vt, 0.15)
	}
	if len(out) == 0 {
		for _, t := range r.e.m.Tables {
			add(t, 0.2)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
	return out
}

// referenced are the tables t's rows point to (order lines → orders, products).
func (r *reader) referenced(t *schema.Table) []*schema.Table {
	var out []*schema.Table
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, t.Name) {
			if rt := r.e.m.ByName[strings.ToLower(j.ToTable)]; rt != nil && rt != t {
				out = append(out, rt)
			}
		}
	}
	return out
}

// mentioned favours a date column the question itself names ("shipped in 2024").
func (r *reader) mentioned(table, column string) float64 {
	for _, cm := range r.a.Columns {
		for i, al := range cm.Alts {
			if i < 2 && strings.EqualFold(al.Table, table) && strings.EqualFold(al.Column, column) {
				r.usedCols[cm] = true
				return 4
			}
		}
	}
	name := strings.ToLower(column)
	for _, t := range r.a.Toks {
		if len(t.Low) > 3 && !t.IsNum && strings.HasPrefix(name, strings.TrimSuffix(strings.TrimSuffix(t.Low, "ed"), "ped")) && strings.Contains(name, "_") {
			return 3
		}
	}
	return 1
}

// identifierNouns ask for identifiers: "the book ids", "patient
// codes" (countnouns.tsv).
var identifierNouns = words.Set("idcode")

// namesIdentifier says whether a phrase asks for identifiers ("product ID",
// "product codes").
func namesIdentifier(phrase string) bool {
	for _, w := range strings.Fields(strings.ToLower(phrase)) {
		if identifierNouns[w] {
			return true
		}
	}
	return false
}

// pairNouns after a thing group by two references to it: "for each
// depot pair" (countnouns.tsv).
var pairNouns = words.Set("pairnoun")

// pairGroups reads "for each city pair": the measured rows point at
// the thing twice (transfers.from_city, transfers.to_city → city), and each
// pair of those references is a group.
func (r *reader) pairGroups(el *element, em *links.EntityMention, g *links.GroupMention) bool {
	end := r.a.SpanOf(em.At, em.Phrase)
	if !pairNouns[r.a.Word(end)] {
		return false
	}
	t := em.Tables[0]
	refs := map[string][]sqlexpr.ColRef{}
	for _, j := range r.e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.ToTable, t.Name) && r.measureTables[strings.ToLower(j.FromTable)] && !strings.EqualFold(j.FromTable, t.Name) {
			ref := sqlexpr.Col(j.FromTable, j.FromColumn)
			if !slices.Contains(refs[j.FromTable], ref) {
				refs[j.FromTable] = append(refs[j.FromTable], ref)
			}
		}
	}
	found := false
	for _, from := range read.SortedNames(ToSet(refs)) {
		cols := refs[from]
		if len(cols) != 2 {
			continue
		}
		found = true
		el.add(1, func(p *Plan) {
			var shown []Sel
			for _, c := range cols {
				p.Groups = append(p.Groups, Sel{X: c})
				shown = append(shown, Sel{X: c})
			}
			p.Selects = append(shown, p.Selects...)
			p.use(from)
			p.Phrases[keyGroup] = g.Phrase
		})
	}
	return found
}

// ToSet is the set of m's keys.
func ToSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// periodColumns are columns that store a period itself ("year",
// "fiscal_year", "month_no") in the tables the question measures or is
// about.
func (r *reader) periodColumns(unit string) []links.ColAlt {
	var tables []*schema.Table
	for _, name := range read.SortedNames(r.measureTables) {
		if t := r.e.m.ByName[name]; t != nil {
			tables = append(tables, t)
		}
	}
	if r.h.t != nil {
		tables = append(tables, r.h.t)
	}
	var out []links.ColAlt
	seen := map[string]bool{}
	for _, t := range tables {
		for ci := range t.Def.Columns {
			c := &t.Def.Columns[ci]
			n := strings.ToLower(c.Name)
			if c.Kind() == warehouse.KindTime || !(n == unit || strings.HasSuffix(n, "_"+unit) || strings.HasPrefix(n, unit+"_") && (strings.HasSuffix(n, "_no") || strings.HasSuffix(n, "_num") || strings.HasSuffix(n, "_number"))) {
				continue
			}
			k := strings.ToLower(t.Name + "." + c.Name)
			if !seen[k] {
				seen[k] = true
				out = append(out, links.ColAlt{Table: t.Name, Column: c.Name, Weight: 1})
			}
		}
	}
	return out
}
