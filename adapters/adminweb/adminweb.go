// Package adminweb is the admin console: web pages, served by the bot,
// where a workspace's admins review what Clarify learned from people's
// answers, make what the team agrees on the team's definition, look at
// the questions asked, roll back changes, and load or download the team
// glossary.
//
// It is an adapter like Slack's or Discord's: people on one side, the
// ontology and the dialog on the other. Pages are server-rendered
// html/template with no script; every change is a form POST with a CSRF
// token, and is audited with who made it and from where.
//
// Sign-in is by a one-time link from chat (/clarify admin) or from the
// command line (bot admin-link): signed with an HMAC key, short-lived,
// single use across replicas. It opens a session (an HttpOnly, SameSite
// cookie holding a random id; the store keeps its hash) that ends after
// an idle timeout or at sign-out. A session sees one workspace: the one
// its admin signed in from.
package adminweb

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/ontology"
)

// Reader is what the console reads of the ontology.
type Reader interface {
	List(ctx context.Context, f ontology.Filter) ([]ontology.Fact, error)
	Get(ctx context.Context, id string) (ontology.Fact, error)
	Applicable(ctx context.Context, owners ontology.Owners, warehouse string) ([]ontology.Fact, error)
}

// Changer is how the console changes facts; every change is audited by
// the store.
type Changer interface {
	Promote(ctx context.Context, id string, to ontology.Scope, owner string, actor ontology.Actor) (ontology.Fact, error)
	Edit(ctx context.Context, id string, target *ontology.Target, meaning string, actor ontology.Actor) (ontology.Fact, error)
	Verify(ctx context.Context, id, owner, by string, actor ontology.Actor) (ontology.Fact, error)
	Learn(ctx context.Context, f ontology.Fact) (ontology.Fact, error)
}

// Historian reads the audit log and rolls changes back.
type Historian interface {
	History(ctx context.Context, f ontology.HistoryFilter) ([]ontology.Change, error)
	ChangeAt(ctx context.Context, seq uint64) (ontology.Change, error)
	LoadChanges(ctx context.Context, seq uint64) ([]ontology.Change, error)
	Revert(ctx context.Context, seqs []uint64, actor ontology.Actor, allowed func(ontology.Fact) bool) (ontology.RevertStats, error)
}

// Loader loads a glossary for some owners only.
type Loader interface {
	ReplaceSourceFor(ctx context.Context, source ontology.Source, owners []string, facts []ontology.Fact, actor ontology.Actor) (ontology.ImportStats, error)
}

// Store is the ontology as the console uses it (an *ontology.Store).
type Store interface {
	Reader
	Changer
	Historian
	Loader
}

// Warehouse is one warehouse the bot answers about.
type Warehouse interface {
	// Query runs one statement through the bot's guarded, read-only path
	// (glossary checks, comparing answers).
	Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error)
	// Preview answers a question with exactly the given facts, as a new
	// conversation would, learning and recording nothing.
	Preview(ctx context.Context, question string, facts []ontology.Fact) (Preview, error)
}

// Preview is what the bot would do with a question.
type Preview struct {
	// SQL is the answer's statement; empty when the bot would ask first
	// or could not answer.
	SQL string
	// Asks is the clarification it would ask instead.
	Asks string
	// Detail is what it would say when it can neither answer nor ask.
	Detail string
}

// AdminCheck says whether a person is an admin now. known is false when
// the platform cannot tell from here (a Discord member's permissions come
// with each interaction): the signed link, issued after the adapter's own
// check, is then the proof.
type AdminCheck func(ctx context.Context, id Identity) (admin, known bool)

