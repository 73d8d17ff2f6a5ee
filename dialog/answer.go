package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
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
	// The reading, and the figure it ranks by beside its rows (figure.go).
	res, fig, added, err := m.runAnswer(ctx, rep.SQL)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("answer: %w", ctx.Err())
		}
		r := notice(ev.Conversation, m.fail("answer query failed", err).Text())
		m.recordQuestion(ctx, st, OutcomeFailed, r.Text, []string{rep.SQL}, 0)
		return []Reply{r}, m.save(ctx, st)
	}
	st.AnswerP = st.groupProbs()[group]
	shown := rep.SQL // the statement whose select list lines up with res
	if fig != "" {
		shown = fig
	}
	loc := colfmt.LocaleFor(ev.Locale)
	a := &Answer{ID: newID(), SQL: rep.SQL, Result: res, RowCount: len(res.Rows), Truncated: res.Truncated, Unused: st.notLeftOutByChoice(rep.Unused), Added: added, Locale: ev.Locale}
	shape, err := sqlshape.Parse(shown, m.labels.TableOf)
	if err != nil {
		shape = nil
	}
	if shape != nil && fig != "" {
		// The figure statement reads past the reading's limit (ties);
		// the answer keeps the reading's own.
		if own, err := sqlshape.Parse(rep.SQL, m.labels.TableOf); err == nil {
			shape.Limit = own.Limit
		}
	}
	a.Formats, a.Headings = m.present(res, shape)
	a.Columns = a.Headings
	a.Rows = formatRows(res.Rows, a.Formats, loc, 0, m.cfg.DisplayRows)
	a.Headline = m.labels.headline(shape, res, a.Formats, a.Headings, loc)
	if shape != nil {
		a.Explanation = withDefinitions(sqlshape.Explain(shape, m.labels), rep.Defines)
	}
	m.applyLinked(ctx, st, rep.Linked)
	for _, f := range st.Applied {
		a.UsedFacts = appendUsed(a.UsedFacts, UsedFact{FactID: f.FactID, Phrase: f.Phrase, Meaning: f.Meaning, Scope: f.Scope, Definition: f.Key.Name == sqlshape.SlotDefine, Team: f.Source.IsGlossary(), Word: f.Word})
	}
	for _, n := range st.Notes {
		a.Notes = appendUnique(a.Notes, n)
	}
	m.recordUses(ctx, a.UsedFacts)
	for _, n := range st.leftOutNotes(rep) {
		a.Notes = appendUnique(a.Notes, n)
	}
	if len(res.Rows) == 0 && shape != nil {
		for _, n := range m.valueCheck(shape) {
			a.Notes = appendUnique(a.Notes, n)
		}
	}
	m.learnStated(ctx, st, rep.Defines)
	m.learnTypedDefinitions(ctx, st, rep)
	detail := ""
	if res.Truncated {
		detail = fmt.Sprintf("the warehouse had more rows than the %d fetched", len(res.Rows))
	}
	st.Audit.Unused = a.Unused
	m.recordQuestion(ctx, st, OutcomeAnswered, detail, []string{rep.SQL}, len(res.Rows))
	st.Answer = &answerRec{ID: a.ID, SQL: rep.SQL, Run: fig, Group: group, UsedFacts: a.UsedFacts, Added: added, Shown: len(a.Rows), Rows: len(res.Rows), Truncated: res.Truncated}
	st.Status = statusAnswered
	st.Pending = nil
	st.Notes = nil
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	m.kept.put(a.ID, res)
	m.obs.Answer()
	return []Reply{{Kind: ReplyAnswer, Conversation: ev.Conversation, Answer: a, Text: answerText(a, loc)}}, nil
}

// appendUsed adds a used fact unless the answer says it already: one
// fact that decided two points of a question (its measure and its
// output), or two facts that read the same, are one line.
func appendUsed(list []UsedFact, f UsedFact) []UsedFact {
	for _, u := range list {
		if u.FactID == f.FactID || u.Phrase == f.Phrase && u.Meaning == f.Meaning && u.Whose("workspace") == f.Whose("workspace") {
			return list
		}
	}
	return append(list, f)
}

