package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/llmengine"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/ontology"
)

// The dialog's dependencies, checked when the bot is built rather than
// discovered by type assertion at run time.
var (
	_ dialog.Facts     = (*ontology.Store)(nil)
	_ dialog.FactAdmin = (*ontology.Store)(nil)
	_ dialog.States    = (*convstore.Store)(nil)
	_ dialog.Executor  = (*warehouse.DB)(nil)
	_ dialog.Engine    = (*offline.Engine)(nil)
	_ dialog.Engine    = (*llmengine.Engine)(nil)
)

// stores are the bbolt files shared by every warehouse's manager: bbolt
// lets one process open a file once.
type stores struct {
	facts *ontology.Store
	convs *convstore.Store
}

func openStores(dataDir string, logger *slog.Logger) (*stores, error) {
	facts, err := ontology.Open(filepath.Join(dataDir, ontologyFile), ontology.Options{Logger: logger})
	if err != nil {
		return nil, err
	}
	convs, err := convstore.Open(filepath.Join(dataDir, conversationsFile), convstore.Options{Logger: logger})
	if err != nil {
		facts.Close()
		return nil, err
	}
	return &stores{facts: facts, convs: convs}, nil
}

// Close closes both files.
func (s *stores) Close() error { return errors.Join(s.convs.Close(), s.facts.Close()) }

// stack is the platform-independent bot for one warehouse: the warehouse,
// its catalog and the dialog manager. Adapters sit on top of it.
type stack struct {
	name    string
	db      *warehouse.DB
	catalog *catalog.Catalog
	manager *dialog.Manager
	// access says who may ask this warehouse (the router enforces it).
	access access.Rules
}

// stackOptions say how to build a stack over an open warehouse.
type stackOptions struct {
	WarehouseName string
	DataDir       string
	// RefreshProfile retakes the profile snapshot instead of using the cache.
	RefreshProfile bool
	// Profile tunes how the warehouse is profiled (zero: the defaults).
	Profile  warehouse.ProfileOptions
	Synonyms map[string][]string
	// Access rules of the warehouse: hidden tables and columns are left
	// out of the catalog, and every statement is checked against them.
	Access access.Rules
	// Joins are relationships the schema does not declare (a team
	// glossary's), added to the catalog's join graph.
	Joins  []warehouse.Join
	Dialog dialog.Config
	// Engine builds the main engine; nil means the offline engine. With a
	// main engine, the offline engine is its fallback.
	Engine modelEngine
	// Audit records every question in the ontology's audit log.
	Audit  bool
	Logger *slog.Logger
	Now    func() time.Time

	// Observe counts the conversations (nil: not counted); Gate admits new
	// questions (nil: all).
	Observe dialog.Observer
	Gate    dialog.Gate
}

// newStack profiles the warehouse (or reads the cached snapshot), builds
// the catalog and the manager. It does not own db or st.
func newStack(ctx context.Context, db *warehouse.DB, st *stores, opts stackOptions) (*stack, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	snapPath := filepath.Join(opts.DataDir, "snapshots", opts.WarehouseName+".json.gz")
	start := time.Now()
	snap, err := db.CachedSnapshot(ctx, snapPath, 0, opts.RefreshProfile, opts.Profile)
	if err != nil {
		return nil, fmt.Errorf("profile warehouse %s: %w", opts.WarehouseName, err)
	}
	opts.Logger.Info("schema snapshot ready", "warehouse", opts.WarehouseName, "tables", len(snap.Schema.Tables), "taken", snap.TakenAt, "took", time.Since(start).Round(time.Millisecond))
	if len(opts.Joins) > 0 {
		// A copy: the snapshot may be shared (cached) and must not change.
		withJoins := *snap
		withJoins.Schema.Joins = append(append([]warehouse.Join(nil), snap.Schema.Joins...), opts.Joins...)
		snap = &withJoins
	}
	if !opts.Access.Empty() {
		pol, err := access.New(opts.Access, &snap.Schema)
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: access rules: %w", opts.WarehouseName, err)
		}
		// What the engines never see they cannot link, prompt with or show;
		// the view refuses whatever they write anyway.
		snap, db = pol.Filter(snap), db.WithPolicy(pol)
	}
	cat := catalog.New(snap, catalog.Options{Synonyms: opts.Synonyms})

	var words offline.Words
	if lex, err := lexicon.Default(); err != nil {
		opts.Logger.Warn("no English lexicon; ordinary words that match stored names will be read as filters", "err", err)
	} else {
		words = lex
	}
	off := offline.New(cat, offline.Options{Now: opts.Now, Words: words, Logger: opts.Logger})
	var engine, fallback dialog.Engine = off, nil
	if opts.Engine != nil {
		// A model engine repairs failing queries and checks values by
		// running them through the same guarded warehouse.
		engine, fallback = opts.Engine(cat, db), off
	}
	cfg := opts.Dialog
	cfg.Warehouse = opts.WarehouseName
	cfg.Logger = opts.Logger
	cfg.Now = opts.Now
	deps := dialog.Deps{Engine: engine, Fallback: fallback, Exec: db, Catalog: cat, Facts: st.facts, Admin: st.facts, States: st.convs, Observe: opts.Observe, Gate: opts.Gate}
	if opts.Audit {
		deps.Questions = st.facts
	}
	mgr, err := dialog.New(cfg, deps)
	if err != nil {
		return nil, err
	}
	return &stack{name: opts.WarehouseName, db: db, catalog: cat, manager: mgr, access: opts.Access}, nil
}
