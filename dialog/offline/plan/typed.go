package plan

import (
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Typed meanings: what the dialog understood from words a person typed
// (dialog.Feedback.Term, "revenue" = net revenue minus the amount
// refunded; "active" = status is placed or shipped), and what a person's
// definition of a phrase says when it is a computed measure. They are
// built as the typed parts of readings, not re-read from the words:
//
//   - a condition becomes the phrase's stated definition (define.go's
//     stated meanings), whatever the engine would have offered for it;
//   - a computed measure replaces the alternatives of the phrase's column
//     mention with one per-row expression: the first measure's column
//     minus (plus) each other measure of a related table summed per row
//     of the first's table, so that totals, averages and rankings over it
//     are the measures' difference and a join never repeats a row.
//
// Engine hooks (the only changes outside this file): analyse skips the
// words of typed feedback (parse.go), readings calls typedMeasures and
// typedTerms (build.go), and Candidates adds withTyped's definitions
// (engine.go).

// typedMeasures gives each computed measure's phrase, where a column
// mention spells it, the computed expression as its only alternative; a
// typed total of one column likewise that column, aggregated.
func (e *Builder) typedMeasures(a *links.Analysis, defs []links.TypedDef) {
	for _, d := range defs {
		var table, column string
		var x sqlexpr.Expr
		switch {
		case d.Term.Kind == ontology.TermComputed:
			var ok bool
			if table, column, x, ok = e.computedRowExpr(d.Term); !ok {
				continue
			}
		case d.Term.Kind == ontology.TermMeasure && d.FactID == "" && d.Term.Fn != "COUNT":
			// A total typed for a phrase read as rows: that column,
			// aggregated.
			tbl, name, ok := strings.Cut(d.Term.Expr, ".")
			c := e.m.Column(tbl, name)
			if !ok || c == nil {
				continue
			}
			table, column = e.m.ByName[strings.ToLower(tbl)].Name, c.Name
			x = sqlexpr.Col(table, column)
		default:
			continue
		}
		for _, cm := range a.Columns {
			if !strings.EqualFold(cm.Phrase, d.Phrase) && !strings.EqualFold(links.SingularOf(cm.Phrase), links.SingularOf(d.Phrase)) {
				continue
			}
			// Named by its first measure's column, which every shape
			// that takes a measure checks (a number, not a key).
			alt := links.ColAlt{Table: table, Column: column, Weight: 1}
			if _, plain := sqlexpr.IsColumn(x); !plain {
				alt.X = x
			}
			cm.Alts = []links.ColAlt{alt}
			a.TypedMarkers = appendNewExpr(e.m, a.TypedMarkers, x)
			if a.Sup == nil && !a.Count && a.Agg == "" && len(a.Groups) == 0 {
				// Nothing else in the question aggregates: the measure
				// is a total ("revenue of active orders").
				fn := d.Term.Fn
				if d.Term.Kind == ontology.TermComputed {
					fn = "SUM"
				}
				a.Agg, a.AggAt = fn, cm.At
			}
			switch {
			case d.Term.Kind == ontology.TermMeasure:
				// A plain column: the readings say so by their SQL.
			case d.FactID != "":
				a.Linked = append(a.Linked, links.LinkedFact{FactID: d.FactID, X: x})
			default:
				a.TypedMeasures = append(a.TypedMeasures, links.TypedMeasure{Marker: x,
					Def: dialog.Definition{Phrase: d.Phrase, Term: d.Term, Label: d.Label, Stated: true}})
			}
		}
	}
}

// computedRowExpr is a computed measure per row of its first measure's
// table: SUM(orders.net_amount) - SUM(refunds.amount) is, per order,
// orders.net_amount - COALESCE((SELECT SUM(refunds.amount) FROM refunds
// WHERE refunds.order_id = orders.id), 0). Only totals combine this way,
// and only over a table that points at the first one.
func (e *Builder) computedRowExpr(t ontology.Term) (table, column string, x sqlexpr.Expr, ok bool) {
	var base *schema.Table
	for i, item := range t.Items {
		fn, arg := sqlshape.SplitAggregate(item)
		tbl, name, ok := strings.Cut(arg, ".")
		if fn != "SUM" || !ok || e.m.Column(tbl, name) == nil {
			return "", "", nil, false
		}
		if i == 0 {
			base, column = e.m.ByName[strings.ToLower(tbl)], e.m.Column(tbl, name).Name
			x = sqlexpr.Col(base.Name, column)
			continue
		}
		var part sqlexpr.Expr
		if strings.EqualFold(tbl, base.Name) {
			part = sqlexpr.Col(base.Name, e.m.Column(tbl, name).Name)
		}
		for _, j := range e.m.Snap.Schema.Joins {
			if part != nil || j.When != nil || !strings.EqualFold(j.FromTable, tbl) || !strings.EqualFold(j.ToTable, base.Name) {
				continue
			}
			// The related rows' total per row of the first table, so that
			// no join repeats a row.
			sub := sqlexpr.Subquery{Q: sqlexpr.Select{Selects: []sqlexpr.Expr{sqlexpr.AggOver("SUM", sqlexpr.Col(j.FromTable, name))}, From: sqlexpr.From{First: sqlexpr.Source{Table: j.FromTable}},
				Where: []sqlexpr.Expr{sqlexpr.Cmp(sqlexpr.Col(j.FromTable, j.FromColumn), "=", sqlexpr.Col(j.ToTable, j.ToColumn))}},
				Cols: []sqlexpr.ColRef{sqlexpr.Col(j.ToTable, j.ToColumn)}}
			part = sqlexpr.Fn("COALESCE", sub, sqlexpr.Num("0"))
		}
		if part == nil {
			return "", "", nil, false
		}
		x = sqlexpr.Cmp(x, t.Op, part)
	}
	if base == nil {
		return "", "", nil, false
	}
	return base.Name, column, x, true
}

func appendNewExpr(m *schema.Model, list []sqlexpr.Expr, x sqlexpr.Expr) []sqlexpr.Expr {
	if slices.ContainsFunc(list, func(y sqlexpr.Expr) bool { return SameExpr(m, x, y) }) {
		return list
	}
	return append(list, x)
}

// typedTerms makes each typed condition the stated definition of its
// phrase, on the subject the phrase qualifies.
func (e *Builder) typedTerms(a *links.Analysis, terms []*termMention, stated map[*termMention]definition, head *schema.Table, defs []links.TypedDef, now time.Time) ([]*termMention, map[*termMention]definition) {
	for _, d := range defs {
		if d.FactID != "" || d.Term.Kind != ontology.TermValues && d.Term.Kind != ontology.TermPredicate {
			continue
		}
		var tm *termMention
		for _, t := range terms {
			if strings.EqualFold(t.phrase, d.Phrase) {
				tm = t
			}
		}
		if tm == nil {
			tm = e.spelledTerm(a, d.Phrase, head)
			if tm == nil {
				continue
			}
			terms = append(terms, tm)
		}
		if !strings.EqualFold(tm.subject.Name, d.Term.Subject) {
			if s := e.m.ByName[strings.ToLower(d.Term.Subject)]; s != nil {
				tm.subject = s
			} else {
				continue
			}
		}
		def, ok := e.typedCondition(tm, d, now)
		if !ok {
			continue
		}
		def.def.Stated = true
		stated[tm] = def
	}
	return terms, stated
}

// spelledTerm is the mention of phrase where the question spells it with
// words the schema does not name, qualifying head.
func (e *Builder) spelledTerm(a *links.Analysis, phrase string, head *schema.Table) *termMention {
	if head == nil {
		return nil
	}
	for i := range a.Toks {
		end := a.SpanOf(i, phrase)
		if a.Toks[i].Clause != 0 || !strings.EqualFold(a.Phrase(i, end), phrase) {
			continue
		}
		return &termMention{phrase: a.Phrase(i, end), at: i, end: end, subject: head}
	}
	return nil
}

// typedCondition builds a typed condition on the mention's subject, in
// the forms fromTerm rebuilds, and "not in" for values.
func (e *Builder) typedCondition(tm *termMention, d links.TypedDef, now time.Time) (definition, bool) {
	t := d.Term
	if t.Kind == ontology.TermValues && t.Op == "not in" {
		_, name, _ := strings.Cut(t.Column, ".")
		c := tm.subject.Def.Column(name)
		if c == nil || len(t.Values) == 0 {
			return definition{}, false
		}
		q := make([]sqlexpr.Expr, len(t.Values))
		for i, v := range t.Values {
			q[i] = sqlexpr.Str(v)
		}
		return definition{
			cond:   sqlexpr.Prefix{Op: "NOT", X: sqlexpr.Paren{X: sqlexpr.InList{X: sqlexpr.Col(tm.subject.Name, c.Name), Vals: q}}},
			def:    dialog.Definition{Phrase: tm.phrase, Term: t, Label: d.Label},
			weight: 1,
		}, true
	}
	def, ok := e.fromTerm(tm, t, d.Label, now)
	if ok && d.Label != "" {
		def.def.Label = d.Label
	}
	return def, ok
}
