package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clarify-bot/clarify/adapters/adminweb"
	"github.com/clarify-bot/clarify/adapters/console"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/ontology"
)

// The admin console's dependencies, checked when the bot is built.
var (
	_ adminweb.Store     = (*ontology.Store)(nil)
	_ adminweb.Warehouse = (*previewWarehouse)(nil)
	_ interface {
		Withholds(table, column string) bool
	} = (*previewWarehouse)(nil)
)

// AdminConfig is the admin console (adapters/adminweb), served by bot
// serve under /admin on the HTTP address.
type AdminConfig struct {
	// Disable turns the console (and /clarify admin) off.
	Disable bool `yaml:"disable"`
	// URL is the bot's public address as admins reach it, e.g.
	// https://clarify.example.com (behind your TLS proxy); sign-in links
	// point there. Default: http://localhost:<port of http.addr>.
	URL string `yaml:"url"`
	// Secret signs the sign-in links (CLARIFY_ADMIN_SECRET, at least 32
	// characters). Default: a random key kept in the server store, or in
	// data_dir/admin.key with files.
	Secret string `yaml:"secret"`
	// LinkTTL is how long a sign-in link works (default 10m); IdleTimeout
	// ends a session without activity (default 30m).
	LinkTTL     time.Duration `yaml:"link_ttl"`
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// ProposalPeople (default 3) people must have chosen a meaning, and
	// nobody another within ProposalWindow (default 30d), for the console
	// to propose it as the team's.
	ProposalPeople int  `yaml:"proposal_people"`
	ProposalWindow *Age `yaml:"proposal_window"`
	// TrustForwarded takes the client address from X-Forwarded-For, for
	// the audit (only behind a proxy that sets it).
	TrustForwarded bool `yaml:"trust_forwarded"`
}

// adminPrefix is where the console is mounted.
const adminPrefix = "/admin"

// Files and namespaces of the console's state.
const (
	adminStateFile = "admin.db"
	adminKeyFile   = "admin.key"
	nsAdmin        = "admin"
)

// validate checks the admin section.
func (a AdminConfig) validate() error {
	var errs []error
	if a.URL != "" {
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("admin: url %q must be an http(s) address like https://clarify.example.com", a.URL))
		} else if u.Path != "" && u.Path != "/" {
			errs = append(errs, fmt.Errorf("admin: url %q must be the bot's address without a path (the console is at %s)", a.URL, adminPrefix))
		}
	}
	if a.Secret != "" && len(a.Secret) < adminweb.MinKeyLen {
		errs = append(errs, fmt.Errorf("admin: secret (CLARIFY_ADMIN_SECRET) must be at least %d characters", adminweb.MinKeyLen))
	}
	if a.LinkTTL < 0 || a.IdleTimeout < 0 || a.ProposalPeople < 0 {
		errs = append(errs, errors.New("admin: link_ttl, idle_timeout and proposal_people must not be negative"))
	}
	return errors.Join(errs...)
}

