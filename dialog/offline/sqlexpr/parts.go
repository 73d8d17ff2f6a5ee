package sqlexpr

// Col is a column reference.
func Col(table, column string) ColRef { return ColRef{Table: table, Column: column} }

// Fn is a call of fn on args.
func Fn(fn string, args ...Expr) Call { return Call{Fn: fn, Args: args} }

// AggOver is fn(x).
func AggOver(fn string, x Expr) Agg { return Agg{Fn: fn, Arg: x} }

// Cmp is "l op r".
func Cmp(l Expr, op string, r Expr) Binary { return Binary{Op: op, L: l, R: r} }

// Parts are an expression's direct parts.
func Parts(x Expr) []Expr {
	switch v := x.(type) {
	case Agg:
		if v.Arg != nil {
			return []Expr{v.Arg}
		}
	case Call:
		return v.Args
	case Binary:
		return []Expr{v.L, v.R}
	case Paren:
		return []Expr{v.X}
	case Prefix:
		return []Expr{v.X}
	case IsNull:
		return []Expr{v.X}
	case Between:
		return []Expr{v.X, v.Lo, v.Hi}
	case CaseWhen:
		return []Expr{v.Cond, v.Then}
	case ScalarSub:
		return []Expr{v.X}
	case InList:
		return append([]Expr{v.X}, v.Vals...)
	case Over:
		out := []Expr{v.X}
		for _, o := range v.OrderBy {
			out = append(out, o.X)
		}
		return out
	case Tuple:
		return v.Xs
	}
	return nil
}

// Walk visits x and its parts, depth first; f returns false to skip a
// part's own parts.
func Walk(x Expr, f func(Expr) bool) {
	if x == nil || !f(x) {
		return
	}
	for _, s := range Parts(x) {
		Walk(s, f)
	}
}

// Columns are the columns an expression reads, in order, repeated as
// they appear.
func Columns(x Expr) []ColRef {
	var out []ColRef
	Walk(x, func(e Expr) bool {
		switch v := e.(type) {
		case ColRef:
			out = append(out, v)
		case Subquery:
			out = append(out, v.Cols...)
		}
		return true
	})
	return out
}

// IsColumn says whether x is a plain column, and which.
func IsColumn(x Expr) (ColRef, bool) {
	c, ok := x.(ColRef)
	return c, ok
}

// Arithmetic says whether x is a column, or columns and numbers combined
// by operators (price - cost): a value of each row, with no call.
func Arithmetic(x Expr) bool {
	switch v := x.(type) {
	case ColRef, Num, Str:
		return true
	case Binary:
		return Arithmetic(v.L) && Arithmetic(v.R)
	}
	return false
}

// Aggregates says whether x computes an aggregate: an aggregate itself, or
// an expression over aggregates (a ratio of two totals).
func Aggregates(x Expr) bool {
	found := false
	Walk(x, func(e Expr) bool {
		if _, ok := e.(Agg); ok {
			found = true
		}
		return !found
	})
	return found
}

// AggOf is x as an aggregate, when it is one at the top.
func AggOf(x Expr) (Agg, bool) {
	a, ok := x.(Agg)
	return a, ok
}

// Literals are the literals an expression compares with or holds.
func Literals(x Expr) []Expr {
	var out []Expr
	Walk(x, func(e Expr) bool {
		switch e.(type) {
		case Str, Num:
			out = append(out, e)
		}
		return true
	})
	return out
}

// IsCount says whether x is a COUNT.
func IsCount(x Expr) bool {
	a, ok := AggOf(x)
	return ok && a.Fn == "COUNT"
}

// AggregatesOver says whether x applies a function or an aggregate to
// exactly y somewhere: SUM(y), YEAR(y).
func AggregatesOver(x, y Expr) bool {
	found := false
	Walk(x, func(e Expr) bool {
		switch v := e.(type) {
		case Agg:
			found = found || v.Arg != nil && !v.Distinct && Equal(v.Arg, y)
		case Call:
			found = found || len(v.Args) == 1 && Equal(v.Args[0], y)
		}
		return !found
	})
	return found
}

// ArithmeticNoCall says whether x is written without a call or an
// aggregate: what reads as a value of each row rather than a measure.
func ArithmeticNoCall(x Expr) bool {
	ok := true
	Walk(x, func(e Expr) bool {
		switch e.(type) {
		case Agg, Call, Paren, ScalarSub, CaseWhen, Subquery:
			ok = false
		}
		return ok
	})
	return ok
}

// OuterColumns are the columns x reads in the reading's own FROM, not in
// subqueries of its own (scalar subqueries, EXISTS, correlated subqueries).
func OuterColumns(x Expr) []ColRef {
	var out []ColRef
	Walk(x, func(v Expr) bool {
		switch v := v.(type) {
		case ColRef:
			out = append(out, v)
		case ScalarSub, Exists, Subquery:
			return false
		}
		return true
	})
	return out
}

// IsAnd says whether x is a conjunction of conditions.
func IsAnd(x Expr) bool {
	b, ok := x.(Binary)
	return ok && b.Op == "AND"
}
