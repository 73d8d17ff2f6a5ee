package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clarify-bot/clarify/adapters/adminweb"
	"github.com/clarify-bot/clarify/adapters/console"
	botadmin "github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// go test ./bot -run TestAdminConsoleInBrowser -args -screenshots
// regenerates docs/admin-*.png from the same run that checks the pages.
var writeScreenshots = flag.Bool("screenshots", false, "write the admin console's screenshots to docs/ (TestAdminConsoleInBrowser)")

// setClock is a clock the test moves: the scenario's people answer weeks
// apart, then the admin works "now".
type setClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *setClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *setClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// consoleEnv is the demo warehouse with its glossary, a dialog manager that
// audits, and the admin console served over HTTP, as `bot demo
// --admin-web` builds them (with a clock the test sets).
type consoleEnv struct {
	t       *testing.T
	clk     *setClock
	st      *stack.Stack
	facts   *ontology.Store
	console *adminweb.Server
	base    string
	admins  map[string]bool
	seq     int
}

func newConsoleEnv(t *testing.T, orders int) *consoleEnv {
	t.Helper()
	testwh.Quiet()
	ctx := context.Background()
	dir := t.TempDir()
	logger := slog.New(slog.DiscardHandler)
	clk := &setClock{t: time.Now().UTC()}
	dw, err := demo.Start(ctx, logger, orders, warehouse.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dw.Close() })
	facts, err := ontologyfile.Open(filepath.Join(dir, ontologyFile), ontology.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	convs, err := convstore.Open(filepath.Join(dir, conversationsFile), convstore.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	st := &stack.Stores{Facts: facts, Convs: convs}
	t.Cleanup(func() { st.Close() })
	joins, err := glossarycmd.DemoFacts(ctx, facts, "demo", true)
	if err != nil {
		t.Fatal(err)
	}
	stk, err := stack.New(ctx, dw.DB, st, stack.Options{WarehouseName: "demo", DataDir: dir, Profile: demo.ProfileOptions(), Joins: joins, Logger: logger, Audit: true, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	e := &consoleEnv{t: t, clk: clk, st: stk, facts: facts, admins: map[string]bool{"ana": true}}
	srv := httptest.NewUnstartedServer(nil)
	e.base = "http://" + srv.Listener.Addr().String()
	checks := &botadmin.Checks{}
	checks.Add(console.Platform, func(_ context.Context, workspace, user string) (bool, bool) {
		return workspace == console.Workspace && e.admins[user], true
	})
	c, closeState, err := botadmin.New(ctx, botadmin.Options{
		DataDir: dir, Facts: st.Facts, Warehouses: []botadmin.Warehouse{stk.AdminWarehouse()}, BaseURL: e.base, IsAdmin: checks.Check, Logger: logger, Now: clk.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeState() })
	e.console = c
	mux := http.NewServeMux()
	mux.Handle(c.Prefix()+"/", c.Handler())
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return e
}

func (e *consoleEnv) who(user string) dialog.Who {
	return dialog.Who{Platform: console.Platform, Workspace: console.Workspace, Channel: console.Channel, User: user, Admin: e.admins[user]}
}

// ask puts a question to the bot as user and answers each clarification
// with an option whose label holds one of picks (each used once).
func (e *consoleEnv) ask(user, question string, picks ...string) (string, dialog.Reply) {
	e.t.Helper()
	e.seq++
	conv := fmt.Sprintf("console-test-%d", e.seq)
	r := e.send(dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: e.who(user), Text: question})
	for r.Kind == dialog.ReplyClarification {
		if len(picks) == 0 {
			e.t.Fatalf("%s: unexpected question %q", question, r.Text)
		}
		// The picks may come in any order: whichever matches an option.
		pick, used := -1, -1
		for j, p := range picks {
			for i, o := range r.Clarification.Options {
				if pick < 0 && strings.Contains(strings.ToLower(o.Label), strings.ToLower(p)) {
					pick, used = i, j
				}
			}
		}
		if pick < 0 {
			e.t.Fatalf("%s: none of %q is an option of %s", question, picks, r.Text)
		}
		picks = append(picks[:used:used], picks[used+1:]...)
		r = e.send(dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: e.who(user), Target: r.Clarification.ID, Option: pick})
	}
	if r.Kind != dialog.ReplyAnswer {
		e.t.Fatalf("%s: want an answer, got %s", question, r.Text)
	}
	return conv, r
}

func (e *consoleEnv) send(ev dialog.Event) dialog.Reply {
	e.t.Helper()
	replies, err := e.st.Manager.Handle(context.Background(), ev)
	if err != nil || len(replies) == 0 {
		e.t.Fatalf("handle %+v: %v", ev, err)
	}
	return replies[len(replies)-1]
}

// seed plays the scenario of the pages: dan chose gross revenue six weeks
// ago; ana, ben and cho chose net revenue this week (ana said the answer
// was right); eli chose net revenue too but then said "not what I meant".
func (e *consoleEnv) seed() {
	now := e.clk.Now()
	e.clk.Set(now.Add(-40 * 24 * time.Hour))
	e.ask("dan", "what was revenue in 2024?", "gross revenue", "left the warehouse")
	e.clk.Set(now.Add(-3 * 24 * time.Hour))
	for _, u := range []string{"ana", "ben", "cho"} {
		conv, r := e.ask(u, "what was revenue in 2024?", "net revenue", "placed")
		if u == "ana" {
			e.send(dialog.Event{Kind: dialog.EventCorrect, Conversation: conv, Who: e.who(u), Target: r.Answer.ID})
		}
	}
	e.clk.Set(now.Add(-2 * 24 * time.Hour))
	e.ask("eli", "what was revenue in 2024?", "net revenue", "placed")
	conv, r := e.ask("eli", "what was revenue in 2025?")
	e.send(dialog.Event{Kind: dialog.EventWrong, Conversation: conv, Who: e.who("eli"), Target: r.Answer.ID})
	// gus says "not what I meant" about a list and takes another reading.
	conv, r = e.ask("gus", "list customers in Ohio", "state of the customer", "name")
	r = e.send(dialog.Event{Kind: dialog.EventWrong, Conversation: conv, Who: e.who("gus"), Target: r.Answer.ID})
	for r.Kind == dialog.ReplyClarification {
		r = e.send(dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: e.who("gus"), Target: r.Clarification.ID, Option: len(r.Clarification.Options) - 1})
	}
	e.clk.Set(now)
}

