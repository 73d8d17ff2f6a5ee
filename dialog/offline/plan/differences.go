package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Differences of two numbers of one row: "gross amount minus net amount",
// "the fee less the discount". Two column mentions joined by "minus" (or
// "less" not followed by "than") whose readings include numeric columns
// of one table are one computed column, their difference, so that every
// shape that takes a number — a comparison ("… is more than 20"), a total,
// an average, a ranking — takes it too.

// differenceLinks may stand between a difference and the comparison
// after it: "fine minus paid is more than 5" (copulas.tsv).
var differenceLinks = words.Set("differencelink")

// differenceBefore is the difference a comparison right after it
// compares: "gross amount minus net amount (is) more than 20".
func (r *reader) differenceBefore(cp *links.CompMention) *links.ColMention {
	for _, cm := range r.a.Columns {
		if len(cm.Alts) == 0 || !cm.Alts[0].Computed() || !strings.Contains(cm.Alts[0].Column, "_minus_") || cm.End > cp.At {
			continue
		}
		between := true
		for k := cm.End; k < cp.At; k++ {
			if !differenceLinks[r.a.Word(k)] {
				between = false
			}
		}
		if between {
			return cm
		}
	}
	return nil
}
