package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

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
func shareParts(a *read.Analysis) []*read.ValueMention {
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
	var out []*read.ValueMention
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
func (r *reader) conditionalShare(p *plan) bool {
	parts := shareParts(r.a)
	if len(parts) == 0 || len(p.groups) > 0 {
		return false
	}
	values := map[string]bool{}
	for _, vm := range parts {
		for _, al := range vm.Alts {
			values[strings.ToLower(al.Value)] = true
		}
	}
	var part []expr
	var rest []cond
	for _, f := range p.filters {
		named := false
		for _, l := range literals(f.x) {
			if s, ok := l.(strLit); ok && values[strings.ToLower(string(s))] {
				named = true
			}
		}
		if named {
			part = append(part, f.x)
		} else {
			rest = append(rest, f)
		}
	}
	if len(part) == 0 {
		return false
	}
	c := part[0]
	for _, x := range part[1:] {
		c = cmp(c, "AND", x)
	}
	var measure expr
	for _, s := range p.selects {
		if ag, ok := aggOf(s.x); ok && ag.Fn == "SUM" && ag.Arg != nil {
			measure = ag.Arg
		}
	}
	var share expr
	switch {
	case measure != nil:
		// "what share of revenue came from Texas"
		share = read.PercentOf(aggOver("SUM", caseWhen{Cond: c, Then: measure}), aggOver("SUM", measure))
	case r.h.t != nil && r.h.t.Key != nil:
		// "what % of orders were cancelled": distinct keys, so that a join
		// for a condition cannot count a row twice.
		key := col(r.h.t.Name, r.h.t.Key.Name)
		share = read.PercentOf(aggExpr{Fn: "COUNT", Distinct: true, Arg: caseWhen{Cond: c, Then: key}}, aggExpr{Fn: "COUNT", Distinct: true, Arg: key})
		p.use(r.h.t.Name)
	default:
		return false
	}
	p.filters = rest
	p.selects = []sel{{x: share, alias: "percent"}}
	p.order, p.limit, p.distinct, p.countOf = nil, 0, false, nil
	p.aggregated = true
	p.covered = append(p.covered, r.a.Phrase(r.a.Share.At, r.a.Share.End))
	p.phrases[keyMeasure] = r.a.Phrase(r.a.Share.At, r.a.Share.End)
	return true
}
