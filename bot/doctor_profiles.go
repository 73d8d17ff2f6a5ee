package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// checkProfiles reports the cached profile of each warehouse: a partial
// one (a table's profiling ran out of time) leaves value matches and
// example values out until bot serve retakes it in the background, or
// `bot serve --refresh` (or SIGHUP) profiles everything again.
func checkProfiles(cfg Config) []checkResult {
	var out []checkResult
	for _, w := range cfg.Warehouses {
		what := "profile of " + w.Name
		snap, err := warehouse.LoadSnapshot(stack.SnapshotPath(cfg.DataDir, w.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // not profiled yet: bot serve profiles it at start
		case errors.Is(err, warehouse.ErrStaleSnapshot):
			out = append(out, checkResult{What: what, Detail: "cached by an older version; bot serve profiles it again at start"})
			continue
		case err != nil:
			out = append(out, checkResult{Status: statusWarn, What: what, Detail: fmt.Sprintf("cannot read the cached profile (%v); bot serve profiles it again at start", err)})
			continue
		}
		taken := snap.TakenAt.UTC().Format("2006-01-02 15:04 MST")
		if partial := snap.PartialTables(); len(partial) > 0 {
			out = append(out, checkResult{Status: statusWarn, What: what,
				Detail: fmt.Sprintf("partial for %s (taken %s, profiling ran out of time): their example values and value matches are missing; bot serve retries them in the background, `bot serve --refresh` or SIGHUP profiles everything again", strings.Join(partial, ", "), taken),
				Short:  "partial: " + strings.Join(partial, ", ")})
			continue
		}
		out = append(out, checkResult{What: what, Detail: fmt.Sprintf("%d tables, complete (taken %s)", len(snap.Schema.Tables), taken)})
	}
	return out
}
