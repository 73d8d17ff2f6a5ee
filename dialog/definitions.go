package dialog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// A meaning the person was not shown is never used for a word they were
// asked about. Once they said none of the offered meanings of a word fit,
// the answer takes a meaning they typed, one offered in a later question
// and chosen, or leaves the word out and says so — not another meaning the
// engine had in reserve.

// dropUnshown rules out the live readings that give a word the person
// turned down the options of a meaning they were never shown. It reports
// whether it ruled any out; when every reading would go, it rules none
// out (the word is asked about again).
func (st *convState) dropUnshown() bool {
	var doomed []int
	for key, rejected := range st.Excluded {
		if key.Name != sqlshape.SlotDefine || len(rejected) == 0 {
			continue
		}
		for _, i := range st.live() {
			v := st.Candidates[i].Slots.Get(key)
			if v.IsEmpty() || slices.ContainsFunc(st.Shown[key], v.Equal) || st.typedAt(key, st.Candidates[i]) {
				continue
			}
			doomed = append(doomed, i)
		}
	}
	if len(doomed) == 0 || len(doomed) == len(st.live()) {
		return false
	}
	for _, i := range doomed {
		st.Candidates[i].ElimBy = Step{Kind: StepNone, Ref: "unshown"}
	}
	return true
}

// typedAt reports whether candidate c holds the meaning the person typed
// for key.
func (st *convState) typedAt(key sqlshape.SlotKey, c candState) bool {
	return slices.ContainsFunc(st.Typed, func(t typedAnswer) bool {
		return t.Key == key && matchesTyped(c, key, typedMeaning{Term: t.Term, Plain: t.Plain})
	})
}

// leftOutNotes say which words the answer leaves out because none of the
// meanings offered for them fit, unless the answer already says so.
func (st *convState) leftOutNotes(rep *candState) []string {
	var notes []string
	for key, rejected := range st.Excluded {
		if key.Name != sqlshape.SlotDefine || len(rejected) == 0 || !rep.Slots.Get(key).IsEmpty() || slices.Contains(rep.Unused, key.Arg) {
			continue
		}
		notes = append(notes, fmt.Sprintf("None of the meanings I offered for '%s' fit, so I left it out. Tell me what it means (\"%s means …\") and I'll use that.", key.Arg, key.Arg))
	}
	slices.Sort(notes)
	return notes
}

// notLeftOutByChoice drops from the words an answer leaves out those the
// person was asked about and chose to leave out ("Leave 'overdue' out"):
// they know, and a note on it teaches them to ignore notes.
func (st *convState) notLeftOutByChoice(unused []string) []string {
	var out []string
	for _, w := range unused {
		chosen := false
		for key, v := range st.Chosen {
			if key.Name == sqlshape.SlotDefine && v.IsEmpty() && containsWords(ontology.NormalizePhrase(key.Arg), ontology.NormalizePhrase(w)) {
				chosen = true
				break
			}
		}
		if !chosen {
			out = append(out, w)
		}
	}
	return out
}

// containsWords reports whether phrase holds the words of part, whole.
func containsWords(phrase, part string) bool {
	return part != "" && strings.Contains(" "+phrase+" ", " "+part+" ")
}

// leaveOut rules out the live readings that give key's word a meaning,
// when one that leaves it out remains.
func (st *convState) leaveOut(key sqlshape.SlotKey, step Step) {
	if !slices.ContainsFunc(st.live(), func(i int) bool { return st.Candidates[i].Slots.Get(key).IsEmpty() }) {
		return
	}
	for _, i := range st.live() {
		if !st.Candidates[i].Slots.Get(key).IsEmpty() && !st.typedAt(key, st.Candidates[i]) {
			st.Candidates[i].ElimBy = step
		}
	}
}
