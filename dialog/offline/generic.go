package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"
)

// Nouns that name no kind of thing — "people", "places", "ones" — stand
// for the rows the question is about: "the people with a tenor voice"
// lists singers, "how many places hold a barn dance" counts venues. They are words the reading takes into account when it
// shows (or counts) the rows of one table that no other word names, and
// a word judging them ("good places") qualifies that table.

// shownTables are the tables whose rows a reading lists or counts.
func shownTables(p *plan.Plan) map[string]bool {
	out := map[string]bool{}
	if p.CountOf != nil {
		out[strings.ToLower(p.CountOf.Name)] = true
	}
	if p.CountRows != nil {
		out[strings.ToLower(p.CountRows.Name)] = true
	}
	for _, s := range p.Selects {
		if c, ok := s.X.(colRef); ok {
			out[strings.ToLower(c.Table)] = true
		}
	}
	return out
}

// genericStandsFor says whether the generic noun at token k stands for
// the one table the reading shows, which no realised mention of a table
// names.
func (e *Engine) genericStandsFor(a *links.Analysis, p *plan.Plan, parts *readingParts, k int) bool {
	if !plan.GenericNouns[a.Word(k)] || a.Toks[k].Used {
		return false
	}
	shown := shownTables(p)
	if len(shown) != 1 || len(p.Groups) > 0 {
		return false
	}
	// Towns listed where the question names the town answer with what
	// was asked: no rows a noun could stand for.
	for _, s := range p.Selects {
		c, ok := s.X.(colRef)
		if !ok {
			continue
		}
		prefix := strings.ToLower(c.Table + "." + c.Column + "=")
		for k := range parts.compared {
			if strings.HasPrefix(k, prefix) {
				return false
			}
		}
	}
	for _, em := range a.Entities {
		for _, t := range em.Tables {
			if shown[strings.ToLower(t.Name)] {
				return false
			}
		}
	}
	return true
}
