// Package stack builds the platform-independent bot for one warehouse —
// its catalog, engines and dialog manager — over the stores every
// warehouse shares, and holds this process's place among the bot's
// replicas. bot serve, bot demo and bot eval build theirs here.
package stack

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
	"github.com/clarify-bot/clarify/bot/internal/config"
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

// Stores are shared by every warehouse's manager: bbolt files in the data
// directory (bbolt lets one process open a file once), or namespaces of
// one database on a MySQL-protocol server that replicas share.
type Stores struct {
	Facts *ontology.Store
	Convs *convstore.Store
	// Server is the shared database; nil for bbolt files.
	Server *mysqlkv.Server
}

// Namespaces of the stores on a server (the bbolt files' names there).
const (
	NsSeen   = "seen"
	NsRate   = "rate"   // question rate limits (internal/ratestore)
	NsRouter = "router" // where earlier releases kept the channels' warehouse choices
)

// OpenStores opens the bbolt files in dataDir.
func OpenStores(dataDir string, logger *slog.Logger) (*Stores, error) {
	facts, err := ontologyfile.Open(filepath.Join(dataDir, cli.OntologyFile), ontology.Options{Logger: logger})
	if err != nil {
		return nil, err
	}
	convs, err := convstore.Open(filepath.Join(dataDir, cli.ConversationsFile), convstore.Options{Logger: logger})
	if err != nil {
		facts.Close()
		return nil, err
	}
	return &Stores{Facts: facts, Convs: convs}, nil
}

// OpenStoresFor opens the stores the configuration names: the server's
// database when a DSN is set (with a bounded pool and the lease of turn
// locks), else the files in dataDir.
func OpenStoresFor(ctx context.Context, sc config.StoreConfig, dataDir string, logger *slog.Logger) (*Stores, error) {
	if sc.DSN == "" {
		return OpenStores(dataDir, logger)
	}
	srv, err := mysqlkv.Open(ctx, sc.DSN, mysqlkv.Options{Logger: logger, MaxOpenConns: sc.MaxConnections, LeaseTTL: sc.LeaseTTL})
	if err != nil {
		return nil, err
	}
	facts, err := ontology.New(ctx, srv.Namespace(cli.NsOntology), srv.Name(), ontology.Options{Logger: logger})
	if err != nil {
		srv.Close()
		return nil, err
	}
	convs, err := convstore.New(ctx, srv.Namespace(cli.NsConversations), srv.Name(), convstore.Options{Logger: logger})
	if err != nil {
		srv.Close()
		return nil, err
	}
	logger.Info("store on a server", "database", srv.Name())
	return &Stores{Facts: facts, Convs: convs, Server: srv}, nil
}

// Close closes the stores, then the server.
func (s *Stores) Close() error {
	err := errors.Join(s.Convs.Close(), s.Facts.Close())
	if s.Server != nil {
		err = errors.Join(err, s.Server.Close())
	}
	return err
}

// Dedup is the Slack adapter's memory of event ids: shared through the
// server when there is one, so that a retry delivered to another replica
// is dropped; nil (the adapter's in-memory set) for files.
func (s *Stores) Dedup(now func() time.Time) slackadapter.Dedup {
	if s == nil || s.Server == nil {
		return nil
	}
	return seenstore.New(s.Server.Namespace(NsSeen), now)
}

// ChannelChoices keeps the router's choices of warehouse per channel in
// the conversations' store, so that a restart (and every replica sharing a
// server) routes a channel alike. Choices an earlier release kept in the
// server's "router" namespace move there first.
func (s *Stores) ChannelChoices(ctx context.Context, logger *slog.Logger) (*router.Choices, error) {
	if s == nil || s.Convs == nil {
		return nil, nil
	}
	if s.Server != nil {
		if err := router.MoveChoices(ctx, s.Server.Namespace(NsRouter), s.Convs.KV()); err != nil {
			return nil, fmt.Errorf("move the channels' warehouse choices: %w", err)
		}
	}
	return router.NewChoices(s.Convs.KV(), logger), nil
}

