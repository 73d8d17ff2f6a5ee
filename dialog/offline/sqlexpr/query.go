package sqlexpr

import (
	"strconv"
	"strings"
)

// Subquery is "(SELECT …)", a value computed per row of the reading from
// other rows; Cols are the reading's own columns it reads.
type Subquery struct {
	Q    Select
	Cols []ColRef
}

func (s Subquery) Render(n Namer) string { return "(" + s.Q.Render(n) + ")" }

// Select is a query: a reading on its own (Statement), or a SELECT inside
// another query — the rows of an EXISTS, a subquery's value, a grouped
// table joined (Render). Conditions are ANDed.
type Select struct {
	Distinct bool
	Selects  []Expr
	From     From
	Where    []Expr
	GroupBy  []Expr
	Having   []Expr
	OrderBy  []Order
	Limit    int // 0: no limit
}

// layout is how a query is spread over lines: what goes before each
// clause, between joins and between the conditions of WHERE.
type layout struct{ clause, join, and string }

var (
	// inline is a query inside another, on one line.
	inline = layout{clause: " ", join: " ", and: " AND "}
	// lines is a query on its own: a line for each clause, join and
	// condition of WHERE.
	lines = layout{clause: "\n", join: "\n", and: "\n  AND "}
)

// Render writes the query on one line, as it reads inside another.
func (q Select) Render(n Namer) string { return q.render(n, inline) }

// Statement writes the query on its own, a line for each clause, each
// join and each condition of WHERE.
func (q Select) Statement(n Namer) string { return q.render(n, lines) }

func (q Select) render(n Namer, l layout) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(renderAll(n, q.Selects, ", "))
	b.WriteString(l.clause + "FROM " + q.From.Render(n, l.join))
	if len(q.Where) > 0 {
		b.WriteString(l.clause + "WHERE " + renderAll(n, q.Where, l.and))
	}
	if len(q.GroupBy) > 0 {
		b.WriteString(l.clause + "GROUP BY " + renderAll(n, q.GroupBy, ", "))
	}
	if len(q.Having) > 0 {
		b.WriteString(l.clause + "HAVING " + renderAll(n, q.Having, " AND "))
	}
	if len(q.OrderBy) > 0 {
		b.WriteString(l.clause + "ORDER BY " + renderOrder(n, q.OrderBy))
	}
	if q.Limit > 0 {
		b.WriteString(l.clause + "LIMIT " + strconv.Itoa(q.Limit))
	}
	return b.String()
}

// Order is an item of ORDER BY: "x" or "x DESC".
type Order struct {
	X    Expr
	Desc bool
}

func (o Order) Render(n Namer) string {
	if o.Desc {
		return o.X.Render(n) + " DESC"
	}
	return o.X.Render(n)
}

// renderOrder renders ORDER BY items, without the keywords.
func renderOrder(n Namer, os []Order) string {
	parts := make([]string, len(os))
	for i, o := range os {
		parts[i] = o.Render(n)
	}
	return strings.Join(parts, ", ")
}

// renderAll renders xs separated by sep.
func renderAll(n Namer, xs []Expr, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.Render(n)
	}
	return strings.Join(parts, sep)
}

// From is a FROM clause: the first source and the joins after it.
type From struct {
	First Source
	Joins []Join
}

// Render writes the sources without the FROM keyword, each join after
// sep.
func (f From) Render(n Namer, sep string) string {
	var b strings.Builder
	b.WriteString(f.First.Render(n))
	for _, j := range f.Joins {
		b.WriteString(sep + j.Render(n))
	}
	return b.String()
}

// Replace puts with in place of the source that is the table named
// table: the first, else the first join to it.
func (f *From) Replace(table string, with Source) {
	if f.First.Sub == nil && f.First.Table == table {
		f.First = with
		return
	}
	for i, j := range f.Joins {
		if j.To.Sub == nil && j.To.Table == table {
			f.Joins[i].To = with
			return
		}
	}
}

// Source is a table by name, or a subquery under an alias. A subquery
// in Lines is written as a statement of its own, on lines between its
// parentheses: the derived table a query around a whole reading reads.
type Source struct {
	Table string
	Sub   *Select
	Alias string
	Lines bool
}

func (s Source) Render(n Namer) string {
	switch {
	case s.Sub != nil && s.Lines:
		return "(\n" + s.Sub.Statement(n) + "\n) AS " + n.Ident(s.Alias)
	case s.Sub != nil:
		return "(" + s.Sub.Render(n) + ") AS " + n.Ident(s.Alias)
	case s.Alias != "":
		return n.Ident(s.Table) + " AS " + n.Ident(s.Alias)
	}
	return n.Ident(s.Table)
}

// Join is "[LEFT ]JOIN source ON cond".
type Join struct {
	Left bool
	To   Source
	On   Expr
}

func (j Join) Render(n Namer) string {
	kw := "JOIN "
	if j.Left {
		kw = "LEFT JOIN "
	}
	return kw + j.To.Render(n) + " ON " + j.On.Render(n)
}

// And is the conjunction of conds, nil for none.
func And(conds ...Expr) Expr {
	var out Expr
	for _, c := range conds {
		switch {
		case c == nil:
		case out == nil:
			out = c
		default:
			out = Binary{Op: "AND", L: out, R: c}
		}
	}
	return out
}
