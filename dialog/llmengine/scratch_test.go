package llmengine

import (
	"fmt"
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/demotest"
)

func TestScratch(t *testing.T) {
	d := demotest.Start(t, 300)
	tk, _ := llm.NewTokenizer(llm.EncodingO200k)
	e, err := New(Options{Model: &meter{}, Catalog: d.Catalog, Tokens: tk})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"what was revenue in 2024?", "how many orders shipped to texas", "top 5 customers by revenue in the enterprise segment"} {
		r := &run{e: e, req: dialog.Request{Question: q}}
		r.text = q
		r.link = e.link(q, nil)
		msgs := r.generationMessages()
		fmt.Println(msgs[1].Content)
		fmt.Println("TOKENS", tk.CountMessages(msgs), "schema", tk.Count(r.link.schema), "full", tk.Count(e.fullSchema()))
		fmt.Println(r.link.phrase)
	}
}
