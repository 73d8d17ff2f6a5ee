package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// runGlossary is `bot glossary check|load` (bot/internal/glossarycmd).
func runGlossary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return glossarycmd.Run(ctx, args, stdin, stdout, stderr, glossarycmd.Deps{Store: configStore, Warehouse: cliWarehouse})
}

// glossaryRef is a configured glossary: its file, the warehouse it is
// for, and that warehouse under its access rules, to check it against.
type glossaryRef struct {
	file, warehouse string
	db              glossary.Querier
	rules           access.Rules
}

// loadConfiguredGlossary checks and loads a warehouse's configured
// glossary (if any) before its stack is built, and returns its
// relationships for the catalog. A glossary that cannot be read, fails
// the check (an expression that does not run, a hidden column, a value of
// a protected one) or cannot be loaded stops the start: the team's
// meanings would otherwise silently vanish or be wrong.
func (m *Main) loadConfiguredGlossary(ctx context.Context, wc WarehouseConfig, db *warehouse.DB) ([]warehouse.Join, error) {
	if wc.Glossary == "" {
		return nil, nil
	}
	checked, err := glossarycmd.UnderRules(ctx, db, wc.Access)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	ref := glossaryRef{file: wc.Glossary, warehouse: wc.Name, db: checked, rules: wc.Access}
	g, st, err := m.checkAndLoad(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	m.logger.Info("glossary loaded", "warehouse", wc.Name, "file", wc.Glossary, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
	m.glossaryMu.Lock()
	m.glossaries = append(m.glossaries, ref)
	m.glossaryMu.Unlock()
	return g.Joins(), nil
}

// checkAndLoad reads a configured glossary, runs the full check and
// loads it; on any problem nothing is stored.
func (m *Main) checkAndLoad(ctx context.Context, ref glossaryRef) (*glossary.Glossary, ontology.ImportStats, error) {
	g, err := glossary.ReadFile(ref.file)
	if err != nil {
		return nil, ontology.ImportStats{}, err
	}
	if err := glossarycmd.Check(ctx, ref.db, ref.rules, g); err != nil {
		return nil, ontology.ImportStats{}, err
	}
	st, err := glossarycmd.Load(ctx, m.stores.Facts, g, ref.warehouse, nil)
	return g, st, err
}

// ReloadGlossaries re-reads every configured glossary (on SIGHUP) and runs
// the same full check as at start. A glossary with a problem is logged
// and its previous load stays in force; relationships take effect at the
// next start (the catalog is built once).
func (m *Main) ReloadGlossaries(ctx context.Context) error {
	var errs []error
	m.glossaryMu.Lock()
	refs := append([]glossaryRef(nil), m.glossaries...)
	m.glossaryMu.Unlock()
	for _, ref := range refs {
		_, st, err := m.checkAndLoad(ctx, ref)
		if err == nil {
			m.logger.Info("glossary reloaded", "warehouse", ref.warehouse, "file", ref.file, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
			continue
		}
		m.logger.Error("glossary not reloaded; the previous load stays", "warehouse", ref.warehouse, "file", ref.file, "err", err)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