// Config configures the console. Store, State, Key and BaseURL are
// required.
type Config struct {
	// Prefix is the path the console is mounted at (default "/admin").
	Prefix string
	// BaseURL is the bot's public address as people reach it
	// ("https://clarify.example.com"); sign-in links point there. An https
	// address makes the session cookie Secure.
	BaseURL string
	// Key signs the sign-in links (at least MinKeyLen bytes). Replicas
	// and bot admin-link must share it.
	Key []byte
	// State keeps sessions, used links and dismissed proposals (a bbolt
	// file, or the server store's namespace that replicas share).
	State kv.DB
	Store Store
	// Warehouses are the warehouses served, by name.
	Warehouses map[string]Warehouse
	// IsAdmin re-checks a person at sign-in and every AdminRecheck; nil
	// trusts the link for the session's life.
	IsAdmin AdminCheck
	// LinkTTL is how long a sign-in link works (default 10 minutes).
	LinkTTL time.Duration
	// IdleTimeout ends a session after this long without a request
	// (default 30 minutes); SessionTTL ends it anyway (default 12 hours).
	IdleTimeout time.Duration
	SessionTTL  time.Duration
	// AdminRecheck is how often a session's admin is checked again
	// (default 10 minutes).
	AdminRecheck time.Duration
	// ProposalPeople is how many people must have chosen a meaning for it
	// to be proposed as the team's (default 3); ProposalWindow is how
	// recently nobody may have chosen another (default 30 days).
	ProposalPeople int
	ProposalWindow time.Duration
	// ImpactQuestions caps the recent questions an impact preview re-runs
	// (default 10); QuestionDays is how far back pages read question
	// records (default 90 days).
	ImpactQuestions int
	QuestionDays    int
	// TrustForwarded reads the client address from X-Forwarded-For (set
	// it only behind a proxy that sets that header).
	TrustForwarded bool
	// Warnings are shown on every page of a signed-in admin, above the
	// page: what the admins must fix now (a warehouse whose privileges
	// do not enforce its access rules). Nil shows none.
	Warnings func() []string
	Logger   *slog.Logger
	Now      func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = "/admin"
	}
	c.Prefix = "/" + strings.Trim(c.Prefix, "/")
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	if c.LinkTTL <= 0 {
		c.LinkTTL = 10 * time.Minute
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 30 * time.Minute
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = 12 * time.Hour
	}
	if c.AdminRecheck <= 0 {
		c.AdminRecheck = 10 * time.Minute
	}
	if c.ProposalPeople <= 0 {
		c.ProposalPeople = 3
	}
	if c.ProposalWindow <= 0 {
		c.ProposalWindow = 30 * 24 * time.Hour
	}
	if c.ImpactQuestions <= 0 {
		c.ImpactQuestions = 10
	}
	if c.QuestionDays <= 0 {
		c.QuestionDays = 90
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Server is the console. It is safe for concurrent use.
type Server struct {
	cfg   Config
	log   *slog.Logger
	links links
	state *state
	pages map[string]*template.Template
	mux   *http.ServeMux
	// origin is scheme://host of BaseURL, which form posts must come from.
	origin string
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New checks the configuration and prepares the state store.
func New(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.Store == nil:
		return nil, errors.New("admin console: no ontology store")
	case cfg.State == nil:
		return nil, errors.New("admin console: no state store")
	case len(cfg.Key) < MinKeyLen:
		return nil, fmt.Errorf("admin console: the signing key must be at least %d bytes", MinKeyLen)
	case cfg.BaseURL == "":
		return nil, errors.New("admin console: no base URL for sign-in links (admin.url)")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("admin console: base URL %q is not an http(s) address", cfg.BaseURL)
	}
	st, err := newState(ctx, cfg.State, cfg.Now)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger.With("adapter", "adminweb"), state: st,
		links:  links{key: cfg.Key, ttl: cfg.LinkTTL, now: cfg.Now},
		origin: u.Scheme + "://" + u.Host,
	}
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Prefix is where the console is mounted.
func (s *Server) Prefix() string { return s.cfg.Prefix }

// Handler serves the console; mount it at Prefix()+"/".
func (s *Server) Handler() http.Handler { return s }

// Link returns a sign-in link for id. The caller vouches that id is an
// admin (an adapter's check, or the operator of bot admin-link); via says
// which ("slack", "discord", "console", "cli").
func (s *Server) Link(id Identity, via string) (string, error) {
	return IssueLink(s.cfg.Key, s.cfg.BaseURL+s.cfg.Prefix, s.cfg.LinkTTL, s.cfg.Now, id, via)
}

// IssueLink signs a sign-in link for id without a running console (bot
// admin-link): base is the console's public address with its prefix.
func IssueLink(key []byte, base string, ttl time.Duration, now func() time.Time, id Identity, via string) (string, error) {
	if len(key) < MinKeyLen {
		return "", fmt.Errorf("sign-in link: the signing key must be at least %d bytes", MinKeyLen)
	}
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	tok, err := links{key: key, ttl: ttl, now: now}.token(id, via)
	if err != nil {
		return "", err
	}
	return linkURL(base, tok), nil
}

// Errors of AdminLink, worded for the person who asked.
var (
	// ErrNotAdmin: only admins get a link.
	ErrNotAdmin = errors.New("only admins can open the admin console")
	// ErrNoWorkspace: asked where no workspace is known (a Discord DM).
	ErrNoWorkspace = errors.New("ask in a channel of your workspace or server, not in a direct message, so that I know whose knowledge to show")
)

// AskForLink says where a sign-in link is asked for: the command differs
// between the chat platforms and the terminal console.
const AskForLink = "with /clarify admin in Slack or Discord, or admin in the terminal console (bot demo --admin-web)"

// AdminLink is what chat adapters call for "/clarify admin": a link for
// the person behind the event, if the adapter found them an admin.
func (s *Server) AdminLink(_ context.Context, who dialog.Who) (string, error) {
	if !who.Admin {
		return "", ErrNotAdmin
	}
	if who.Workspace == "" || who.Platform == "" || who.User == "" {
		return "", ErrNoWorkspace
	}
	return s.Link(Identity{Platform: who.Platform, Workspace: who.Workspace, User: who.User}, who.Platform)
}

// LinkTTL is how long links work, for the chat message that carries one.
func (s *Server) LinkTTL() time.Duration { return s.cfg.LinkTTL }

func (s *Server) parseTemplates() error {
	s.pages = map[string]*template.Template{}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New(base).Funcs(s.funcs()).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return fmt.Errorf("admin console template %s: %w", n, err)
		}
		s.pages[base] = t
	}
	return nil
}

