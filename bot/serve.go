package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/config"
	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/bot/internal/metrics"
	"github.com/clarify-bot/clarify/bot/internal/slot"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/ratelimit"
	"github.com/clarify-bot/clarify/dialog/router"
	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/ratestore"
)

// platform is a chat adapter that serve runs until shutdown; Run returns
// after in-flight work has drained. A platform that cannot be reached is
// retried inside Run; Run returns early only when the platform refused
// the bot for good.
type platform interface {
	Name() string
	Run(ctx context.Context) error
}

// routedPlatform also answers on the bot's HTTP server (Slack in HTTP mode).
type routedPlatform interface {
	platform
	Routes(mux *http.ServeMux)
}

// platformDeps is what adapters get from the bot.
type platformDeps struct {
	Dialog interface {
		Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
	}
	Router *router.Router
	Logger *slog.Logger
	// Metrics gives the adapters their hooks (nil: none).
	Metrics *metrics.Metrics
	// Stores are shared with the adapters that keep state of their own
	// (Slack's event ids), so that replicas share it too.
	Stores *stack.Stores
	// Inflight records placeholders for failover (nil: not recorded).
	Inflight *inflight.Store
	// Status makes a platform's status hook (nil: none).
	Status func(name string) func(up bool, detail string)
	// AdminLinks answers /clarify admin (nil: the admin console is off).
	AdminLinks adminLinker
}

// adminLinker issues sign-in links to the admin console (bot/internal/adminweb).
type adminLinker interface {
	AdminLink(ctx context.Context, who dialog.Who) (string, error)
	LinkTTL() time.Duration
}

// Main is the running bot: warehouses, stores, managers, adapters and the
// HTTP server. Build it with NewMain, then Run, then Close.
type Main struct {
	cfg       Config
	logger    *slog.Logger
	stores    *stack.Stores
	slots     []*slot.Slot
	router    *router.Router
	platforms []platform
	mux       *http.ServeMux
	ln        net.Listener
	closers   []func() error
	health    *health
	metrics   *metrics.Metrics
	limiter   *ratelimit.Limiter
	replica   *stack.Replica
	engine    stack.ModelEngine
	timings   serveTimings
	// pprofAddr is where Go's profiles are served ("" when off).
	pprofAddr string
	// glossaries are the configured team glossaries, re-read on SIGHUP.
	glossaries *glossarycmd.Configured
}

// MainOptions change how NewMain starts the bot.
type MainOptions struct {
	// RefreshProfiles profiles every warehouse again instead of using the
	// cached snapshots (bot serve --refresh).
	RefreshProfiles bool
	// Timings shorten the checks and retries (tests); zero: the defaults.
	Timings serveTimings
}

// NewMain opens everything the configuration names. On error, what was
// opened is closed again.
func NewMain(ctx context.Context, cfg Config, logger *slog.Logger) (*Main, error) {
	return NewMainWith(ctx, cfg, logger, MainOptions{})
}

