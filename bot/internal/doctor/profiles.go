package doctor

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// CheckProfiles reports the cached profile of each warehouse (snapshot
// says where it is cached): a partial one (a table's profiling ran out of
// time) leaves value matches and example values out until bot serve
// retakes it in the background, or `bot serve --refresh` (or SIGHUP)
// profiles everything again.
func CheckProfiles(warehouses []string, snapshot func(warehouseName string) string) []Result {
	var out []Result
	for _, name := range warehouses {
		what := "profile of " + name
		snap, err := warehouse.LoadSnapshot(snapshot(name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // not profiled yet: bot serve profiles it at start
		case errors.Is(err, warehouse.ErrStaleSnapshot):
			out = append(out, Result{What: what, Detail: "cached by an older version; bot serve profiles it again at start"})
			continue
		case err != nil:
			out = append(out, Result{Status: StatusWarn, What: what, Detail: fmt.Sprintf("cannot read the cached profile (%v); bot serve profiles it again at start", err)})
			continue
		}
		taken := snap.TakenAt.UTC().Format("2006-01-02 15:04 MST")
		if partial := snap.PartialTables(); len(partial) > 0 {
			out = append(out, Result{Status: StatusWarn, What: what,
				Detail: fmt.Sprintf("partial for %s (taken %s, profiling ran out of time): their example values and value matches are missing; bot serve retries them in the background, `bot serve --refresh` or SIGHUP profiles everything again", strings.Join(partial, ", "), taken),
				Short:  "partial: " + strings.Join(partial, ", ")})
			continue
		}
		out = append(out, Result{What: what, Detail: fmt.Sprintf("%d tables, complete (taken %s)", len(snap.Schema.Tables), taken)})
	}
	return out
}
