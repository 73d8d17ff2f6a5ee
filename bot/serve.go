package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/clarify-bot/clarify/internal/ratestore"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// platform is a chat adapter that serve runs until shutdown; Run returns
// after in-flight work has drained.
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
	Router *router
	Logger *slog.Logger
	// Metrics gives the adapters their hooks (nil: none).
	Metrics *metrics
	// Stores are shared with the adapters that keep state of their own
	// (Slack's event ids), so that replicas share it too.
	Stores *stores
	// AdminLinks answers /clarify admin (nil: the admin console is off).
	AdminLinks adminLinker
}

// adminLinker issues sign-in links to the admin console (adminweb.go).
type adminLinker interface {
	AdminLink(ctx context.Context, who dialog.Who) (string, error)
	LinkTTL() time.Duration
}

// Main is the running bot: warehouses, stores, managers, adapters and the
// HTTP server. Build it with NewMain, then Run, then Close.
type Main struct {
	cfg       Config
	logger    *slog.Logger
	stores    *stores
	stacks    []*stack
	router    *router
	platforms []platform
	mux       *http.ServeMux
	ln        net.Listener
	closers   []func() error
	health    healthCache
	metrics   *metrics
	limiter   *questionLimiter
	// glossaries are the configured team glossaries, re-read on SIGHUP.
	glossaries []glossaryRef
}

