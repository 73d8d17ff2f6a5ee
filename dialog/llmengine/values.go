package llmengine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// The value check: a candidate that found no rows (or only NULLs) may
// compare with a value as the person typed it rather than as it is stored
// ('fedx' for 'FedEx', 'Tex' for 'Texas'). search_values finds the stored
// values of the compared column; one alternative is used (and said in a
// note), several become a question of kind value — as Proposal.Ask and
// as one candidate per stored value.

func emptyOrNull(res *sqlresult.Result) bool {
	for _, row := range res.Rows {
		for _, v := range row {
			if v != nil {
				return false
			}
		}
	}
	return true
}

// checkValues returns the candidates with empty results fixed, and a
// question when the person has to choose the stored value.
func (r *run) checkValues(ctx context.Context, cands []dialog.Candidate) ([]dialog.Candidate, *dialog.EngineQuestion) {
	e := r.e
	excluded := map[string]bool{}
	for _, s := range r.req.Exclude {
		excluded[sqlKey(s)] = true
	}
	for i, c := range cands {
		res := r.results[c.SQL]
		if res == nil || !emptyOrNull(res) {
			continue
		}
		sh, err := sqlshape.Parse(c.SQL, e.labels.TableOf)
		if err != nil {
			continue
		}
		for _, f := range sh.Filters {
			if f.Depth != 0 || f.Column == "" || (f.Op != "=" && f.Op != "in") {
				continue
			}
			lits := f.Display
			if len(lits) != len(f.Values) {
				lits = f.Values
			}
			for _, lit := range lits {
				stored := e.storedAlternatives(f.Column, lit)
				if len(stored) == 0 {
					continue
				}
				var alts []dialog.Candidate
				var used []string
				for _, v := range stored {
					sql, ok := replaceLiteral(c.SQL, lit, v)
					if !ok {
						continue
					}
					sm := &sample{sql: sql, weight: c.Prior}
					if err := r.validate(ctx, sm, excluded); err != nil || sm.err != nil {
						continue
					}
					if res := r.results[sm.sql]; res != nil && emptyOrNull(res) {
						continue
					}
					alt := dialog.Candidate{SQL: sm.sql, Prior: c.Prior, Votes: c.Votes, Phrases: e.phrases(sm.sql, r.link, r.text)}
					if inText(r.text, lit) {
						setPhrase(&alt, sqlshape.WhereKey(f.Expr), lit)
						setPhrase(&alt, sqlshape.FilterOnKey([]string{strings.ToLower(v)}, e.canon), lit)
					}
					alts = append(alts, alt)
					used = append(used, v)
				}
				switch len(alts) {
				case 0:
					continue
				case 1:
					r.note(fmt.Sprintf("No rows matched '%s', so I used the stored value '%s' (%s).", lit, used[0], e.labels.Column(f.Column)))
					out := append(append([]dialog.Candidate(nil), cands[:i]...), alts[0])
					return append(out, cands[i+1:]...), nil
				}
				q := &dialog.EngineQuestion{
					Kind:   dialog.AmbValue,
					Prompt: fmt.Sprintf("No rows match '%s' exactly. Which %s do you mean?", lit, e.labels.Column(f.Column)),
				}
				if inText(r.text, lit) {
					q.Phrase = lit
				}
				for j, v := range used {
					alts[j].Prior = c.Prior / float64(len(alts))
					alts[j].Votes = c.Votes / float64(len(alts))
					q.Options = append(q.Options, dialog.EngineOption{Label: clipRunes(v, 75), Feedback: fmt.Sprintf("use the stored value %s for %s", quoteSQL(v), f.Column)})
				}
				out := append(append([]dialog.Candidate(nil), cands[:i]...), alts...)
				return append(out, cands[i+1:]...), q
			}
		}
	}
	return cands, nil
}

// storedAlternatives are up to three stored values of table.column that
// search_values matches with lit, other than lit itself.
func (e *Engine) storedAlternatives(column, lit string) []string {
	var out []string
	for _, h := range e.cat.SearchValues(lit, 12) {
		if !strings.EqualFold(h.Table+"."+h.Column, column) || h.Value == lit || slices.Contains(out, h.Value) {
			continue
		}
		out = append(out, h.Value)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// replaceLiteral swaps the quoted literal lit for v in sql.
func replaceLiteral(sql, lit, v string) (string, bool) {
	for _, q := range []string{quoteSQL(lit), `"` + lit + `"`} {
		if strings.Contains(sql, q) {
			return strings.ReplaceAll(sql, q, quoteSQL(v)), true
		}
	}
	return "", false
}
