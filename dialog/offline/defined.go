package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
)

// Phrases a person or the team defined as one column — a glossary
// dimension ("sales region" = regions.name) or measure ("net sales" =
// orders.net_amount), a person's earlier choice for a phrase — are linked
// as one mention before the question's words are searched one by one: the
// schema may not name the phrase, and its words alone can name other
// columns ("sales" is a revenue word). The phrase then means that column
// only, as the person or the team decided; the readings that use it name
// the fact (Candidate.Linked), so the answer says so, and 'change' sets
// the fact aside and reads the question again without it.

// linkedIn are the facts whose defined column a reading's SQL uses: the
// reading took the phrase as the definition says.
func linkedIn(a *links.Analysis, m *schema.Model, parts *readingParts) []string {
	var out []string
	for _, l := range a.Linked {
		used := l.X != nil && parts.holds(m, l.X) || l.X == nil && parts.columns[strings.ToLower(l.Column)]
		if used && !slices.Contains(out, l.FactID) {
			out = append(out, l.FactID)
		}
	}
	return out
}
