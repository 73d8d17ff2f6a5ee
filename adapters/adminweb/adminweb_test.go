package adminweb

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
)

// clock is a settable clock shared by the store and the console.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeWarehouse answers statements and previews with functions.
type fakeWarehouse struct {
	query   func(statement string) (*warehouse.Result, error)
	preview func(question string, facts []ontology.Fact) (Preview, error)
}

func (f fakeWarehouse) Query(_ context.Context, statement string, _ warehouse.Limits) (*warehouse.Result, error) {
	if f.query == nil {
		return &warehouse.Result{}, nil
	}
	return f.query(statement)
}

func (f fakeWarehouse) Preview(_ context.Context, question string, facts []ontology.Fact) (Preview, error) {
	if f.preview == nil {
		return Preview{Detail: "no preview"}, nil
	}
	return f.preview(question, facts)
}

// env is a console over a fresh store of one kv implementation.
type env struct {
	t       testing.TB
	clk     *clock
	store   *ontology.Store
	server  *Server
	srv     *httptest.Server
	key     []byte
	admins  map[string]bool
	wh      *fakeWarehouse
	stateDB kv.DB
}

var testKey = []byte("0123456789abcdef0123456789abcdef")

// newEnv builds a console on the target's stores; edit may change the
// configuration before the console is made.
func newEnv(t testing.TB, tgt kvtest.Target, edit func(*Config)) *env {
	t.Helper()
	clk := &clock{t: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	store, err := ontology.New(context.Background(), tgt.Open(t), "test", ontology.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, clk: clk, store: store, key: testKey, admins: map[string]bool{"slack:T1:UADMIN": true, "slack:T2:UADMIN": true}, wh: &fakeWarehouse{}, stateDB: tgt.Open(t)}
	e.srv = httptest.NewUnstartedServer(nil)
	cfg := Config{
		BaseURL: "http://" + e.srv.Listener.Addr().String(), Key: e.key, State: e.stateDB, Store: store,
		Warehouses: map[string]Warehouse{"shop": e.wh}, Now: clk.Now,
		IsAdmin: func(_ context.Context, id Identity) (bool, bool) { return e.admins[id.UserKey()], true },
	}
	if edit != nil {
		edit(&cfg)
	}
	e.server, err = New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(e.server.Prefix()+"/", e.server.Handler())
	e.srv.Config.Handler = mux
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return e
}

// user is a browser-like HTTP client: a cookie jar, and the console's own
// Origin on its posts.
type user struct {
	t      testing.TB
	e      *env
	c      *http.Client
	origin string
}

func (e *env) user() *user {
	jar, _ := cookiejar.New(nil)
	return &user{t: e.t, e: e, origin: e.srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (u *user) get(path string) (int, string) {
	u.t.Helper()
	resp, err := u.c.Get(u.e.srv.URL + path)
	if err != nil {
		u.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form with the given Origin ("" sends none).
func (u *user) post(path string, form url.Values, origin string) (int, string, *http.Response) {
	u.t.Helper()
	req, _ := http.NewRequest("POST", u.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := u.c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func (e *env) link(key string) string {
	e.t.Helper()
	id, err := ParseUser(key)
	if err != nil {
		e.t.Fatal(err)
	}
	l, err := e.server.Link(id, "test")
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

func token(link string) string {
	u, _ := url.Parse(link)
	return u.Query().Get("t")
}

// signIn opens a session for key and returns the user and its CSRF token.
func (e *env) signIn(key string) (*user, string) {
	e.t.Helper()
	u := e.user()
	st, body, _ := u.post("/admin/login", url.Values{"t": {token(e.link(key))}}, u.origin)
	if st != http.StatusSeeOther {
		e.t.Fatalf("sign-in of %s: %d\n%s", key, st, body)
	}
	return u, u.csrf()
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (u *user) csrf() string {
	u.t.Helper()
	st, body := u.get("/admin/phrases")
	m := csrfRE.FindStringSubmatch(body)
	if st != http.StatusOK || m == nil {
		u.t.Fatalf("no CSRF token on the phrases page (%d)", st)
	}
	return m[1]
}

func learn(t testing.TB, s *ontology.Store, owner, phrase, column, meaning string) ontology.Fact {
	t.Helper()
	f, err := s.Learn(context.Background(), ontology.Fact{Scope: ontology.ScopeUser, Owner: owner, Warehouse: "shop", Phrase: phrase, Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm(column)}, Meaning: meaning})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func onStores(t *testing.T, test func(t *testing.T, tgt kvtest.Target)) {
	for _, tgt := range kvtest.Targets() {
		t.Run(tgt.Name, func(t *testing.T) { test(t, tgt) })
	}
}

// TestSignInLinks: a link opens one session, once; expired, forged,
// re-signed and tampered links open none; a link page fetched by a chat
// app's previewer spends nothing.
func TestSignInLinks(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		link := e.link("slack:T1:UADMIN")

		// Previewers GET the link: that shows a button and spends nothing.
		u := e.user()
		for range 2 {
			if st, body := u.get(strings.TrimPrefix(link, e.srv.URL)); st != http.StatusOK || !strings.Contains(body, "Continue as UADMIN") {
				t.Fatalf("link page: %d\n%s", st, body)
			}
		}
		st, _, resp := u.post("/admin/login", url.Values{"t": {token(link)}}, u.origin)
		if st != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/phrases" {
			t.Fatalf("sign-in: %d %s", st, resp.Header.Get("Location"))
		}
		c := resp.Cookies()
		if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteLaxMode || c[0].Secure || c[0].Name != "clarify_admin" {
			t.Errorf("session cookie: %+v, want HttpOnly, SameSite=Lax (not Secure over plain http)", c)
		}
		if st, _ := u.get("/admin/phrases"); st != http.StatusOK {
			t.Fatalf("signed in, the phrases page answers %d", st)
		}

		other := e.user()
		cases := []struct {
			name, token, want string
		}{
			{"reused", token(link), "already used"},
			{"garbage", "not-a-token", "not valid"},
			{"another key", func() string {
				l, _ := IssueLink([]byte("another key of thirty-two bytes!"), e.srv.URL+"/admin", time.Minute, e.clk.Now, Identity{Platform: "slack", Workspace: "T1", User: "UADMIN"}, "x")
				return token(l)
			}(), "not valid"},
			{"tampered user", func() string {
				payload, sig, _ := strings.Cut(token(e.link("slack:T1:UADMIN")), ".")
				body, _ := base64.RawURLEncoding.DecodeString(payload)
				body = []byte(strings.Replace(string(body), "slack:T1:UADMIN", "slack:T1:UOTHER", 1))
				return base64.RawURLEncoding.EncodeToString(body) + "." + sig
			}(), "not valid"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				st, body, resp := other.post("/admin/login", url.Values{"t": {tc.token}}, other.origin)
				if st != http.StatusUnauthorized || !strings.Contains(body, tc.want) || len(resp.Cookies()) != 0 {
					t.Errorf("%d, cookies %v, want 401 saying %q:\n%s", st, resp.Cookies(), tc.want, body)
				}
				// Where to ask again, on each platform: /clarify admin in
				// chat, admin in the terminal console.
				if !strings.Contains(body, "/clarify admin in Slack or Discord, or admin in the terminal console") {
					t.Errorf("the refusal does not say where to ask for a link:\n%s", body)
				}
			})
		}
		t.Run("expired", func(t *testing.T) {
			l := e.link("slack:T1:UADMIN")
			e.clk.Advance(11 * time.Minute)
			if st, body := other.get(strings.TrimPrefix(l, e.srv.URL)); st != http.StatusUnauthorized || !strings.Contains(body, "expired") {
				t.Errorf("expired link page: %d", st)
			}
			if st, body, _ := other.post("/admin/login", url.Values{"t": {token(l)}}, other.origin); st != http.StatusUnauthorized || !strings.Contains(body, "expired") {
				t.Errorf("expired link: %d\n%s", st, body)
			}
		})
		if st, _ := other.get("/admin/phrases"); st != http.StatusUnauthorized {
			t.Errorf("after refused links the console answers %d, want 401", st)
		}
	})
}

// TestRefusals: a non-admin's link, a forged cookie, a cross-site post,
// a post without the session's token, an idle session and an admin who
// lost the role are all refused, and change nothing.
func TestRefusals(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		for _, u := range []string{"slack:T1:U1", "slack:T1:U2", "slack:T1:U3"} {
			learn(t, e.store, u, "revenue", "orders.net_amount", "net revenue")
		}

		t.Run("non-admin", func(t *testing.T) {
			u := e.user()
			st, body, resp := u.post("/admin/login", url.Values{"t": {token(e.link("slack:T1:U1"))}}, u.origin)
			if st != http.StatusForbidden || !strings.Contains(body, "not an admin") || len(resp.Cookies()) != 0 {
				t.Errorf("a non-admin's sign-in: %d %v", st, resp.Cookies())
			}
		})
		t.Run("forged cookie", func(t *testing.T) {
			u := e.user()
			b := make([]byte, 32)
			_, _ = rand.Read(b)
			srvURL, _ := url.Parse(e.srv.URL)
			u.c.Jar.SetCookies(srvURL, []*http.Cookie{{Name: "clarify_admin", Value: base64.RawURLEncoding.EncodeToString(b), Path: "/"}})
			if st, body := u.get("/admin/phrases"); st != http.StatusUnauthorized || strings.Contains(body, "revenue") {
				t.Errorf("a forged cookie: %d", st)
			}
		})

		u, csrf := e.signIn("slack:T1:UADMIN")
		props, err := e.server.proposals(context.Background(), mustLoad(t, e, "slack:T1:UADMIN"))
		if err != nil || len(props) != 1 {
			t.Fatalf("proposals: %d, %v", len(props), err)
		}
		dismiss := "/admin/proposals/" + props[0].Key + "/dismiss"
		for _, tc := range []struct {
			name   string
			form   url.Values
			origin string
			want   string
		}{
			{"cross-site post", url.Values{"csrf": {csrf}}, "https://evil.example", "another site"},
			{"opaque origin", url.Values{"csrf": {csrf}}, "null", "another site"},
			{"no token", url.Values{}, u.origin, "did not come from this console"},
			{"wrong token", url.Values{"csrf": {"x" + csrf}}, u.origin, "did not come from this console"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				st, body, _ := u.post(dismiss, tc.form, tc.origin)
				if st != http.StatusForbidden || !strings.Contains(body, tc.want) {
					t.Errorf("%d, want 403 saying %q", st, tc.want)
				}
				if d, _ := e.server.state.dismissals(context.Background()); len(d) != 0 {
					t.Fatalf("a refused post dismissed the proposal")
				}
			})
		}
		// The genuine form works.
		if st, _, _ := u.post(dismiss, url.Values{"csrf": {csrf}}, u.origin); st != http.StatusSeeOther {
			t.Fatalf("the genuine dismissal: %d", st)
		}

		t.Run("idle", func(t *testing.T) {
			idle, _ := e.signIn("slack:T1:UADMIN")
			e.clk.Advance(31 * time.Minute)
			if st, body := idle.get("/admin/phrases"); st != http.StatusUnauthorized || !strings.Contains(body, "without activity") {
				t.Errorf("an idle session: %d", st)
			}
			e.clk.Advance(-31 * time.Minute)
			if st, _ := idle.get("/admin/phrases"); st != http.StatusUnauthorized {
				t.Errorf("an ended session came back: %d", st)
			}
		})
		t.Run("no longer an admin", func(t *testing.T) {
			gone, _ := e.signIn("slack:T1:UADMIN")
			e.admins["slack:T1:UADMIN"] = false
			defer func() { e.admins["slack:T1:UADMIN"] = true }()
			e.clk.Advance(11 * time.Minute) // past the re-check interval, within the idle timeout
			if st, body := gone.get("/admin/phrases"); st != http.StatusForbidden || !strings.Contains(body, "no longer an admin") {
				t.Errorf("a revoked admin: %d", st)
			}
		})
		t.Run("sign out ends the session everywhere", func(t *testing.T) {
			u, csrf := e.signIn("slack:T1:UADMIN")
			cookies := u.c.Jar.Cookies(mustURL(e.srv.URL))
			if st, _, _ := u.post("/admin/logout", url.Values{"csrf": {csrf}}, u.origin); st != http.StatusSeeOther {
				t.Fatalf("sign out: %d", st)
			}
			again := e.user()
			again.c.Jar.SetCookies(mustURL(e.srv.URL), cookies)
			if st, _ := again.get("/admin/phrases"); st != http.StatusUnauthorized {
				t.Errorf("the cookie of a signed-out session still works: %d", st)
			}
		})
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func mustLoad(t *testing.T, e *env, key string) *workspace {
	t.Helper()
	id, _ := ParseUser(key)
	ws, err := e.server.load(context.Background(), id, true)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestSecureCookie: behind an https address the cookie is Secure and
// __Host- prefixed.
func TestSecureCookie(t *testing.T) {
	e := newEnv(t, kvtest.Targets()[0], func(c *Config) { c.BaseURL = "https://clarify.example.com" })
	u := e.user()
	st, _, resp := u.post("/admin/login", url.Values{"t": {token(e.link("slack:T1:UADMIN"))}}, "https://clarify.example.com")
	if st != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", st)
	}
	c := resp.Cookies()
	if len(c) != 1 || c[0].Name != "__Host-clarify_admin" || !c[0].Secure || c[0].Path != "/" {
		t.Errorf("cookie behind https: %+v", c)
	}
	if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'") || !strings.Contains(got, "form-action 'self'") {
		t.Errorf("CSP: %q", got)
	}
}

// TestWorkspaceIsolation: an admin of one workspace sees and changes only
// that workspace's facts, questions and history, even knowing the ids of
// another's — and "slack:T1" is not a prefix of "slack:T12".
func TestWorkspaceIsolation(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		ctx := context.Background()
		learn(t, e.store, "slack:T1:U1", "revenue", "orders.net_amount", "net revenue of T1")
		theirs := learn(t, e.store, "slack:T2:U1", "margin", "orders.margin", "margin of T2")
		trap := learn(t, e.store, "slack:T12:U1", "churn", "customers.churned", "churn of T12")
		for _, u := range []string{"slack:T2:U1", "slack:T2:U2", "slack:T2:U3"} {
			learn(t, e.store, u, "margin", "orders.margin", "margin of T2")
		}
		if _, err := e.store.Edit(ctx, theirs.ID, nil, "margin of T2, edited", ontology.Actor{ID: "slack:T2:UADMIN", Admin: true}); err != nil {
			t.Fatal(err)
		}
		theirEdit, _ := e.store.History(ctx, ontology.HistoryFilter{Limit: 1})
		for _, q := range []ontology.QuestionRecord{
			{Platform: "slack", Workspace: "T1", Channel: "C1", User: "slack:T1:U1", Warehouse: "shop", Question: "revenue of T1 please", Outcome: "answered"},
			{Platform: "slack", Workspace: "T2", Channel: "C1", User: "slack:T2:U1", Warehouse: "shop", Question: "margin of T2 please", Outcome: "confirmed", SQL: []string{"SELECT 2"}},
		} {
			if err := e.store.RecordQuestion(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		theirQ, _ := e.store.History(ctx, ontology.HistoryFilter{Questions: true, Limit: 1})

		u, csrf := e.signIn("slack:T1:UADMIN")
		pages := map[string]string{}
		for _, p := range []string{"/admin/phrases", "/admin/proposals", "/admin/questions", "/admin/history", "/admin/glossary/download?warehouse=shop"} {
			st, body := u.get(p)
			if st != http.StatusOK {
				t.Fatalf("%s: %d", p, st)
			}
			pages[p] = body
		}
		if !strings.Contains(pages["/admin/phrases"], "net revenue of T1") || !strings.Contains(pages["/admin/questions"], "revenue of T1 please") {
			t.Fatalf("the admin's own workspace is missing:\n%s", pages["/admin/phrases"])
		}
		for p, body := range pages {
			// (Needles no random token can hold: a colon, a space.)
			for _, other := range []string{"slack:T2", "T2:", "margin of T2", "slack:T12", "churn of", theirs.ID, trap.ID} {
				if strings.Contains(body, other) {
					t.Errorf("%s shows %q of another workspace", p, other)
				}
			}
		}
		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{fmt.Sprintf("/admin/history/%d/rollback", theirEdit[0].Seq), nil},
			{fmt.Sprintf("/admin/questions/%d/verify", theirQ[0].Seq), nil},
		} {
			form := url.Values{"csrf": {csrf}}
			st, body, _ := u.post(tc.path, form, u.origin)
			if st != http.StatusNotFound || strings.Contains(body, "slack:T2") || strings.Contains(body, "margin") {
				t.Errorf("POST %s: %d, want 404 that names nothing of the other workspace", tc.path, st)
			}
		}
		if got, _ := e.store.Get(ctx, theirs.ID); got.Meaning != "margin of T2, edited" {
			t.Errorf("another workspace's fact was rolled back: %q", got.Meaning)
		}
		if vs, _ := e.store.List(ctx, ontology.Filter{Scope: "workspace", Owner: "slack:T2"}); len(vs) != 0 {
			t.Errorf("another workspace's answer was verified: %+v", vs)
		}
		// Their proposal's key (known somehow) is not found here.
		tws := mustLoad(t, e, "slack:T2:UADMIN")
		props, _ := e.server.proposals(ctx, tws)
		if len(props) != 1 {
			t.Fatalf("T2 should have a proposal: %d", len(props))
		}
		for _, path := range []string{"/admin/proposals/" + props[0].Key} {
			if st, _ := u.get(path); st != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", path, st)
			}
		}
		if st, _, _ := u.post("/admin/proposals/"+props[0].Key+"/accept", url.Values{"csrf": {csrf}}, u.origin); st != http.StatusNotFound {
			t.Errorf("accepting another workspace's proposal: %d", st)
		}
		if st, _ := u.get("/admin/phrase?warehouse=shop&phrase=margin"); st != http.StatusNotFound {
			t.Errorf("another workspace's phrase: %d", st)
		}
	})
}

// TestReplicasShareSignIn: two consoles on one server store (two
// replicas) agree: a link spent on one is refused on the other, a session
// opened on one works on the other, and signing out on one ends it on
// both.
func TestReplicasShareSignIn(t *testing.T) {
	kvtest.SkipWithoutServer(t)
	dsn := kvtest.MustDatabase(t)
	one, two := kvtest.MustServerOn(t, dsn), kvtest.MustServerOn(t, dsn)
	// newEnv opens the ontology first, then the console's state.
	mk := func(srv interface{ Namespace(string) kv.DB }) *env {
		dbs := []kv.DB{srv.Namespace("ontology"), srv.Namespace("admin")}
		return newEnv(t, kvtest.Target{Name: "replica", Open: func(tb testing.TB) kv.DB {
			db := dbs[0]
			dbs = dbs[1:]
			return db
		}}, nil)
	}
	a, b := mk(one), mk(two)
	link := a.link("slack:T1:UADMIN")
	ua := a.user()
	if st, _, _ := ua.post("/admin/login", url.Values{"t": {token(link)}}, ua.origin); st != http.StatusSeeOther {
		t.Fatalf("sign-in on replica a: %d", st)
	}
	ub := b.user()
	if st, body, _ := ub.post("/admin/login", url.Values{"t": {token(link)}}, ub.origin); st != http.StatusUnauthorized || !strings.Contains(body, "already used") {
		t.Fatalf("the same link on replica b: %d", st)
	}
	// The session cookie works on the other replica.
	cookies := ua.c.Jar.Cookies(mustURL(a.srv.URL))
	ub.c.Jar.SetCookies(mustURL(b.srv.URL), cookies)
	if st, _ := ub.get("/admin/phrases"); st != http.StatusOK {
		t.Fatalf("the session on replica b: %d", st)
	}
	csrf := ub.csrf()
	if st, _, _ := ub.post("/admin/logout", url.Values{"csrf": {csrf}}, ub.origin); st != http.StatusSeeOther {
		t.Fatalf("sign out on b: %d", st)
	}
	if st, _ := ua.get("/admin/phrases"); st != http.StatusUnauthorized {
		t.Errorf("signed out on b, replica a still serves the session: %d", st)
	}
}

// TestStateIsVersioned: the console's state carries a schema version.
func TestStateIsVersioned(t *testing.T) {
	db := kvtest.MustBolt(t)
	if _, err := newState(context.Background(), db, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := kv.CheckVersion(context.Background(), db, stateVersion); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	_ = db.View(context.Background(), func(tx kv.Tx) error {
		raw = tx.Bucket([]byte("meta")).Get([]byte("schema"))
		return nil
	})
	if string(raw) != stateVersion {
		t.Errorf("schema %q", raw)
	}
}
