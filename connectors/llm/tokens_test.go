package llm

import (
	"sync"
	"testing"
)

// Loading a BPE table takes a moment; the tests share one per encoding.
var (
	tokMu  sync.Mutex
	tokens = map[string]*Tokenizer{}
)

func testTokenizer(tb testing.TB, enc string) *Tokenizer {
	tb.Helper()
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokens[enc]; ok {
		return t
	}
	t, err := NewTokenizer(enc)
	if err != nil {
		tb.Fatal(err)
	}
	if err := t.Load(); err != nil {
		tb.Fatal(err)
	}
	tokens[enc] = t
	return t
}

func TestTokenizerCounts(t *testing.T) {
	// Reference counts from OpenAI's tiktoken.
	tests := []struct {
		enc, text string
		want      int
	}{
		{EncodingCL100k, "hello world", 2},
		{EncodingCL100k, "tiktoken is great!", 6},
		{EncodingO200k, "hello world", 2},
		{EncodingCL100k, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.enc+"/"+tt.text, func(t *testing.T) {
			if got := testTokenizer(t, tt.enc).Count(tt.text); got != tt.want {
				t.Fatalf("%d tokens, want %d", got, tt.want)
			}
		})
	}
}

func TestTokenizerMessages(t *testing.T) {
	tk := testTokenizer(t, EncodingCL100k)
	msgs := []Message{{Role: RoleUser, Content: "hello world"}}
	// 3 priming + 3 framing + "user" (1) + "hello world" (2)
	if got := tk.CountMessages(msgs); got != 9 {
		t.Fatalf("%d", got)
	}
}

func TestEncodingFor(t *testing.T) {
	for model, want := range map[string]string{
		"gpt-4o-mini": EncodingO200k, "gpt-4.1": EncodingO200k, "o3-mini": EncodingO200k, "gpt-5": EncodingO200k,
		"gpt-4-turbo": EncodingCL100k, "gpt-3.5-turbo": EncodingCL100k, "llama3.1:8b": EncodingCL100k,
		"openai/gpt-4o": EncodingO200k,
	} {
		if got := EncodingFor(model); got != want {
			t.Errorf("%s: %s, want %s", model, got, want)
		}
	}
	if _, err := NewTokenizer("nope"); err == nil {
		t.Fatal("unknown encoding accepted")
	}
}
