package sqlexpr

import "strings"

// Subquery is "(SELECT …)", a value computed per row of the reading from
// other rows; Cols are the reading's own columns it reads.
type Subquery struct {
	Q    Select
	Cols []ColRef
}

func (s Subquery) Render(n Namer) string { return "(" + s.Q.Render(n) + ")" }

// Select is a SELECT inside another query: the rows of an EXISTS, a
// subquery's value, a grouped table joined. Conditions are ANDed.
type Select struct {
	Distinct bool
	Selects  []Expr
	From     From
	Where    []Expr
	GroupBy  []Expr
	Having   []Expr
}

func (q Select) Render(n Namer) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(renderAll(n, q.Selects, ", "))
	b.WriteString(" FROM " + q.From.Render(n, " "))
	if len(q.Where) > 0 {
		b.WriteString(" WHERE " + renderAll(n, q.Where, " AND "))
	}
	if len(q.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + renderAll(n, q.GroupBy, ", "))
	}
	if len(q.Having) > 0 {
		b.WriteString(" HAVING " + renderAll(n, q.Having, " AND "))
	}
	return b.String()
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

// Source is a table by name, or a subquery under an alias.
type Source struct {
	Table string
	Sub   *Select
	Alias string
}

func (s Source) Render(n Namer) string {
	if s.Sub != nil {
		return "(" + s.Sub.Render(n) + ") AS " + n.Ident(s.Alias)
	}
	if s.Alias != "" {
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
