package plan

import (
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Nouns that name no kind of thing — "people", "places", "ones" — stand
// for the rows the question is about: "the people with a tenor voice"
// lists singers, "how many places hold a barn dance" counts venues. They are words the reading takes into account when it
// shows (or counts) the rows of one table that no other word names, and
// a word judging them ("good places") qualifies that table.

// GenericNouns name the rows of whichever table no other word names.
var GenericNouns = words.Set("generic")

// genericTerms are the words judging a generic noun ("good places"),
// qualifying the head table.
func (e *Builder) genericTerms(a *links.Analysis, h head, terms []*termMention) []*termMention {
	if h.t == nil || h.entity {
		return nil
	}
	var out []*termMention
	for k, t := range a.Toks {
		if t.Clause != 0 || !GenericNouns[t.Low] || t.Used {
			continue
		}
		s := k
		for s > 0 && termWord(a.Toks[s-1]) && gradingWord(a.Word(s-1)) {
			s--
		}
		if s < k && !links.Negations[a.Word(s-1)] && !termAt(terms, s) {
			out = append(out, &termMention{phrase: a.Phrase(s, k), at: s, end: k, subject: h.t})
		}
	}
	return out
}