// chromium finds a headless-capable Chrome; "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser drives one headless Chromium tab.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary on PATH (chromium, chromium-browser, google-chrome): install Debian's chromium (apt-get install -y chromium) to run the admin console's browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	// The allocator makes its own profile directory and removes it once
	// the browser has exited; Cancel closes the browser and waits for it,
	// so nothing is still writing when the test ends.
	t.Cleanup(func() {
		if err := chromedp.Cancel(ctx); err != nil {
			t.Logf("closing the browser: %v", err)
		}
		cancelTab()
		cancelAlloc()
	})
	// Start the browser now, so that its start-up is not counted in a step.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return &browser{t: t, ctx: ctx, base: base}
}

// stepTimeout bounds one browser step (a page load, a form post).
const stepTimeout = 60 * time.Second

func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// load runs actions that navigate (a link, a form) and returns the new
// page's HTTP status.
func (b *browser) load(what string, actions ...chromedp.Action) int {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, actions...)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return int(resp.Status)
}

func (b *browser) open(path string) int {
	b.t.Helper()
	return b.load("open "+path, chromedp.Navigate(b.base+path))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	var s string
	b.run("read "+sel, chromedp.Text(sel, &s, chromedp.ByQuery))
	return s
}

func (b *browser) mustSee(what string, wants ...string) string {
	b.t.Helper()
	body := b.text("main")
	for _, w := range wants {
		if !strings.Contains(body, w) {
			b.t.Fatalf("%s: the page does not say %q:\n%s", what, w, body)
		}
	}
	return body
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	var n int
	b.run("count "+sel, chromedp.Evaluate(fmt.Sprintf("document.querySelectorAll(%q).length", sel), &n))
	return n
}

