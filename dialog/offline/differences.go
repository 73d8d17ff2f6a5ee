package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Differences of two numbers of one row: "gross amount minus net amount",
// "the fee less the discount". Two column mentions joined by "minus" (or
// "less" not followed by "than") whose readings include numeric columns
// of one table are one computed column, their difference, so that every
// shape that takes a number — a comparison ("… is more than 20"), a total,
// an average, a ranking — takes it too.

// differenceWords join the two numbers of a difference.
var differenceWords = words.Set("difference")

// findDifferences replaces each pair of column mentions joined by a
// difference word with one mention of their difference.
func (e *Engine) findDifferences(a *analysis) {
	for i := 0; i+1 < len(a.columns); i++ {
		x, y := a.columns[i], a.columns[i+1]
		// The word between, or the last of the first mention's words (a
		// name may take "minus" in, as a comment's word).
		k := x.end
		if y.at == x.end && x.end-x.at > 1 {
			k = x.end - 1
		}
		if x.clause != y.clause || y.at != k+1 || !differenceWords[a.word(k)] || a.word(y.at) == "than" || a.toks[k-1].Break != 0 {
			continue
		}
		var alts []colAlt
		for _, ax := range x.alts {
			for _, ay := range y.alts {
				if ax.computed() || ay.computed() || !strings.EqualFold(ax.table, ay.table) || strings.EqualFold(ax.column, ay.column) || !e.plainNumber(ax) || !e.plainNumber(ay) {
					continue
				}
				alts = append(alts, colAlt{table: ax.table, column: ax.column + "_minus_" + ay.column, weight: ax.weight * ay.weight,
					x: binary{L: col(ax.table, ax.column), Op: "-", R: col(ay.table, ay.column)}})
			}
		}
		if len(alts) == 0 {
			continue
		}
		slices.SortStableFunc(alts, func(p, q colAlt) int {
			switch {
			case p.weight > q.weight:
				return -1
			case p.weight < q.weight:
				return 1
			}
			return 0
		})
		diff := &colMention{phrase: a.phrase(x.at, y.end), at: x.at, end: y.end, alts: alts, clause: x.clause}
		a.columns = slices.Replace(a.columns, i, i+2, diff)
		a.markUsed(x.at, y.end)
	}
}

// plainNumber says whether the alternative is a stored number that is no
// key.
func (e *Engine) plainNumber(al colAlt) bool {
	c := e.m.Column(al.table, al.column)
	t := e.m.ByName[strings.ToLower(al.table)]
	return c != nil && t != nil && c.Kind() == warehouse.KindNumber && !e.m.IsKeyish(t.Def, c)
}

// differenceBefore is the difference a comparison right after it
// compares: "gross amount minus net amount (is) more than 20".
func (r *reader) differenceBefore(cp *compMention) *colMention {
	for _, cm := range r.a.columns {
		if len(cm.alts) == 0 || !cm.alts[0].computed() || !strings.Contains(cm.alts[0].column, "_minus_") || cm.end > cp.at {
			continue
		}
		between := true
		for k := cm.end; k < cp.at; k++ {
			switch r.a.word(k) {
			case "is", "are", "was", "were", "be", "of":
			default:
				between = false
			}
		}
		if between {
			return cm
		}
	}
	return nil
}
