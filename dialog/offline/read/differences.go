package read

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
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
func findDifferences(e *links.Reader, a *links.Analysis) {
	for i := 0; i+1 < len(a.Columns); i++ {
		x, y := a.Columns[i], a.Columns[i+1]
		// The word between, or the last of the first mention's words (a
		// name may take "minus" in, as a comment's word).
		k := x.End
		if y.At == x.End && x.End-x.At > 1 {
			k = x.End - 1
		}
		if x.Clause != y.Clause || y.At != k+1 || !differenceWords[a.Word(k)] || a.Word(y.At) == "than" || a.Toks[k-1].Break != 0 {
			continue
		}
		var alts []links.ColAlt
		for _, ax := range x.Alts {
			for _, ay := range y.Alts {
				if ax.Computed() || ay.Computed() || !strings.EqualFold(ax.Table, ay.Table) || strings.EqualFold(ax.Column, ay.Column) || !plainNumber(e, ax) || !plainNumber(e, ay) {
					continue
				}
				alts = append(alts, links.ColAlt{Table: ax.Table, Column: ax.Column + "_minus_" + ay.Column, Weight: ax.Weight * ay.Weight,
					X: sqlexpr.Binary{L: sqlexpr.Col(ax.Table, ax.Column), Op: "-", R: sqlexpr.Col(ay.Table, ay.Column)}})
			}
		}
		if len(alts) == 0 {
			continue
		}
		slices.SortStableFunc(alts, func(p, q links.ColAlt) int {
			switch {
			case p.Weight > q.Weight:
				return -1
			case p.Weight < q.Weight:
				return 1
			}
			return 0
		})
		diff := &links.ColMention{Phrase: a.Phrase(x.At, y.End), At: x.At, End: y.End, Alts: alts, Clause: x.Clause}
		a.Columns = slices.Replace(a.Columns, i, i+2, diff)
		a.MarkUsed(x.At, y.End)
	}
}

// plainNumber says whether the alternative is a stored number that is no
// key.
func plainNumber(e *links.Reader, al links.ColAlt) bool {
	c := e.M.Column(al.Table, al.Column)
	t := e.M.ByName[strings.ToLower(al.Table)]
	return c != nil && t != nil && c.Kind() == warehouse.KindNumber && !e.M.IsKeyish(t.Def, c)
}
