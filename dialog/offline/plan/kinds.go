package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
)

// countKinds builds "how many kinds of reactor model", "how many different
// carriers": the number of distinct values of the column named next, or
// of the label of the table named next.
func (r *reader) countKinds() []*element {
	a := r.a
	el := &element{name: "measure"}
	for _, cm := range a.Columns {
		if cm.Clause != 0 || cm.At <= a.CountAt || r.usedCols[cm] {
			continue
		}
		r.usedCols[cm] = true
		for _, al := range cm.Alts {
			c := r.e.m.Column(al.Table, al.Column)
			if c == nil || c.Kind() == warehouse.KindTime {
				continue
			}
			x := r.exprOf(al)
			phrase := cm.Phrase
			r.measureTables[strings.ToLower(al.Table)] = true
			el.add(al.Weight*r.boost(al.Table, al.Column), func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: x}, Alias: "count_" + strings.ToLower(al.Column)})
				p.Aggregated = true
				p.use(al.Table)
				p.Phrases[keyMeasure] = phrase
			})
		}
		break
	}
	if len(el.alts) == 0 {
		for _, em := range a.Entities {
			t := em.Tables[0]
			if em.At <= a.CountAt || t.Label == nil || t.Label == t.Key {
				continue
			}
			label, phrase := sqlexpr.Col(t.Name, t.Label.Name), em.Phrase
			r.measureTables[strings.ToLower(t.Name)] = true
			el.add(1, func(p *Plan) {
				p.Selects = append(p.Selects, Sel{X: sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: label}, Alias: "count_" + strings.ToLower(t.Label.Name)})
				p.Aggregated = true
				p.use(t.Name)
				p.Phrases[keyMeasure] = phrase
			})
			// "different forms" may be the forms themselves, each
			// once, when their label is no name of their own.
			if k := t.Key; k != nil && !r.uniqueLabel(t) {
				el.add(0.8, func(p *Plan) {
					p.Selects = append(p.Selects, Sel{X: sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: sqlexpr.Col(t.Name, k.Name)}, Alias: "count_" + strings.ToLower(k.Name)})
					p.Aggregated = true
					p.use(t.Name)
					p.Phrases[keyMeasure] = phrase
				})
			}
			break
		}
	}
	if len(el.alts) == 0 {
		return nil
	}
	return []*element{el}
}

// uniqueLabel says whether a table's label names each row once (a name,
// not a type code many rows share).
func (r *reader) uniqueLabel(t *schema.Table) bool {
	p := r.e.m.Profile(t.Name, t.Label.Name)
	return p != nil && p.Rows > 0 && p.Distinct == p.Rows
}