// NewMain opens everything the configuration names. On error, what was
// opened is closed again.
func NewMain(ctx context.Context, cfg Config, logger *slog.Logger) (_ *Main, err error) {
	m := &Main{cfg: cfg, logger: logger, mux: http.NewServeMux(), metrics: newMetrics()}
	m.limiter = newQuestionLimiter(cfg.Limits, time.Now)
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", cfg.DataDir, err)
	}
	m.stores, err = openStoresFor(ctx, cfg.Store.DSN, cfg.DataDir, logger)
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, m.stores.Close)
	if m.stores.server != nil {
		m.limiter.share(ratestore.New(m.stores.server.Namespace(nsRate)), logger)
	}

	engine, note, closeEngine, err := newObservedModelEngine(cfg, m.stores, logger, m.metrics.modelHooks())
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, closeEngine)
	logger.Info(note)

	for _, wc := range cfg.Warehouses {
		wcfg := wc.warehouseConfig(logger)
		wcfg.OnQuery = m.metrics.warehouseHook(wc.Name)
		var db *warehouse.DB
		if wc.Demo {
			dw, err := startDemoWarehouse(ctx, logger, wc.DemoOrders, wcfg)
			if err != nil {
				return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
			}
			m.closers = append(m.closers, dw.Close)
			db = dw.db
		} else {
			db, err = warehouse.Open(ctx, wcfg)
			if err != nil {
				return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
			}
			m.closers = append(m.closers, db.Close)
		}
		joins, err := m.loadConfiguredGlossary(ctx, wc, db)
		if err != nil {
			return nil, err
		}
		st, err := newStack(ctx, db, m.stores, stackOptions{
			WarehouseName: wc.Name, DataDir: cfg.DataDir, Synonyms: wc.Synonyms, Access: wc.Access, Joins: joins,
			Dialog: cfg.Dialog.managerConfig(), Engine: engine, Logger: logger, Audit: true,
			Observe: m.metrics.dialogObserver(wc.Name), Gate: m.limiter.gate(),
		})
		if err != nil {
			return nil, err
		}
		m.stacks = append(m.stacks, st)
	}
	m.router = newRouter(m.stacks)
	m.router.refused = m.metrics.accessRefused
	m.router.shared = m.stores.channelChoices(logger)
	deps := platformDeps{Dialog: m.router, Router: m.router, Logger: logger, Metrics: m.metrics, Stores: m.stores}
	// The address is taken before the platforms are built: the admin
	// console's links, which they carry, point at it.
	m.ln, err = net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
	}
	checks := &adminChecks{}
	if !cfg.Admin.Disable {
		console, closeConsole, err := newAdminConsole(ctx, adminConsoleOptions{
			Config: cfg.Admin, DataDir: cfg.DataDir, Stores: m.stores, Stacks: m.stacks,
			BaseURL: cfg.Admin.baseURL(m.ln.Addr().String()), IsAdmin: checks.check, Logger: logger,
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
		if rp, ok := p.(routedPlatform); ok {
			rp.Routes(m.mux)
		}
		if pa, ok := p.(platformAdmins); ok {
			checks.add(p.Name(), pa.IsAdmin)
		}
		logger.Info("platform ready", "platform", p.Name())
	}
	m.mux.HandleFunc("GET /healthz", m.healthz)
	m.mux.Handle("GET /metrics", m.metrics.handler(logger))
	return m, nil
}

// modelEngine builds the main engine of a warehouse from its catalog and
// the warehouse it runs its own checks on; nil means offline only.
type modelEngine = func(*catalog.Catalog, dialog.Executor) dialog.Engine

// Addr is the HTTP server's address (useful with ":0" in tests).
func (m *Main) Addr() string { return m.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: the HTTP server
// stops accepting, adapters drain their in-flight work.
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
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	// Question records older than the retention go at start, then daily.
	daily := time.NewTicker(24 * time.Hour)
	defer daily.Stop()
	g.Go(func() error {
		pruneQuestions(gctx, m.stores.facts, m.cfg.Audit.retention(), daily.C, time.Now, m.logger)
		return nil
	})
	if len(m.glossaries) > 0 {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		g.Go(func() error {
			defer signal.Stop(hup)
			for {
				select {
				case <-gctx.Done():
					return nil
				case <-hup:
					m.ReloadGlossaries(gctx)
				}
			}
		})
	}
	for _, p := range m.platforms {
		g.Go(func() error {
			if err := p.Run(gctx); err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
			return nil
		})
	}
	m.logger.Info("serving", "http", m.Addr(), "platforms", len(m.platforms), "warehouses", len(m.stacks))
	return g.Wait()
}

// Close releases everything NewMain opened, in reverse order.
func (m *Main) Close() error {
	var errs []error
	if m.ln != nil {
		m.ln.Close()
	}
	for i := len(m.closers) - 1; i >= 0; i-- {
		errs = append(errs, m.closers[i]())
	}
	m.closers = nil
	return errors.Join(errs...)
}

// healthCache keeps warehouse pings for a few seconds so that probes do not
// load the warehouses.
type healthCache struct {
	mu   sync.Mutex
	at   time.Time
	body map[string]string
	ok   bool
}

func (m *Main) healthz(w http.ResponseWriter, r *http.Request) {
	m.health.mu.Lock()
	if time.Since(m.health.at) > 10*time.Second {
		m.health.body, m.health.ok = map[string]string{}, true
		for _, s := range m.stacks {
			ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
			_, err := s.db.Query(ctx, "SELECT 1", warehouse.Limits{MaxRows: 1, Timeout: 3 * time.Second})
			cancel()
			if err != nil {
				m.health.body[s.name] = err.Error()
				m.health.ok = false
			} else {
				m.health.body[s.name] = "ok"
			}
		}
		m.health.at = time.Now()
	}
	body, ok := m.health.body, m.health.ok
	m.health.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	status := "ok"
	if !ok {
		// The bot itself is alive: report, but do not ask to be restarted.
		status = "degraded"
	}
	json.NewEncoder(w).Encode(map[string]any{"status": status, "warehouses": body})
}

// runServe is `bot serve --config FILE`.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bot serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "YAML configuration file (secrets may come from the environment)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot serve --config FILE")
		fmt.Fprintln(stderr, "Runs Slack and/or Discord (as configured) with /healthz on the HTTP address.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	cfg, err := LoadConfig(*path, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "bot serve: %v\n", err)
		return exitUsage
	}
	logger := newLogger(stderr, cfg.LogLevel)
	// The checks reach every platform, warehouse and model: they run beside
	// start-up, not before it, and only log.
	doctorDone := make(chan struct{})
	go func() {
		defer close(doctorDone)
		logDoctor(ctx, cfg, doctorEnv{Timeout: 5 * time.Second}, logger)
	}()
	defer func() { <-doctorDone }()
	m, err := NewMain(ctx, cfg, logger)
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
	return exitOK
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}
