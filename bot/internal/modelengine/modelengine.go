// Package modelengine builds the language-model engine of every
// warehouse from the llm configuration: one client, tokenizer and usage
// store shared, so that budgets count across warehouses.
package modelengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/metrics"
	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/llmengine"
	"github.com/clarify-bot/clarify/internal/kv"
)

// Config selects a chat-completions model (OpenAI, Azure OpenAI, or any
// compatible server). Without a model the offline engine answers.
type Config struct {
	APIKey      string  `yaml:"api_key"`
	BaseURL     string  `yaml:"base_url"`
	Model       string  `yaml:"model"`
	Azure       bool    `yaml:"azure"`
	APIVersion  string  `yaml:"api_version"`
	Samples     int     `yaml:"samples"`
	Temperature float64 `yaml:"temperature"`
	// NoN: the server ignores n; send separate requests per sample.
	NoN                  bool          `yaml:"no_n"`
	Tools                bool          `yaml:"tools"`
	Timeout              time.Duration `yaml:"timeout"`
	DailyUserTokens      int           `yaml:"daily_user_tokens"`
	DailyWorkspaceTokens int           `yaml:"daily_workspace_tokens"`
	// Prices per million tokens, for cost estimates: {model: {prompt: 2.5, completion: 10}}.
	Prices map[string]TokenPrice `yaml:"prices"`
}

// TokenPrice is a model's price per million tokens.
type TokenPrice struct {
	Prompt     float64 `yaml:"prompt"`
	Completion float64 `yaml:"completion"`
}

// Factory holds what the engines of all warehouses share: one client
// (and its retry state), one tokenizer and one usage store, so budgets
// count across warehouses.
type Factory struct {
	cfg    Config
	client *llm.Client
	tokens *llm.Tokenizer
	usage  *llmusage.Store
	logger *slog.Logger
	hooks  metrics.ModelHooks
}

// NewFactory returns nil and a note when no model is configured; the
// usage store is in dataDir until UseServer.
func NewFactory(lc Config, dataDir string, logger *slog.Logger, hooks metrics.ModelHooks) (*Factory, string, error) {
	if strings.TrimSpace(lc.Model) == "" {
		if lc.BaseURL != "" {
			return nil, "llm.base_url is set but no model is named (llm.model or OPENAI_MODEL): answering with the offline engine", nil
		}
		return nil, "no language model configured: answering with the offline engine", nil
	}
	tokens, err := llm.NewTokenizer(llm.EncodingFor(lc.Model))
	if err != nil {
		return nil, "", fmt.Errorf("llm: %w", err)
	}
	client, err := llm.New(llm.Config{
		APIKey: lc.APIKey, BaseURL: lc.BaseURL, Model: lc.Model, Azure: lc.Azure, APIVersion: lc.APIVersion,
		NoN: lc.NoN, Timeout: lc.Timeout, Tokens: tokens, Logger: logger, Hooks: hooks.LLM,
	})
	if err != nil {
		return nil, "", err
	}
	prices := make(map[string]llmusage.Price, len(lc.Prices))
	for model, p := range lc.Prices {
		prices[model] = llmusage.Price{Prompt: p.Prompt, Completion: p.Completion}
	}
	usage, err := llmusage.Open(filepath.Join(dataDir, llmusage.File), llmusage.Options{
		Prices: prices, Budget: llmusage.Budget{DailyUser: lc.DailyUserTokens, DailyWorkspace: lc.DailyWorkspaceTokens}, Logger: logger,
	})
	if err != nil {
		return nil, "", err
	}
	mode := ""
	if lc.Tools {
		mode = ", tool mode"
	}
	if _, ok := prices[lc.Model]; !ok {
		logger.Warn("no price configured for the model; usage is recorded without cost", "model", lc.Model)
	}
	note := fmt.Sprintf("language model: %s (%d samples per question%s); the offline engine answers when it fails", client, lc.Samples, mode)
	return &Factory{cfg: lc, client: client, tokens: tokens, usage: usage, logger: logger, hooks: hooks}, note, nil
}

// EngineFor builds the engine of one warehouse. exec is the warehouse the
// engine runs its own checks on (repairs, value checks, execute_sql); the
// manager executes candidates on it too.
func (f *Factory) EngineFor(cat *catalog.Catalog, exec dialog.Executor) dialog.Engine {
	var usage llmengine.Usage = f.usage
	if f.hooks.BudgetRefused != nil {
		usage = metrics.CountedUsage{Usage: f.usage, Refused: f.hooks.BudgetRefused}
	}
	e, err := llmengine.New(llmengine.Options{
		Model: f.client, ModelName: f.cfg.Model, Catalog: cat, Exec: exec, Usage: usage, Tokens: f.tokens,
		Samples: f.cfg.Samples, Temperature: f.cfg.Temperature, Tools: f.cfg.Tools, Logger: f.logger,
	})
	if err != nil {
		// Only a nil catalog gets here; the manager then falls back.
		f.logger.Error("cannot build the model engine", "err", err)
		return brokenEngine{err: err}
	}
	return e
}

// Close releases the usage store.
func (f *Factory) Close() error { return f.usage.Close() }

// brokenEngine fails every question, so the manager uses its fallback.
type brokenEngine struct{ err error }

func (b brokenEngine) Name() string { return "llm" }

func (b brokenEngine) Candidates(context.Context, dialog.Request) (*dialog.Proposal, error) {
	return nil, errors.Join(errors.New("the language model engine is not available"), b.err)
}

// UseServer moves the usage records and budgets to the server store's
// namespace db (name: the server's), so that budgets count across replicas.
func (f *Factory) UseServer(ctx context.Context, db kv.DB, name string, logger *slog.Logger) error {
	prices := make(map[string]llmusage.Price, len(f.cfg.Prices))
	for model, p := range f.cfg.Prices {
		prices[model] = llmusage.Price{Prompt: p.Prompt, Completion: p.Completion}
	}
	u, err := llmusage.New(ctx, db, name, llmusage.Options{
		Prices: prices, Budget: llmusage.Budget{DailyUser: f.cfg.DailyUserTokens, DailyWorkspace: f.cfg.DailyWorkspaceTokens}, Logger: logger,
	})
	if err != nil {
		return err
	}
	f.usage.Close()
	f.usage = u
	return nil
}
