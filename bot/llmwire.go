package main

import (
	"log/slog"
)

// newModelEngine builds the model engine when one is configured; without a
// model the offline engine answers, and the note says so once at start-up.
// closer (never nil) releases what the engine opened.
func newModelEngine(cfg Config, st *stores, logger *slog.Logger) (engine modelEngine, note string, closer func() error, err error) {
	return nil, "no language model configured: answering with the offline engine", func() error { return nil }, nil
}
