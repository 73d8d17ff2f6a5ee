// Package slot is one of bot serve's warehouses as it runs: it opens the
// warehouse (and each access level's account), loads its glossary, builds
// its stacks, and starts, fails and recovers on its own while its
// monitor (bot/internal/monitor) drives it.
package slot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/config"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/bot/internal/healthz"
	"github.com/clarify-bot/clarify/bot/internal/metrics"
	"github.com/clarify-bot/clarify/bot/internal/monitor"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/router"
)

// Deps is what every slot needs of the running bot.
type Deps struct {
	Stores *stack.Stores
	// Stack is how the warehouses' stacks are built: the data directory,
	// the dialog's config, the engine, the gate, the logger; each slot
	// fills in its warehouse's own parts.
	Stack   stack.Options
	Metrics *metrics.Metrics
	Health  *healthz.Registry
	Timings monitor.Timings
	Logger  *slog.Logger
	// Glossary checks and loads a warehouse's configured glossary once
	// the warehouse is reached, and returns its relationships.
	Glossary func(ctx context.Context, wc config.WarehouseConfig, db *warehouse.DB) ([]warehouse.Join, error)
}

// Slot is one configured warehouse. It starts, fails and
// recovers on its own: a warehouse that cannot be reached at start is
// retried with backoff while the others serve; one that stops answering
// is marked down (its questions get a plain reply) and checked until it
// is back; a profile taken under load is retaken in the background.
type Slot struct {
	d     *Deps
	cfg   config.WarehouseConfig
	joins []warehouse.Join // the glossary's relationships
	// glossaryDone: the configured glossary was checked and loaded (at the
	// first start that reached the warehouse).
	glossaryDone bool

	cur       atomic.Pointer[stack.Stack]
	reachable atomic.Bool

	mu      sync.Mutex // guards db, closeDB and levelDBs
	db      *warehouse.DB
	closeDB func() error
	// levelDBs are the pools of the access levels' own accounts, by
	// level name (the demo's levels share db).
	levelDBs map[string]*warehouse.DB
	// enforced is what the last start found the warehouse's privileges
	// do not enforce (nil before the first start).
	enforced atomic.Pointer[enforce.Report]

	poke    chan struct{} // a query found it unreachable: check now
	refresh chan struct{} // SIGHUP: profile again
	// refreshFirst profiles again at the first start (bot serve --refresh).
	refreshFirst bool
	partialFails int
}

// New is the slot of wc; refresh profiles it again at the first start
// (bot serve --refresh).
func New(d *Deps, wc config.WarehouseConfig, joins []warehouse.Join, refresh bool) *Slot {
	return &Slot{d: d, cfg: wc, joins: joins, refreshFirst: refresh,
		poke: make(chan struct{}, 1), refresh: make(chan struct{}, 1)}
}

// Name is the warehouse's name; Component its name in /healthz.
func (s *Slot) Name() string      { return s.cfg.Name }
func (s *Slot) Component() string { return "warehouse:" + s.cfg.Name }

// Current is the warehouse's stack, nil until it first started.
func (s *Slot) Current() *stack.Stack { return s.cur.Load() }

// Enforced is what the last start found the warehouse's privileges do
// not enforce (nil before the first start).
func (s *Slot) Enforced() *enforce.Report { return s.enforced.Load() }

// Poke asks the loop to check the warehouse now; Refresh to profile it
// again (SIGHUP). Pending is how many such wake-ups the loop has not
// taken yet.
func (s *Slot) Poke()        { wake(s.poke) }
func (s *Slot) Refresh()     { wake(s.refresh) }
func (s *Slot) Pending() int { return len(s.poke) + len(s.refresh) }

// ready reports whether questions can go to the warehouse now.
func (s *Slot) ready() bool { return s.Current() != nil && s.reachable.Load() }

