package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Flags: "courses with exams", "offerings that have a final project",
// "users without a verified email". A yes/no column (BOOLEAN, TINYINT(1),
// or an is_/has_ column holding two values) named after "with", "have"
// or "has" is a condition that it is true; after "without", "no" or
// "not", that it is false.

// flagMention is a column mention read as a yes/no condition.
type flagMention struct {
	cm      *colMention
	negated bool
}

// isFlag says whether a column holds yes/no.
func (m *model) isFlag(table string, c *warehouse.Column) bool {
	if c.Kind() == warehouse.KindBool || strings.EqualFold(c.FullType, "tinyint(1)") {
		return true
	}
	n := strings.ToLower(c.Name)
	if strings.HasPrefix(n, "is_") || strings.HasPrefix(n, "has_") {
		p := m.profile(table, c.Name)
		return p != nil && p.Distinct > 0 && p.Distinct <= 2
	}
	return false
}

// findFlags picks the column mentions to read as conditions, before any
// other part may show them.
func (r *reader) findFlags() []flagMention {
	a := r.a
	var out []flagMention
	for _, cm := range a.columns {
		if cm.clause != 0 || r.usedCols[cm] {
			continue
		}
		flag := false
		for _, al := range cm.alts {
			if c := r.e.m.column(al.table, al.column); c != nil && r.e.m.isFlag(al.table, c) {
				flag = true
			}
		}
		if !flag {
			continue
		}
		negated, governed := false, false
		// The mention may start with its own connective ("without illustrations").
		for k := cm.at; k >= 0 && k >= cm.at-3; k-- {
			if k == cm.at && a.word(k) != "without" && a.word(k) != "with" && a.word(k) != "no" {
				continue
			}
			switch a.word(k) {
			case "with", "have", "has", "having", "had", "offering", "offer", "offers", "include", "includes":
				governed = true
			case "without", "no", "not", "lack", "lacking", "lacks":
				governed, negated = true, true
			case "a", "an", "the", "any", "do", "does", "did", "don't", "doesn't":
				continue
			}
			break
		}
		if governed {
			r.usedCols[cm] = true
			out = append(out, flagMention{cm: cm, negated: negated})
		}
	}
	return out
}

// flagElements write the yes/no conditions.
func (r *reader) flagElements(flags []flagMention) []*element {
	var els []*element
	for _, f := range flags {
		el := &element{name: "flag"}
		for _, al := range f.cm.alts {
			c := r.e.m.column(al.table, al.column)
			if c == nil || !r.e.m.isFlag(al.table, c) {
				continue
			}
			expr := r.e.m.col(al.table, al.column)
			cond := expr + " = TRUE"
			if f.negated {
				cond = "NOT " + expr
			}
			el.add(al.weight, func(p *plan) {
				p.filters = append(p.filters, sqlCond(cond))
				p.use(al.table)
			})
		}
		if len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

func sqlCond(s string) cond { return cond{sql: s} }
