package ontology

import (
	"encoding/json"
	"strings"
)

// Before record version 2 a fact's target was one string,
//
//	key " => " token [" || " alt ", " alt …]
//
// where key was a decision slot ("measure", "filteron:texas"), token the
// part of the chosen option that made the choice, and the alts the tokens
// of the options it was chosen over. This file reads that form, for
// version 1 records, version 1 exports and audit entries written before.

// parseLegacyTarget reads a version 1 target string.
func parseLegacyTarget(s string) Target {
	key, rest, ok := strings.Cut(s, " => ")
	if !ok {
		return Target{Choice: legacyTerm("", s)}
	}
	slot, arg, _ := strings.Cut(key, ":")
	tok, alts, _ := strings.Cut(rest, " || ")
	t := Target{Slot: slot, Arg: arg, Choice: legacyTerm(slot, tok)}
	if alts != "" {
		for _, a := range strings.Split(alts, ", ") {
			t.Over = append(t.Over, legacyTerm(slot, a))
		}
	}
	return t
}

// legacyTerm classifies one token of a version 1 target by the slot it
// was learned on and its form.
func legacyTerm(slot, tok string) Term {
	if slot == "tables" {
		tables, joins, _ := strings.Cut(tok, " | ")
		t := Term{Kind: TermJoinPath}
		if tables != "" {
			t.Tables = strings.Split(tables, ", ")
		}
		if joins != "" {
			for _, j := range strings.Split(joins, ", ") {
				l, r, _ := strings.Cut(j, " = ")
				t.Joins = append(t.Joins, Join{Left: l, Right: r})
			}
		}
		return t
	}
	if tok == "" {
		return ListTerm()
	}
	switch slot {
	case "measure":
		switch {
		case isColumnRef(tok):
			return ColumnTerm(tok)
		case strings.Contains(tok, " | "):
			return ListTerm(strings.Split(tok, " | ")...)
		}
		if fn, arg, distinct, ok := legacyAggregate(tok); ok {
			return Term{Kind: TermMeasure, Fn: fn, Expr: arg, Distinct: distinct}
		}
		return Term{Kind: TermExpr, Expr: tok}
	case "filteron":
		switch {
		case isColumnRef(tok):
			return ColumnTerm(tok)
		case strings.Contains(tok, " & ") || hasOperatorSuffix(tok):
			return ListTerm(strings.Split(tok, " & ")...)
		}
		return Term{Kind: TermExpr, Expr: tok}
	case "order":
		switch {
		case strings.Contains(tok, ", "):
			return ListTerm(strings.Split(tok, ", ")...)
		case strings.HasSuffix(tok, " desc"):
			return Term{Kind: TermOrdering, Expr: strings.TrimSuffix(tok, " desc"), Desc: true}
		case strings.HasSuffix(tok, " asc"):
			return Term{Kind: TermOrdering, Expr: strings.TrimSuffix(tok, " asc")}
		case isColumnRef(tok):
			return ColumnTerm(tok)
		}
		return Term{Kind: TermExpr, Expr: tok}
	case "where":
		return ListTerm(strings.Split(tok, " & ")...)
	}
	return ListTerm(strings.Split(tok, ", ")...)
}

// isColumnRef: "table.column", identifier characters only.
func isColumnRef(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// hasOperatorSuffix: a filter part "customers.state =" or "orders.x year".
func hasOperatorSuffix(s string) bool {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return false
	}
	switch s[i+1:] {
	case "=", "!=", "<", "<=", ">", ">=", "in", "like", "between", "year", "null":
		return true
	}
	return false
}

func legacyAggregate(expr string) (fn, arg string, distinct, ok bool) {
	i := strings.IndexByte(expr, '(')
	if i <= 0 || !strings.HasSuffix(expr, ")") {
		return "", "", false, false
	}
	fn = expr[:i]
	for _, r := range fn {
		if r < 'A' || r > 'Z' {
			if r != '_' {
				return "", "", false, false
			}
		}
	}
	arg = expr[i+1 : len(expr)-1]
	if strings.ContainsAny(arg, "()") {
		return "", "", false, false
	}
	arg, distinct = strings.CutPrefix(arg, "DISTINCT ")
	return fn, arg, distinct, true
}

type targetJSON Target

// UnmarshalJSON reads a target object, or a version 1 target string (old
// exports and audit entries).
func (t *Target) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Target{}
		if strings.TrimSpace(s) != "" {
			*t = parseLegacyTarget(s)
		}
		return nil
	}
	var v targetJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Target(v)
	return nil
}

// LegacyTerm reads one token of a version 1 target learned on slot, for
// callers migrating other stores of the old form (conversation states).
func LegacyTerm(slot, token string) Term { return legacyTerm(slot, token) }
