package dialog

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
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
		return []Reply{notice(ev.Conversation, m.noReading(st))}, m.save(ctx, st)
	}
	res, err := m.deps.Exec.Query(ctx, rep.SQL, m.cfg.AnswerLimits)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("answer: %w", ctx.Err())
		}
		return []Reply{notice(ev.Conversation, m.failureText(err))}, m.save(ctx, st)
	}
	a := &Answer{ID: newID(), SQL: rep.SQL, Result: res, RowCount: len(res.Rows), Truncated: res.Truncated}
	for _, c := range res.Columns {
		a.Columns = append(a.Columns, c.Name)
	}
	for i, r := range res.Rows {
		if i == m.cfg.DisplayRows {
			break
		}
		row := make([]string, len(r))
		for j, v := range r {
			row[j] = tables.Format(v, res.Columns[j].Name)
		}
		a.Rows = append(a.Rows, row)
	}
	shape, err := sqlshape.Parse(rep.SQL, m.labels.TableOf)
	if err == nil {
		a.Explanation = sqlshape.Explain(shape, m.labels)
	}
	for _, f := range st.Applied {
		a.UsedFacts = append(a.UsedFacts, UsedFact{FactID: f.FactID, Phrase: f.Phrase, Meaning: f.Meaning, Scope: f.Scope})
	}
	a.Notes = append(a.Notes, st.Notes...)
	if len(res.Rows) == 0 && shape != nil {
		a.Notes = append(a.Notes, m.valueCheck(shape)...)
	}
	st.Answer = &answerRec{ID: a.ID, SQL: a.SQL, Group: group, UsedFacts: a.UsedFacts}
	st.Status = statusAnswered
	st.Pending = nil
	st.Notes = nil
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	return []Reply{{Kind: ReplyAnswer, Conversation: ev.Conversation, Answer: a, Text: answerText(a, m.cfg.DisplayRows)}}, nil
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
		fmt.Fprintf(&b, "Using your earlier choice: '%s' = %s · change\n", f.Phrase, lowerFirst(f.Meaning))
	}
	for _, n := range a.Notes {
		b.WriteString(n + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// tokens are the parts of a slot value a remembered choice can stand for,
// most general first: the column under an aggregate, then the aggregate.
func tokens(key, value string) []string {
	var out []string
	switch sqlshape.SlotName(key) {
	case sqlshape.SlotMeasure:
		parts := strings.Split(value, " | ")
		for _, p := range parts {
			if _, arg := aggregate(p); arg != "*" && arg != p {
				out = append(out, arg)
			}
		}
		out = append(out, parts...)
	case sqlshape.SlotFilterOn:
		for _, p := range strings.Split(value, " & ") {
			if i := strings.LastIndexByte(p, ' '); i > 0 {
				out = append(out, p[:i])
			}
		}
	case sqlshape.SlotOrder:
		for _, p := range strings.Split(value, ", ") {
			if i := strings.LastIndexByte(p, ' '); i > 0 {
				out = append(out, p[:i])
			}
			out = append(out, p)
		}
	}
	return append(out, value)
}

// containsToken reports whether value holds tok as a whole expression.
func containsToken(value, tok string) bool {
	if tok == "" {
		return value == ""
	}
	for from := 0; ; {
		i := strings.Index(value[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(tok)
		before := i == 0 || !isIdentByte(value[i-1])
		after := j == len(value) || !isIdentByte(value[j])
		if before && after {
			return true
		}
		from = i + 1
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// distinguishing is the most general token of chosen that no other
// option's value contains: what the person's choice really was.
func distinguishing(key, chosen string, others []string) string {
	for _, t := range tokens(key, chosen) {
		unique := true
		for _, o := range others {
			if containsToken(o, t) {
				unique = false
				break
			}
		}
		if unique {
			return t
		}
	}
	return chosen
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
