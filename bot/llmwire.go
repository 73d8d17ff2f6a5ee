package main

import (
	"context"
	"log/slog"

	"github.com/clarify-bot/clarify/bot/internal/metrics"
	"github.com/clarify-bot/clarify/bot/internal/modelengine"
	"github.com/clarify-bot/clarify/bot/internal/stack"
)

// newModelEngine builds the model engine when one is configured; without a
// model the offline engine answers, and the note says so once at start-up.
// closer (never nil) releases what the engine opened.
func newModelEngine(cfg Config, st *stack.Stores, logger *slog.Logger) (engine stack.ModelEngine, note string, closer func() error, err error) {
	return newObservedModelEngine(cfg, st, logger, metrics.ModelHooks{})
}

// newObservedModelEngine is newModelEngine with hooks for metrics.
func newObservedModelEngine(cfg Config, st *stack.Stores, logger *slog.Logger, hooks metrics.ModelHooks) (engine stack.ModelEngine, note string, closer func() error, err error) {
	noop := func() error { return nil }
	f, note, err := modelengine.NewFactory(cfg.LLM, cfg.DataDir, logger, hooks)
	if err != nil || f == nil {
		return nil, note, noop, err
	}
	if err := st.ShareUsage(context.Background(), f, logger); err != nil {
		f.Close()
		return nil, "", noop, err
	}
	return f.EngineFor, note, f.Close, nil
}
