package dialog

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/ontology"
)

// A remembered choice applies where it holds. "In 2024 means the date the
// order left the warehouse" holds for revenue and for shipped orders, not
// for cancelled orders, which never leave it: applied to "how many
// cancelled orders in 2025?" it answers 0. When the reading a remembered
// choice decided gives no rows (or only zeros and empty totals) while a
// reading it ruled out gives some, the bot does not present the empty
// answer: it sets the choice aside for this question and asks, saying why
// ("Orders with status 'cancelled' have no date the order left the
// warehouse — which date do you mean this time?"). The answer to that
// question is for this time only: the remembered choice stays.

// isEmptyResult reports whether a result says nothing: no rows, or one
// row of nothing but zeros and NULLs (a count of no rows, a total over
// none).
func isEmptyResult(res *sqlresult.Result) bool {
	if res == nil || len(res.Rows) == 0 {
		return true
	}
	if len(res.Rows) != 1 {
		return false
	}
	for _, v := range res.Rows[0] {
		if !zeroOrNull(v) {
			return false
		}
	}
	return true
}

func zeroOrNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case int:
		return x == 0
	case float64:
		return x == 0
	case float32:
		return x == 0
	case []byte:
		return numericZero(string(x))
	case string:
		return numericZero(x)
	}
	return strings.TrimSpace(fmt.Sprint(v)) == "0"
}

// numericZero reports whether s is a number equal to zero ("0", "0.00").
func numericZero(s string) bool {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	return ok && r.Sign() == 0
}

// conflictingFact is the remembered choice to question before answering
// with interpretation best: one whose reading gives no rows while a
// reading it ruled out gives some. Nil when the answer stands.
func (st *convState) conflictingFact(best int) *appliedFact {
	rep := st.representative(best)
	if rep == nil || !rep.Zero {
		return nil
	}
	for i := len(st.Applied) - 1; i >= 0; i-- {
		a := &st.Applied[i]
		if a.Key == (sqlshape.SlotKey{}) {
			continue // a linked phrase ruled nothing out
		}
		if slices.ContainsFunc(st.Candidates, func(c candState) bool { return c.ElimBy == a.Step && c.Group >= 0 && !c.Zero }) {
			return a
		}
	}
	return nil
}

// askConflict sets the remembered choice a aside for this question and asks
// what it left open, saying why; ok is false when nothing is left to ask
// (the answer then stands).
func (m *Manager) askConflict(ctx context.Context, st *convState, ev Event, a appliedFact, best int) ([]Reply, bool, error) {
	why := m.whyNoRows(ctx, st, st.representative(best), a)
	saved := slices.Clone(st.Candidates)
	savedApplied, savedSkipped := slices.Clone(st.Applied), slices.Clone(st.Skipped)
	st.Skipped = appendUnique(st.Skipped, a.FactID)
	st.unapply(a.FactID)
	var pt *point
	for _, p := range decisionPoints(st.liveView(), nil, MaxOptions) {
		if p.Key == a.Key {
			pt = &p
			break
		}
	}
	if pt == nil {
		st.Candidates, st.Applied, st.Skipped = saved, savedApplied, savedSkipped
		return nil, false, nil
	}
	// The readings that give rows first; the remembered one last.
	empty := func(v sqlshape.SlotValue) bool {
		return !slices.ContainsFunc(st.live(), func(i int) bool {
			c := st.Candidates[i]
			return c.Slots.Get(a.Key).Equal(v) && !c.Zero
		})
	}
	slices.SortStableFunc(pt.Values, func(x, y pointValue) int {
		ex, ey := empty(x.Value) || holds(x.Value, a.Token), empty(y.Value) || holds(y.Value, a.Token)
		switch {
		case ex == ey:
			return 0
		case ey:
			return -1
		}
		return 1
	})
	m.question(st, *pt, a.FactID)
	q := st.Pending
	q.OneOff = true
	q.Prompt = why + " — which do you mean this time?"
	for i := range q.Options {
		if holds(q.Options[i].Value, a.Token) {
			q.Options[i].Label += " (your usual choice: no rows here)"
		}
	}
	if err := m.save(ctx, st); err != nil {
		return nil, true, err
	}
	m.obs.Clarification(q.Kind)
	return []Reply{m.clarificationReply(st, ev.Conversation)}, true, nil
}

// whyNoRows words why remembered choice a gives nothing here: the other
// conditions on its table leave only rows where its column is empty
// ("Orders with order status 'cancelled' have no date the order left the
// warehouse"), found with one count on the warehouse; otherwise that the
// choice gives no rows.
func (m *Manager) whyNoRows(ctx context.Context, st *convState, rep *candState, a appliedFact) string {
	generic := fmt.Sprintf("Your earlier choice for '%s' (%s) gives no rows here", a.Phrase, lowerFirst(a.Meaning))
	if rep == nil || a.Token.Kind != ontology.TermColumn {
		return generic
	}
	col := a.Token.Column
	table, _ := splitTC(col)
	sh, err := sqlshape.Parse(rep.SQL, m.labels.TableOf)
	if err != nil {
		return generic
	}
	var conds, words []string
	for _, f := range sh.Filters {
		if f.Depth != 0 || f.Having || f.Column == "" || strings.EqualFold(f.Column, col) || !strings.EqualFold(tableOfTC(f.Column), table) {
			continue
		}
		shown := f.Display
		if len(shown) == 0 {
			shown = f.Values
		}
		quoted := make([]string, len(f.Values))
		for i, v := range f.Values {
			quoted[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		switch f.Op {
		case "=":
			conds = append(conds, fmt.Sprintf("LOWER(%s) = %s", f.Column, quoted[0]))
		case "in":
			conds = append(conds, fmt.Sprintf("LOWER(%s) IN (%s)", f.Column, strings.Join(quoted, ", ")))
		default:
			continue
		}
		words = append(words, fmt.Sprintf("%s '%s'", m.labels.Column(f.Column), strings.Join(shown, "' or '")))
	}
	if len(conds) == 0 {
		return generic
	}
	q := fmt.Sprintf("SELECT COUNT(*) AS n, COUNT(%s) AS c FROM %s WHERE %s", col, table, strings.Join(conds, " AND "))
	res, err := m.deps.Exec.Query(ctx, q, m.cfg.CandidateLimits)
	if err != nil || len(res.Rows) != 1 || len(res.Rows[0]) != 2 || zeroOrNull(res.Rows[0][0]) || !zeroOrNull(res.Rows[0][1]) {
		return generic
	}
	return fmt.Sprintf("%s with %s have no %s", upperFirst(m.labels.Table(table)), sqlshape.JoinAnd(words), m.labels.Column(col))
}
