package llmengine

import (
	"fmt"
	"github.com/clarify-bot/clarify/dialog/link"
	"strings"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/dialog"
)

// Prompt texts. The schema part is the linked schema (link.go); the rest
// is fixed wording, small enough to keep a question under ~2,000 tokens.

const systemSQL = `You are an expert data analyst who writes MySQL queries.
Rules:
- Write exactly one read-only SELECT statement (WITH is allowed) in the MySQL dialect: backticks for identifiers if needed, YEAR(), DATE_FORMAT(), LIMIT, no FULL OUTER JOIN.
- Use only the tables and columns of the schema given; qualify columns with their table name or alias.
- Compare with stored values exactly as listed; dates as 'YYYY-MM-DD'.
- Follow the definitions of the person asking: they say what their words mean.
- If the question can be read several ways, write the reading you find most likely.
Reply with a JSON object only: {"sql": "<the statement>"}`

const systemRevise = `You are an expert data analyst who revises MySQL queries following a person's feedback.
Feedback is one of: add (add a condition, a column, a grouping or an ordering), remove (drop a column or a condition, or exclude rows), edit (replace a column, a value, a function or a table by another).
Change only what the feedback asks; keep the rest of the query. Write exactly one read-only SELECT over the schema given, MySQL dialect.
Reply with a JSON object only: {"sql": "<the revised statement>"}`

const systemRepair = `You are an expert data analyst who fixes MySQL queries.
The query below failed. Use the error message and the schema to write a corrected query that answers the same question: exactly one read-only SELECT, MySQL dialect, only the tables and columns of the schema.
Reply with a JSON object only: {"sql": "<the corrected statement>"}`

const systemReview = `You review a MySQL query written for a person's question, looking for ambiguity that is still open (summarize, review, ask).
First summarize what the query computes. Then review four kinds of ambiguity:
- column: a word could mean different columns (e.g. "revenue": net or gross amount);
- output: what the answer should show (e.g. names or ids, a total or a list);
- question: what the question means (e.g. which date a period refers to, whether cancelled rows count);
- value: which stored value a word means.
Ignore what the person's definitions or earlier answers settle, and minor points that would not change the answer much.
If nothing important is open, reply {"ambiguous": false}.
Otherwise ask ONE short multiple-choice question, in this exact JSON form:
{"ambiguous": true, "kind": "column|output|question|value", "phrase": "<the words of the question it is about>", "question": "<short question>", "options": [{"label": "<answer, at most 60 characters>", "constraint": "<the instruction to apply, e.g. use orders.shipped_at for the year>", "sql": "<the full query under this option>"}, … exactly three options]}
Reply with JSON only.`

// examples of each kind of feedback (after FISQL), on a schema of their own.
var feedbackExamples = map[dialog.FeedbackKind]string{
	dialog.FeedbackAdd: `Example (add): previous SELECT SUM(o.total) FROM orders o
feedback "only 2024" -> SELECT SUM(o.total) FROM orders o WHERE o.ordered_on >= '2024-01-01' AND o.ordered_on < '2025-01-01'
feedback "and by month" -> SELECT DATE_FORMAT(o.ordered_on, '%Y-%m') AS month, SUM(o.total) FROM orders o GROUP BY month ORDER BY month`,
	dialog.FeedbackRemove: `Example (remove): previous SELECT c.name, c.email, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name, c.email
feedback "drop the email column" -> SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name
feedback "without cancelled orders" -> SELECT c.name, c.email, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status <> 'cancelled' GROUP BY c.name, c.email`,
	dialog.FeedbackEdit: `Example (edit): previous SELECT COUNT(*) FROM orders o WHERE YEAR(o.ordered_on) = 2024
feedback "use ship date" -> SELECT COUNT(*) FROM orders o WHERE YEAR(o.shipped_on) = 2024
feedback "I meant gross" (previous SELECT SUM(o.net_total) FROM orders o) -> SELECT SUM(o.gross_total) FROM orders o`,
}

// context writes the parts every prompt shares: schema, definitions,
// question, feedback and rejected readings.
func (r *run) context(b *strings.Builder, withFeedback bool) {
	b.WriteString("/* Schema (MySQL): the tables and columns linked to the question */\n")
	b.WriteString(r.link.schema)
	if len(r.link.defs) > 0 {
		b.WriteString("\n/* Definitions of the person asking */\n")
		for _, d := range r.link.defs {
			whose := "this person"
			if d.team {
				whose = "the team"
			}
			fmt.Fprintf(b, "- for %s, %q means %s", whose, d.phrase, d.target)
			if d.meaning != "" {
				fmt.Fprintf(b, " (%s)", oneLine(d.meaning, 100))
			}
			b.WriteByte('\n')
		}
	}
	writeLinks(b, r.req.Links)
	writeExamples(b, r.link.examples)
	fmt.Fprintf(b, "\n/* Question */\n%s\n", oneLine(r.req.Question, 2000))
	if withFeedback && len(r.req.Feedback) > 0 {
		b.WriteString("\n/* What the person added since, oldest first */\n")
		for _, f := range r.req.Feedback {
			fmt.Fprintf(b, "- %s", oneLine(f.Text, 500))
			if f.About != "" {
				fmt.Fprintf(b, " (about %q)", f.About)
			}
			b.WriteByte('\n')
		}
	}
	if len(r.req.Exclude) > 0 {
		b.WriteString("\n/* Readings the person rejected: write something different */\n")
		for i, s := range r.req.Exclude {
			if i == 5 {
				break
			}
			b.WriteString(oneLine(s, 600) + "\n")
		}
	}
}

