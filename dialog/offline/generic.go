package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Nouns that name no kind of thing — "people", "places", "ones" — stand
// for the rows the question is about: "the people with a tenor voice"
// lists singers, "how many places hold a barn dance" counts venues. They are words the reading takes into account when it
// shows (or counts) the rows of one table that no other word names, and
// a word judging them ("good places") qualifies that table.

var genericNouns = words.Set("generic")

// shownTables are the tables whose rows a reading lists or counts.
func shownTables(p *plan) map[string]bool {
	out := map[string]bool{}
	if p.countOf != nil {
		out[strings.ToLower(p.countOf.Name)] = true
	}
	if p.countRows != nil {
		out[strings.ToLower(p.countRows.Name)] = true
	}
	for _, s := range p.selects {
		if c, ok := s.x.(colRef); ok {
			out[strings.ToLower(c.Table)] = true
		}
	}
	return out
}

// genericStandsFor says whether the generic noun at token k stands for
// the one table the reading shows, which no realised mention of a table
// names.
func (e *Engine) genericStandsFor(a *read.Analysis, p *plan, parts *readingParts, k int) bool {
	if !genericNouns[a.Word(k)] || a.Toks[k].Used {
		return false
	}
	shown := shownTables(p)
	if len(shown) != 1 || len(p.groups) > 0 {
		return false
	}
	// Towns listed where the question names the town answer with what
	// was asked: no rows a noun could stand for.
	for _, s := range p.selects {
		c, ok := s.x.(colRef)
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

// genericTerms are the words judging a generic noun ("good places"),
// qualifying the head table.
func (e *Engine) genericTerms(a *read.Analysis, h head, terms []*termMention) []*termMention {
	if h.t == nil || h.entity {
		return nil
	}
	var out []*termMention
	for k, t := range a.Toks {
		if t.Clause != 0 || !genericNouns[t.Low] || t.Used {
			continue
		}
		s := k
		for s > 0 && termWord(a.Toks[s-1]) && gradingWord(a.Word(s-1)) {
			s--
		}
		if s < k && !read.Negations[a.Word(s-1)] && !termAt(terms, s) {
			out = append(out, &termMention{phrase: a.Phrase(s, k), at: s, end: k, subject: h.t})
		}
	}
	return out
}
