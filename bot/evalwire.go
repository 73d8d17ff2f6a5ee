package main

import (
	"context"
	"io"
	"os"

	"github.com/clarify-bot/clarify/bot/internal/evalcmd"
	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/dialog/eval"
)

// runEval is `bot eval` (bot/internal/evalcmd) over the bot this program
// builds.
func runEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var llm LLMConfig // --engine llm's, read once before the runs
	return evalcmd.Run(ctx, args, stdin, stdout, stderr, evalcmd.Deps{
		LoadModel: func(path string) (string, error) {
			cfg, err := LoadConfig(path, os.Getenv)
			llm = cfg.LLM
			return cfg.LLM.Model, err
		},
		NewBot: func(ctx context.Context, o evalcmd.BotOptions) (eval.Dialog, func(), error) {
			return newEvalBot(ctx, o, llm)
		},
	})
}

// newEvalBot is the bot of one eval run: its stores in o.Dir, the glossary
// loaded, the model engine when asked for.
func newEvalBot(ctx context.Context, o evalcmd.BotOptions, llm LLMConfig) (eval.Dialog, func(), error) {
	stores, err := stack.OpenStores(o.Dir, o.Logger)
	if err != nil {
		return nil, nil, err
	}
	closers := []func() error{stores.Close}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	opts := stack.Options{WarehouseName: o.Warehouse, DataDir: o.Dir, Dialog: o.Dialog, Logger: o.Logger}
	if g := o.Glossary; g != nil {
		if _, err := glossarycmd.Load(ctx, stores.Facts, g, o.Warehouse, []string{o.Workspace}); err != nil {
			closeAll()
			return nil, nil, err
		}
		opts.Joins = g.Joins()
	}
	if o.Model {
		engine, _, closeEngine, err := newModelEngine(Config{DataDir: o.Dir, LLM: llm}, stores, o.Logger)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, closeEngine)
		opts.Engine = engine
	}
	st, err := stack.New(ctx, o.DB, stores, opts)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return st.Manager, closeAll, nil
}