// linkWords says whose word a link's evidence is, for the prompt.
var linkWords = map[link.Evidence]string{
	link.Vocabulary: "this person's word, from an earlier answer",
	link.Glossary:   "the team's word",
	link.Exact:      "its name", link.Inflection: "its name",
	link.Value: "a stored value", link.Synonym: "a synonym", link.Derivation: "a related word",
	link.Catalog: "a synonym", link.Comment: "its comment", link.Part: "a word of its name",
}

// writeLinks shows what the person's words were linked to (dialog/link):
// the words of theirs and the team's first, then the rest that link with
// some confidence. The question above is already in the schema's words.
func writeLinks(b *strings.Builder, links []link.Link) {
	var lines []string
	for _, pass := range []bool{true, false} {
		for _, lk := range links {
			if len(lk.Candidates) == 0 || lk.Candidates[0].Score < 0.5 {
				continue
			}
			c := lk.Candidates[0]
			own := c.Evidence == link.Vocabulary || c.Evidence == link.Glossary
			if own != pass {
				continue
			}
			lines = append(lines, fmt.Sprintf("- %q → %s %s (%s)\n", oneLine(lk.Span, 60), c.Element.Kind, c.Element.Name(), linkWords[c.Evidence]))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n/* The person's words, linked to the schema */\n")
	for i, l := range lines {
		if i == 20 {
			break
		}
		b.WriteString(l)
	}
}

// generationMessages is the prompt for fresh samples.
func (r *run) generationMessages() []llm.Message {
	var b strings.Builder
	r.context(&b, true)
	if r.req.Widen > 0 {
		b.WriteString("\nThe readings offered so far did not fit: consider other columns, tables or interpretations.\n")
	}
	b.WriteString("\nWrite the query as JSON.")
	return []llm.Message{{Role: llm.RoleSystem, Content: systemSQL}, {Role: llm.RoleUser, Content: b.String()}}
}

// revisionMessages is the prompt that applies feedback to a previous query.
func (r *run) revisionMessages(prev string, fb []dialog.Feedback) []llm.Message {
	var b strings.Builder
	seen := map[dialog.FeedbackKind]bool{}
	for _, f := range fb {
		k := f.Kind
		if k == "" {
			k = dialog.FeedbackAdd
		}
		if !seen[k] {
			seen[k] = true
			b.WriteString(feedbackExamples[k] + "\n\n")
		}
	}
	r.context(&b, false)
	fmt.Fprintf(&b, "\n/* Previous query */\n%s\n\n/* Feedback, in order */\n", prev)
	for _, f := range fb {
		k := f.Kind
		if k == "" {
			k = dialog.FeedbackAdd
		}
		fmt.Fprintf(&b, "- [%s] %s", k, oneLine(f.Text, 500))
		if f.About != "" {
			fmt.Fprintf(&b, " (answering a question about %q)", f.About)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nWrite the revised query as JSON.")
	return []llm.Message{{Role: llm.RoleSystem, Content: systemRevise}, {Role: llm.RoleUser, Content: b.String()}}
}

// repairMessages sends a failing query back with its error and the schema.
func (r *run) repairMessages(sql, problem string) []llm.Message {
	var b strings.Builder
	r.context(&b, true)
	fmt.Fprintf(&b, "\n/* Query that failed */\n%s\n\n/* Error */\n%s\n\nWrite the corrected query as JSON.", clipRunes(sql, 4000), oneLine(problem, 600))
	return []llm.Message{{Role: llm.RoleSystem, Content: systemRepair}, {Role: llm.RoleUser, Content: b.String()}}
}

// reviewMessages asks the summarize-review-ask question about an agreed query.
func (r *run) reviewMessages(sql, summary string, asked []askedQ) []llm.Message {
	var b strings.Builder
	r.context(&b, true)
	fmt.Fprintf(&b, "\n/* Query */\n%s\n", sql)
	if summary != "" {
		fmt.Fprintf(&b, "/* In words */\n%s\n", summary)
	}
	if len(asked) > 0 {
		b.WriteString("\n/* Already asked: do not ask these again */\n")
		for _, a := range asked {
			fmt.Fprintf(&b, "- %s\n", a.prompt)
		}
	}
	b.WriteString("\nReview the query and reply in JSON.")
	return []llm.Message{{Role: llm.RoleSystem, Content: systemReview}, {Role: llm.RoleUser, Content: b.String()}}
}
