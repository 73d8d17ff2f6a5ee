package offline

import (
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog"
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

// typedDef is one typed meaning of a phrase.
type typedDef struct {
	phrase string
	term   ontology.Term
	label  string
	// factID is set for a person's remembered definition: readings that
	// use it name the fact (Candidate.Linked).
	factID string
}

// typedMeasure is a computed measure built into readings: SQL holding
// marker uses it.
type typedMeasure struct {
	marker string
	def    dialog.Definition
}

// typedDefs collects the typed meanings of a request: feedback the dialog
// read, and the active computed-measure definitions among the facts.
func typedDefs(feedback []dialog.Feedback, facts []ontology.Fact) []typedDef {
	var out []typedDef
	for _, fb := range feedback {
		if fb.Term != nil && fb.About != "" {
			out = append(out, typedDef{phrase: strings.ToLower(fb.About), term: *fb.Term, label: fb.Text})
		}
	}
	for _, f := range facts {
		if f.Active() && f.Kind == ontology.KindDefinition && f.Target.Choice.Kind == ontology.TermComputed &&
			!slices.ContainsFunc(out, func(d typedDef) bool { return d.phrase == f.Phrase }) {
			out = append(out, typedDef{phrase: f.Phrase, term: f.Target.Choice, label: f.Meaning, factID: f.ID})
		}
	}
	return out
}

// typedMeasures gives each computed measure's phrase, where a column
// mention spells it, the computed expression as its only alternative; a
// typed total of one column likewise that column, aggregated.
func (e *Engine) typedMeasures(a *analysis, defs []typedDef) {
	for _, d := range defs {
		var table, column, expr string
		switch {
		case d.term.Kind == ontology.TermComputed:
			var ok bool
			if table, column, expr, ok = e.computedRowExpr(d.term); !ok {
				continue
			}
		case d.term.Kind == ontology.TermMeasure && d.factID == "" && d.term.Fn != "COUNT":
			// A total typed for a phrase read as rows: that column,
			// aggregated.
			tbl, col, ok := strings.Cut(d.term.Expr, ".")
			c := e.m.column(tbl, col)
			if !ok || c == nil {
				continue
			}
			table, column, expr = e.m.byName[strings.ToLower(tbl)].name, c.Name, e.m.col(e.m.byName[strings.ToLower(tbl)].name, c.Name)
		default:
			continue
		}
		for _, cm := range a.columns {
			if !strings.EqualFold(cm.phrase, d.phrase) && !strings.EqualFold(singularOf(cm.phrase), singularOf(d.phrase)) {
				continue
			}
			// Named by its first measure's column, which every shape
			// that takes a measure checks (a number, not a key).
			cm.alts = []colAlt{{table: table, column: column, weight: 1, expr: expr}}
			a.typedMarkers = appendNew(a.typedMarkers, expr)
			if a.sup == nil && !a.count && a.agg == "" && len(a.groups) == 0 {
				// Nothing else in the question aggregates: the measure
				// is a total ("revenue of active orders").
				fn := d.term.Fn
				if d.term.Kind == ontology.TermComputed {
					fn = "SUM"
				}
				a.agg, a.aggAt = fn, cm.at
			}
			switch {
			case d.term.Kind == ontology.TermMeasure:
				// A plain column: the readings say so by their SQL.
			case d.factID != "":
				a.linked = append(a.linked, linkedFact{factID: d.factID, column: expr})
			default:
				a.typedMeasures = append(a.typedMeasures, typedMeasure{marker: expr,
					def: dialog.Definition{Phrase: d.phrase, Term: d.term, Label: d.label, Stated: true}})
			}
		}
	}
}

// computedRowExpr is a computed measure per row of its first measure's
// table: SUM(orders.net_amount) - SUM(refunds.amount) is, per order,
// orders.net_amount - COALESCE((SELECT SUM(refunds.amount) FROM refunds
// WHERE refunds.order_id = orders.id), 0). Only totals combine this way,
// and only over a table that points at the first one.
func (e *Engine) computedRowExpr(t ontology.Term) (table, column, expr string, ok bool) {
	var base *tableInfo
	var b strings.Builder
	for i, item := range t.Items {
		fn, arg := sqlshape.SplitAggregate(item)
		tbl, col, ok := strings.Cut(arg, ".")
		if fn != "SUM" || !ok || e.m.column(tbl, col) == nil {
			return "", "", "", false
		}
		if i == 0 {
			base, column = e.m.byName[strings.ToLower(tbl)], e.m.column(tbl, col).Name
			b.WriteString(e.m.col(base.name, col))
			continue
		}
		b.WriteString(" " + t.Op + " ")
		if strings.EqualFold(tbl, base.name) {
			b.WriteString(e.m.col(base.name, col))
			continue
		}
		found := false
		for _, j := range e.m.snap.Schema.Joins {
			if j.When != nil || !strings.EqualFold(j.FromTable, tbl) || !strings.EqualFold(j.ToTable, base.name) {
				continue
			}
			b.WriteString("COALESCE((SELECT SUM(" + e.m.col(j.FromTable, col) + ") FROM " + e.m.ident(j.FromTable) +
				" WHERE " + e.m.col(j.FromTable, j.FromColumn) + " = " + e.m.col(j.ToTable, j.ToColumn) + "), 0)")
			found = true
			break
		}
		if !found {
			return "", "", "", false
		}
	}
	if base == nil {
		return "", "", "", false
	}
	return base.name, column, b.String(), true
}

// typedUnaggregated reports whether a reading lists a computed measure row
// by row: a measure computed from totals is only ever a total (or an
// average, a ranking) of them.
func (a *analysis) typedUnaggregated(sql string) bool {
	for _, m := range a.typedMarkers {
		for rest := sql; ; {
			i := strings.Index(rest, m)
			if i < 0 {
				break
			}
			if !aggregateBefore(strings.TrimRight(rest[:i], " ")) {
				return true
			}
			rest = rest[i+len(m):]
		}
	}
	return false
}

// aggregateBefore reports whether s ends with an aggregate's opening
// "SUM(", "AVG(", "MIN(", "MAX(" or "COUNT(".
func aggregateBefore(s string) bool {
	for _, fn := range []string{"SUM(", "AVG(", "MIN(", "MAX(", "COUNT("} {
		if strings.HasSuffix(strings.ToUpper(s), fn) {
			return true
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// withTyped adds to a reading's definitions the computed measures its SQL
// uses.
func (a *analysis) withTyped(defs []dialog.Definition, sql string) []dialog.Definition {
	for _, tm := range a.typedMeasures {
		if strings.Contains(sql, tm.marker) && !slices.ContainsFunc(defs, func(d dialog.Definition) bool { return d.Phrase == tm.def.Phrase }) {
			defs = append(slices.Clip(defs), tm.def)
		}
	}
	return defs
}

// typedTerms makes each typed condition the stated definition of its
// phrase, on the subject the phrase qualifies.
func (e *Engine) typedTerms(a *analysis, terms []*termMention, stated map[*termMention]definition, head *tableInfo, defs []typedDef, now time.Time) ([]*termMention, map[*termMention]definition) {
	for _, d := range defs {
		if d.factID != "" || d.term.Kind != ontology.TermValues && d.term.Kind != ontology.TermPredicate {
			continue
		}
		var tm *termMention
		for _, t := range terms {
			if strings.EqualFold(t.phrase, d.phrase) {
				tm = t
			}
		}
		if tm == nil {
			tm = e.spelledTerm(a, d.phrase, head)
			if tm == nil {
				continue
			}
			terms = append(terms, tm)
		}
		if !strings.EqualFold(tm.subject.name, d.term.Subject) {
			if s := e.m.byName[strings.ToLower(d.term.Subject)]; s != nil {
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
func (e *Engine) spelledTerm(a *analysis, phrase string, head *tableInfo) *termMention {
	if head == nil {
		return nil
	}
	for i := range a.toks {
		end := a.spanOf(i, phrase)
		if a.toks[i].clause != 0 || !strings.EqualFold(a.phrase(i, end), phrase) {
			continue
		}
		return &termMention{phrase: a.phrase(i, end), at: i, end: end, subject: head}
	}
	return nil
}

// typedCondition builds a typed condition on the mention's subject, in
// the forms fromTerm rebuilds, and "not in" for values.
func (e *Engine) typedCondition(tm *termMention, d typedDef, now time.Time) (definition, bool) {
	t := d.term
	if t.Kind == ontology.TermValues && t.Op == "not in" {
		_, col, _ := strings.Cut(t.Column, ".")
		c := tm.subject.t.Column(col)
		if c == nil || len(t.Values) == 0 {
			return definition{}, false
		}
		q := make([]string, len(t.Values))
		for i, v := range t.Values {
			q[i] = quote(v)
		}
		return definition{
			cond:   e.m.col(tm.subject.name, c.Name) + " NOT IN (" + strings.Join(q, ", ") + ")",
			def:    dialog.Definition{Phrase: tm.phrase, Term: t, Label: d.label},
			weight: 1,
		}, true
	}
	def, ok := e.fromTerm(tm, t, d.label, now)
	if ok && d.label != "" {
		def.def.Label = d.label
	}
	return def, ok
}