// routes lists every page. Handlers of signed-in pages get the request's
// admin; POSTs are checked for origin and CSRF token first.
func (s *Server) routes() {
	p := s.cfg.Prefix
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET "+p+"/static/", http.StripPrefix(p+"/static/", http.FileServerFS(static)))
	m.HandleFunc("GET "+p+"/login", s.loginPage)
	m.HandleFunc("POST "+p+"/login", s.login)
	m.HandleFunc("GET "+p+"/signed-out", s.signedOut)
	m.HandleFunc("POST "+p+"/logout", s.authed(s.logout))
	m.HandleFunc("GET "+p+"/{$}", s.authed(func(w http.ResponseWriter, r *request) {
		http.Redirect(w, r.r, p+"/phrases", http.StatusSeeOther)
	}))
	m.HandleFunc("GET "+p+"/phrases", s.authed(s.phrasesPage))
	m.HandleFunc("GET "+p+"/phrase", s.authed(s.phrasePage))
	m.HandleFunc("GET "+p+"/proposals", s.authed(s.proposalsPage))
	m.HandleFunc("GET "+p+"/proposals/{key}", s.authed(s.impactPage))
	m.HandleFunc("POST "+p+"/proposals/{key}/accept", s.authed(s.acceptProposal))
	m.HandleFunc("POST "+p+"/proposals/{key}/dismiss", s.authed(s.dismissProposal))
	m.HandleFunc("GET "+p+"/questions", s.authed(s.questionsPage))
	m.HandleFunc("POST "+p+"/questions/{seq}/verify", s.authed(s.verifyQuestion))
	m.HandleFunc("GET "+p+"/history", s.authed(s.historyPage))
	m.HandleFunc("POST "+p+"/history/{seq}/rollback", s.authed(s.rollback))
	m.HandleFunc("POST "+p+"/history/{seq}/rollback-load", s.authed(s.rollbackLoad))
	m.HandleFunc("GET "+p+"/glossary", s.authed(s.glossaryPage))
	m.HandleFunc("POST "+p+"/glossary/check", s.authed(s.glossaryCheck))
	m.HandleFunc("POST "+p+"/glossary/load", s.authed(s.glossaryLoad))
	m.HandleFunc("GET "+p+"/glossary/download", s.authed(s.glossaryDownload))
	m.HandleFunc(p+"/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, nil, http.StatusNotFound, "There is no such page in the admin console.")
	})
	s.mux = m
}

// request is a signed-in request: the admin, their session and a context
// that audits changes as made from here.
type request struct {
	r       *http.Request
	ctx     context.Context
	id      Identity
	sess    session
	actor   ontology.Actor
	from    string
	session string
}

// ServeHTTP adds the security headers every page gets.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No script, no frames, nothing from elsewhere; forms post only here.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// The sign-in link's token must not leave in a Referer; same-origin
	// (not no-referrer) so that form posts still carry their Origin.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// clientAddr is where a request came from, for the audit.
