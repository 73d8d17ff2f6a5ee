package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// severalOutputs reads "return the name, country and capacity", "list
// the titles and years": columns named in a row, joined by "and" or
// commas, are all shown, in the question's order. Each mention's likeliest
// column stands for it; a mention of the head table's column is preferred.
func (r *reader) severalOutputs(el *element, free []*colMention) {
	if len(free) < 1 {
		return
	}
	a := r.a
	var picked []colAlt
	var phrases []string
	enumerated := false
	for i, cm := range free {
		if len(cm.alts) == 0 {
			return
		}
		best := cm.alts[0]
		for _, al := range cm.alts {
			if r.h.t != nil && strings.EqualFold(al.table, r.h.t.name) && al.weight >= 0.8*cm.alts[0].weight {
				best = al
				break
			}
		}
		if c := r.e.m.column(best.table, best.column); c == nil || c.Kind() == warehouse.KindOther {
			return
		}
		picked = append(picked, best)
		phrases = append(phrases, cm.phrase)
		if i > 0 {
			for k := free[i-1].end; k < cm.at; k++ {
				if w := a.word(k); w == "and" || w == "," {
					enumerated = true
				}
			}
			if cm.at-free[i-1].end > 3 {
				return // far apart: not one list
			}
		}
	}
	// "the name, email and city": "name" is the head's label.
	j := free[0].at - 1
	for j >= 0 && (a.word(j) == "," || a.word(j) == "and" || a.word(j) == "the" || a.word(j) == "their") {
		if a.word(j) != "the" && a.word(j) != "their" {
			enumerated = true
		}
		j--
	}
	if h := r.h.t; h != nil && h.label != nil && (a.word(j) == "name" || a.word(j) == "names") {
		picked = append([]colAlt{{table: h.name, column: h.label.Name, weight: 1}}, picked...)
		phrases = append([]string{a.toks[j].raw}, phrases...)
	}
	if len(picked) < 2 {
		return
	}
	w := 0.4
	if enumerated {
		w = 2
	}
	phrase := strings.Join(phrases, ", ")
	el.add(w, func(p *plan) {
		for _, al := range picked {
			p.selects = append(p.selects, sel{sql: r.e.m.col(al.table, al.column)})
			p.use(al.table)
		}
		p.phrases[keyOutput] = phrase
	})
}
