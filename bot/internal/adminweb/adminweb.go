// Package adminweb builds the admin console (adapters/adminweb) over the
// bot's stores and warehouses: its state and key, previews on a
// warehouse's running stack, `bot admin-link`, and the demo's console.
package adminweb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	web "github.com/clarify-bot/clarify/adapters/adminweb"
	"github.com/clarify-bot/clarify/adapters/console"
	"github.com/clarify-bot/clarify/bot/internal/admincmd"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/ontology"
)

// The admin console's dependencies, checked when the bot is built.
var (
	_ web.Store     = (*ontology.Store)(nil)
	_ web.Warehouse = (*previewWarehouse)(nil)
	_ interface {
		Withholds(table, column string) bool
	} = (*previewWarehouse)(nil)
)

// Config is the admin console (adapters/adminweb), served by bot serve
// under /admin on the HTTP address.
type Config struct {
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
	ProposalPeople int           `yaml:"proposal_people"`
	ProposalWindow *admincmd.Age `yaml:"proposal_window"`
	// TrustForwarded takes the client address from X-Forwarded-For, for
	// the audit (only behind a proxy that sets it).
	TrustForwarded bool `yaml:"trust_forwarded"`
}

// Prefix is where the console is mounted.
const Prefix = "/admin"

// Files and namespaces of the console's state.
const (
	StateFile = "admin.db"
	KeyFile   = "admin.key"
	nsAdmin   = "admin"
)

// Validate checks the admin section.
func (a Config) Validate() error {
	var errs []error
	if a.URL != "" {
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("admin: url %q must be an http(s) address like https://clarify.example.com", a.URL))
		} else if u.Path != "" && u.Path != "/" {
			errs = append(errs, fmt.Errorf("admin: url %q must be the bot's address without a path (the console is at %s)", a.URL, Prefix))
		}
	}
	if a.Secret != "" && len(a.Secret) < web.MinKeyLen {
		errs = append(errs, fmt.Errorf("admin: secret (CLARIFY_ADMIN_SECRET) must be at least %d characters", web.MinKeyLen))
	}
	if a.LinkTTL < 0 || a.IdleTimeout < 0 || a.ProposalPeople < 0 {
		errs = append(errs, errors.New("admin: link_ttl, idle_timeout and proposal_people must not be negative"))
	}
	return errors.Join(errs...)
}

