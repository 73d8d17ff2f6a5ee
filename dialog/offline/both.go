package offline

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// "Which districts have both depots with a fleet over 30 and depots with a
// fleet under 10?": the thing named twice after "both" is two different
// rows, each with its own conditions, sharing what is shown. Read as one
// row with both conditions it is a contradiction that answers "none"
// with confidence; read per shown value, it asks whether some row meets
// the first conditions and some row the second.

// bothHalves finds "both <things> … and <things> …": where each half
// starts, and the table named twice; nil when the question has no such
// pair.
func bothHalves(a *read.Analysis) (first, second int, t *schema.Table) {
	for b, tk := range a.Toks {
		if tk.Clause != 0 || tk.Low != "both" {
			continue
		}
		var em1 *read.EntityMention
		for _, em := range a.Entities {
			if em.At > b && em.At <= b+2 && len(em.Tables) > 0 {
				em1 = em
				break
			}
		}
		if em1 == nil {
			return -1, -1, nil
		}
		for _, em := range a.Entities {
			if em.At > em1.At && len(em.Tables) > 0 && em.Tables[0] == em1.Tables[0] && (a.Word(em.At-1) == "and" || a.Word(em.At-2) == "and") {
				return em1.At, em.At, em1.Tables[0]
			}
		}
		return -1, -1, nil
	}
	return -1, -1, nil
}

// literalsBetween are the literals the question's comparisons, values
// and patterns between tokens from and to stand for, as rendered.
func literalsBetween(a *read.Analysis, from, to int) map[string]bool {
	out := map[string]bool{}
	for _, cp := range a.Comps {
		if cp.At >= from && cp.At < to {
			out[strconv.FormatFloat(cp.Value, 'f', -1, 64)] = true
		}
	}
	for _, vm := range a.Values {
		if vm.At >= from && vm.At < to {
			for _, al := range vm.Alts {
				out["'"+strings.ToLower(al.Value)+"'"] = true
			}
		}
	}
	for _, lm := range a.Likes {
		if lm.At >= from && lm.At < to {
			out["'"+strings.ToLower(lm.Pattern)+"'"] = true
		}
	}
	return out
}

// literalKey is how literalsBetween names a literal of the plan.
func literalKey(x expr) string {
	switch v := x.(type) {
	case numLit:
		return string(v)
	case strLit:
		return "'" + strings.ToLower(string(v)) + "'"
	}
	return ""
}

// bothRows rewrites a reading of "both X … and X …" that shows columns of
// X only: the conditions of each half hold on some row of each shown
// value (GROUP BY the shown columns, HAVING a count of each half's rows).
// Nil when the reading is not of that shape or a condition belongs to
// both halves.
func bothRows(a *read.Analysis, m *schema.Model, p *plan) *plan {
	first, second, t := bothHalves(a)
	if t == nil || len(p.groups) > 0 || p.aggregated || len(p.derived) > 0 || p.order != nil || len(p.selects) == 0 || len(p.having) > 0 {
		return nil
	}
	for _, s := range p.selects {
		c, ok := s.x.(colRef)
		if !ok || !strings.EqualFold(c.Table, t.Name) || t.Key != nil && strings.EqualFold(c.Column, t.Key.Name) {
			return nil
		}
	}
	h1, h2 := literalsBetween(a, first, second), literalsBetween(a, second, len(a.Toks))
	var common, c1, c2 []expr
	for _, f := range p.filters {
		in1, in2 := false, false
		for _, l := range literals(f.x) {
			k := literalKey(l)
			in1, in2 = in1 || h1[k], in2 || h2[k]
		}
		switch {
		case in1 && in2:
			return nil
		case in1:
			c1 = append(c1, f.x)
		case in2:
			c2 = append(c2, f.x)
		default:
			common = append(common, f.x)
		}
	}
	if len(c1) == 0 || len(c2) == 0 {
		return nil
	}
	q := p.clone()
	q.filters = nil
	for _, x := range common {
		q.filters = append(q.filters, cond{x: x})
	}
	q.groups = append([]sel(nil), p.selects...)
	q.distinct, q.distinctForJoins = false, false
	for _, half := range [][]expr{c1, c2} {
		x := half[0]
		for _, y := range half[1:] {
			x = cmp(paren{X: x}, "AND", paren{X: y})
		}
		q.having = append(q.having, cond{x: cmp(aggOver("SUM", caseWhen{Cond: x, Then: numLit("1")}), ">", numLit("0"))})
	}
	q.both = true
	return q
}