// ShareUsage moves the model's usage records and budgets to the server, so
// that budgets count across replicas.
func (s *Stores) ShareUsage(ctx context.Context, f *modelengine.Factory, logger *slog.Logger) error {
	if s == nil || s.Server == nil || f == nil {
		return nil
	}
	return f.UseServer(ctx, s.Server.Namespace(cli.NsUsage), s.Server.Name(), logger)
}

// ErrConfig marks a start failure that retrying cannot fix (the access
// rules name what the schema lacks): it stops the start, or, found later,
// stops that warehouse.
var ErrConfig = errors.New("configuration error")

// Stack is the platform-independent bot for one warehouse: the warehouse,
// its catalog and the dialog manager. Adapters sit on top of it.
type Stack struct {
	Name    string
	DB      *warehouse.DB
	Catalog *catalog.Catalog
	Manager *dialog.Manager
	// Snap is the snapshot as profiled (before access rules and glossary
	// joins), to retake its partial tables.
	Snap *warehouse.Snapshot
	// Access says who may ask this warehouse (the router enforces it).
	Access access.Rules
	// Preview is what the admin console's previews build their own
	// manager from (bot/internal/adminweb).
	Preview *adminweb.Stack
	// Levels are the stacks of the warehouse's other access levels, each
	// over its own account, catalog and manager; nil on a level's stack.
	Levels []LevelStack
}

// LevelStack is one access level's stack.
type LevelStack struct {
	Level access.Level
	Stack *Stack
}

// ForAsker is the stack of the access level that applies to a: its
// account runs the question, its rules check it, its catalog is what the
// engines see.
func (st *Stack) ForAsker(a access.Asker) *Stack {
	for _, l := range st.Levels {
		if l.Level.Applies(a) {
			return l.Stack
		}
	}
	return st
}

// AdminWarehouse is a stack that is never replaced (bot demo's) as the
// console's previews use it.
func (st *Stack) AdminWarehouse() adminweb.Warehouse {
	return adminweb.Warehouse{Name: st.Name, Current: func() *adminweb.Stack { return st.Preview }}
}

// Options say how to build a stack over an open warehouse.
type Options struct {
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
	Engine ModelEngine
	// Audit records every question in the ontology's audit log.
	Audit  bool
	Logger *slog.Logger
	Now    func() time.Time

	// Observe counts the conversations (nil: not counted); Gate admits new
	// questions (nil: all).
	Observe dialog.Observer
	Gate    dialog.Gate
}

// ModelEngine builds the main engine of a warehouse from its catalog and
// the warehouse it runs its own checks on; nil means offline only.
type ModelEngine = func(*catalog.Catalog, dialog.Executor) dialog.Engine

// New profiles the warehouse (or reads the cached snapshot), builds
// the catalog and the manager. It does not own db or st.
func New(ctx context.Context, db *warehouse.DB, st *Stores, opts Options) (*Stack, error) {
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
		snap, err = db.CachedSnapshot(ctx, SnapshotPath(opts.DataDir, cmp.Or(opts.SnapshotName, opts.WarehouseName)), 0, opts.RefreshProfile, opts.Profile)
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
			return nil, fmt.Errorf("warehouse %s: access rules: %w: %w", opts.WarehouseName, ErrConfig, err)
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
	deps := dialog.Deps{Engine: engine, Fallback: fallback, Pool: pool, Exec: db, Catalog: cat, Facts: st.Facts, Admin: st.Facts, States: st.Convs, Observe: opts.Observe, Gate: opts.Gate}
	if opts.Audit {
		deps.Questions = st.Facts
	}
	mgr, err := dialog.New(cfg, deps)
	if err != nil {
		return nil, err
	}
	return &Stack{Name: opts.WarehouseName, DB: db, Catalog: cat, Manager: mgr, Access: opts.Access, Snap: raw,
		Preview: &adminweb.Stack{DB: db, Rules: opts.Access, Deps: deps, Dialog: cfg}}, nil
}

// SnapshotPath is where a warehouse's profile snapshot is cached.
func SnapshotPath(dataDir, warehouseName string) string {
	return filepath.Join(dataDir, "snapshots", warehouseName+".json.gz")
}
