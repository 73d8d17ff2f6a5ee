package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// A bot serving only the demo warehouse, in its own process, gets a soft
// memory limit: the collector then returns what a burst of questions used
// instead of keeping its peak for minutes. The limit grows with the demo's
// size (its live heap does), so that a larger demo is not collected over
// and over; a bot with a real warehouse, or with GOMEMLIMIT set, has none.
const (
	demoMemoryBase     = 128 << 20 // the bot, catalog and stores
	demoMemoryPerOrder = 2560      // the warehouse's rows and indexes per order
)

// demoMemoryLimit is the soft limit for cfg, 0 when none applies.
func demoMemoryLimit(cfg Config) int64 {
	limit := int64(demoMemoryBase)
	for _, w := range cfg.Warehouses {
		if !w.Demo {
			return 0
		}
		limit += int64(w.DemoOrders) * demoMemoryPerOrder
	}
	if len(cfg.Warehouses) == 0 {
		return 0
	}
	return limit
}

// applyMemoryLimit sets demoMemoryLimit unless GOMEMLIMIT sets a limit
// already; it returns what restores the previous limit.
func applyMemoryLimit(cfg Config, logger *slog.Logger) (restore func()) {
	limit := demoMemoryLimit(cfg)
	if limit == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	logger.Info("soft memory limit for the demo warehouse in process (GOMEMLIMIT overrides it)", "MiB", limit>>20)
	return func() { debug.SetMemoryLimit(prev) }
}
