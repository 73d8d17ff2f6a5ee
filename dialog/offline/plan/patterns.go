package plan

import (
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// Text patterns: "authors whose names begin with the letter 'J'",
// "surname contains 'ley'", "titles containing 'night'", "depots
// with a name beginning with "North"". They filter a text column with
// LIKE; the column is the one named just before the verb, else the
// label of the table the question is about.

// patternElements filter on the patterns: the column the words before the
// verb name, else the subject's label, else any text column of the head.
func (r *reader) patternElements() []*element {
	type option struct {
		x     sqlexpr.Expr
		table string
		w     float64
	}
	var each [][]option
	for _, lm := range r.a.Likes {
		var opts []option
		add := func(table, column string, w float64) {
			c := r.e.m.Column(table, column)
			if c == nil || c.Kind() != warehouse.KindText {
				return
			}
			opts = append(opts, option{x: sqlexpr.Cmp(sqlexpr.Col(table, column), "LIKE", sqlexpr.Str(lm.Pattern)), table: table, w: w})
		}
		if lm.Column != "" {
			add(lm.Table, lm.Column, 2)
		}
		if lm.Target >= 0 {
			for _, cm := range r.a.Columns {
				if cm.At >= lm.Target && cm.At < lm.At && cm.Clause == 0 {
					r.usedCols[cm] = true
					for _, al := range cm.Alts {
						add(al.Table, al.Column, al.Weight*2)
					}
				}
			}
			for _, em := range r.a.Entities {
				if em.At >= lm.Target && em.At < lm.At && em.Tables[0].Label != nil {
					add(em.Tables[0].Name, em.Tables[0].Label.Name, 1.5)
				}
			}
		}
		if len(opts) == 0 && lm.Owner >= 0 {
			// "authors whose names begin with 'J'": the label of the
			// thing named before "whose".
			if em := r.entityAt(lm.Owner); em != nil && em.Tables[0].Label != nil {
				add(em.Tables[0].Name, em.Tables[0].Label.Name, 1.8)
			}
		}
		if len(opts) == 0 && lm.Target < 0 {
			// "the notes of the events which have the substring 'East'":
			// nothing before the verb names the column, so a text column the
			// question names before the pattern does, before the label of
			// the thing asked about.
			for _, cm := range r.a.Columns {
				if cm.At < lm.At && cm.Clause == 0 {
					for _, al := range cm.Alts {
						if !al.Computed() {
							add(al.Table, al.Column, al.Weight)
						}
					}
				}
			}
		}
		if len(opts) == 0 && r.h.t != nil && r.h.t.Label != nil {
			add(r.h.t.Name, r.h.t.Label.Name, 1)
		}
		each = append(each, opts)
	}
	var els []*element
	for i := 0; i < len(each); i++ {
		if len(each[i]) == 0 {
			continue
		}
		el := &element{name: "pattern"}
		// "title starts with 'A' or publisher contains 'ley'": either.
		if i+1 < len(each) && len(each[i+1]) > 0 && r.joinedByOr(r.a.Likes[i], r.a.Likes[i+1]) {
			for _, a := range each[i] {
				for _, b := range each[i+1] {
					el.add(a.w*b.w, func(p *Plan) {
						p.Filters = append(p.Filters, Cond{X: sqlexpr.Paren{X: sqlexpr.Cmp(a.x, "OR", b.x)}})
						p.use(a.table, b.table)
					})
				}
			}
			els = append(els, el)
			i++
			continue
		}
		for _, a := range each[i] {
			el.add(a.w, func(p *Plan) {
				p.Filters = append(p.Filters, Cond{X: a.x})
				p.use(a.table)
			})
		}
		els = append(els, el)
	}
	return els
}

// joinedByOr says whether "or" joins two patterns: it stands between the
// first one's verb and the second one's.
func (r *reader) joinedByOr(a, b *links.LikeMention) bool {
	for k := a.At + 1; k < b.At; k++ {
		if r.a.Word(k) == "or" {
			return true
		}
	}
	return false
}
