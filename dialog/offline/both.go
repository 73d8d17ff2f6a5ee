package offline

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// "Which districts have both depots with a fleet over 30 and depots with a
// fleet under 10?": the thing named twice after "both" is two different
// rows, each with its own conditions, sharing what is shown. Read as one
// row with both conditions it is a contradiction that answers "none"
// with confidence; read per shown value, it asks whether some row meets
// the first conditions and some row the second.

// literalsBetween are the literals the question's comparisons, values
// and patterns between tokens from and to stand for, as rendered.
func literalsBetween(a *links.Analysis, from, to int) map[string]bool {
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
func bothRows(a *links.Analysis, m *schema.Model, p *plan.Plan) *plan.Plan {
	first, second, t := plan.BothHalves(a)
	if t == nil || len(p.Groups) > 0 || p.Aggregated || len(p.Derived) > 0 || p.Order != nil || len(p.Selects) == 0 || len(p.Having) > 0 {
		return nil
	}
	for _, s := range p.Selects {
		c, ok := s.X.(colRef)
		if !ok || !strings.EqualFold(c.Table, t.Name) || t.Key != nil && strings.EqualFold(c.Column, t.Key.Name) {
			return nil
		}
	}
	h1, h2 := literalsBetween(a, first, second), literalsBetween(a, second, len(a.Toks))
	var common, c1, c2 []expr
	for _, f := range p.Filters {
		in1, in2 := false, false
		for _, l := range literals(f.X) {
			k := literalKey(l)
			in1, in2 = in1 || h1[k], in2 || h2[k]
		}
		switch {
		case in1 && in2:
			return nil
		case in1:
			c1 = append(c1, f.X)
		case in2:
			c2 = append(c2, f.X)
		default:
			common = append(common, f.X)
		}
	}
	if len(c1) == 0 || len(c2) == 0 {
		return nil
	}
	q := p.Clone()
	q.Filters = nil
	for _, x := range common {
		q.Filters = append(q.Filters, plan.Cond{X: x})
	}
	q.Groups = append([]plan.Sel(nil), p.Selects...)
	q.Distinct, q.DistinctForJoins = false, false
	for _, half := range [][]expr{c1, c2} {
		x := half[0]
		for _, y := range half[1:] {
			x = cmp(paren{X: x}, "AND", paren{X: y})
		}
		q.Having = append(q.Having, plan.Cond{X: cmp(aggOver("SUM", caseWhen{Cond: x, Then: numLit("1")}), ">", numLit("0"))})
	}
	q.Both = true
	return q
}