// shot takes a full-page screenshot (a phone's: the first screen); with
// -screenshots it is written to docs/admin-<name>.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	var png []byte
	capture := chromedp.FullScreenshot(&png, 100)
	if strings.HasSuffix(name, "-phone") {
		capture = chromedp.CaptureScreenshot(&png)
	}
	b.run("screenshot "+name, capture)
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		b.t.Fatalf("screenshot %s is not a PNG", name)
	}
	if *writeScreenshots {
		path := filepath.Join("..", "docs", "admin-"+name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
		b.t.Logf("wrote %s (%d KiB)", path, len(png)/1024)
	}
}

var linkRE = regexp.MustCompile(`http://\S+/admin/login\?t=\S+`)

// TestAdminConsoleInBrowser walks the admin console in headless Chromium
// over the demo warehouse: sign-in by the link the chat gives, a
// non-admin refused, a forged form refused, search, accepting a proposal
// after its impact, a roll back, a glossary with an error, sign-out.
func TestAdminConsoleInBrowser(t *testing.T) {
	e := newConsoleEnv(t, 3000)
	e.seed()
	b := newBrowser(t, e.base)

	// A non-admin's link (as bot admin-link would print it) is refused at
	// sign-in, and opens no session.
	zoe, err := e.console.Link(adminweb.Identity{Platform: "console", Workspace: "local", User: "zoe"}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	if st := b.load("zoe's link", chromedp.Navigate(zoe)); st != http.StatusOK {
		t.Fatalf("zoe's link page: %d", st)
	}
	if st := b.load("zoe continues", chromedp.Click("button.primary", chromedp.ByQuery)); st != http.StatusForbidden {
		t.Fatalf("a non-admin's sign-in: status %d, want 403", st)
	}
	b.mustSee("non-admin", "You are not an admin of this workspace")
	if st := b.open("/admin/phrases"); st != http.StatusUnauthorized {
		t.Fatalf("after a refused sign-in the console answers %d, want 401", st)
	}

	// Sign-in by the link the chat gives ana ('admin' in the demo's console).
	var out bytes.Buffer
	chat := console.New(e.st.Manager, strings.NewReader("admin\n"), &out, console.Options{
		User: "ana", Admin: true, AdminLink: func(context.Context) (string, error) {
			return e.console.Link(adminweb.Identity{Platform: "console", Workspace: "local", User: "ana"}, "console")
		},
	})
	if err := chat.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	link := linkRE.FindString(out.String())
	if link == "" {
		t.Fatalf("the chat gave no link:\n%s", out.String())
	}
	b.load("ana's link", chromedp.Navigate(link))
	b.mustSee("sign-in page", "Continue as ana")
	b.run("focus", chromedp.WaitVisible("button.primary", chromedp.ByQuery))
	b.shot("login")
	if st := b.load("ana continues", chromedp.Click("button.primary", chromedp.ByQuery)); st != http.StatusOK {
		t.Fatalf("sign-in: %d", st)
	}
	b.shot("phrases")
	// The keyboard reaches the page first through the skip link.
	var focused string
	b.run("tab", chromedp.KeyEvent(kb.Tab), chromedp.Evaluate("document.activeElement.textContent", &focused))
	if focused != "Skip to content" {
		t.Errorf("the first Tab focuses %q, want the skip link", focused)
	}
	body := b.mustSee("phrases", "revenue", "Net revenue after discounts", "Gross revenue", "conflict", "turnover")
	if !strings.Contains(body, "3 people") {
		t.Errorf("the phrases page should count 3 people for net revenue:\n%s", body)
	}
	// The link worked once.
	b.load("the link again", chromedp.Navigate(link))
	if st := b.load("continue again", chromedp.Click("button.primary", chromedp.ByQuery)); st != http.StatusUnauthorized {
		t.Errorf("a used link: %d, want 401", st)
	}
	b.mustSee("used link", "already used")

	// Search, from the keyboard.
	b.open("/admin/phrases")
	b.load("search", chromedp.SendKeys(`input[name="q"]`, "turnover"+kb.Enter, chromedp.ByQuery))
	if n := b.count("table.phrases tbody tr"); n != 1 {
		t.Errorf("searching 'turnover' lists %d phrases, want 1", n)
	}
	b.mustSee("search", "turnover", "Net revenue after discounts, excluding shipping")

	// The phrase page: team, channels and people side by side.
	b.open("/admin/phrase?warehouse=demo&phrase=revenue")
	b.mustSee("phrase page", "Conflict in #console", "held by ana, ben, cho", "given up by eli", "held by dan", "Proposal:", "1 overruled")
	b.shot("phrase")

	// A forged form (a token that is not the session's) changes nothing.
	b.open("/admin/proposals")
	b.mustSee("proposals", "“revenue”", "Chosen by 3 people: ana, ben, cho")
	b.shot("proposals")
	proposals := b.count("article.proposal")
	b.run("forge", chromedp.SetValue(`article.proposal form input[name="csrf"]`, "forged-token", chromedp.ByQuery))
	if st := b.load("forged dismiss", chromedp.Click(`article.proposal form button`, chromedp.ByQuery)); st != http.StatusForbidden {
		t.Fatalf("a forged form: %d, want 403", st)
	}
	b.mustSee("forged form", "did not come from this console", "Nothing was changed")
	b.open("/admin/proposals")
	if n := b.count("article.proposal"); n != proposals {
		t.Fatalf("the forged dismissal changed the proposals: %d → %d", proposals, n)
	}

	// Accept a proposal after seeing its impact.
	var href string
	b.run("impact link", chromedp.AttributeValue(`//article[contains(., "“revenue”")]//a[contains(@class, "button")]`, "href", &href, nil, chromedp.BySearch))
	if st := b.load("impact", chromedp.Click(`//article[contains(., "“revenue”")]//a[contains(@class, "button")]`, chromedp.BySearch)); st != http.StatusOK {
		t.Fatalf("impact page: %d", st)
	}
	body = b.mustSee("impact", "Impact on recent questions", "answer changes", "keeps their own meaning", "no longer asks")
	if !strings.Contains(body, "dan") {
		t.Errorf("the impact should show dan's gross-revenue answer changing:\n%s", body)
	}
	b.shot("impact")
	b.run("edit wording", chromedp.SetValue("#meaning", "Net revenue after discounts (the team's revenue)", chromedp.ByQuery))
	if st := b.load("accept", chromedp.Click(`form[action$="/accept"] button.primary`, chromedp.ByQuery)); st != http.StatusOK {
		t.Fatalf("accept: %d", st)
	}
	b.mustSee("accepted", "is now the team's definition", "Net revenue after discounts (the team's revenue)")
	team, err := e.facts.List(context.Background(), ontology.Filter{Scope: "workspace", Owner: "console:local", Phrase: "revenue"})
	if err != nil || len(team) != 1 || team[0].Meaning != "Net revenue after discounts (the team's revenue)" {
		t.Fatalf("the team's revenue after accepting: %+v %v", team, err)
	}
	// A newcomer is no longer asked what revenue means.
	_, r := e.ask("fay", "what was revenue in 2023?", "placed")
	if !strings.Contains(strings.ToLower(r.Text), "net revenue after discounts (the team's revenue)") {
		t.Errorf("a newcomer's answer does not use the team's revenue:\n%s", r.Text)
	}

	// Questions: every record, its steps a click away; then a filter, and
	// ana's confirmed answer made a verified query.
	b.open("/admin/questions")
	if n := b.count("li.q"); n < 8 {
		t.Fatalf("questions: %d records, want the scenario's 8 or more", n)
	}
	b.mustSee("questions", "dan in #console", "gus in #console")
	if b.count(`.badge.out-answered`) < 7 || b.count(`.badge.out-asked`) < 5 || b.count(`.badge.out-confirmed`) != 1 || b.count(`.badge[class~="out-not"]`) != 1 {
		t.Errorf("outcome badges: %d answered, %d asked, %d confirmed, %d not what I meant", b.count(`.badge.out-answered`), b.count(`.badge.out-asked`), b.count(`.badge.out-confirmed`), b.count(`.badge[class~="out-not"]`))
	}
	var opened bool
	b.run("open details", chromedp.Evaluate(`(() => { const d = document.querySelectorAll('li.q details'); d[d.length-1].open = true; return true })()`, &opened))
	b.shot("questions")
	b.open("/admin/questions?outcome=confirmed")
	if n := b.count("li.q"); n != 1 {
		t.Fatalf("confirmed questions: %d, want ana's one", n)
	}
	if st := b.load("verify", chromedp.Click(`li.q form button`, chromedp.ByQuery)); st != http.StatusOK {
		t.Fatalf("verify: %d", st)
	}
	b.mustSee("verified", "now a verified query", "verified by ana")

	// History: the acceptance, with who and from where; roll it back.
	b.open("/admin/history")
	b.mustSee("history", "promote", "by console:local:ana", "admin console from 127.0.0.1")
	b.shot("history")
	// The acceptance was two changes (the promotion, then the wording):
	// rolling back the promotion alone would lose the wording's change, so
	// the console says so and offers both.
	if st := b.load("roll back", chromedp.Click(`//li[contains(@class,"change")][.//span[contains(@class,"act-promote")]][.//a[normalize-space(.)="“revenue”"]]//form//button`, chromedp.BySearch)); st != http.StatusConflict {
		t.Fatalf("roll back of a change changed since: %d, want 409", st)
	}
	b.mustSee("conflict", "Nothing was rolled back", "changed again")
	if st := b.load("roll back both", chromedp.Click(`form input[name="with_later"] ~ button`, chromedp.ByQuery)); st != http.StatusOK {
		t.Fatalf("roll back with the later change: %d", st)
	}
	b.mustSee("rolled back", "Rolled back.", "rollback")
	if team, _ := e.facts.List(context.Background(), ontology.Filter{Scope: "workspace", Owner: "console:local", Phrase: "revenue"}); len(team) != 0 {
		t.Fatalf("the team's revenue survived the roll back: %+v", team)
	}

	// A glossary with an error: its problem at its line, no load.
	bad := "name: finance\nwarehouse: demo\nmeasures:\n  - name: margin\n    expr: SUM(orders.net_amt)\n"
	b.open("/admin/glossary")
	b.run("paste", chromedp.SetValue("#text", bad, chromedp.ByQuery))
	if st := b.load("check", chromedp.Click(`form[action$="/glossary/check"] button`, chromedp.ByQuery)); st != http.StatusUnprocessableEntity {
		t.Fatalf("checking a glossary with an error: %d, want 422", st)
	}
	b.mustSee("glossary problems", "1 problem", "line 5", "unknown column orders.net_amt")
	if n := b.count(`ol.source li.bad`); n != 1 || b.count(`form[action$="/glossary/load"]`) != 0 {
		t.Fatalf("%d lines marked, load form shown: %v", n, b.count(`form[action$="/glossary/load"]`) != 0)
	}
	b.shot("glossary")
	// Fixed, it checks clean and loads.
	b.run("fix", chromedp.SetValue("#text", strings.Replace(bad, "net_amt", "net_amount", 1), chromedp.ByQuery))
	b.load("check again", chromedp.Click(`form[action$="/glossary/check"] button`, chromedp.ByQuery))
	b.mustSee("clean glossary", "No problems", "glossary:finance")
	b.load("load", chromedp.Click(`form[action$="/glossary/load"] button`, chromedp.ByQuery))
	b.mustSee("loaded", "glossary:finance loaded for console:local: 2 added")

	// Readable on a phone: the phrases page at a phone's width.
	b.run("phone", chromedp.EmulateViewport(390, 844))
	b.open("/admin/phrases")
	var overflow bool
	b.run("overflow", chromedp.Evaluate("document.documentElement.scrollWidth > window.innerWidth + 1", &overflow))
	if overflow {
		t.Error("the phrases page scrolls sideways on a phone")
	}
	b.shot("phrases-phone")
	b.run("desktop", chromedp.EmulateViewport(1280, 900))

	// Sign out.
	if st := b.load("sign out", chromedp.Click(`form.signout button`, chromedp.ByQuery)); st != http.StatusOK {
		t.Fatalf("sign out: %d", st)
	}
	b.mustSee("signed out", "You are signed out")
	if st := b.open("/admin/phrases"); st != http.StatusUnauthorized {
		t.Fatalf("after signing out: %d, want 401", st)
	}
}