// BaseURL is where sign-in links point: the configured url, else this
// host's HTTP address as seen from the same machine.
func (a Config) BaseURL(listen string) string {
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

// signingKey is the link-signing key: the configured secret, else the one kept
// in the server store, else the data directory's key file.
func signingKey(ctx context.Context, a Config, dataDir string, srv *mysqlkv.Server) ([]byte, error) {
	switch {
	case a.Secret != "":
		return []byte(a.Secret), nil
	case srv != nil:
		return web.KeyIn(ctx, srv.Namespace(nsAdmin))
	}
	return web.KeyFile(filepath.Join(dataDir, KeyFile))
}

// Options are what a console is built from.
type Options struct {
	Config  Config
	DataDir string
	// Server is the shared store (nil with files); Facts the ontology.
	Server *mysqlkv.Server
	Facts  *ontology.Store
	// Warehouses are the warehouses previews run on.
	Warehouses []Warehouse
	// BaseURL is the bot's public address.
	BaseURL string
	IsAdmin web.AdminCheck
	// Warnings are shown on the console's pages (access rules the
	// warehouses do not enforce).
	Warnings func() []string
	Logger   *slog.Logger
	Now      func() time.Time
}

// Warehouse is a warehouse previews run on. Its stack comes and goes (a
// warehouse down at start, a profile retaken): Current is the running one,
// nil before it first started, the same pointer until it is replaced.
type Warehouse struct {
	Name    string
	Current func() *Stack
}

// Stack is what a preview takes of a warehouse's running stack: its
// guarded pool and access rules, and what built its manager.
type Stack struct {
	DB     *warehouse.DB
	Rules  access.Rules
	Deps   dialog.Deps
	Dialog dialog.Config
}

// New builds the console over the stores and warehouses; closing releases
// its state file (nothing with a server store).
func New(ctx context.Context, o Options) (*web.Server, func() error, error) {
	srv := o.Server
	key, err := signingKey(ctx, o.Config, o.DataDir, srv)
	if err != nil {
		return nil, nil, err
	}
	var state kv.DB
	closeState := func() error { return nil }
	if srv != nil {
		state = srv.Namespace(nsAdmin)
	} else {
		db, err := boltkv.Open(filepath.Join(o.DataDir, StateFile), boltkv.Options{Timeout: ontology.DefaultTimeout})
		if err != nil {
			return nil, nil, fmt.Errorf("admin console state %s: %w", filepath.Join(o.DataDir, StateFile), err)
		}
		state, closeState = db, db.Close
	}
	whs := map[string]web.Warehouse{}
	for _, w := range o.Warehouses {
		whs[w.Name] = newPreviewWarehouse(w.Current)
	}
	cfg := web.Config{
		Prefix: Prefix, BaseURL: o.BaseURL, Key: key, State: state, Store: o.Facts, Warehouses: whs,
		IsAdmin: o.IsAdmin, LinkTTL: o.Config.LinkTTL, IdleTimeout: o.Config.IdleTimeout,
		ProposalPeople: o.Config.ProposalPeople, TrustForwarded: o.Config.TrustForwarded,
		Warnings: o.Warnings, Logger: o.Logger, Now: o.Now,
	}
	if o.Config.ProposalWindow != nil {
		cfg.ProposalWindow = time.Duration(*o.Config.ProposalWindow)
	}
	console, err := web.New(ctx, cfg)
	if err != nil {
		closeState()
		return nil, nil, err
	}
	return console, closeState, nil
}

// Checks asks each platform whether a person is an admin now; it is
// filled once the platforms are built (the console is built before them,
// because they carry its links).
type Checks struct {
	mu sync.RWMutex
	by map[string]func(ctx context.Context, workspace, user string) (bool, bool)
}

// PlatformAdmins is a platform that can say who its admins are.
type PlatformAdmins interface {
	IsAdmin(ctx context.Context, workspace, user string) (admin, known bool)
}

// Add is how platform says who its admins are.
func (c *Checks) Add(platform string, fn func(ctx context.Context, workspace, user string) (bool, bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]func(context.Context, string, string) (bool, bool){}
	}
	c.by[platform] = fn
}

// Check asks the person's platform; known is false when it cannot say.
func (c *Checks) Check(ctx context.Context, id web.Identity) (bool, bool) {
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
	current func() *Stack // nil: the warehouse has not started
	mu      sync.Mutex
	built   *Stack // the stack mgr was built on
	mgr     *dialog.Manager
	err     error
	facts   *previewFacts
	states  *memStates
	seq     atomic.Int64
}

func newPreviewWarehouse(current func() *Stack) *previewWarehouse {
	return &previewWarehouse{current: current, facts: &previewFacts{by: map[string][]ontology.Fact{}}, states: &memStates{m: map[string][]byte{}}}
}

// errNotStarted: the warehouse is down since the bot started.
var errNotStarted = errors.New("the warehouse is unreachable right now; previews work once it is back")

func (p *previewWarehouse) Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error) {
	st := p.current()
	if st == nil {
		return nil, errNotStarted
	}
	return st.DB.Query(ctx, statement, lim)
}

// Withholds reports whether the warehouse's access rules (its default
// level's) protect table.column: the console's glossary check refuses
// its values.
func (p *previewWarehouse) Withholds(table, column string) bool {
	st := p.current()
	return st != nil && st.Rules.Withholds(table, column)
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
		d := st.Deps
		d.Facts, d.Admin, d.States = p.facts, nil, p.states
		d.Observe, d.Gate, d.Questions = nil, nil, nil
		p.mgr, p.err = dialog.New(st.Dialog, d)
		p.built = st
	}
	return p.mgr, p.err
}

// previewPlatform is the Who.Platform of preview conversations; they live
// only in this process's memory.
const previewPlatform = "preview"

