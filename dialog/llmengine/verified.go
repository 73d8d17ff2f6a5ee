package llmengine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/internal/qnorm"
	"github.com/clarify-bot/clarify/ontology"
)

// Verified queries (a team glossary's, or answers an admin promoted) are
// the model's few-shot examples: checked SQL over this very schema, the
// best guide to the team's conventions. The prompt holds the few whose
// questions share the most words with the one asked.

// maxExamples bounds the verified queries one prompt carries.
const maxExamples = 4

// example is one verified question and its SQL.
type example struct {
	question, sql, by string
}

// verifiedExamples picks the verified queries among facts most like text:
// those sharing at least one normalised word, most shared first.
func verifiedExamples(text string, facts []ontology.Fact, max int) []example {
	words := map[string]bool{}
	for _, w := range strings.Fields(qnorm.Question(text)) {
		words[w] = true
	}
	type scored struct {
		ex    example
		score int
	}
	var all []scored
	for _, f := range facts {
		if f.Kind != ontology.KindQuery || f.VerifiedBy == "" || f.Target.Choice.Kind != ontology.TermSQL {
			continue
		}
		n := 0
		for _, w := range strings.Fields(f.Phrase) {
			if words[w] {
				n++
			}
		}
		if n == 0 {
			continue
		}
		q := f.Question
		if q == "" {
			q = f.Phrase
		}
		all = append(all, scored{example{question: q, sql: f.Target.Choice.Expr, by: f.VerifiedBy}, n})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var out []example
	for i, s := range all {
		if i == max {
			break
		}
		out = append(out, s.ex)
	}
	return out
}

// writeExamples adds the verified queries to a prompt.
func writeExamples(b *strings.Builder, exs []example) {
	if len(exs) == 0 {
		return
	}
	b.WriteString("\n/* Verified queries: questions the team checked, with their SQL; follow their conventions */\n")
	for _, e := range exs {
		fmt.Fprintf(b, "-- Q: %s\n%s;\n", oneLine(e.question, 300), oneLine(e.sql, 2000))
	}
}