// baseURL is where sign-in links point: the configured url, else this
// host's HTTP address as seen from the same machine.
func (a AdminConfig) baseURL(listen string) string {
	if a.URL != "" {
		return strings.TrimSuffix(a.URL, "/")
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// adminKey is the link-signing key: the configured secret, else the one
// kept in the server store, else the data directory's key file.
func adminKey(ctx context.Context, a AdminConfig, dataDir string, srv *mysqlkv.Server) ([]byte, error) {
	switch {
	case a.Secret != "":
		return []byte(a.Secret), nil
	case srv != nil:
		return adminweb.KeyIn(ctx, srv.Namespace(nsAdmin))
	}
	return adminweb.KeyFile(filepath.Join(dataDir, adminKeyFile))
}

// adminConsoleOptions are what a console is built from.
type adminConsoleOptions struct {
	Config  AdminConfig
	DataDir string
	Stores  *stores
	Stacks  []*stack
	// Slots are bot serve's warehouses, whose stacks come and go (a
	// warehouse down at start, a profile retaken): previews use the
	// current one.
	Slots []*warehouseSlot
	// BaseURL is the bot's public address.
	BaseURL string
	IsAdmin adminweb.AdminCheck
	Logger  *slog.Logger
	Now     func() time.Time
}

// newAdminConsole builds the console over the stores and warehouses;
// closing releases its state file (nothing with a server store).
func newAdminConsole(ctx context.Context, o adminConsoleOptions) (*adminweb.Server, func() error, error) {
	var srv *mysqlkv.Server
	if o.Stores != nil {
		srv = o.Stores.server
	}
	key, err := adminKey(ctx, o.Config, o.DataDir, srv)
	if err != nil {
		return nil, nil, err
	}
	var state kv.DB
	closeState := func() error { return nil }
	if srv != nil {
		state = srv.Namespace(nsAdmin)
	} else {
		db, err := boltkv.Open(filepath.Join(o.DataDir, adminStateFile), boltkv.Options{Timeout: ontology.DefaultTimeout})
		if err != nil {
			return nil, nil, fmt.Errorf("admin console state %s: %w", filepath.Join(o.DataDir, adminStateFile), err)
		}
		state, closeState = db, db.Close
	}
	whs := map[string]adminweb.Warehouse{}
	for _, st := range o.Stacks {
		whs[st.name] = newPreviewWarehouse(func() *stack { return st })
	}
	for _, sl := range o.Slots {
		whs[sl.name()] = newPreviewWarehouse(sl.current)
	}
	cfg := adminweb.Config{
		Prefix: adminPrefix, BaseURL: o.BaseURL, Key: key, State: state, Store: o.Stores.facts, Warehouses: whs,
		IsAdmin: o.IsAdmin, LinkTTL: o.Config.LinkTTL, IdleTimeout: o.Config.IdleTimeout,
		ProposalPeople: o.Config.ProposalPeople, TrustForwarded: o.Config.TrustForwarded,
		Warnings: func() []string { return enforcementWarnings(o.Slots) },
		Logger:   o.Logger, Now: o.Now,
	}
	if o.Config.ProposalWindow != nil {
		cfg.ProposalWindow = time.Duration(*o.Config.ProposalWindow)
	}
	console, err := adminweb.New(ctx, cfg)
	if err != nil {
		closeState()
		return nil, nil, err
	}
	return console, closeState, nil
}

// adminChecks asks each platform whether a person is an admin now; it is
// filled once the platforms are built (the console is built before them,
// because they carry its links).
type adminChecks struct {
	mu sync.RWMutex
	by map[string]func(ctx context.Context, workspace, user string) (bool, bool)
}

// platformAdmins is a platform that can say who its admins are.
type platformAdmins interface {
	IsAdmin(ctx context.Context, workspace, user string) (admin, known bool)
}

func (c *adminChecks) add(platform string, fn func(ctx context.Context, workspace, user string) (bool, bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]func(context.Context, string, string) (bool, bool){}
	}
	c.by[platform] = fn
}

func (c *adminChecks) check(ctx context.Context, id adminweb.Identity) (bool, bool) {
	c.mu.RLock()
	fn := c.by[id.Platform]
	c.mu.RUnlock()
	if fn == nil {
		return false, false
	}
	return fn(ctx, id.Workspace, id.User)
}

// previewWarehouse is a warehouse as the console uses it: its guarded
// queries, and a manager of its own that answers a question with given
// facts, learning and recording nothing.
type previewWarehouse struct {
	current func() *stack // nil stack: the warehouse has not started
	mu      sync.Mutex
	built   *stack // the stack mgr was built on
	mgr     *dialog.Manager
	err     error
	facts   *previewFacts
	states  *memStates
	seq     atomic.Int64
}

func newPreviewWarehouse(current func() *stack) *previewWarehouse {
	return &previewWarehouse{current: current, facts: &previewFacts{by: map[string][]ontology.Fact{}}, states: &memStates{m: map[string][]byte{}}}
}

// errNotStarted: the warehouse is down since the bot started.
var errNotStarted = errors.New("the warehouse is unreachable right now; previews work once it is back")

func (p *previewWarehouse) Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error) {
	st := p.current()
	if st == nil {
		return nil, errNotStarted
	}
	return st.db.Query(ctx, statement, lim)
}

// Withholds reports whether the warehouse's access rules (its default
// level's) protect table.column: the console's glossary check refuses
// its values.
func (p *previewWarehouse) Withholds(table, column string) bool {
	st := p.current()
	return st != nil && st.access.Withholds(table, column)
}

// manager is the preview manager over the warehouse's current stack,
// built again when the stack was replaced.
func (p *previewWarehouse) manager() (*dialog.Manager, error) {
	st := p.current()
	if st == nil {
		return nil, errNotStarted
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built != st {
		d := st.deps
		d.Facts, d.Admin, d.States = p.facts, nil, p.states
		d.Observe, d.Gate, d.Questions = nil, nil, nil
		p.mgr, p.err = dialog.New(st.dcfg, d)
		p.built = st
	}
	return p.mgr, p.err
}

// previewPlatform is the Who.Platform of preview conversations; they live
// only in this process's memory.
const previewPlatform = "preview"

func (p *previewWarehouse) Preview(ctx context.Context, question string, facts []ontology.Fact) (adminweb.Preview, error) {
	mgr, err := p.manager()
	if err != nil {
		return adminweb.Preview{}, err
	}
	conv := fmt.Sprintf("p%d", p.seq.Add(1))
	who := dialog.Who{Platform: previewPlatform, Workspace: "admin", Channel: "preview", User: conv}
	userKey := previewPlatform + ":admin:" + conv
	p.facts.set(userKey, facts)
	defer p.facts.drop(userKey)
	defer p.states.drop(previewPlatform + ":admin:" + conv)
	replies, err := mgr.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: question})
	if err != nil {
		return adminweb.Preview{}, err
	}
	var out adminweb.Preview
	for _, r := range replies {
		switch {
		case r.Kind == dialog.ReplyAnswer && r.Answer != nil:
			out.SQL = r.Answer.SQL
		case r.Kind == dialog.ReplyClarification && r.Clarification != nil:
			out.Asks = r.Clarification.Prompt
		case out.Detail == "":
			out.Detail = r.Text
		}
	}
	return out, nil
}

