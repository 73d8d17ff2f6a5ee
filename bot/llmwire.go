package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/metrics"
	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/llmengine"
)

// newModelEngine builds the model engine when one is configured; without a
// model the offline engine answers, and the note says so once at start-up.
// closer (never nil) releases what the engine opened.
func newModelEngine(cfg Config, st *stores, logger *slog.Logger) (engine modelEngine, note string, closer func() error, err error) {
	return newObservedModelEngine(cfg, st, logger, metrics.ModelHooks{})
}

// newObservedModelEngine is newModelEngine with hooks for metrics.
func newObservedModelEngine(cfg Config, st *stores, logger *slog.Logger, hooks metrics.ModelHooks) (engine modelEngine, note string, closer func() error, err error) {
	noop := func() error { return nil }
	f, note, err := newModelFactory(cfg, logger, hooks)
	if err != nil || f == nil {
		return nil, note, noop, err
	}
	if err := st.shareUsage(context.Background(), f, logger); err != nil {
		f.Close()
		return nil, "", noop, err
	}
	return f.engineFor, note, f.Close, nil
}

// modelFactory holds what the engines of all warehouses share: one client
// (and its retry state), one tokenizer and one usage store, so budgets
// count across warehouses.
type modelFactory struct {
	cfg    LLMConfig
	client *llm.Client
	tokens *llm.Tokenizer
	usage  *llmusage.Store
	logger *slog.Logger
	hooks  metrics.ModelHooks
}

// newModelFactory returns nil and a note when no model is configured.
func newModelFactory(cfg Config, logger *slog.Logger, hooks metrics.ModelHooks) (*modelFactory, string, error) {
	lc := cfg.LLM
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
	usage, err := llmusage.Open(filepath.Join(cfg.DataDir, llmusage.File), llmusage.Options{
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
	return &modelFactory{cfg: lc, client: client, tokens: tokens, usage: usage, logger: logger, hooks: hooks}, note, nil
}

// engineFor builds the engine of one warehouse. exec is the warehouse the
// engine runs its own checks on (repairs, value checks, execute_sql); the
// manager executes candidates on it too.
func (f *modelFactory) engineFor(cat *catalog.Catalog, exec dialog.Executor) dialog.Engine {
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
func (f *modelFactory) Close() error { return f.usage.Close() }

// brokenEngine fails every question, so the manager uses its fallback.
type brokenEngine struct{ err error }

func (b brokenEngine) Name() string { return "llm" }

func (b brokenEngine) Candidates(context.Context, dialog.Request) (*dialog.Proposal, error) {
	return nil, errors.Join(errors.New("the language model engine is not available"), b.err)
}
