package eval

import (
	"context"
	"strings"

	"github.com/clarify-bot/clarify/dialog"
)

// A question about a word the schema does not use ("By 'clients', do you
// mean: Customers · …") is answered from what the gold reads: the option
// whose element (a table, or a table's column) the gold query uses; when
// none is, the user types the name of the gold's table (or column) that
// the question's own words do not name, as a person who knows the data
// would; with nothing to name, "none of these".

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
	for i, o := range c.Options {
		el := strings.ToLower(o.Element)
		if el == "" {
			continue
		}
		if !strings.Contains(el, ".") {
			el += ".*"
		}
		if needs[el] {
			ch.Picked, ch.By = i, BySlot
			return ch
		}
	}
	if name := unnamed(order, g.Question.Question); name != "" {
		ch.By, ch.Typed = ByTyped, name
	}
	return ch
}

// unnamed is the first table the gold reads whose name the question does
// not say, else the first such column: what the asked word stands for.
func unnamed(needs []string, question string) string {
	q := " " + strings.Join(strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " ") + " "
	said := func(name string) bool {
		w := strings.ReplaceAll(name, "_", " ")
		return strings.Contains(q, " "+w+" ") || strings.Contains(q, " "+strings.TrimSuffix(w, "s")+" ")
	}
	for _, pass := range []bool{true, false} {
		for _, n := range needs {
			t, col, _ := strings.Cut(n, ".")
			if pass != (col == "*") {
				continue
			}
			name := t
			if col != "*" {
				if col == "id" || strings.HasSuffix(col, "_id") {
					continue
				}
				name = col
			}
			if !said(name) {
				return strings.ReplaceAll(name, "_", " ")
			}
		}
	}
	return ""
}
