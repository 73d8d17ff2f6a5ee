package plan

import (
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// "Which districts have both depots with a fleet over 30 and depots with a
// fleet under 10?": the thing named twice after "both" is two different
// rows, each with its own conditions, sharing what is shown. Read as one
// row with both conditions it is a contradiction that answers "none"
// with confidence; read per shown value, it asks whether some row meets
// the first conditions and some row the second.

// BothHalves finds "both <things> … and <things> …": where each half
// starts, and the table named twice; nil when the question has no such
// pair.
func BothHalves(a *links.Analysis) (first, second int, t *schema.Table) {
	for b, tk := range a.Toks {
		if tk.Clause != 0 || tk.Low != "both" {
			continue
		}
		var em1 *links.EntityMention
		for _, em := range a.Entities {
			if em.At > b && em.At <= b+2 && len(em.Tables) > 0 {
				em1 = em
				break
			}
		}
		if em1 == nil {
			return -1, -1, nil
		}
		for _, em := range a.Entities {
			if em.At > em1.At && len(em.Tables) > 0 && em.Tables[0] == em1.Tables[0] && (a.Word(em.At-1) == "and" || a.Word(em.At-2) == "and") {
				return em1.At, em.At, em1.Tables[0]
			}
		}
		return -1, -1, nil
	}
	return -1, -1, nil
}
