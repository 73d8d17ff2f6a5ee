package llm

import (
	"fmt"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings the Tokenizer knows, with their BPE files embedded by
// tiktoken-go-loader (no network).
const (
	EncodingO200k  = "o200k_base"  // gpt-4o, gpt-4.1, gpt-4.5, o-series, gpt-5
	EncodingCL100k = "cl100k_base" // gpt-4, gpt-3.5-turbo, and the default guess for other servers' models
)

// Split patterns and special tokens, as tiktoken-go v0.1.8 defines them.
// They are repeated here because tiktoken-go only reaches its BPE files
// through a package-level loader (SetBpeLoader) and this package keeps no
// global state: the Tokenizer loads the embedded file itself and builds
// the encoder with tiktoken-go's exported constructors.
var encodings = map[string]struct {
	pattern string
	special map[string]int
}{
	EncodingO200k: {
		pattern: strings.Join([]string{
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
			`\p{N}{1,3}`,
			` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
			`\s*[\r\n]+`,
			`\s+(?!\S)`,
			`\s+`,
		}, "|"),
		special: map[string]int{tiktoken.ENDOFTEXT: 199999, tiktoken.ENDOFPROMPT: 200018},
	},
	EncodingCL100k: {
		pattern: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		special: map[string]int{
			tiktoken.ENDOFTEXT: 100257, tiktoken.FIM_PREFIX: 100258, tiktoken.FIM_MIDDLE: 100259,
			tiktoken.FIM_SUFFIX: 100260, tiktoken.ENDOFPROMPT: 100276,
		},
	},
}

// EncodingFor names the encoding of a model: o200k for OpenAI's current
// models, cl100k for gpt-4 and gpt-3.5 and, as an approximation, for models
// of other servers (Llama, Qwen, Mistral… use their own tokenizers; counts
// for them are estimates).
func EncodingFor(model string) string {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-6", "o1", "o3", "o4", "chatgpt-4o"} {
		if strings.HasPrefix(m, p) {
			return EncodingO200k
		}
	}
	return EncodingCL100k
}

// Tokenizer counts tokens with a tiktoken encoding. The BPE table loads on
// first use (a few hundred milliseconds); a Tokenizer is safe for
// concurrent use.
type Tokenizer struct {
	encoding string
	once     sync.Once
	tk       *tiktoken.Tiktoken
	err      error
}

// NewTokenizer returns a tokenizer for encoding (EncodingO200k or EncodingCL100k).
func NewTokenizer(encoding string) (*Tokenizer, error) {
	if _, ok := encodings[encoding]; !ok {
		return nil, fmt.Errorf("llm: unknown encoding %q", encoding)
	}
	return &Tokenizer{encoding: encoding}, nil
}

// Encoding names the tokenizer's encoding.
func (t *Tokenizer) Encoding() string { return t.encoding }

// Load reads the embedded BPE table; Count calls it. Its error is kept.
func (t *Tokenizer) Load() error {
	t.once.Do(func() {
		spec := encodings[t.encoding]
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(t.encoding + ".tiktoken")
		if err != nil {
			t.err = fmt.Errorf("llm: load %s: %w", t.encoding, err)
			return
		}
		bpe, err := tiktoken.NewCoreBPE(ranks, spec.special, spec.pattern)
		if err != nil {
			t.err = fmt.Errorf("llm: build %s: %w", t.encoding, err)
			return
		}
		set := make(map[string]any, len(spec.special))
		for k := range spec.special {
			set[k] = true
		}
		t.tk = tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: t.encoding, PatStr: spec.pattern, MergeableRanks: ranks, SpecialTokens: spec.special}, set)
	})
	return t.err
}

// Count is the number of tokens of s (special tokens count as text). If the
// table could not load, it falls back to a rough estimate of 4 bytes per
// token; Load reports that error.
func (t *Tokenizer) Count(s string) int {
	if t.Load() != nil {
		return (len(s) + 3) / 4
	}
	return len(t.tk.EncodeOrdinary(s))
}

// CountMessages counts a chat prompt the way OpenAI bills it: each
// message costs its content plus 3 tokens of framing (4 with tool calls),
// and the reply is primed with 3 more.
func (t *Tokenizer) CountMessages(msgs []Message) int {
	n := 3
	for _, m := range msgs {
		n += 3 + t.Count(m.Role) + t.Count(m.Content)
		for _, tc := range m.ToolCalls {
			n += 4 + t.Count(tc.Name) + t.Count(tc.Arguments)
		}
		if m.ToolCallID != "" {
			n++
		}
	}
	return n
}
