package llmengine

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/link"
)

// TestPromptShowsLinkedWords: the prompt says what the person's words
// were linked to, their own words first.
func TestPromptShowsLinkedWords(t *testing.T) {
	f := newFixture(t, Options{}, false)
	links := []link.Link{
		{Span: "revenue", Candidates: []link.Candidate{{Element: link.Element{Kind: "column", Table: "orders", Column: "net_amount"}, Score: 0.5, Evidence: link.Comment}}},
		{Span: "clients", Candidates: []link.Candidate{{Element: link.Element{Kind: "table", Table: "customers"}, Score: 1, Evidence: link.Vocabulary}}},
		{Span: "zzz"},
	}
	f.srv.Enqueue(expect("generate", isGenerate, llmtest.SQL(netSQL), func(tb testing.TB, c llmtest.Call) {
		mustContain(tb, "prompt", c.User(),
			"/* The person's words, linked to the schema */\n"+
				`- "clients" → table customers (this person's word, from an earlier answer)`+"\n"+
				`- "revenue" → column orders.net_amount (its comment)`+"\n")
	}), expect("review", isReview, noAmbiguity(), nil))
	if _, err := f.ask(t, dialog.Request{Question: "what was revenue from customers in 2024?", Links: links}); err != nil {
		t.Fatal(err)
	}
}
