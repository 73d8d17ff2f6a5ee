package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/bot/internal/monitor"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/router"
)

// serveTimings are how often warehouses are checked and retried; tests
// shorten them.
type serveTimings struct {
	// CheckEvery is the interval between checks of a warehouse that is up.
	CheckEvery time.Duration
	// Retry spaces the attempts to start or reach a warehouse that is down.
	RetryMin, RetryMax time.Duration
	// PartialMin and PartialMax space the retries of partial profiles.
	PartialMin, PartialMax time.Duration
	// Janitor is how often orphaned placeholders are looked for (0: a
	// third of the store's lease).
	Janitor time.Duration
	// clock paces the warehouses' checks and retries (nil: the real one).
	clock slotClock
}

func defaultTimings() serveTimings {
	return serveTimings{
		CheckEvery: 30 * time.Second,
		RetryMin:   2 * time.Second, RetryMax: 5 * time.Minute,
		PartialMin: time.Minute, PartialMax: time.Hour,
	}
}

// warehouseSlot is one configured warehouse. It starts, fails and
// recovers on its own: a warehouse that cannot be reached at start is
// retried with backoff while the others serve; one that stops answering
// is marked down (its questions get a plain reply) and checked until it
// is back; a profile taken under load is retaken in the background.
type warehouseSlot struct {
	m     *Main
	cfg   WarehouseConfig
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

func newWarehouseSlot(m *Main, wc WarehouseConfig, joins []warehouse.Join, refresh bool) *warehouseSlot {
	return &warehouseSlot{m: m, cfg: wc, joins: joins, refreshFirst: refresh,
		poke: make(chan struct{}, 1), refresh: make(chan struct{}, 1)}
}

func (s *warehouseSlot) name() string      { return s.cfg.Name }
func (s *warehouseSlot) component() string { return "warehouse:" + s.cfg.Name }

// current is the warehouse's stack, nil until it first started.
func (s *warehouseSlot) current() *stack.Stack { return s.cur.Load() }

// ready reports whether questions can go to the warehouse now.
func (s *warehouseSlot) ready() bool { return s.current() != nil && s.reachable.Load() }

// route is the warehouse as the router sees it.
func (s *warehouseSlot) route() router.Warehouse {
	return router.Warehouse{
		Name: s.cfg.Name, Rules: s.cfg.Access, MaxConnections: s.cfg.MaxConnections,
		Manager: func(a access.Asker) router.Manager {
			if st := s.current(); st != nil {
				return st.ForAsker(a).Manager
			}
			return nil // not a typed nil: not started
		},
		Ready: s.ready,
	}
}

func (s *warehouseSlot) log() *slog.Logger { return s.m.logger.With("warehouse", s.cfg.Name) }

// wake wakes the slot's loop (non-blocking).
func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// open connects once, with the warehouse's account and each access
// level's; later attempts reuse the pools.
func (s *warehouseSlot) open(ctx context.Context) (*warehouse.DB, error) {
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
		wcfg := s.cfg.ForLevel(acct).DBConfig(s.m.logger.With("level", acct.Name))
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
func (s *warehouseSlot) onQuery() func(warehouse.QueryEvent) {
	hook := s.m.metrics.WarehouseHook(s.cfg.Name)
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
func (s *warehouseSlot) openDefault(ctx context.Context) error {
	wcfg := s.cfg.DBConfig(s.m.logger)
	wcfg.DSN, wcfg.MaxOpenConns = "", s.cfg.MaxConnections
	wcfg.OnQuery = s.onQuery()
	if s.cfg.Demo {
		dw, err := demo.Start(ctx, s.m.logger, s.cfg.DemoOrders, wcfg)
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
func (s *warehouseSlot) levelDB(level string) *warehouse.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.levelDBs[level]
}

// start opens the warehouse and builds its stack (profiling it, or
// reading the cached snapshot).
func (s *warehouseSlot) start(ctx context.Context) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	if !s.glossaryDone {
		// The glossary is checked against the warehouse under its access
		// rules before its meanings are used: a glossary with a problem
		// stops the start rather than answer with wrong meanings.
		joins, err := s.m.loadConfiguredGlossary(ctx, s.cfg, db)
		if err != nil {
			return fmt.Errorf("%w: %w", stack.ErrConfig, err)
		}
		s.joins, s.glossaryDone = joins, true
	}
	st, err := s.m.buildStack(ctx, s, db, nil, s.refreshFirst, s.refreshFirst)
	if err != nil {
		return err
	}
	s.refreshFirst = false
	s.cur.Store(st)
	s.reachable.Store(true)
	s.checkEnforcement(ctx)
	s.m.health.set(s.component(), stateUp, s.upDetail(st), 0, 0)
	return nil
}

// upDetail notes partial profiles and access rules the warehouse's
// privileges do not enforce on an otherwise healthy warehouse.
func (s *warehouseSlot) upDetail(st *stack.Stack) string {
	var notes []string
	if p := st.Snap.PartialTables(); len(p) > 0 {
		notes = append(notes, fmt.Sprintf("partial profile of %s (retried in the background)", strings.Join(p, ", ")))
	}
	if n := s.enforced.Load().HealthNote(); n != "" {
		notes = append(notes, n)
	}
	return strings.Join(notes, "; ")
}

// down records a failure to start or reach the warehouse.
func (s *warehouseSlot) down(err error, failures int, retry time.Duration, starting bool) {
	trouble := warehouseTrouble(err)
	was := s.reachable.Swap(false)
	if starting {
		s.log().Warn("warehouse unavailable at start; the others serve, retrying", "trouble", trouble, "err", err, "retry_in", retry.Round(time.Second), "attempt", failures)
	} else if was || failures == 1 {
		s.log().Warn("warehouse down; its questions get a plain reply until it is back", "trouble", trouble, "err", err, "retry_in", retry.Round(time.Second))
	} else {
		s.log().Debug("warehouse still down", "err", err, "retry_in", retry.Round(time.Second), "attempt", failures)
	}
	s.m.health.set(s.component(), stateDown, trouble+"; retrying", failures, retry)
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
func (s *warehouseSlot) ping(ctx context.Context) error {
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

// run keeps the warehouse going until ctx ends (bot/internal/monitor).
func (s *warehouseSlot) run(ctx context.Context) {
	t := s.m.timings
	monitor.Run(ctx, monitor.Timings{
		CheckEvery: t.CheckEvery, RetryMin: t.RetryMin, RetryMax: t.RetryMax,
		PartialMin: t.PartialMin, PartialMax: t.PartialMax, Clock: t.clock,
	}, slotMonitor{s}, s.poke, s.refresh)
}

// slotClock is the time the warehouse loop waits on; tests move it by hand.
type slotClock = monitor.Clock

// slotMonitor is a warehouse slot as its monitor drives it.
type slotMonitor struct{ s *warehouseSlot }

func (w slotMonitor) Running() bool { return w.s.current() != nil }
func (w slotMonitor) Ready() bool   { return w.s.ready() }
func (w slotMonitor) Partial() bool {
	st := w.s.current()
	return st != nil && len(st.Snap.PartialTables()) > 0
}
func (w slotMonitor) Start(ctx context.Context) error { return w.s.start(ctx) }
func (w slotMonitor) Ping(ctx context.Context) error  { return w.s.ping(ctx) }
func (w slotMonitor) Reprofile(ctx context.Context)   { w.s.reprofile(ctx) }
func (w slotMonitor) RetakePartial(ctx context.Context) {
	w.s.retakePartial(ctx)
}

func (w slotMonitor) Down(err error, failures int, retry time.Duration, starting bool) {
	w.s.down(err, failures, retry, starting)
}

func (w slotMonitor) Fatal(err error, failures int) bool {
	if !errors.Is(err, stack.ErrConfig) {
		return false
	}
	w.s.log().Error("warehouse stopped: its configuration does not match its schema; fix it and restart", "err", err)
	w.s.m.health.set(w.s.component(), stateStopped, "configuration does not match the schema (see the log)", failures, 0)
	return true
}

func (w slotMonitor) StartedAfter(attempts int) {
	w.s.log().Info("warehouse started after all", "attempts", attempts)
}

func (w slotMonitor) Up(failures int) {
	if !w.s.reachable.Swap(true) {
		w.s.log().Info("warehouse is back; questions go to it again", "after_attempts", failures)
	}
	w.s.m.health.set(w.s.component(), stateUp, w.s.upDetail(w.s.current()), 0, 0)
}

// retakePartial profiles the partial tables again with a longer budget
// each time, saves the snapshot and swaps in a stack built on it.
func (s *warehouseSlot) retakePartial(ctx context.Context) {
	st := s.current()
	tables := st.Snap.PartialTables()
	s.partialFails++
	opts := s.m.profileOptions(s.cfg)
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
func (s *warehouseSlot) reprofile(ctx context.Context) {
	st := s.current()
	snap, err := st.DB.CachedSnapshot(ctx, stack.SnapshotPath(s.m.cfg.DataDir, s.cfg.Name), 0, true, s.m.profileOptions(s.cfg))
	if err != nil {
		s.log().Warn("cannot profile the warehouse again; the previous profile stays", "err", err)
		return
	}
	s.swap(ctx, snap, true, "warehouse profiled again")
}

// swap saves snap and replaces the stack with one built on it (and the
// access levels' on their cached profiles, or new ones with levels);
// turns in progress finish on the old one.
func (s *warehouseSlot) swap(ctx context.Context, snap *warehouse.Snapshot, levels bool, msg string, args ...any) {
	if err := warehouse.SaveSnapshot(stack.SnapshotPath(s.m.cfg.DataDir, s.cfg.Name), snap); err != nil {
		s.log().Warn("cannot cache the snapshot", "err", err)
	}
	s.mu.Lock()
	db := s.db
	s.mu.Unlock()
	st, err := s.m.buildStack(ctx, s, db, snap, false, levels)
	if err != nil {
		s.log().Warn("cannot rebuild the warehouse's catalog; the previous one stays", "err", err)
		return
	}
	if len(snap.PartialTables()) == 0 {
		s.partialFails = 0
	}
	s.cur.Store(st)
	if s.reachable.Load() {
		s.m.health.set(s.component(), stateUp, s.upDetail(st), 0, 0)
	}
	s.log().Info(msg, args...)
}

// close releases the warehouse's pool (and the demo's server).
func (s *warehouseSlot) close() error {
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
