package eval

import (
	"context"
	"strings"

	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/dialog"
)

// A question about a word the schema does not use ("By 'clients', do you
// mean: Customers · …") is answered as a person who knows the data and
// the gold would: the option whose element the gold reads and that the
// question's other words do not already name; when none is, they type
// the name of what the word stands for in the gold — the gold's element
// the word is related to (a word of its name, the lexicon), else the
// gold's table that no word of the question names — and with nothing to
// name, "none of these". A person does not teach a word a meaning it
// does not have: an option the gold reads for another word of the
// question ("River name" for 'flow' beside "rivers") is not picked.

// vocabKey is the slot name of a word question (dialog/vocab.go).
const vocabKey = "vocab"

// answerWord answers a word question from the gold.
func (h *Harness) answerWord(_ context.Context, g *Gold, c *dialog.Clarification) Choice {
	ch := Choice{ID: c.ID, Key: c.Key.String(), Prompt: c.Prompt, Picked: -1, By: ByNone}
	needs := map[string]bool{}
	var order []string
	for _, sql := range g.Question.Golds() {
		ns, ok := h.Needs(sql)
		if !ok {
			continue
		}
		for _, n := range ns {
			if !needs[n] {
				needs[n] = true
				order = append(order, n)
			}
		}
	}
	for _, o := range c.Options {
		ch.Options = append(ch.Options, o.Label)
		ch.Values = append(ch.Values, o.Element)
	}
	lex, _ := lexicon.Default()
	others := otherWords(g.Question.Question, c.Phrase)
	for i, o := range c.Options {
		el := strings.ToLower(o.Element)
		if el == "" {
			continue
		}
		if !strings.Contains(el, ".") {
			el += ".*"
		}
		if needs[el] && !h.named(lex, el, others, false) {
			ch.Picked, ch.By = i, BySlot
			return ch
		}
	}
	if name := h.standsFor(lex, order, c.Phrase, others); name != "" {
		ch.By, ch.Typed = ByTyped, name
	}
	return ch
}

// standsFor is what the word stands for in the gold: the gold's table or
// (non-key) column related to the word, else the first gold table that
// no other word of the question names and that is not a mere link
// between two others.
func (h *Harness) standsFor(lex *lexicon.Lexicon, needs []string, word string, others []string) string {
	var table string
	for _, n := range needs {
		t, col, _ := strings.Cut(n, ".")
		if col != "*" && keyName(col) || h.named(lex, n, others, true) {
			continue
		}
		name := t
		if col != "*" {
			name = col
		}
		if related(lex, word, strings.ReplaceAll(name, "_", " ")) {
			return strings.ReplaceAll(name, "_", " ")
		}
		if col == "*" && table == "" && !h.links[t] {
			table = strings.ReplaceAll(t, "_", " ")
		}
	}
	return table
}

// keyName reports whether a column's name is a key's: "id", "book_id".
func keyName(col string) bool {
	return col == "id" || strings.HasSuffix(col, "_id") || strings.HasSuffix(col, "id") && len(col) == 3
}

// otherWords are the question's words less the asked phrase's.
func otherWords(question, phrase string) []string {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
	}
	skip := map[string]bool{}
	for _, w := range split(phrase) {
		skip[w] = true
	}
	var out []string
	for _, w := range split(question) {
		if !skip[w] {
			out = append(out, w)
		}
	}
	return out
}

// named reports whether a word of the question names the element: a word
// of its name up to inflection; with byColumn, a table is also named by
// one of its columns ("segment" names the customers' segment, so the
// customers are no word's meaning to type).
func (h *Harness) named(lex *lexicon.Lexicon, el string, words []string, byColumn bool) bool {
	t, col, _ := strings.Cut(el, ".")
	if col == "*" && byColumn {
		for c := range h.columns {
			if ct, cn, _ := strings.Cut(c, "."); ct == t && !keyName(cn) && nameSaid(lex, cn, words) {
				return true
			}
		}
	}
	if col == "*" {
		return nameSaid(lex, t, words)
	}
	return nameSaid(lex, col, words)
}

// nameSaid reports whether one of the words is a word of the name.
func nameSaid(lex *lexicon.Lexicon, name string, words []string) bool {
	for _, part := range strings.Split(name, "_") {
		if len(part) < 3 {
			continue
		}
		for _, w := range words {
			if sameWord(lex, w, part) {
				return true
			}
		}
	}
	return false
}

// related reports whether a word and a name are the same or related words
// (inflection, a word of the name, a lexicon relation).
func related(lex *lexicon.Lexicon, word, name string) bool {
	for _, part := range strings.Fields(name) {
		for _, w := range strings.Fields(word) {
			if sameWord(lex, w, part) {
				return true
			}
		}
	}
	return lex != nil && (lex.RelatedTo(word, name) || lex.Broader(word, name))
}

func sameWord(lex *lexicon.Lexicon, a, b string) bool {
	if a == b || strings.TrimSuffix(a, "s") == strings.TrimSuffix(b, "s") {
		return true
	}
	if lex == nil {
		return false
	}
	for _, x := range lex.Lemmas(a) {
		for _, y := range lex.Lemmas(b) {
			if x == y {
				return true
			}
		}
	}
	return false
}
