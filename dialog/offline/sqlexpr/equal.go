package sqlexpr

import "slices"

// Equal says whether two expressions are the same part: the same tree of
// parts, compared part by part, so that two parts that render alike are
// equal and quoting plays no role.
func Equal(a, b Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch a.(type) {
	case ColRef, Keyword, Str, Num, Unqualified:
		// Leaves are values: equal when of one type and equal fields.
		return a == b
	case Agg, Paren, Prefix, IsNull, ScalarSub, Aliased:
		return equalWrapper(a, b)
	}
	return equalCompound(a, b)
}

// equalWrapper compares the parts that wrap one expression.
func equalWrapper(a, b Expr) bool {
	switch x := a.(type) {
	case Agg:
		y, ok := b.(Agg)
		return ok && x.Fn == y.Fn && x.Distinct == y.Distinct && Equal(x.Arg, y.Arg)
	case Paren:
		y, ok := b.(Paren)
		return ok && Equal(x.X, y.X)
	case Prefix:
		y, ok := b.(Prefix)
		return ok && x.Op == y.Op && Equal(x.X, y.X)
	case IsNull:
		y, ok := b.(IsNull)
		return ok && x.Not == y.Not && Equal(x.X, y.X)
	case ScalarSub:
		y, ok := b.(ScalarSub)
		return ok && x.Table == y.Table && Equal(x.X, y.X)
	case Aliased:
		y, ok := b.(Aliased)
		return ok && x.Name == y.Name && Equal(x.X, y.X)
	}
	return false
}

// equalCompound compares the parts made of several expressions or a
// subquery.
func equalCompound(a, b Expr) bool {
	switch x := a.(type) {
	case Call:
		y, ok := b.(Call)
		return ok && x.Fn == y.Fn && equalAll(x.Args, y.Args)
	case Binary:
		y, ok := b.(Binary)
		return ok && x.Op == y.Op && Equal(x.L, y.L) && Equal(x.R, y.R)
	case Between:
		y, ok := b.(Between)
		return ok && Equal(x.X, y.X) && Equal(x.Lo, y.Lo) && Equal(x.Hi, y.Hi)
	case CaseWhen:
		y, ok := b.(CaseWhen)
		return ok && Equal(x.Cond, y.Cond) && Equal(x.Then, y.Then)
	case InList:
		y, ok := b.(InList)
		return ok && Equal(x.X, y.X) && equalAll(x.Vals, y.Vals)
	case Exists:
		y, ok := b.(Exists)
		return ok && x.Not == y.Not && equalSelect(x.Sub, y.Sub)
	case Subquery:
		y, ok := b.(Subquery)
		return ok && equalSelect(x.Q, y.Q)
	case Over:
		y, ok := b.(Over)
		return ok && Equal(x.X, y.X) && equalOrder(x.OrderBy, y.OrderBy)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && equalAll(x.Xs, y.Xs)
	}
	return false
}

func equalOrder(a, b []Order) bool {
	return slices.EqualFunc(a, b, func(x, y Order) bool { return x.Desc == y.Desc && Equal(x.X, y.X) })
}

func equalAll(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// equalSelect compares two queries part by part.
func equalSelect(a, b Select) bool {
	return a.Distinct == b.Distinct && equalAll(a.Selects, b.Selects) && equalFrom(a.From, b.From) &&
		equalAll(a.Where, b.Where) && equalAll(a.GroupBy, b.GroupBy) && equalAll(a.Having, b.Having) &&
		equalOrder(a.OrderBy, b.OrderBy) && a.Limit == b.Limit
}

func equalFrom(a, b From) bool {
	if !equalSource(a.First, b.First) || len(a.Joins) != len(b.Joins) {
		return false
	}
	for i, j := range a.Joins {
		k := b.Joins[i]
		if j.Left != k.Left || !equalSource(j.To, k.To) || !Equal(j.On, k.On) {
			return false
		}
	}
	return true
}

func equalSource(a, b Source) bool {
	if a.Table != b.Table || a.Alias != b.Alias || a.Lines != b.Lines || (a.Sub == nil) != (b.Sub == nil) {
		return false
	}
	return a.Sub == nil || equalSelect(*a.Sub, *b.Sub)
}