func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.TrustForwarded {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			return strings.TrimSpace(first)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// secure says whether cookies must be Secure: served over TLS, or
// reached at an https address (TLS ends at a proxy).
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.cfg.BaseURL, "https://")
}

func (s *Server) cookieName(r *http.Request) string {
	if s.secure(r) {
		// __Host-: Secure, Path=/, no Domain; no subdomain can set it.
		return "__Host-clarify_admin"
	}
	return "clarify_admin"
}

// sameOrigin refuses form posts from other sites: the Origin header (or,
// without one, the Referer) must be the console's own.
func (s *Server) sameOrigin(r *http.Request) bool {
	own := []string{s.origin}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	own = append(own, scheme+"://"+r.Host)
	if o := r.Header.Get("Origin"); o != "" {
		return slices.Contains(own, o)
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		return err == nil && slices.Contains(own, u.Scheme+"://"+u.Host)
	}
	// Neither header: not a browser's cross-site form (browsers send
	// Origin on every POST); the CSRF token still has to match.
	return true
}

// authed wraps a handler of signed-in pages.
func (s *Server) authed(h func(http.ResponseWriter, *request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rq, err := s.authenticate(r)
		switch {
		case errors.Is(err, errNoSession):
			s.fail(w, r, nil, http.StatusUnauthorized, "You are not signed in. Ask for a sign-in link "+AskForLink+" (admins only).")
			return
		case errors.Is(err, errIdle):
			s.clearCookie(w, r)
			s.fail(w, r, nil, http.StatusUnauthorized, fmt.Sprintf("You were signed out after %s without activity. Ask for a new link %s.", human(s.cfg.IdleTimeout), AskForLink))
			return
		case errors.Is(err, errNotAdmin):
			s.clearCookie(w, r)
			s.fail(w, r, nil, http.StatusForbidden, "You are no longer an admin of this workspace, so the admin console is closed to you.")
			return
		case err != nil:
			s.log.Error("cannot check the session", "err", err)
			s.fail(w, r, nil, http.StatusInternalServerError, "The admin console cannot read its sessions right now; the details are in the bot's log.")
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxUpload+64<<10)
			if !s.sameOrigin(r) {
				s.log.Warn("form post from another site refused", "origin", r.Header.Get("Origin"), "referer", r.Header.Get("Referer"), "user", rq.id.UserKey())
				s.fail(w, r, rq, http.StatusForbidden, "This form was sent from another site, so it was refused. Nothing was changed.")
				return
			}
			if err := r.ParseMultipartForm(maxUpload); err != nil && !errors.Is(err, http.ErrNotMultipart) {
				s.fail(w, r, rq, http.StatusBadRequest, "The form could not be read: "+err.Error())
				return
			}
			if !sameToken(r.PostFormValue("csrf"), rq.sess.CSRF) {
				s.log.Warn("form post without the session's CSRF token refused", "user", rq.id.UserKey(), "path", r.URL.Path)
				s.fail(w, r, rq, http.StatusForbidden, "This form has expired or did not come from this console, so it was refused. Nothing was changed; reload the page and try again.")
				return
			}
		}
		h(w, rq)
	}
}

// maxUpload bounds a posted form (a glossary file).
const maxUpload = 2 << 20

// authenticate finds the request's session and checks it is live.
func (s *Server) authenticate(r *http.Request) (*request, error) {
	c, err := r.Cookie(s.cookieName(r))
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil, errNoSession
	}
	ctx := r.Context()
	ss, found, err := s.state.load(ctx, c.Value)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errNoSession
	}
	now := s.cfg.Now().UTC()
	if now.Sub(ss.Seen) > s.cfg.IdleTimeout || now.Sub(ss.Created) > s.cfg.SessionTTL {
		_ = s.state.close(ctx, c.Value)
		return nil, errIdle
	}
	id, err := ParseUser(ss.User)
	if err != nil {
		return nil, errNoSession
	}
	var checked time.Time
	if s.cfg.IsAdmin != nil && now.Sub(ss.Checked) > s.cfg.AdminRecheck {
		if admin, known := s.cfg.IsAdmin(ctx, id); known && !admin {
			_ = s.state.close(ctx, c.Value)
			return nil, errNotAdmin
		}
		checked = now
	}
	// Recording activity is a write: once a minute is enough for an idle
	// timeout counted in minutes.
	if now.Sub(ss.Seen) > time.Minute || !checked.IsZero() {
		if err := s.state.touch(ctx, c.Value, now, checked); err != nil {
			s.log.Warn("cannot record session activity", "err", err)
		}
	}
	from := s.clientAddr(r)
	return &request{
		r: r, id: id, sess: ss, session: c.Value, from: from,
		actor: ontology.Actor{ID: id.UserKey(), Admin: true},
		ctx:   ontology.WithVia(ctx, "admin console from "+from),
	}, nil
}

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, value string) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName(r), Value: value, Path: "/", HttpOnly: true, Secure: s.secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.cfg.SessionTTL / time.Second),
	})
}