// StartAll tries each warehouse once, all at once, loading its configured
// glossary once it is reached (a glossary that fails its check stops the
// start: the team's meanings would silently vanish or be wrong); one that
// fails otherwise is marked down, for Run to retry while the others
// serve. It returns the configuration errors, which retrying cannot fix.
func StartAll(ctx context.Context, slots []*Slot) error {
	var wg sync.WaitGroup
	errs := make([]error, len(slots))
	start := func(i int) {
		s := slots[i]
		if err := s.Start(ctx); err != nil {
			if errors.Is(err, stack.ErrConfig) {
				errs[i] = err
				return
			}
			s.Down(err, 1, s.d.Timings.RetryMin, true)
		}
	}
	var demos []int
	for i, s := range slots {
		s.d.Health.Set(s.Component(), healthz.Starting, "", 0, 0)
		if s.cfg.Demo {
			demos = append(demos, i)
			continue
		}
		wg.Go(func() { start(i) })
	}
	// Embedded demo servers start one at a time: go-mysql-server's engine
	// initialises package-wide status variables without a lock.
	wg.Go(func() {
		for _, i := range demos {
			start(i)
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// Route is the warehouse as the router sees it.
func (s *Slot) Route() router.Warehouse {
	return router.Warehouse{
		Name: s.cfg.Name, Rules: s.cfg.Access, MaxConnections: s.cfg.MaxConnections,
		Manager: func(a access.Asker) router.Manager {
			if st := s.Current(); st != nil {
				return st.ForAsker(a).Manager
			}
			return nil // not a typed nil: not started
		},
		Ready: s.ready,
	}
}

func (s *Slot) log() *slog.Logger { return s.d.Logger.With("warehouse", s.cfg.Name) }

// wake wakes the slot's loop (non-blocking).
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// open connects once, with the warehouse's account and each access
// level's; later attempts reuse the pools.
func (s *Slot) open(ctx context.Context) (*warehouse.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		if err := s.openDefault(ctx); err != nil {
			return nil, err
		}
	}
	if s.levelDBs == nil {
		s.levelDBs = map[string]*warehouse.DB{}
	}
	for _, acct := range s.cfg.Accounts()[1:] {
		if s.levelDBs[acct.Name] != nil {
			continue
		}
		if s.cfg.Demo {
			s.levelDBs[acct.Name] = s.db
			continue
		}
		wcfg := s.cfg.ForLevel(acct).DBConfig(s.d.Logger.With("level", acct.Name))
		wcfg.MaxOpenConns, wcfg.OnQuery = s.cfg.MaxConnections, s.onQuery()
		db, err := warehouse.Open(ctx, wcfg)
		if err != nil {
			return nil, fmt.Errorf("access level %s: %w", acct.Name, err)
		}
		s.levelDBs[acct.Name] = db
	}
	return s.db, nil
}

// onQuery counts a statement and wakes the loop when the warehouse
// seems down.
func (s *Slot) onQuery() func(warehouse.QueryEvent) {
	hook := s.d.Metrics.WarehouseHook(s.cfg.Name)
	return func(ev warehouse.QueryEvent) {
		if hook != nil {
			hook(ev)
		}
		if warehouse.KindOfError(ev.Err) == warehouse.KindUnavailable {
			wake(s.poke)
		}
	}
}

// openDefault opens the warehouse's own account (or starts the demo).
func (s *Slot) openDefault(ctx context.Context) error {
	wcfg := s.cfg.DBConfig(s.d.Logger)
	wcfg.DSN, wcfg.MaxOpenConns = "", s.cfg.MaxConnections
	wcfg.OnQuery = s.onQuery()
	if s.cfg.Demo {
		dw, err := demo.Start(ctx, s.d.Logger, s.cfg.DemoOrders, wcfg)
		if err != nil {
			return err
		}
		s.db, s.closeDB = dw.DB, dw.Close
		return nil
	}
	wcfg.DSN = s.cfg.DSN
	db, err := warehouse.Open(ctx, wcfg)
	if err != nil {
		return err
	}
	s.db, s.closeDB = db, db.Close
	return nil
}

// levelDB is the pool of an access level's account.
func (s *Slot) levelDB(level string) *warehouse.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.levelDBs[level]
}

// Start opens the warehouse and builds its stack (profiling it, or
// reading the cached snapshot).
func (s *Slot) Start(ctx context.Context) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	if !s.glossaryDone {
		// The glossary is checked against the warehouse under its access
		// rules before its meanings are used: a glossary with a problem
		// stops the start rather than answer with wrong meanings.
		joins, err := s.d.Glossary(ctx, s.cfg, db)
		if err != nil {
			return fmt.Errorf("%w: %w", stack.ErrConfig, err)
		}
		s.joins, s.glossaryDone = joins, true
	}
	st, err := s.build(ctx, db, nil, s.refreshFirst, s.refreshFirst)
	if err != nil {
		return err
	}
	s.refreshFirst = false
	s.cur.Store(st)
	s.reachable.Store(true)
	s.checkEnforcement(ctx)
	s.d.Health.Set(s.Component(), healthz.Up, s.upDetail(st), 0, 0)
	return nil
}

// upDetail notes partial profiles and access rules the warehouse's
// privileges do not enforce on an otherwise healthy warehouse.
func (s *Slot) upDetail(st *stack.Stack) string {
	var notes []string
	if p := st.Snap.PartialTables(); len(p) > 0 {
		notes = append(notes, fmt.Sprintf("partial profile of %s (retried in the background)", strings.Join(p, ", ")))
	}
	if n := s.enforced.Load().HealthNote(); n != "" {
		notes = append(notes, n)
	}
	return strings.Join(notes, "; ")
}

// Down records a failure to start or reach the warehouse.
func (s *Slot) Down(err error, failures int, retry time.Duration, starting bool) {
	trouble := warehouseTrouble(err)
	was := s.reachable.Swap(false)
	if starting {
		s.log().Warn("warehouse unavailable at start; the others serve, retrying", "trouble", trouble, "err", err, "retry_in", retry.Round(time.Second), "attempt", failures)
	} else if was || failures == 1 {
		s.log().Warn("warehouse down; its questions get a plain reply until it is back", "trouble", trouble, "err", err, "retry_in", retry.Round(time.Second))
	} else {
		s.log().Debug("warehouse still down", "err", err, "retry_in", retry.Round(time.Second), "attempt", failures)
	}
	s.d.Health.Set(s.Component(), healthz.Down, trouble+"; retrying", failures, retry)
}

// warehouseTrouble words a failure for /healthz: the kind, never the
// server's message (it names hosts and accounts; the log has it).
func warehouseTrouble(err error) string {
	switch warehouse.KindOfError(err) {
	case warehouse.KindUnavailable:
		return "unreachable"
	case warehouse.KindAccessDenied:
		return "the account was refused (check the dsn's user and grants)"
	case warehouse.KindTimeout:
		return "not answering in time"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "not answering in time"
	}
	return "failing (see the log)"
}

// ping checks the warehouse with SELECT 1 (on the pool, not the policy view).
func (s *Slot) ping(ctx context.Context) error {
	s.mu.Lock()
	db := s.db
	s.mu.Unlock()
	if db == nil {
		return errors.New("not open")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := db.Query(ctx, "SELECT 1", warehouse.Limits{MaxRows: 1, Timeout: 5 * time.Second})
	return err
}

// Run keeps the warehouse going until ctx ends (bot/internal/monitor).
func (s *Slot) Run(ctx context.Context) {
	monitor.Run(ctx, s.d.Timings, slotMonitor{s}, s.poke, s.refresh)
}

// slotMonitor is a warehouse slot as its monitor drives it.
type slotMonitor struct{ s *Slot }

func (w slotMonitor) Running() bool { return w.s.Current() != nil }
func (w slotMonitor) Ready() bool   { return w.s.ready() }
func (w slotMonitor) Partial() bool {
	st := w.s.Current()
	return st != nil && len(st.Snap.PartialTables()) > 0
}
func (w slotMonitor) Start(ctx context.Context) error { return w.s.Start(ctx) }
func (w slotMonitor) Ping(ctx context.Context) error  { return w.s.ping(ctx) }
func (w slotMonitor) Reprofile(ctx context.Context)   { w.s.reprofile(ctx) }
func (w slotMonitor) RetakePartial(ctx context.Context) {
	w.s.retakePartial(ctx)
}

func (w slotMonitor) Down(err error, failures int, retry time.Duration, starting bool) {
	w.s.Down(err, failures, retry, starting)
}

func (w slotMonitor) Fatal(err error, failures int) bool {
	if !errors.Is(err, stack.ErrConfig) {
		return false
	}
	w.s.log().Error("warehouse stopped: its configuration does not match its schema; fix it and restart", "err", err)
	w.s.d.Health.Set(w.s.Component(), healthz.Stopped, "configuration does not match the schema (see the log)", failures, 0)
	return true
}

func (w slotMonitor) StartedAfter(attempts int) {
	w.s.log().Info("warehouse started after all", "attempts", attempts)
}

func (w slotMonitor) Up(failures int) {
	if !w.s.reachable.Swap(true) {
		w.s.log().Info("warehouse is back; questions go to it again", "after_attempts", failures)
	}
	w.s.d.Health.Set(w.s.Component(), healthz.Up, w.s.upDetail(w.s.Current()), 0, 0)
}

// retakePartial profiles the partial tables again with a longer budget
// each time, saves the snapshot and swaps in a stack built on it.
func (s *Slot) retakePartial(ctx context.Context) {
	st := s.Current()
	tables := st.Snap.PartialTables()
	s.partialFails++
	opts := profileOptions(s.cfg)
	budget := opts.TableBudget
	if budget <= 0 {
		budget = 10 * time.Second
	}
	for range min(s.partialFails, 4) {
		budget *= 2
	}
	opts.TableBudget = min(budget, 2*time.Minute)
	snap, err := st.DB.RetakePartial(ctx, st.Snap, opts)
	if err != nil {
		s.log().Warn("cannot profile the partial tables again; retrying later", "tables", strings.Join(tables, ","), "err", err)
		return
	}
	s.swap(ctx, snap, false, "partial profile retaken", "tables", strings.Join(tables, ","), "still_partial", strings.Join(snap.PartialTables(), ","))
}

// reprofile takes a new snapshot (SIGHUP, or a refresh) and swaps it in.
func (s *Slot) reprofile(ctx context.Context) {
	st := s.Current()
	snap, err := st.DB.CachedSnapshot(ctx, stack.SnapshotPath(s.d.Stack.DataDir, s.cfg.Name), 0, true, profileOptions(s.cfg))
	if err != nil {
		s.log().Warn("cannot profile the warehouse again; the previous profile stays", "err", err)
		return
	}
	s.swap(ctx, snap, true, "warehouse profiled again")
}

// swap saves snap and replaces the stack with one built on it (and the
// access levels' on their cached profiles, or new ones with levels);
// turns in progress finish on the old one.
func (s *Slot) swap(ctx context.Context, snap *warehouse.Snapshot, levels bool, msg string, args ...any) {
	if err := warehouse.SaveSnapshot(stack.SnapshotPath(s.d.Stack.DataDir, s.cfg.Name), snap); err != nil {
		s.log().Warn("cannot cache the snapshot", "err", err)
	}
	s.mu.Lock()
	db := s.db
	s.mu.Unlock()
	st, err := s.build(ctx, db, snap, false, levels)
	if err != nil {
		s.log().Warn("cannot rebuild the warehouse's catalog; the previous one stays", "err", err)
		return
	}
	if len(snap.PartialTables()) == 0 {
		s.partialFails = 0
	}
	s.cur.Store(st)
	if s.reachable.Load() {
		s.d.Health.Set(s.Component(), healthz.Up, s.upDetail(st), 0, 0)
	}
	s.log().Info(msg, args...)
}

// Close releases the warehouse's pool (and the demo's server).
func (s *Slot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for name, db := range s.levelDBs {
		if db != s.db {
			errs = append(errs, db.Close())
		}
		delete(s.levelDBs, name)
	}
	if s.closeDB != nil {
		errs = append(errs, s.closeDB())
		s.closeDB = nil
	}
	return errors.Join(errs...)
}

// build builds a warehouse's catalog and manager over db: from snap,
// else the cached snapshot (or a new one with refresh); then each access
// level's over its own account, from its cached snapshot (or a new one
// with refreshLevels).
func (s *Slot) build(ctx context.Context, db *warehouse.DB, snap *warehouse.Snapshot, refresh, refreshLevels bool) (*stack.Stack, error) {
	accts := s.cfg.Accounts()
	st, err := stack.New(ctx, db, s.d.Stores, s.stackOptions(accts[0], snap, refresh))
	if err != nil {
		return nil, err
	}
	for _, acct := range accts[1:] {
		ldb := s.levelDB(acct.Name)
		if ldb == nil {
			return nil, fmt.Errorf("access level %s: not open", acct.Name)
		}
		lst, err := stack.New(ctx, ldb, s.d.Stores, s.stackOptions(acct, nil, refreshLevels))
		if err != nil {
			return nil, fmt.Errorf("access level %s: %w", acct.Name, err)
		}
		st.Levels = append(st.Levels, stack.LevelStack{Level: acct.Level, Stack: lst})
	}
	return st, nil
}

// stackOptions are how one access level's stack of a warehouse is built.
func (s *Slot) stackOptions(acct config.LevelAccount, snap *warehouse.Snapshot, refresh bool) stack.Options {
	o := s.d.Stack
	o.WarehouseName, o.SnapshotName = s.cfg.Name, config.LevelComponent(s.cfg.Name, acct.Name)
	o.Synonyms, o.Access, o.Joins = s.cfg.Synonyms, acct.Rules, s.joins
	o.Snapshot, o.RefreshProfile, o.Profile = snap, refresh, profileOptions(s.cfg)
	o.Observe = s.d.Metrics.DialogObserver(s.cfg.Name)
	return o
}

// profileOptions are how a warehouse is profiled.
func profileOptions(wc config.WarehouseConfig) warehouse.ProfileOptions {
	if wc.Demo {
		return demo.ProfileOptions()
	}
	return warehouse.ProfileOptions{}
}

// checkEnforcement probes every access level's account after a start and
// keeps what the server does not enforce; a warning is logged for each
// such level.
func (s *Slot) checkEnforcement(ctx context.Context) {
	var rep enforce.Report
	for _, acct := range s.cfg.Accounts() {
		db := s.levelDB(acct.Name)
		if acct.Name == access.DefaultLevel {
			s.mu.Lock()
			db = s.db
			s.mu.Unlock()
		}
		if db == nil {
			continue
		}
		e := enforce.Check(ctx, acct.Name, db, acct.Rules)
		log := s.log().With("level", acct.Name)
		switch {
		case e.Err != nil:
			log.Warn("cannot tell whether the warehouse's privileges enforce the access rules; run bot doctor", "err", e.Err)
		case !e.Enforced():
			why := "its account can read what the level hides"
			if s.cfg.Demo {
				why = "the demo warehouse has no accounts; only the checker enforces the rules"
			}
			log.Warn("access rules not enforced by the warehouse's privileges: "+why+"; create the accounts with bot access grants and check with bot doctor",
				"readable", strings.Join(e.Leaks(), "; "))
			rep.Levels = append(rep.Levels, acct.Name)
			rep.Details = append(rep.Details, fmt.Sprintf("level %s: %s", acct.Name, strings.Join(e.Leaks(), "; ")))
		}
		for _, x := range e.Sensitive {
			log.Warn("a view or generated column shows a sensitive column's values plainly; only the checker guards it", "object", x.String())
		}
	}
	s.enforced.Store(&rep)
}

// EnforcementWarnings are the admin console's banners: each warehouse
// whose privileges do not enforce its access rules, with what each level
// can read (admins may see the names).
func EnforcementWarnings(slots []*Slot) []string {
	var out []string
	for _, sl := range slots {
		rep := sl.enforced.Load()
		if rep == nil || len(rep.Levels) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("The warehouse %q does not enforce its access rules with its own privileges (%s): only the bot's checker keeps these values out. Create the accounts with `bot access grants`, then check with `bot doctor`.",
			sl.Name(), strings.Join(rep.Details, "; ")))
	}
	return out
}
