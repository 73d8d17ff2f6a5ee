package main

import (
	"context"
	"io"

	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// runGlossary is `bot glossary check|load` (bot/internal/glossarycmd).
func runGlossary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return glossarycmd.Run(ctx, args, stdin, stdout, stderr, glossarycmd.Deps{Store: configStore, Warehouse: cliWarehouse})
}

// loadConfiguredGlossary checks and loads a warehouse's configured
// glossary (if any) before its stack is built, and returns its
// relationships for the catalog (glossarycmd.Configured).
func (m *Main) loadConfiguredGlossary(ctx context.Context, wc WarehouseConfig, db *warehouse.DB) ([]warehouse.Join, error) {
	return m.glossaries.Load(ctx, wc.Name, wc.Glossary, wc.Access, db)
}

// ReloadGlossaries re-reads every configured glossary (on SIGHUP); one
// with a problem keeps its previous load.
func (m *Main) ReloadGlossaries(ctx context.Context) error { return m.glossaries.Reload(ctx) }
