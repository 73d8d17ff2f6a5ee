package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/clarify-bot/clarify/bot/internal/modelengine"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/demotest"
)

func TestLLMNotConfigured(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		llm  LLMConfig
		want string
	}{
		{"nothing", LLMConfig{}, "no language model configured"},
		{"base url without model", LLMConfig{BaseURL: "http://localhost:11434/v1"}, "no model is named"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			engine, note, closer, err := newModelEngine(Config{DataDir: t.TempDir(), LLM: tt.llm}, nil, slog.New(slog.DiscardHandler))
			if err != nil || engine != nil || closer == nil || !strings.Contains(note, tt.want) || !strings.Contains(note, "offline engine") {
				t.Fatalf("%v %v %q", engine != nil, err, note)
			}
		})
	}
}

// sqlSamples answers a generation with as many samples as asked.
func sqlSamples(sql string) llmtest.Step {
	return func(tb testing.TB, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.System(), "You review") {
			return llmtest.Text(`{"ambiguous": false}`)
		}
		stmts := make([]string, c.N())
		for i := range stmts {
			stmts[i] = sql
		}
		return llmtest.SQL(stmts...)
	}
}

func TestLLMEngineFromConfig(t *testing.T) {
	t.Parallel()
	demo := demotest.Start(t, 300)
	tests := []struct {
		name  string
		cfg   func(srv *llmtest.Server) LLMConfig
		check func(tb testing.TB, c llmtest.Call)
	}{
		{"openai-compatible", func(srv *llmtest.Server) LLMConfig {
			return LLMConfig{APIKey: "sk-test", BaseURL: srv.URL, Model: "gpt-4o-mini", Samples: 3, Temperature: 0.5}
		}, func(tb testing.TB, c llmtest.Call) {
			if c.Path != "/v1/chat/completions" || c.Header.Get("Authorization") != "Bearer sk-test" || c.Req.Model != "gpt-4o-mini" {
				tb.Errorf("%s %v %s", c.Path, c.Header, c.Req.Model)
			}
			if !strings.Contains(c.System(), "You review") && (c.N() != 3 || c.Req.Temperature != 0.5) {
				tb.Errorf("n=%d temperature %v", c.N(), c.Req.Temperature)
			}
		}},
		{"azure", func(srv *llmtest.Server) LLMConfig {
			return LLMConfig{APIKey: "azure-key", BaseURL: srv.Root, Azure: true, APIVersion: "2024-06-01", Model: "clarify-gpt4o", Samples: 2}
		}, func(tb testing.TB, c llmtest.Call) {
			if c.Path != "/openai/deployments/clarify-gpt4o/chat/completions" || c.Query != "api-version=2024-06-01" || c.Header.Get("api-key") != "azure-key" {
				tb.Errorf("%s?%s %v", c.Path, c.Query, c.Header)
			}
		}},
		{"ollama without n", func(srv *llmtest.Server) LLMConfig {
			return LLMConfig{BaseURL: srv.URL, Model: "qwen2.5-coder:7b", Samples: 2, NoN: true}
		}, func(tb testing.TB, c llmtest.Call) {
			if c.Req.N > 1 || c.Header.Get("Authorization") != "" {
				tb.Errorf("n=%d auth %q", c.Req.N, c.Header.Get("Authorization"))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			step := sqlSamples("SELECT COUNT(*) FROM orders")
			srv.Fallback(func(tb testing.TB, c llmtest.Call) llmtest.Reply {
				tt.check(tb, c)
				return step(tb, c)
			})
			cfg := Config{DataDir: t.TempDir(), LLM: tt.cfg(srv)}
			cfg.ApplyDefaults()
			cfg.LLM.Prices = map[string]modelengine.TokenPrice{cfg.LLM.Model: {Prompt: 1, Completion: 2}}
			engine, note, closer, err := newModelEngine(cfg, nil, slog.New(slog.DiscardHandler))
			if err != nil || engine == nil {
				t.Fatalf("%v", err)
			}
			defer closer()
			if !strings.Contains(note, cfg.LLM.Model) || strings.Contains(note, "sk-test") || strings.Contains(note, "azure-key") {
				t.Fatalf("note %q", note)
			}
			eng := engine(demo.Catalog, demo.DB)
			who := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}
			p, err := eng.Candidates(context.Background(), dialog.Request{Question: "how many orders are there?", Who: who, Warehouse: "demo"})
			if err != nil || len(p.Candidates) != 1 || p.Candidates[0].SQL != "SELECT COUNT(*) FROM orders" {
				t.Fatalf("%v %+v", err, p)
			}
			code, out, errOut := runUsageCmd(t, "--data", cfg.DataDir, "--json")
			var rep llmusage.Report
			if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Questions != 1 || rep.Users[0].Key != "slack:T1:U1" || rep.Total.Cost <= 0 {
				t.Fatalf("usage: %d %s %s", code, out, errOut)
			}
		})
	}
}

func TestLLMConfigFromEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://localhost:8000/v1", "OPENAI_MODEL": "llama3.1", "CLARIFY_DATA_DIR": t.TempDir()}
	cfg, err := LoadConfig("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LLM.Samples != 5 || cfg.LLM.Temperature != 0.7 || cfg.LLM.Model != "llama3.1" {
		t.Fatalf("%+v", cfg.LLM)
	}
	engine, note, closer, err := newModelEngine(cfg, nil, slog.New(slog.DiscardHandler))
	if err != nil || engine == nil {
		t.Fatal(err)
	}
	defer closer()
	if !strings.Contains(note, "llama3.1 at http://localhost:8000/v1") || strings.Contains(note, "sk-env") {
		t.Fatalf("note %q", note)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, llmusage.File)); err != nil {
		t.Fatalf("usage file: %v", err)
	}
}

func runUsageCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runUsage(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store, err := llmusage.Open(filepath.Join(dir, llmusage.File), llmusage.Options{Prices: map[string]llmusage.Price{"gpt-4o": {Prompt: 2.5, Completion: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now().UTC()
	for _, r := range []llmusage.Record{
		{At: now, User: "slack:T1:ana", Workspace: "slack:T1", Warehouse: "demo", Model: "gpt-4o", Question: "revenue in 2024?", PromptTokens: 1200, CompletionTokens: 300, Calls: 2, Outcome: "ok"},
		{At: now, User: "slack:T1:ben", Workspace: "slack:T1", Warehouse: "demo", Model: "llama3", Question: "orders by state", PromptTokens: 800, CompletionTokens: 100, Calls: 1, Outcome: "ok"},
		{At: now.AddDate(0, 0, -10), User: "slack:T1:ana", Workspace: "slack:T1", Model: "gpt-4o", Question: "old question", PromptTokens: 5000, Calls: 1},
	} {
		if err := store.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string
		wantNot  []string
		inStderr bool
	}{
		{"summary", []string{"--data", dir}, exitOK, []string{"Total: 2 questions, 3 calls, 2,400 tokens", "By user", "slack:T1:ana", "slack:T1:ben", "By model", "gpt-4o", "llama3", "$0.0060", "1 question used a model without a price"}, []string{"old question"}, false},
		{"one user", []string{"--data", dir, "--user", "slack:T1:ana"}, exitOK, []string{"usage of slack:T1:ana", "Latest questions", "revenue in 2024?"}, []string{"slack:T1:ben", "By user"}, false},
		{"more days", []string{"--data", dir, "--days", "30", "--user", "slack:T1:ana"}, exitOK, []string{"old question", "Total: 2 questions"}, nil, false},
		{"bad days", []string{"--data", dir, "--days", "0"}, exitUsage, []string{"--days must be 1 or more"}, nil, true},
		{"stray argument", []string{"--data", dir, "extra"}, exitUsage, []string{"unexpected argument"}, nil, true},
		{"no file", []string{"--data", t.TempDir()}, exitOK, []string{"No language model usage recorded"}, nil, false},
		{"help", []string{"-h"}, exitOK, []string{"usage: bot usage"}, nil, false}, // -h: usage on stdout
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runUsageCmd(t, tt.args...)
			text := out
			if tt.inStderr {
				text = errOut
			}
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("unexpected %q in:\n%s", w, text)
				}
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		code, out, _ := runUsageCmd(t, "--data", dir, "--json")
		var rep llmusage.Report
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Tokens() != 2400 || len(rep.Users) != 2 {
			t.Fatalf("%d %s", code, out)
		}
	})
	t.Run("file held by a writer", func(t *testing.T) {
		db, err := bolt.Open(filepath.Join(dir, llmusage.File), 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		code, _, errOut := runUsageCmd(t, "--data", dir, "--lock-timeout", "100ms")
		if code != exitFailure || !strings.Contains(errOut, "locked") {
			t.Fatalf("%d %s", code, errOut)
		}
	})
}
