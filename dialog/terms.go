package dialog

import (
	"slices"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// A remembered choice stands for a part of a slot value: the column under
// an aggregate, the aggregate, an ordering, or the whole value. This file
// translates between slot values (dialog/sqlshape) and the ontology's
// terms, and decides whether a value holds a term.

// exprTerm is the term of an expression: a column when it is one.
func exprTerm(expr string) ontology.Term {
	if isColumnRef(expr) {
		return ontology.ColumnTerm(expr)
	}
	return ontology.Term{Kind: ontology.TermExpr, Expr: expr}
}

// wholeTerm is the term of a whole slot value.
func wholeTerm(v sqlshape.SlotValue) ontology.Term {
	if v.Slot == sqlshape.SlotTables {
		t := ontology.Term{Kind: ontology.TermJoinPath}
		for _, p := range v.Parts {
			t.Tables = append(t.Tables, p.Expr)
		}
		for _, j := range v.Joins {
			t.Joins = append(t.Joins, ontology.Join{Left: j.Left, Right: j.Right})
		}
		return t
	}
	return ontology.ListTerm(v.PartTexts()...)
}

// tokens are the terms a remembered choice of v can stand for, most
// general first: the column under an aggregate, then the aggregate, then
// the whole value.
func tokens(v sqlshape.SlotValue) []ontology.Term {
	var out []ontology.Term
	switch v.Slot {
	case sqlshape.SlotMeasure:
		for _, p := range v.Parts {
			if p.IsAggregate() && p.Arg != "*" {
				out = append(out, exprTerm(p.Arg))
			}
		}
		for _, p := range v.Parts {
			if p.IsAggregate() {
				out = append(out, ontology.Term{Kind: ontology.TermMeasure, Fn: p.Fn, Expr: p.Arg, Distinct: p.Distinct()})
			} else {
				out = append(out, ontology.Term{Kind: ontology.TermExpr, Expr: p.Expr})
			}
		}
	case sqlshape.SlotFilterOn:
		for _, p := range v.Parts {
			out = append(out, exprTerm(p.Expr))
		}
	case sqlshape.SlotOrder:
		for _, p := range v.Parts {
			out = append(out, exprTerm(p.Expr), ontology.Term{Kind: ontology.TermOrdering, Expr: p.Expr, Desc: p.Op == "desc"})
		}
	}
	return append(out, wholeTerm(v))
}

// holds reports whether a slot value contains what term stands for.
func holds(v sqlshape.SlotValue, t ontology.Term) bool {
	switch t.Kind {
	case ontology.TermColumn:
		return slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool {
			return p.Expr == t.Column || p.Arg == t.Column || slices.Contains(p.Columns(), t.Column)
		})
	case ontology.TermExpr:
		return slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool { return p.Expr == t.Expr || p.Arg == t.Expr })
	case ontology.TermMeasure:
		return slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool {
			return p.Fn == t.Fn && p.Arg == t.Expr && p.Distinct() == t.Distinct
		})
	case ontology.TermOrdering:
		return slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool { return p.Expr == t.Expr && (p.Op == "desc") == t.Desc })
	case ontology.TermList:
		if len(t.Items) == 0 {
			return v.IsEmpty()
		}
		return containsRun(v.PartTexts(), t.Items)
	case ontology.TermPredicate, ontology.TermValues:
		sql := t.SQL()
		return slices.ContainsFunc(v.Parts, func(p sqlshape.Part) bool { return p.Expr == sql })
	case ontology.TermJoinPath:
		if v.Slot != sqlshape.SlotTables {
			return false
		}
		var tables []string
		for _, p := range v.Parts {
			tables = append(tables, p.Expr)
		}
		joins := make([]ontology.Join, len(v.Joins))
		for i, j := range v.Joins {
			joins[i] = ontology.Join{Left: j.Left, Right: j.Right}
		}
		return containsRun(tables, t.Tables) && containsRun(joins, t.Joins)
	}
	return false
}

// containsRun reports whether run occurs in list as consecutive items.
func containsRun[T comparable](list, run []T) bool {
	if len(run) == 0 {
		return true
	}
	for i := 0; i+len(run) <= len(list); i++ {
		if slices.Equal(list[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// distinguishing is the most general term of chosen that no other
// option's value holds: what the person's choice really was.
func distinguishing(chosen sqlshape.SlotValue, others []sqlshape.SlotValue) ontology.Term {
	toks := tokens(chosen)
	for _, t := range toks {
		if !slices.ContainsFunc(others, func(o sqlshape.SlotValue) bool { return holds(o, t) }) {
			return t
		}
	}
	return toks[len(toks)-1]
}

// alternatives records what a choice was made against, so that it is only
// reused for the same decision: 'colorado' chosen as a river over a state
// is no answer when a new question offers a city.
func alternatives(others []sqlshape.SlotValue) []ontology.Term {
	var out []ontology.Term
	for _, o := range others {
		if t := tokens(o)[0]; !(t.Kind == ontology.TermList && len(t.Items) == 0) {
			out = append(out, t)
		}
	}
	return out
}

// isColumnRef: "table.column", identifier characters only.
func isColumnRef(s string) bool {
	t, c := splitTC(s)
	if t == "" || c == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
