package plan

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// What the plan stage and the engine's word accounting both ask of a
// question's words.

// politeLeads may come before the verb that opens a sentence: "please
// list…", "also show…" (requests.tsv).
var politeLeads = words.Set("politeword")

// OutputSentence says whether token k is in a sentence after the first
// that opens with a verb saying what to show ("… ? Return the names").
func OutputSentence(a *links.Analysis, k int) bool {
	start := -1
	for j := k - 1; j >= 0; j-- {
		if token.BreakRank(a.Toks[j].Break) == 3 {
			start = j + 1
			break
		}
	}
	if start <= 0 || a.Toks[k].Clause != a.Toks[start].Clause {
		return false
	}
	w := a.Word(start)
	if politeLeads[w] {
		w = a.Word(start + 1)
	}
	return links.ListVerbs[w]
}

// IsNameWord says whether w asks for what a row is called.
func IsNameWord(w string) bool { return nameWords[w] }

// nameWords ask for what a row is called.
var nameWords = words.Set("name")

// DomainWord says whether w names what the whole schema is about: the
// first word of the names of at least half of its tables, three or more
// (boat_builders, boat_names, boats_data). Before another thing's noun
// ("boat models") it adds nothing the schema does not already say.
func (e *Builder) DomainWord(w string) bool {
	w = links.SingularOf(w)
	if len(w) < 3 {
		return false
	}
	n := 0
	for _, t := range e.m.Snap.Schema.Tables {
		first, _, _ := strings.Cut(strings.ToLower(t.Name), "_")
		if links.SingularOf(first) == w {
			n++
		}
	}
	return n >= 3 && 2*n >= len(e.m.Snap.Schema.Tables)
}

// RelationPreps are the prepositions after which a verb names how two
// things relate ("runs through", "owned by", "located in").
var RelationPreps = words.Set("relationprep")
