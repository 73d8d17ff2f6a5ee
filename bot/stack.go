package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"

	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/modelengine"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/llmengine"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/router"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/internal/seenstore"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
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

// stores are shared by every warehouse's manager: bbolt files in the data
// directory (bbolt lets one process open a file once), or namespaces of
// one database on a MySQL-protocol server that replicas share.
type stores struct {
	facts *ontology.Store
	convs *convstore.Store
	// server is the shared database; nil for bbolt files.
	server *mysqlkv.Server
}

// Namespaces of the stores on a server (the bbolt files' names there).
const (
	nsOntology      = cli.NsOntology
	nsConversations = cli.NsConversations
	nsUsage         = cli.NsUsage
	nsSeen          = "seen"
	nsRate          = "rate"   // question rate limits (internal/ratestore)
	nsRouter        = "router" // where earlier releases kept the channels' warehouse choices
)

func openStores(dataDir string, logger *slog.Logger) (*stores, error) {
	facts, err := ontologyfile.Open(filepath.Join(dataDir, ontologyFile), ontology.Options{Logger: logger})
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

// openStoresFor opens the stores the configuration names: the server's
// database when a DSN is set (with a bounded pool and the lease of turn
// locks), else the files in dataDir.
func openStoresFor(ctx context.Context, sc StoreConfig, dataDir string, logger *slog.Logger) (*stores, error) {
	if sc.DSN == "" {
		return openStores(dataDir, logger)
	}
	srv, err := mysqlkv.Open(ctx, sc.DSN, mysqlkv.Options{Logger: logger, MaxOpenConns: sc.MaxConnections, LeaseTTL: sc.LeaseTTL})
	if err != nil {
		return nil, err
	}
	facts, err := ontology.New(ctx, srv.Namespace(nsOntology), srv.Name(), ontology.Options{Logger: logger})
	if err != nil {
		srv.Close()
		return nil, err
	}
	convs, err := convstore.New(ctx, srv.Namespace(nsConversations), srv.Name(), convstore.Options{Logger: logger})
	if err != nil {
		srv.Close()
		return nil, err
	}
	logger.Info("store on a server", "database", srv.Name())
	return &stores{facts: facts, convs: convs, server: srv}, nil
}

// Close closes the stores, then the server.
func (s *stores) Close() error {
	err := errors.Join(s.convs.Close(), s.facts.Close())
	if s.server != nil {
		err = errors.Join(err, s.server.Close())
	}
	return err
}

// dedup is the Slack adapter's memory of event ids: shared through the
// server when there is one, so that a retry delivered to another replica
// is dropped; nil (the adapter's in-memory set) for files.
func (s *stores) dedup(now func() time.Time) slackadapter.Dedup {
	if s == nil || s.server == nil {
		return nil
	}
	return seenstore.New(s.server.Namespace(nsSeen), now)
}

// channelChoices keeps the router's choices of warehouse per channel in
// the conversations' store, so that a restart (and every replica sharing a
// server) routes a channel alike. Choices an earlier release kept in the
// server's "router" namespace move there first.
func (s *stores) channelChoices(ctx context.Context, logger *slog.Logger) (*router.Choices, error) {
	if s == nil || s.convs == nil {
		return nil, nil
	}
	if s.server != nil {
		if err := router.MoveChoices(ctx, s.server.Namespace(nsRouter), s.convs.KV()); err != nil {
			return nil, fmt.Errorf("move the channels' warehouse choices: %w", err)
		}
	}
	return router.NewChoices(s.convs.KV(), logger), nil
}

// shareUsage moves the model's usage records and budgets to the server, so
// that budgets count across replicas.
func (s *stores) shareUsage(ctx context.Context, f *modelengine.Factory, logger *slog.Logger) error {
	if s == nil || s.server == nil || f == nil {
		return nil
	}
	return f.UseServer(ctx, s.server.Namespace(nsUsage), s.server.Name(), logger)
}

// errConfig marks a start failure that retrying cannot fix (the access
// rules name what the schema lacks): it stops the start, or, found later,
// stops that warehouse.
var errConfig = errors.New("configuration error")

// stack is the platform-independent bot for one warehouse: the warehouse,
// its catalog and the dialog manager. Adapters sit on top of it.
type stack struct {
	name    string
	db      *warehouse.DB
	catalog *catalog.Catalog
	manager *dialog.Manager
	// snap is the snapshot as profiled (before access rules and glossary
	// joins), to retake its partial tables.
	snap *warehouse.Snapshot
	// access says who may ask this warehouse (the router enforces it).
	access access.Rules
	// preview is what the admin console's previews build their own
	// manager from (bot/internal/adminweb).
	preview *adminweb.Stack
	// levels are the stacks of the warehouse's other access levels, each
	// over its own account, catalog and manager; nil on a level's stack.
	levels []levelStack
}

// levelStack is one access level's stack.
type levelStack struct {
	level access.Level
	st    *stack
}

// forAsker is the stack of the access level that applies to a: its
// account runs the question, its rules check it, its catalog is what the
// engines see.
func (st *stack) forAsker(a access.Asker) *stack {
	for _, l := range st.levels {
		if l.level.Applies(a) {
			return l.st
		}
	}
	return st
}

// stackOptions say how to build a stack over an open warehouse.
type stackOptions struct {
	WarehouseName string
	// SnapshotName names the cached snapshot (default WarehouseName): each
	// access level profiles what its own account sees.
	SnapshotName string
	DataDir      string
	// RefreshProfile retakes the profile snapshot instead of using the cache.
	RefreshProfile bool
	// Snapshot, when set, is used as is (a background retake).
	Snapshot *warehouse.Snapshot
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
	start := time.Now()
	if !opts.Access.Empty() {
		// Hidden and sensitive values are never read for the profile,
		// and a snapshot cached before the rules is cleaned of them.
		opts.Profile.Withhold = opts.Access.Withholds
	}
	snap := opts.Snapshot
	if snap == nil {
		var err error
		snap, err = db.CachedSnapshot(ctx, snapshotPath(opts.DataDir, cmp.Or(opts.SnapshotName, opts.WarehouseName)), 0, opts.RefreshProfile, opts.Profile)
		if err != nil {
			return nil, fmt.Errorf("profile warehouse %s: %w", cmp.Or(opts.SnapshotName, opts.WarehouseName), err)
		}
	}
	raw := snap
	opts.Logger.Info("schema snapshot ready", "warehouse", cmp.Or(opts.SnapshotName, opts.WarehouseName), "tables", len(snap.Schema.Tables), "taken", snap.TakenAt, "took", time.Since(start).Round(time.Millisecond))
	if len(opts.Joins) > 0 {
		// A copy: the snapshot may be shared (cached) and must not change.
		withJoins := *snap
		withJoins.Schema.Joins = append(append([]warehouse.Join(nil), snap.Schema.Joins...), opts.Joins...)
		snap = &withJoins
	}
	if !opts.Access.Empty() {
		pol, err := access.NewFor(ctx, db, opts.Access, &snap.Schema)
		if err != nil && warehouse.KindOfError(err) != warehouse.KindUnknown {
			// The server did not answer the probe of a hidden name: retried.
			return nil, fmt.Errorf("warehouse %s: access rules: %w", opts.WarehouseName, err)
		}
		if err != nil {
			return nil, fmt.Errorf("warehouse %s: access rules: %w: %w", opts.WarehouseName, errConfig, err)
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
	var engine, fallback, pool dialog.Engine = off, nil, nil
	if opts.Engine != nil {
		// A model engine repairs failing queries and checks values by
		// running them through the same guarded warehouse; the offline
		// engine answers when it fails, and its readings are pooled with
		// the model's as evidence (dialog/calibrate.go).
		engine, fallback, pool = opts.Engine(cat, db), off, off
	}
	cfg := opts.Dialog
	cfg.Warehouse = opts.WarehouseName
	cfg.Logger = opts.Logger
	cfg.Now = opts.Now
	deps := dialog.Deps{Engine: engine, Fallback: fallback, Pool: pool, Exec: db, Catalog: cat, Facts: st.facts, Admin: st.facts, States: st.convs, Observe: opts.Observe, Gate: opts.Gate}
	if opts.Audit {
		deps.Questions = st.facts
	}
	mgr, err := dialog.New(cfg, deps)
	if err != nil {
		return nil, err
	}
	return &stack{name: opts.WarehouseName, db: db, catalog: cat, manager: mgr, access: opts.Access, snap: raw,
		preview: &adminweb.Stack{DB: db, Rules: opts.Access, Deps: deps, Dialog: cfg}}, nil
}

// snapshotPath is where a warehouse's profile snapshot is cached.
func snapshotPath(dataDir, warehouseName string) string {
	return filepath.Join(dataDir, "snapshots", warehouseName+".json.gz")
}
