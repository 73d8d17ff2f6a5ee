package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Conditional shares: "what % of orders placed in 2024 were cancelled",
// "what share of revenue came from Texas", "the proportion of loans that
// were returned late". The thing before the predicate (orders placed in
// 2024) is the whole; the value after it (cancelled, Texas) picks the
// part. The reading is the part as a percentage of the whole: a count of
// the subject's rows, or its measure, with and without the part's
// condition.

// predicateWords start the part of a conditional share after its whole.
var predicateWords = words.Set("predicate")

// shareParts finds, after a share word, the value mentions that name the
// part: those after the first predicate word that follows the whole.
func shareParts(a *links.Analysis) []*links.ValueMention {
	if a.Share == nil || len(a.Groups) > 0 {
		return nil
	}
	pred := -1
	for k := a.Share.End + 1; k < len(a.Toks) && a.Toks[k].Clause == 0; k++ {
		if predicateWords[a.Word(k)] {
			pred = k
			break
		}
	}
	if pred < 0 {
		return nil
	}
	var out []*links.ValueMention
	for _, vm := range a.Values {
		if vm.At > pred && !vm.Event {
			out = append(out, vm)
		}
	}
	return out
}

// conditionalShare rewrites a reading as its part's share of the whole:
// the conditions on the part's values leave WHERE and become the
// numerator. It says whether the reading was rewritten.
func (r *reader) conditionalShare(p *Plan) bool {
	parts := shareParts(r.a)
	if len(parts) == 0 || len(p.Groups) > 0 {
		return false
	}
	values := map[string]bool{}
	for _, vm := range parts {
		for _, al := range vm.Alts {
			values[strings.ToLower(al.Value)] = true
		}
	}
	var part []sqlexpr.Expr
	var rest []Cond
	for _, f := range p.Filters {
		named := false
		for _, l := range sqlexpr.Literals(f.X) {
			if s, ok := l.(sqlexpr.Str); ok && values[strings.ToLower(string(s))] {
				named = true
			}
		}
		if named {
			part = append(part, f.X)
		} else {
			rest = append(rest, f)
		}
	}
	if len(part) == 0 {
		return false
	}
	c := part[0]
	for _, x := range part[1:] {
		c = sqlexpr.Cmp(c, "AND", x)
	}
	var measure sqlexpr.Expr
	for _, s := range p.Selects {
		if ag, ok := sqlexpr.AggOf(s.X); ok && ag.Fn == "SUM" && ag.Arg != nil {
			measure = ag.Arg
		}
	}
	var share sqlexpr.Expr
	switch {
	case measure != nil:
		// "what share of revenue came from Texas"
		share = read.PercentOf(sqlexpr.AggOver("SUM", sqlexpr.CaseWhen{Cond: c, Then: measure}), sqlexpr.AggOver("SUM", measure))
	case r.h.t != nil && r.h.t.Key != nil:
		// "what % of orders were cancelled": distinct keys, so that a join
		// for a condition cannot count a row twice.
		key := sqlexpr.Col(r.h.t.Name, r.h.t.Key.Name)
		share = read.PercentOf(sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: sqlexpr.CaseWhen{Cond: c, Then: key}}, sqlexpr.Agg{Fn: "COUNT", Distinct: true, Arg: key})
		p.use(r.h.t.Name)
	default:
		return false
	}
	p.Filters = rest
	p.Selects = []Sel{{X: share, Alias: "percent"}}
	p.Order, p.Limit, p.Distinct, p.CountOf = nil, 0, false, nil
	p.Aggregated = true
	p.Covered = append(p.Covered, r.a.Phrase(r.a.Share.At, r.a.Share.End))
	p.Phrases[keyMeasure] = r.a.Phrase(r.a.Share.At, r.a.Share.End)
	return true
}