// NewMainWith is NewMain with options. Only what the bot cannot work
// without stops it: the configuration, the store, the HTTP listener. A
// warehouse or a platform that fails to start is reported (log, /healthz)
// and retried while the rest serves.
func NewMainWith(ctx context.Context, cfg Config, logger *slog.Logger, opts MainOptions) (_ *Main, err error) {
	m := &Main{cfg: cfg, logger: logger, mux: http.NewServeMux(), metrics: metrics.New(), timings: defaultTimings()}
	if opts.Timings != (serveTimings{}) {
		m.timings = opts.Timings
	}
	m.health = newHealth(time.Now)
	m.health.Hear = func(name, state string) { m.metrics.ComponentUp(name, state == stateUp) }
	m.limiter = ratelimit.New(ratelimit.Limits(cfg.Limits), time.Now)
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", cfg.DataDir, err)
	}
	m.stores, err = stack.OpenStoresFor(ctx, cfg.Store, cfg.DataDir, logger)
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, m.stores.Close)
	m.glossaries = glossarycmd.NewConfigured(m.stores.Facts, logger)
	m.health.set("store", stateUp, "", 0, 0)
	if m.stores.Server != nil {
		m.limiter.Share(ratestore.New(m.stores.Server.Namespace(stack.NsRate)), logger)
		m.metrics.StorePool(m.stores.Server)
	}
	m.replica, err = stack.OpenReplica(ctx, m.stores, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, m.replica.Close)

	engine, note, closeEngine, err := newObservedModelEngine(cfg, m.stores, logger, m.metrics.ModelHooks(cfg.LLM.Model))
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, closeEngine)
	m.engine = engine
	logger.Info(note)

	if err := m.startWarehouses(ctx, opts.RefreshProfiles); err != nil {
		return nil, err
	}
	routes := make([]router.Warehouse, len(m.slots))
	for i, s := range m.slots {
		routes[i] = s.Route()
	}
	choices, err := m.stores.ChannelChoices(ctx, logger)
	if err != nil {
		return nil, err
	}
	ropts := router.Options{Choices: choices,
		Refused: m.metrics.AccessRefused, RateRefused: m.metrics.RateLimited}
	if m.limiter != nil {
		ropts.Limiter = m.limiter
	}
	m.router = router.New(routes, ropts)
	deps := platformDeps{Dialog: m.router, Router: m.router, Logger: logger, Metrics: m.metrics, Stores: m.stores,
		Inflight: m.replica.Store, Status: m.platformStatus}
	// The address is taken before the platforms are built: the admin
	// console's links, which they carry, point at it.
	m.ln, err = net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
	}
	if cfg.HTTP.PprofAddr != "" {
		addr, stop, err := servePprof(cfg.HTTP.PprofAddr, logger)
		if err != nil {
			return nil, err
		}
		m.pprofAddr = addr
		m.closers = append(m.closers, stop)
	}
	checks := &adminweb.Checks{}
	if !cfg.Admin.Disable {
		console, closeConsole, err := adminweb.New(ctx, adminweb.Options{
			Config: cfg.Admin, DataDir: cfg.DataDir, Server: m.stores.Server, Facts: m.stores.Facts,
			Warehouses: adminWarehouses(m.slots), Warnings: func() []string { return slot.EnforcementWarnings(m.slots) },
			BaseURL: cfg.Admin.BaseURL(m.ln.Addr().String()), IsAdmin: checks.Check, Logger: logger,
		})
		if err != nil {
			return nil, err
		}
		m.closers = append(m.closers, closeConsole)
		m.mux.Handle(console.Prefix()+"/", console.Handler())
		deps.AdminLinks = console
	}
	for _, build := range platformBuilders() {
		p, err := build(ctx, cfg, deps)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		m.platforms = append(m.platforms, p)
		m.health.set(p.Name(), stateStarting, "", 0, 0)
		if rp, ok := p.(routedPlatform); ok {
			rp.Routes(m.mux)
		}
		if q, ok := p.(queueDepther); ok {
			m.metrics.QueueDepth(p.Name(), q.QueueDepth)
		}
		if pa, ok := p.(adminweb.PlatformAdmins); ok {
			checks.Add(p.Name(), pa.IsAdmin)
		}
	}
	m.mux.HandleFunc("GET /healthz", m.health.ServeHTTP)
	m.mux.Handle("GET /metrics", m.metrics.Handler(logger))
	return m, nil
}

// startWarehouses builds a slot for each configured warehouse and tries
// each once (slot.StartAll); one that fails is retried by Run while the
// others serve.
func (m *Main) startWarehouses(ctx context.Context, refresh bool) error {
	deps := &slot.Deps{Stores: m.stores, Metrics: m.metrics, Health: m.health.Registry, Timings: m.timings.monitorTimings(),
		Logger: m.logger, Glossary: m.loadConfiguredGlossary,
		Stack: stack.Options{DataDir: m.cfg.DataDir, Dialog: m.cfg.Dialog.ManagerConfig(), Engine: m.engine, Logger: m.logger,
			Audit: true, Gate: m.limiter.Gate()}}
	for _, wc := range m.cfg.Warehouses {
		m.slots = append(m.slots, slot.New(deps, wc, nil, refresh))
	}
	return slot.StartAll(ctx, m.slots)
}