// formatRows renders rows[from:from+n] for people (n <= 0: all of them).
func formatRows(rows [][]any, formats []colfmt.Format, loc colfmt.Locale, from, n int) [][]string {
	to := len(rows)
	if n > 0 {
		to = min(to, from+n)
	}
	var out [][]string
	for _, r := range rows[min(from, to):to] {
		row := make([]string, len(r))
		for j, v := range r {
			f := colfmt.Format{}
			if j < len(formats) {
				f = formats[j]
			}
			row[j] = f.ValueIn(v, loc)
		}
		out = append(out, row)
	}
	return out
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
		m.obs.FactApplied(string(f.Scope))
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
func answerText(a *Answer, loc colfmt.Locale) string {
	var b strings.Builder
	if a.Explanation != "" {
		b.WriteString(a.Explanation + "\n")
	}
	if a.Headline != "" {
		b.WriteString(a.Headline + "\n")
	}
	b.WriteString(tables.Render(a.Columns, a.Rows, tables.Options{MaxCellWidth: 40}))
	if s := RowsNote(a, loc); s != "" {
		b.WriteString(s + "\n")
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

// RowsNote says which rows of a result are shown and how to see the rest,
// or "" when all of them are: "(rows 21–40 of 181; 'more' for the next 20,
// 'csv' for all of them)". Adapters with buttons word it their own way.
func RowsNote(a *Answer, loc colfmt.Locale) string {
	total := max(a.RowCount, a.Offset+len(a.Rows))
	if total == 0 || a.Offset == 0 && len(a.Rows) >= total && !a.Truncated {
		return ""
	}
	var shown string
	if a.Offset == 0 {
		shown = fmt.Sprintf("showing %s of %s rows", loc.Int(len(a.Rows)), loc.Int(total))
	} else {
		shown = fmt.Sprintf("rows %s–%s of %s", loc.Int(a.Offset+1), loc.Int(a.Offset+len(a.Rows)), loc.Int(total))
	}
	if a.Truncated {
		shown += fmt.Sprintf(" (the first %s the warehouse returned: the row cap; narrow the question to see the rest)", loc.Int(total))
	}
	if more := a.More(); more > 0 {
		shown += fmt.Sprintf("; 'more' for the next %s, 'all' for the rest, 'csv' for all of them", loc.Int(min(more, max(len(a.Rows), 1))))
	} else if a.Offset > 0 {
		shown += "; that is all of them"
	}
	return "(" + shown + ")"
}

// UnusedNote says which words an answer left out and how to include them.
func UnusedNote(unused []string) string {
	quoted := make([]string, len(unused))
	for i, u := range unused {
		quoted[i] = "'" + u + "'"
	}
	return fmt.Sprintf("I did not use %s — tell me what %s to include %s.", sqlshape.JoinAnd(quoted), pick(len(unused) == 1, "it means", "they mean"), pick(len(unused) == 1, "it", "them"))
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
	return e + ", with " + sqlshape.JoinAnd(parts) + "."
}

// present decides how each result column reads (money, dates,
// periods…) and names it plainly, from the select list's expressions and
// the catalog's columns under them; without a parsed shape, from the
// result's names and types alone. Every money column of the answer gets
// the same currency.
func (m *Manager) present(res *sqlresult.Result, shape *sqlshape.Shape) ([]colfmt.Format, []string) {
	l := m.labels
	formats := make([]colfmt.Format, len(res.Columns))
	headings := make([]string, len(res.Columns))
	// Outputs line up with result columns unless a * expanded.
	aligned := shape != nil && len(shape.Outputs) == len(res.Columns)
	counted := ""
	if aligned {
		counted = l.countedTable(shape.Slots(m.canon))
		if len(shape.TopTables) == 1 {
			counted = shape.TopTables[0]
		}
	}
	var outs []sqlshape.Output
	for i, rc := range res.Columns {
		c := colfmt.Column{Name: rc.Name, Type: rc.Type}
		headings[i] = cleanHeading(humanize(rc.Name))
		if aligned {
			o := shape.Outputs[i]
			outs = append(outs, o)
			c.Expr, c.Agg = o.Expr, o.Agg
			if src, ok := l.columns[strings.ToLower(o.Column)]; ok {
				c.Source, c.Comment, c.SourceType = src.Name, src.Comment, src.DataType
			}
			headings[i] = l.heading(o, shape.ExprNode(o.Expr), rc.Name, counted)
			if u := durationUnit(o.Expr); u != "" && !strings.Contains(strings.ToLower(headings[i]), u) {
				headings[i] += " in " + u // "Average duration in days"
			}
		}
		formats[i] = colfmt.Refine(colfmt.Detect(c), c, columnValues(res.Rows, i))
		if headings[i] == "" {
			headings[i] = fmt.Sprintf("Column %d", i+1)
		}
	}
	changeFormats(res, formats)
	colfmt.Consistent(formats, l.currency)
	l.uniqueHeadings(headings, outs, shape)
	return formats, headings
}

// durationUnit is the unit of a difference of two dates or times an
// expression computes (DATEDIFF: days; TIMESTAMPDIFF(HOUR, …): hours), ""
// for other expressions: the number alone does not say it.
func durationUnit(expr string) string {
	e := strings.ToUpper(expr)
	if strings.Contains(e, "DATEDIFF(") {
		return "days"
	}
	_, rest, ok := strings.Cut(e, "TIMESTAMPDIFF(")
	if !ok {
		return ""
	}
	unit, _, ok := strings.Cut(rest, ",")
	if !ok {
		return ""
	}
	switch u := strings.TrimSpace(unit); u {
	case "MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR":
		return strings.ToLower(u) + "s"
	}
	return ""
}

// changeFormats renders a period-over-period change (the offline engine's
// change_from_previous and change_percent beside a figure) as the figure it
// changes and as a percentage; the first period's, which has no period
// before it, reads "–" rather than NULL.
func changeFormats(res *sqlresult.Result, formats []colfmt.Format) {
	for i, c := range res.Columns {
		switch strings.ToLower(c.Name) {
		case "change_from_previous":
			if i > 0 && formats[i-1].IsMeasure() {
				formats[i] = formats[i-1]
			}
			formats[i].Null = "–"
		case "change_percent":
			formats[i] = colfmt.Format{Kind: colfmt.Percent, Null: "–"}
		}
	}
}

func columnValues(rows [][]any, i int) []any {
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		if i < len(r) {
			out = append(out, r[i])
		}
	}
	return out
}
