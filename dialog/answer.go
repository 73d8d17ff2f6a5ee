package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/tables"
)

// representative picks the candidate that speaks for an interpretation:
// the most likely, then the shortest SQL.
func (st *convState) representative(group int) *candState {
	var best *candState
	for _, i := range st.live() {
		c := &st.Candidates[i]
		if c.Group != group {
			continue
		}
		if best == nil || c.Prior > best.Prior || c.Prior == best.Prior && len(c.SQL) < len(best.SQL) {
			best = c
		}
	}
	return best
}

// answer runs the chosen interpretation and presents it.
func (m *Manager) answer(ctx context.Context, st *convState, ev Event, group int) ([]Reply, error) {
	rep := st.representative(group)
	if rep == nil {
		r := notice(ev.Conversation, m.noReading(st))
		m.recordFailure(ctx, st, r.Text)
		return []Reply{r}, m.save(ctx, st)
	}
	res, err := m.deps.Exec.Query(ctx, rep.SQL, m.cfg.AnswerLimits)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("answer: %w", ctx.Err())
		}
		r := notice(ev.Conversation, m.fail("answer query failed", err).Text())
		m.recordQuestion(ctx, st, OutcomeFailed, r.Text, []string{rep.SQL}, 0)
		return []Reply{r}, m.save(ctx, st)
	}
	a := &Answer{ID: newID(), SQL: rep.SQL, Result: res, RowCount: len(res.Rows), Truncated: res.Truncated, Unused: rep.Unused}
	shape, err := sqlshape.Parse(rep.SQL, m.labels.TableOf)
	if err != nil {
		shape = nil
	}
	for _, c := range res.Columns {
		a.Columns = append(a.Columns, c.Name)
	}
	a.Formats, a.Headings = m.labels.columnFormats(res, shape)
	for i, r := range res.Rows {
		if i == m.cfg.DisplayRows {
			break
		}
		row := make([]string, len(r))
		for j, v := range r {
			row[j] = a.Formats[j].Value(v)
		}
		a.Rows = append(a.Rows, row)
	}
	if shape != nil {
		a.Explanation = withDefinitions(sqlshape.Explain(shape, m.labels), rep.Defines)
	}
	m.applyLinked(ctx, st, rep.Linked)
	for _, f := range st.Applied {
		a.UsedFacts = append(a.UsedFacts, UsedFact{FactID: f.FactID, Phrase: f.Phrase, Meaning: f.Meaning, Scope: f.Scope, Definition: f.Key.Name == sqlshape.SlotDefine, Team: f.fromGlossary()})
	}
	m.recordUses(ctx, a.UsedFacts)
	a.Notes = append(a.Notes, st.Notes...)
	a.Notes = append(a.Notes, st.leftOutNotes(rep)...)
	if len(res.Rows) == 0 && shape != nil {
		a.Notes = append(a.Notes, m.valueCheck(shape)...)
	}
	m.learnStated(ctx, st, rep.Defines)
	m.learnTypedDefinitions(ctx, st, rep)
	detail := ""
	if res.Truncated {
		detail = fmt.Sprintf("the warehouse had more rows than the %d fetched", len(res.Rows))
	}
	m.recordQuestion(ctx, st, OutcomeAnswered, detail, []string{rep.SQL}, len(res.Rows))
	st.Answer = &answerRec{ID: a.ID, SQL: a.SQL, Group: group, UsedFacts: a.UsedFacts}
	st.Status = statusAnswered
	st.Pending = nil
	st.Notes = nil
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	m.obs.Answer()
	return []Reply{{Kind: ReplyAnswer, Conversation: ev.Conversation, Answer: a, Text: answerText(a, m.cfg.DisplayRows)}}, nil
}

// applyLinked records the facts the answered reading linked (a defined
// phrase taken as its column) as applied, so that the answer says so, the
// audit names them and 'change' can set them aside. They decide no
// decision point: their Key is zero.
func (m *Manager) applyLinked(ctx context.Context, st *convState, linked []appliedFact) {
	for _, f := range linked {
		if slices.ContainsFunc(st.Applied, func(a appliedFact) bool { return a.FactID == f.FactID }) || slices.Contains(st.Skipped, f.FactID) {
			continue
		}
		st.Applied = append(st.Applied, f)
		m.obs.FactApplied(f.Scope)
	}
}

