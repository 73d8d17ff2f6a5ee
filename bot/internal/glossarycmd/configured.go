package glossarycmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// Configured are the team glossaries bot serve's configuration names:
// each is checked and loaded when its warehouse is first reached, and all
// are read again on SIGHUP. Warehouses starting at once add theirs.
type Configured struct {
	facts  *ontology.Store
	logger *slog.Logger

	mu   sync.Mutex
	refs []configuredRef
}

// configuredRef is a configured glossary: its file, the warehouse it is
// for, and that warehouse under its access rules, to check it against.
type configuredRef struct {
	file, warehouse string
	db              glossary.Querier
	rules           access.Rules
}

// NewConfigured loads glossaries into facts.
func NewConfigured(facts *ontology.Store, logger *slog.Logger) *Configured {
	return &Configured{facts: facts, logger: logger}
}

// Load checks and loads the glossary in file (if any) for the warehouse
// before its stack is built, and returns its relationships for the
// catalog. A glossary that cannot be read, fails the check (an expression
// that does not run, a hidden column, a value of a protected one) or
// cannot be loaded stops the start: the team's meanings would otherwise
// silently vanish or be wrong.
func (c *Configured) Load(ctx context.Context, warehouseName, file string, rules access.Rules, db *warehouse.DB) ([]warehouse.Join, error) {
	if file == "" {
		return nil, nil
	}
	checked, err := UnderRules(ctx, db, rules)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", warehouseName, err)
	}
	ref := configuredRef{file: file, warehouse: warehouseName, db: checked, rules: rules}
	g, st, err := c.checkAndLoad(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", warehouseName, err)
	}
	c.logger.Info("glossary loaded", "warehouse", warehouseName, "file", file, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
	c.mu.Lock()
	c.refs = append(c.refs, ref)
	c.mu.Unlock()
	return g.Joins(), nil
}

// Any reports whether a glossary was loaded.
func (c *Configured) Any() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.refs) > 0
}

// checkAndLoad reads a configured glossary, runs the full check and
// loads it; on any problem nothing is stored.
func (c *Configured) checkAndLoad(ctx context.Context, ref configuredRef) (*glossary.Glossary, ontology.ImportStats, error) {
	g, err := glossary.ReadFile(ref.file)
	if err != nil {
		return nil, ontology.ImportStats{}, err
	}
	if err := Check(ctx, ref.db, ref.rules, g); err != nil {
		return nil, ontology.ImportStats{}, err
	}
	st, err := Load(ctx, c.facts, g, ref.warehouse, nil)
	return g, st, err
}

// Reload re-reads every loaded glossary (on SIGHUP) and runs the same
// full check as at start. A glossary with a problem is logged and its
// previous load stays in force; relationships take effect at the next
// start (the catalog is built once).
func (c *Configured) Reload(ctx context.Context) error {
	var errs []error
	c.mu.Lock()
	refs := append([]configuredRef(nil), c.refs...)
	c.mu.Unlock()
	for _, ref := range refs {
		_, st, err := c.checkAndLoad(ctx, ref)
		if err == nil {
			c.logger.Info("glossary reloaded", "warehouse", ref.warehouse, "file", ref.file, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
			continue
		}
		c.logger.Error("glossary not reloaded; the previous load stays", "warehouse", ref.warehouse, "file", ref.file, "err", err)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