// previewFacts gives each preview conversation exactly its facts and
// keeps nothing it is told.
type previewFacts struct {
	mu sync.Mutex
	by map[string][]ontology.Fact
}

var _ dialog.Facts = (*previewFacts)(nil)

func (f *previewFacts) set(user string, facts []ontology.Fact) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.by[user] = facts
}

func (f *previewFacts) drop(user string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.by, user)
}

func (f *previewFacts) Applicable(_ context.Context, owners ontology.Owners, _ string) ([]ontology.Fact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ontology.Fact(nil), f.by[owners.User]...), nil
}

func (f *previewFacts) Learn(_ context.Context, fact ontology.Fact) (ontology.Fact, error) {
	return fact, nil
}
func (f *previewFacts) RecordUse(context.Context, string) error { return nil }
func (f *previewFacts) Confirm(context.Context, string) error   { return nil }
func (f *previewFacts) Reject(context.Context, string, string) (ontology.Fact, error) {
	return ontology.Fact{}, nil
}

// memStates keeps preview conversations in memory for the one turn they
// last.
type memStates struct {
	mu sync.Mutex
	m  map[string][]byte
}

var _ dialog.States = (*memStates)(nil)

func (s *memStates) Save(_ context.Context, id string, state []byte, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = append([]byte(nil), state...)
	return nil
}

func (s *memStates) Load(_ context.Context, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	if !ok {
		return nil, dialog.ErrConversationNotFound
	}
	return b, nil
}

func (s *memStates) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// runAdminLink is `bot admin-link`: a sign-in link to the running bot's
// admin console for a person, from the command line (the operator vouches
// for them; the console still checks the platform's admins where it can).
func runAdminLink(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("bot admin-link", stderr,
		"usage: bot admin-link --user slack:T0123:U0456 [--config FILE | --data DIR | --store DSN] [--url URL]",
		"Prints a one-time sign-in link to the admin console of the bot that uses the same store.",
	)
	sel := storeSelection()
	sel.Flags(fs)
	user := fs.String("user", "", "the admin's key: platform:workspace:user, e.g. slack:T0123:U0456 (required)")
	base := fs.String("url", "", "the bot's public address (default: admin.url of --config, else http://localhost:<port of http.addr>)")
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	id, err := adminweb.ParseUser(*user)
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: --user: %v\n", err)
		return exitUsage
	}
	dir, dsn, err := sel.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return exitUsage
	}
	cfg := Config{DataDir: dir}
	cfg.applyDefaults()
	if sel.ConfigFile() != "" {
		if cfg, err = LoadConfig(sel.ConfigFile(), os.Getenv); err != nil {
			fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
			return exitUsage
		}
	}
	if cfg.Admin.Disable {
		fmt.Fprintln(stderr, "bot admin-link: the admin console is disabled in this configuration (admin.disable)")
		return exitFailure
	}
	var srv *mysqlkv.Server
	if dsn != "" && cfg.Admin.Secret == "" {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		srv, err = mysqlkv.Open(cctx, dsn, mysqlkv.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
			return exitFailure
		}
		defer srv.Close()
	}
	key, err := adminKey(ctx, cfg.Admin, dir, srv)
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return exitFailure
	}
	at := *base
	if at == "" {
		at = cfg.Admin.baseURL(cfg.HTTP.Addr)
	}
	link, err := adminweb.IssueLink(key, strings.TrimSuffix(at, "/")+adminPrefix, cfg.Admin.LinkTTL, time.Now, id, "cli")
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return exitFailure
	}
	ttl := cfg.Admin.LinkTTL
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	fmt.Fprintln(stdout, link)
	fmt.Fprintf(stderr, "Sign-in link for %s (works once, for %s).\n", id.UserKey(), ttl)
	return exitOK
}

// startDemoConsole serves the admin console of `bot demo --admin-web` on
// addr, for the console's person (an admin of the console's workspace),
// and returns what makes their sign-in links.
func startDemoConsole(ctx context.Context, addr, dataDir string, st *stores, stk *stack, user string, logger *slog.Logger) (link func(context.Context) (string, error), stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("admin console: listen on %s: %w", addr, err)
	}
	me := adminweb.Identity{Platform: console.Platform, Workspace: console.Workspace, User: user}
	checks := &adminChecks{}
	checks.add(console.Platform, func(_ context.Context, workspace, u string) (bool, bool) {
		return workspace == console.Workspace && u == user, true
	})
	c, closeState, err := newAdminConsole(ctx, adminConsoleOptions{
		DataDir: dataDir, Stores: st, Stacks: []*stack{stk}, BaseURL: "http://" + ln.Addr().String(),
		IsAdmin: checks.check, Logger: logger,
	})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(c.Prefix()+"/", c.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("admin console server", "err", err)
		}
	}()
	stop = func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
		_ = closeState()
	}
	link = func(context.Context) (string, error) { return c.Link(me, console.Platform) }
	return link, stop, nil
}