func (s *Server) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(r), Value: "", Path: "/", HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// loginPage shows the link's sign-in button: the link itself changes
// nothing (chat apps fetch links to preview them), the POST signs in.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("t")
	_, id, err := s.links.check(tok)
	if err != nil {
		s.fail(w, r, nil, http.StatusUnauthorized, linkProblem(err, s.cfg.LinkTTL))
		return
	}
	s.render(w, r, http.StatusOK, "login", page{Title: "Sign in", Data: map[string]any{"Token": tok, "Who": id.User, "Workspace": id.WorkspaceKey()}})
}

func linkProblem(err error, ttl time.Duration) string {
	switch {
	case errors.Is(err, errLinkExpired):
		return fmt.Sprintf("This sign-in link has expired (links work for %s). Ask for a new one %s.", human(ttl), AskForLink)
	case errors.Is(err, errLinkUsed):
		return "This sign-in link was already used; each link works once. Ask for a new one " + AskForLink + "."
	case errors.Is(err, errNotAdmin):
		return "You are not an admin of this workspace, so you cannot open the admin console."
	}
	return "This sign-in link is not valid. Ask for a new one " + AskForLink + "."
}

// login spends a link and opens a session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.fail(w, r, nil, http.StatusForbidden, "This form was sent from another site, so it was refused.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, nil, http.StatusBadRequest, "The form could not be read.")
		return
	}
	ctx := r.Context()
	c, id, err := s.links.check(r.PostFormValue("t"))
	if err == nil && s.cfg.IsAdmin != nil {
		if admin, known := s.cfg.IsAdmin(ctx, id); known && !admin {
			err = errNotAdmin
		}
	}
	if err == nil {
		var first bool
		first, err = s.state.spend(ctx, c)
		if err == nil && !first {
			err = errLinkUsed
		}
	}
	if err != nil {
		status := http.StatusUnauthorized
		if errors.Is(err, errNotAdmin) {
			status = http.StatusForbidden
		}
		if !errors.Is(err, errLinkInvalid) && !errors.Is(err, errLinkExpired) && !errors.Is(err, errLinkUsed) && !errors.Is(err, errNotAdmin) {
			s.log.Error("sign-in failed", "err", err)
			s.fail(w, r, nil, http.StatusInternalServerError, "Signing in failed on the bot's side; the details are in its log.")
			return
		}
		s.log.Info("sign-in refused", "user", id.UserKey(), "from", s.clientAddr(r), "why", err)
		s.fail(w, r, nil, status, linkProblem(err, s.cfg.LinkTTL))
		return
	}
	sid, _, err := s.state.open(ctx, id.UserKey(), s.clientAddr(r), s.cfg.SessionTTL)
	if err != nil {
		s.log.Error("cannot open a session", "err", err)
		s.fail(w, r, nil, http.StatusInternalServerError, "Signing in failed on the bot's side; the details are in its log.")
		return
	}
	s.log.Info("admin signed in", "user", id.UserKey(), "from", s.clientAddr(r), "via", c.Via)
	s.setCookie(w, r, sid)
	http.Redirect(w, r, s.cfg.Prefix+"/phrases", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, rq *request) {
	if err := s.state.close(rq.ctx, rq.session); err != nil {
		s.log.Warn("cannot end a session", "err", err)
	}
	s.log.Info("admin signed out", "user", rq.id.UserKey(), "from", rq.from)
	s.clearCookie(w, rq.r)
	http.Redirect(w, rq.r, s.cfg.Prefix+"/signed-out", http.StatusSeeOther)
}

func (s *Server) signedOut(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "message", page{Title: "Signed out", Data: map[string]any{"Text": "You are signed out of the admin console. To come back, ask for a new link " + AskForLink + "."}})
}

// human words a duration for people: "10 minutes", "12 hours".
func human(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		if d == time.Hour {
			return "an hour"
		}
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d >= time.Minute:
		if d == time.Minute {
			return "a minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
