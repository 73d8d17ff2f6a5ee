package sqlexpr

import "strings"

// Expr is one typed part of a reading.
type Expr interface {
	// Render writes the part as MySQL SQL, quoting names with n.
	Render(n Namer) string
}

// Namer quotes the names of a schema: a table or column, and a column of a
// table.
type Namer interface {
	Ident(name string) string
	Col(table, column string) string
}

// ColRef is table.column.
type ColRef struct{ Table, Column string }

func (c ColRef) Render(n Namer) string { return n.Col(c.Table, c.Column) }

// Agg is an aggregate: SUM(x), COUNT(*), COUNT(DISTINCT x).
type Agg struct {
	Fn       string // SUM, AVG, MIN, MAX, COUNT
	Distinct bool
	Arg      Expr // nil for COUNT(*)
}

func (a Agg) Render(n Namer) string {
	if a.Arg == nil {
		return a.Fn + "(*)"
	}
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	return a.Fn + "(" + d + a.Arg.Render(n) + ")"
}

// CountAll is COUNT(*).
var CountAll = Agg{Fn: "COUNT"}

// Call is a function of its arguments: YEAR(x), DATEDIFF(a, b).
type Call struct {
	Fn   string
	Args []Expr
}

func (c Call) Render(n Namer) string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.Render(n)
	}
	return c.Fn + "(" + strings.Join(parts, ", ") + ")"
}

// Keyword is a bare word inside a call: the unit of TIMESTAMPDIFF.
type Keyword string

func (k Keyword) Render(Namer) string { return string(k) }

// Binary is "l op r": comparisons, arithmetic, AND/OR, LIKE.
type Binary struct {
	Op   string
	L, R Expr
}

func (b Binary) Render(n Namer) string { return b.L.Render(n) + " " + b.Op + " " + b.R.Render(n) }

// Paren is "(x)".
type Paren struct{ X Expr }

func (p Paren) Render(n Namer) string { return "(" + p.X.Render(n) + ")" }

// Prefix is "op x": NOT x.
type Prefix struct {
	Op string
	X  Expr
}

func (p Prefix) Render(n Namer) string { return p.Op + " " + p.X.Render(n) }

// IsNull is "x IS NULL" or "x IS NOT NULL".
type IsNull struct {
	X   Expr
	Not bool
}

func (x IsNull) Render(n Namer) string {
	if x.Not {
		return x.X.Render(n) + " IS NOT NULL"
	}
	return x.X.Render(n) + " IS NULL"
}

// Between is "x BETWEEN lo AND hi".
type Between struct{ X, Lo, Hi Expr }

func (b Between) Render(n Namer) string {
	return b.X.Render(n) + " BETWEEN " + b.Lo.Render(n) + " AND " + b.Hi.Render(n)
}

// CaseWhen is "CASE WHEN cond THEN then END".
type CaseWhen struct{ Cond, Then Expr }

func (c CaseWhen) Render(n Namer) string {
	return "CASE WHEN " + c.Cond.Render(n) + " THEN " + c.Then.Render(n) + " END"
}

// ScalarSub is "(SELECT x FROM table)": one value of a whole table.
type ScalarSub struct {
	X     Expr
	Table string
}

func (s ScalarSub) Render(n Namer) string {
	return "(SELECT " + s.X.Render(n) + " FROM " + n.Ident(s.Table) + ")"
}

// InList is "x IN (v1, v2…)".
type InList struct {
	X    Expr
	Vals []Expr
}

func (l InList) Render(n Namer) string {
	parts := make([]string, len(l.Vals))
	for i, v := range l.Vals {
		parts[i] = v.Render(n)
	}
	return l.X.Render(n) + " IN (" + strings.Join(parts, ", ") + ")"
}

// Exists is "[NOT ]EXISTS (SELECT 1 …)": whether related rows exist.
// Tables are those the subquery reads.
type Exists struct {
	Not    bool
	Sub    Select
	Tables []string
	// Values are the stored values the related rows are compared with;
	// Cols the columns the subquery reads.
	Values []string
	Cols   []ColRef
}

func (x Exists) Render(n Namer) string {
	if x.Not {
		return "NOT EXISTS (" + x.Sub.Render(n) + ")"
	}
	return "EXISTS (" + x.Sub.Render(n) + ")"
}

// Over is a window call, computed over the rows of the result: "SUM(x)
// OVER ()", "LAG(x) OVER (ORDER BY p)".
type Over struct {
	X       Expr // an aggregate or a call
	OrderBy []Order
}

func (w Over) Render(n Namer) string {
	if len(w.OrderBy) == 0 {
		return w.X.Render(n) + " OVER ()"
	}
	return w.X.Render(n) + " OVER (ORDER BY " + renderOrder(n, w.OrderBy) + ")"
}

// Tuple is "(a, b)": a row of values, compared with the rows of a
// subquery by IN.
type Tuple struct{ Xs []Expr }

func (t Tuple) Render(n Namer) string { return "(" + renderAll(n, t.Xs, ", ") + ")" }

// Str is a string literal; it renders quoted.
type Str string

func (s Str) Render(Namer) string { return quote(string(s)) }

// Num is a number as written.
type Num string

func (n Num) Render(Namer) string { return string(n) }

// Unqualified is a column named without its table, inside a subquery
// over that one table.
type Unqualified string

func (u Unqualified) Render(n Namer) string { return n.Ident(string(u)) }

// Aliased is "x AS name": a column of a subquery named for the query
// around it.
type Aliased struct {
	X    Expr
	Name string
}

func (a Aliased) Render(n Namer) string { return a.X.Render(n) + " AS " + n.Ident(a.Name) }

// quote makes a SQL string literal.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
