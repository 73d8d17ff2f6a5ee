package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/ontology"
)

// stack is the platform-independent bot: a warehouse, its catalog, the
// stores and the dialog manager. Adapters sit on top of it.
type stack struct {
	db      *warehouse.DB
	catalog *catalog.Catalog
	facts   *ontology.Store
	convs   *convstore.Store
	manager *dialog.Manager
	closers []func() error
}

// stackOptions say how to build a stack over an open warehouse.
type stackOptions struct {
	WarehouseName string
	DataDir       string
	// RefreshProfile retakes the profile snapshot instead of using the cache.
	RefreshProfile bool
	Dialog         dialog.Config
	Engine         dialog.Engine // nil: the offline engine
	Logger         *slog.Logger
	Now            func() time.Time
}

// newStack profiles the warehouse (or reads the cached snapshot), builds
// the catalog and opens the stores. It takes ownership of db.
func newStack(ctx context.Context, db *warehouse.DB, opts stackOptions) (s *stack, err error) {
	s = &stack{db: db}
	s.closers = append(s.closers, db.Close)
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	snapPath := filepath.Join(opts.DataDir, "snapshots", opts.WarehouseName+".json.gz")
	start := time.Now()
	snap, err := db.CachedSnapshot(ctx, snapPath, 0, opts.RefreshProfile, warehouse.ProfileOptions{})
	if err != nil {
		return nil, fmt.Errorf("profile warehouse %s: %w", opts.WarehouseName, err)
	}
	opts.Logger.Info("schema snapshot ready", "warehouse", opts.WarehouseName, "tables", len(snap.Schema.Tables), "taken", snap.TakenAt, "took", time.Since(start).Round(time.Millisecond))
	s.catalog = catalog.New(snap, catalog.Options{})

	s.facts, err = ontology.Open(filepath.Join(opts.DataDir, ontologyFile), ontology.Options{Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.facts.Close)
	s.convs, err = convstore.Open(filepath.Join(opts.DataDir, conversationsFile), convstore.Options{Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.convs.Close)

	off := offline.New(s.catalog, offline.Options{Now: opts.Now, Logger: opts.Logger})
	engine := opts.Engine
	var fallback dialog.Engine
	if engine == nil {
		engine = off
	} else {
		fallback = off
	}
	cfg := opts.Dialog
	cfg.Warehouse = opts.WarehouseName
	cfg.Logger = opts.Logger
	cfg.Now = opts.Now
	s.manager, err = dialog.New(cfg, dialog.Deps{Engine: engine, Fallback: fallback, Exec: db, Catalog: s.catalog, Facts: s.facts, States: s.convs})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes what newStack opened, in reverse order.
func (s *stack) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}