// Addr is the HTTP server's address (useful with ":0" in tests).
func (m *Main) Addr() string { return m.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: the HTTP server
// stops accepting, adapters drain their in-flight work. Platforms and
// warehouses that fail are reported and retried; Run returns an error
// only when the HTTP server fails.
func (m *Main) Run(ctx context.Context) error {
	srv := &http.Server{Handler: m.mux, ReadHeaderTimeout: 10 * time.Second}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(m.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("http server: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		if ctx.Err() != nil {
			m.logger.Info("shutting down: no new work; draining what is in flight", "cause", context.Cause(ctx))
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	// Question records older than the retention go at start, then daily.
	daily := time.NewTicker(24 * time.Hour)
	defer daily.Stop()
	g.Go(func() error {
		pruneQuestions(gctx, m.stores.Facts, m.cfg.Audit.Retention(), daily.C, time.Now, m.logger)
		return nil
	})
	for _, s := range m.slots {
		g.Go(func() error { s.Run(gctx); return nil })
	}
	every := m.timings.Janitor
	if every <= 0 {
		every = max(m.cfg.Store.LeaseTTL/3, time.Second)
	}
	g.Go(func() error { m.replica.Janitor(gctx, every, m.takeover()); return nil })
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	g.Go(func() error {
		defer signal.Stop(hup)
		for {
			select {
			case <-gctx.Done():
				return nil
			case <-hup:
				m.Reload(gctx)
			}
		}
	})
	for _, p := range m.platforms {
		g.Go(func() error { m.runPlatform(gctx, p); return nil })
	}
	m.logger.Info("serving", "http", m.Addr(), "platforms", len(m.platforms), "warehouses", len(m.slots), "replica", m.replica.ID)
	return g.Wait()
}

// Reload is SIGHUP: the glossaries are read again and every warehouse is
// profiled again in the background (each keeps serving on its previous
// profile until the new one is ready).
func (m *Main) Reload(ctx context.Context) {
	m.logger.Info("SIGHUP: reloading the glossaries and profiling the warehouses again")
	if m.glossaries.Any() {
		m.ReloadGlossaries(ctx)
	}
	for _, s := range m.slots {
		s.Refresh()
	}
}

// Close releases everything NewMain opened, in reverse order.
func (m *Main) Close() error {
	var errs []error
	if m.ln != nil {
		m.ln.Close()
	}
	for _, s := range m.slots {
		errs = append(errs, s.Close())
	}
	for i := len(m.closers) - 1; i >= 0; i-- {
		errs = append(errs, m.closers[i]())
	}
	m.closers = nil
	return errors.Join(errs...)
}

// runServe is `bot serve --config FILE`.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("bot serve", stderr,
		"usage: bot serve --config FILE [--refresh] [--pprof 127.0.0.1:6060]",
		"Runs Slack and/or Discord (as configured) with /healthz on the HTTP address.",
	)
	path := fs.String("config", "", "YAML configuration file (secrets may come from the environment)")
	refresh := fs.Bool("refresh", false, "profile every warehouse again instead of using the cached snapshots (SIGHUP does the same while running)")
	pprofAddr := fs.String("pprof", "", "serve Go's profiles (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060 (overrides http.pprof_addr)")
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	if err := config.CheckPprofAddr(*pprofAddr); err != nil {
		fmt.Fprintf(stderr, "bot serve: --pprof: %v\n", err)
		return exitUsage
	}
	cfg, err := LoadConfig(*path, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "bot serve: %v\n", err)
		return exitUsage
	}
	if *pprofAddr != "" {
		cfg.HTTP.PprofAddr = *pprofAddr
	}
	logger := newLogger(stderr, cfg.LogLevel)
	defer applyMemoryLimit(cfg, logger)()
	// The checks reach every platform, warehouse and model: they run beside
	// start-up, not before it, and only log.
	doctorDone := make(chan struct{})
	go func() {
		defer close(doctorDone)
		logDoctor(ctx, cfg, doctorEnv{Timeout: 5 * time.Second}, logger)
	}()
	defer func() { <-doctorDone }()
	m, err := NewMainWith(ctx, cfg, logger, MainOptions{RefreshProfiles: *refresh})
	if err != nil {
		fmt.Fprintf(stderr, "bot serve: %v\n", err)
		return exitFailure
	}
	defer m.Close()
	if len(m.platforms) == 0 {
		logger.Warn("no chat platform configured (set SLACK_BOT_TOKEN/SLACK_APP_TOKEN or DISCORD_BOT_TOKEN); serving /healthz only")
	}
	if err := m.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "bot serve: %v\n", err)
		return exitFailure
	}
	logger.Info("stopped")
	return exitOK
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