func (p *previewWarehouse) Preview(ctx context.Context, question string, facts []ontology.Fact) (web.Preview, error) {
	mgr, err := p.manager()
	if err != nil {
		return web.Preview{}, err
	}
	conv := fmt.Sprintf("p%d", p.seq.Add(1))
	who := dialog.Who{Platform: previewPlatform, Workspace: "admin", Channel: "preview", User: conv}
	userKey := previewPlatform + ":admin:" + conv
	p.facts.set(userKey, facts)
	defer p.facts.drop(userKey)
	defer p.states.drop(previewPlatform + ":admin:" + conv)
	replies, err := mgr.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: question})
	if err != nil {
		return web.Preview{}, err
	}
	var out web.Preview
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

// LinkDeps are what `bot admin-link` reads the bot's configuration with.
type LinkDeps struct {
	// Store finds the store of --config.
	Store cli.ConfigStore
	// Config reads the admin section and the HTTP address of the bot's
	// configuration file at path, their defaults when path is empty.
	Config func(path string) (admin Config, httpAddr string, err error)
}

// RunLink is `bot admin-link`: a sign-in link to the running bot's admin
// console for a person, from the command line (the operator vouches for
// them; the console still checks the platform's admins where it can).
func RunLink(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, deps LinkDeps) int {
	fs := cli.NewFlagSet("bot admin-link", stderr,
		"usage: bot admin-link --user slack:T0123:U0456 [--config FILE | --data DIR | --store DSN] [--url URL]",
		"Prints a one-time sign-in link to the admin console of the bot that uses the same store.",
	)
	sel := cli.StoreSelection{Config: deps.Store}
	sel.Flags(fs)
	user := fs.String("user", "", "the admin's key: platform:workspace:user, e.g. slack:T0123:U0456 (required)")
	base := fs.String("url", "", "the bot's public address (default: admin.url of --config, else http://localhost:<port of http.addr>)")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	id, err := web.ParseUser(*user)
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: --user: %v\n", err)
		return cli.ExitUsage
	}
	dir, dsn, err := sel.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return cli.ExitUsage
	}
	admin, httpAddr, err := deps.Config(sel.ConfigFile())
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return cli.ExitUsage
	}
	if admin.Disable {
		fmt.Fprintln(stderr, "bot admin-link: the admin console is disabled in this configuration (admin.disable)")
		return cli.ExitFailure
	}
	var srv *mysqlkv.Server
	if dsn != "" && admin.Secret == "" {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		srv, err = mysqlkv.Open(cctx, dsn, mysqlkv.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
			return cli.ExitFailure
		}
		defer srv.Close()
	}
	key, err := signingKey(ctx, admin, dir, srv)
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return cli.ExitFailure
	}
	at := *base
	if at == "" {
		at = admin.BaseURL(httpAddr)
	}
	link, err := web.IssueLink(key, strings.TrimSuffix(at, "/")+Prefix, admin.LinkTTL, time.Now, id, "cli")
	if err != nil {
		fmt.Fprintf(stderr, "bot admin-link: %v\n", err)
		return cli.ExitFailure
	}
	ttl := admin.LinkTTL
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	fmt.Fprintln(stdout, link)
	fmt.Fprintf(stderr, "Sign-in link for %s (works once, for %s).\n", id.UserKey(), ttl)
	return cli.ExitOK
}

// StartDemo serves the admin console of `bot demo --admin-web` on addr,
// for the console's person (an admin of the console's workspace), over
// the demo's facts and its warehouse's stack, and returns what makes
// their sign-in links.
func StartDemo(ctx context.Context, addr, dataDir string, facts *ontology.Store, wh Warehouse, user string, logger *slog.Logger) (link func(context.Context) (string, error), stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("admin console: listen on %s: %w", addr, err)
	}
	me := web.Identity{Platform: console.Platform, Workspace: console.Workspace, User: user}
	checks := &Checks{}
	checks.Add(console.Platform, func(_ context.Context, workspace, u string) (bool, bool) {
		return workspace == console.Workspace && u == user, true
	})
	c, closeState, err := New(ctx, Options{
		DataDir: dataDir, Facts: facts, Warehouses: []Warehouse{wh}, BaseURL: "http://" + ln.Addr().String(),
		IsAdmin: checks.Check, Logger: logger,
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