// valueCheck explains an empty result: a text value compared with a column
// that does not hold it, and the stored values closest to it.
func (m *Manager) valueCheck(s *sqlshape.Shape) []string {
	notes := []string{"No rows matched."}
	for _, f := range s.Filters {
		if f.Depth != 0 || (f.Op != "=" && f.Op != "in") || f.Column == "" || len(f.Display) == 0 {
			continue
		}
		table, col := splitTC(f.Column)
		for _, v := range f.Display {
			if _, err := fmt.Sscanf(v, "%f", new(float64)); err == nil {
				continue
			}
			hits := m.deps.Catalog.SearchValues(v, 20)
			var same, other []catalog.ValueHit
			for _, h := range hits {
				if strings.EqualFold(h.Table, table) && strings.EqualFold(h.Column, col) {
					same = append(same, h)
				} else {
					other = append(other, h)
				}
			}
			if len(same) > 0 && strings.EqualFold(same[0].Value, v) {
				continue // the value exists; the combination of conditions is empty
			}
			switch {
			case len(same) > 0:
				notes = append(notes, fmt.Sprintf("%s has no '%s'; did you mean '%s'?", upperFirst(m.labels.Column(f.Column)), v, same[0].Value))
			case len(other) > 0:
				notes = append(notes, fmt.Sprintf("%s has no '%s', but %s has '%s'.", upperFirst(m.labels.Column(f.Column)), v, m.labels.Column(other[0].Table+"."+other[0].Column), other[0].Value))
			default:
				notes = append(notes, fmt.Sprintf("No stored value looks like '%s'.", v))
			}
		}
	}
	return notes
}

// answerText renders an answer as plain text.
func answerText(a *Answer, displayRows int) string {
	var b strings.Builder
	if a.Explanation != "" {
		b.WriteString(a.Explanation + "\n")
	}
	b.WriteString(tables.Render(a.Columns, a.Rows, tables.Options{MaxCellWidth: 40}))
	switch {
	case a.Truncated:
		fmt.Fprintf(&b, "(showing %d of the first %d rows; there are more)\n", len(a.Rows), a.RowCount)
	case a.RowCount > len(a.Rows):
		fmt.Fprintf(&b, "(showing %d of %d rows)\n", len(a.Rows), a.RowCount)
	}
	for _, f := range a.UsedFacts {
		fmt.Fprintf(&b, "Using %s: '%s' = %s · change\n", f.Whose("workspace"), f.Phrase, lowerFirst(f.Meaning))
	}
	if len(a.Unused) > 0 {
		b.WriteString(UnusedNote(a.Unused) + "\n")
	}
	for _, n := range a.Notes {
		b.WriteString(n + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// UnusedNote says which words an answer left out and how to include them.
func UnusedNote(unused []string) string {
	quoted := make([]string, len(unused))
	for i, u := range unused {
		quoted[i] = "'" + u + "'"
	}
	return fmt.Sprintf("I did not use %s — tell me what %s to include %s.", joinAnd(quoted), pick(len(unused) == 1, "it means", "they mean"), pick(len(unused) == 1, "it", "them"))
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// withDefinitions says in the explanation what the words the schema does
// not name were taken to mean; their subqueries need no other mention.
func withDefinitions(explanation string, defs []Definition) string {
	if len(defs) == 0 || explanation == "" {
		return explanation
	}
	e := strings.TrimSuffix(strings.Replace(explanation, " (using a subquery)", "", 1), ".")
	var parts []string
	for _, d := range defs {
		parts = append(parts, fmt.Sprintf("'%s' meaning %s", d.Phrase, lowerFirst(d.Label)))
	}
	return e + ", with " + joinAnd(parts) + "."
}

// columnFormats decides how each result column reads (money, dates,
// periods…) and names it plainly, from the select list's expressions and
// the comments of the columns under them; without a parsed shape, from the
// result's names and types alone.
func (l *Labels) columnFormats(res *warehouse.Result, shape *sqlshape.Shape) ([]colfmt.Format, []string) {
	formats := make([]colfmt.Format, len(res.Columns))
	headings := make([]string, len(res.Columns))
	// Outputs line up with result columns unless a * expanded.
	aligned := shape != nil && len(shape.Outputs) == len(res.Columns)
	for i, rc := range res.Columns {
		c := colfmt.Column{Name: rc.Name, Type: rc.Type}
		headings[i] = tables.Humanize(rc.Name)
		if aligned {
			o := shape.Outputs[i]
			c.Expr, c.Agg = o.Expr, o.Agg
			if src, ok := l.columns[strings.ToLower(o.Column)]; ok {
				c.Source, c.Comment, c.SourceType = src.Name, src.Comment, src.DataType
			}
			headings[i] = l.heading(o, rc.Name, shape.TopTables)
		}
		formats[i] = colfmt.Detect(c)
	}
	return formats, headings
}

// heading is a column's plain name for people: "total net revenue after
// discounts", "number of orders", "region name".
func (l *Labels) heading(o sqlshape.Output, name string, top []string) string {
	_, known := l.columns[strings.ToLower(o.Column)]
	agg := strings.ToUpper(o.Agg)
	switch {
	case agg == "COUNT" && o.Column == "*" && len(top) == 1:
		return "number of " + l.Table(top[0])
	case agg == "COUNT" && known && l.IsKey(o.Column):
		t, _ := splitTC(o.Column)
		return "number of " + l.Table(t)
	case agg == "COUNT" && known:
		return "number of " + l.Column(o.Column)
	case agg != "" && known:
		words := map[string]string{"SUM": "total", "AVG": "average", "MIN": "lowest", "MAX": "highest"}
		if w, ok := words[agg]; ok {
			return w + " " + l.Column(o.Column)
		}
	case agg == "" && known && strings.EqualFold(o.Expr, o.Column):
		return l.Column(o.Column)
	}
	return tables.Humanize(name)
}
