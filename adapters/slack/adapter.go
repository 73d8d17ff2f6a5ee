// Package slack is the Slack adapter: it turns mentions, direct messages,
// button clicks, modals, the /clarify command and the App Home into
// dialog events, and renders the dialog's replies as Block Kit messages in
// the question's thread.
//
// It runs in Socket Mode (no public URL; an app-level token) or in HTTP
// mode (signed requests to the bot's HTTP server). Either way every event,
// interaction and command is acknowledged first; a "Looking…" placeholder
// is posted at once from a fast lane of its own, and the work runs in a
// bounded pool that is fair across warehouses and people. The adapter
// keeps no conversation state: buttons and modals carry the conversation
// and what they refer to, and the dialog manager persists the rest, so a
// click after a restart still works.
//
// A Slack that cannot be reached is retried with backoff (the rest of the
// bot keeps serving); a token Slack refuses stops the adapter with an
// error that names the fix.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/backoff"
	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/workpool"
	"github.com/clarify-bot/clarify/ontology"
)

// platform is the Who.Platform of Slack events.
const platform = "slack"

// personKey is a person's key in the adapter's work pool and caches: the
// owner key the ontology knows them by.
func personKey(team, user string) string {
	return ontology.Identity{Platform: platform, Workspace: team, User: user}.UserKey()
}

// Modes.
const (
	ModeSocket = "socket"
	ModeHTTP   = "http"
)

// HTTP mode endpoints on the bot's server; the app manifest points Slack at them.
const (
	EventsPath        = "/slack/events"
	InteractivityPath = "/slack/interactivity"
	CommandsPath      = "/slack/commands"
)

// Dialog is what the adapter needs from the conversation manager.
type Dialog interface {
	Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
}

// Lanes is implemented by a Dialog that knows which warehouse an event
// will ask (the bot's router): the work pool takes warehouses in turn, so
// that a slow one cannot hold every worker.
type Lanes interface {
	Lane(who dialog.Who, conversation string) string
}

// Threads is implemented by a Dialog that can tell whether it holds a
// conversation: a reply in a channel thread without a mention is a
// follow-up only in a thread the bot is answering in.
type Threads interface {
	Knows(ctx context.Context, who dialog.Who, conversation string) (bool, error)
}

// Prechecker is implemented by a Dialog with rate limits: a new question
// that would be refused is refused at once with one ephemeral message,
// before any placeholder is posted. It must not take from the limits
// (the dialog's own gate does, once, when the question starts).
type Prechecker interface {
	Precheck(ctx context.Context, who dialog.Who) (refusal string)
}

// Inflight records the placeholders shown while work runs (a store that
// replicas share), so that if this process dies another one replaces
// them with a note to try again.
type Inflight interface {
	Track(ctx context.Context, p inflight.Placeholder) error
	Done(ctx context.Context, p inflight.Placeholder) error
}

// Warehouses lets /clarify warehouse list and switch warehouses (the bot's
// router); nil when there is only one.
type Warehouses interface {
	Warehouses() []string
	Current(who dialog.Who) string
	Choose(who dialog.Who, name string) (string, error)
}

// Config configures the adapter.
type Config struct {
	BotToken      string // xoxb-
	AppToken      string // xapp-, Socket Mode
	SigningSecret string // HTTP mode
	Mode          string // ModeSocket (default) or ModeHTTP
	// Admins are Slack user ids that may review and promote what was
	// learned, besides workspace admins and owners.
	Admins []string
	// Workers bounds concurrent work (default 16); Queue the events
	// waiting (default 256). PerPerson caps one person's turns running at
	// once (default 2) and WarehouseLimit, when set, one warehouse's (by
	// the name Lanes gives), so that the queue is fair.
	Workers        int
	Queue          int
	PerPerson      int
	WarehouseLimit func(name string) int
	// Inflight tracks placeholders for failover (nil: not tracked).
	Inflight Inflight
	// Status hears the connection's state: up, or down with why (the
	// bot's /healthz and logs). It must not block.
	Status func(up bool, detail string)
	// RetryMin and RetryMax bound the waits between connection attempts
	// (defaults 1s and 2 minutes).
	RetryMin, RetryMax time.Duration
	// APIURL is the Web API base URL (tests: a fake's URL).
	APIURL string
	// Warehouses answers /clarify warehouse; optional.
	Warehouses Warehouses
	// DrainTimeout bounds how long Run waits for in-flight work after its
	// context ends before cancelling it (default 25s).
	DrainTimeout time.Duration
	// JobTimeout bounds one event's work (default 3 minutes).
	JobTimeout time.Duration
	// PingInterval is how long Socket Mode waits for Slack's pings before
	// reconnecting (default 30s).
	PingInterval time.Duration
	// HTTPClient calls the Web API (default: a client with a 30s timeout).
	HTTPClient *http.Client
	// Dedup remembers event ids (default: in memory). Replicas behind a
	// load balancer share one, so that a retry another replica receives
	// is dropped.
	Dedup  Dedup
	Logger *slog.Logger
	Now    func() time.Time

	// Hooks hear API errors, retries and dropped duplicates, for metrics.
	Hooks Hooks
	// AdminLinks answers /clarify admin with a sign-in link to the admin
	// console (adminlink.go); nil: the console is off.
	AdminLinks AdminLinker
}

func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeSocket
	}
	if c.Workers <= 0 {
		c.Workers = 16
	}
	if c.Queue <= 0 {
		c.Queue = 256
	}
	if c.PerPerson <= 0 {
		c.PerPerson = 2
	}
	if c.RetryMin <= 0 {
		c.RetryMin = time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 2 * time.Minute
	}
	if c.APIURL == "" {
		c.APIURL = slack.APIURL
	}
	if !strings.HasSuffix(c.APIURL, "/") {
		c.APIURL += "/"
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 25 * time.Second
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = 3 * time.Minute
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Adapter is a running Slack app.
type Adapter struct {
	cfg    Config
	d      Dialog
	api    *slack.Client
	log    *slog.Logger
	bot    identity // set once by authenticate, before ready
	ready  atomic.Bool
	admins *admins
	events Dedup    // event ids, against Slack's retries (shared by replicas)
	local  *seenSet // event ids this process saw: a retry to it needs no store
	sigs   *seenSet // request signatures, against replays
	// work runs the dialog (fair across warehouses and people); visible
	// posts the placeholders at once; fast opens modals (a trigger id
	// expires after 3 s).
	work, visible, fast *workpool.Pool
	once                sync.Once
}

// identity is the bot's own user, from auth.test.
type identity struct {
	UserID, BotID, TeamID, Team string
}

// dedupTTL is how long event ids are remembered (Slack retries within
// minutes; the issue asks for at least an hour).
const dedupTTL = 2 * time.Hour

// New checks the configuration and the bot token (auth.test) and returns
// an adapter ready to Run.
func New(ctx context.Context, cfg Config, d Dialog) (*Adapter, error) {
	a, err := Build(cfg, d)
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := a.authenticate(actx); err != nil {
		return nil, err
	}
	return a, nil
}

// Build checks the configuration and returns an adapter that checks its
// token when it runs: a Slack that is down does not stop the bot from
// starting (Run retries), while a refused token ends Run with the fix.
func Build(cfg Config, d Dialog) (*Adapter, error) {
	cfg = cfg.withDefaults()
	switch {
	case d == nil:
		return nil, errors.New("slack: no dialog")
	case !strings.HasPrefix(cfg.BotToken, "xoxb-"):
		return nil, errors.New("slack: the bot token (SLACK_BOT_TOKEN) must start with xoxb-")
	case cfg.Mode == ModeSocket && !strings.HasPrefix(cfg.AppToken, "xapp-"):
		return nil, errors.New("slack: Socket Mode needs an app-level token (SLACK_APP_TOKEN) starting with xapp-, with the connections:write scope")
	case cfg.Mode == ModeHTTP && cfg.SigningSecret == "":
		return nil, errors.New("slack: HTTP mode needs the signing secret (SLACK_SIGNING_SECRET)")
	case cfg.Mode != ModeSocket && cfg.Mode != ModeHTTP:
		return nil, fmt.Errorf("slack: mode must be %q or %q, not %q", ModeSocket, ModeHTTP, cfg.Mode)
	}
	log := cfg.Logger.With("adapter", "slack")
	opts := []slack.Option{
		slack.OptionAPIURL(cfg.APIURL),
		slack.OptionHTTPClient(cfg.HTTPClient),
		slack.OptionLog(slog.NewLogLogger(log.Handler(), slog.LevelDebug)),
	}
	if cfg.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(cfg.AppToken))
	}
	local := newSeenSet(dedupTTL, cfg.Now)
	if cfg.Dedup == nil {
		cfg.Dedup = local
	}
	a := &Adapter{
		cfg:    cfg,
		d:      d,
		api:    slack.New(cfg.BotToken, opts...),
		log:    log,
		events: cfg.Dedup,
		local:  local,
		sigs:   newSeenSet(10*time.Minute, cfg.Now),
		work: workpool.NewFair("work", cfg.Workers, cfg.Queue,
			workpool.Limits{PerOwner: cfg.PerPerson, GroupLimit: cfg.WarehouseLimit}, log),
		// Placeholders are one Web API call each; many run at once so that
		// a burst is visible within a second.
		visible: workpool.New("placeholders", 32, 4096, log),
		fast:    workpool.New("modals", 2, 64, log),
	}
	fixed := map[string]bool{}
	for _, u := range cfg.Admins {
		fixed[strings.TrimSpace(u)] = true
	}
	a.admins = &admins{fixed: fixed, now: cfg.Now, log: log, cache: map[string]adminEntry{},
		lookup: func(ctx context.Context, user string) (*slack.User, error) {
			var u *slack.User
			err := a.call(ctx, "users.info", func(ctx context.Context) (err error) {
				u, err = a.api.GetUserInfoContext(ctx, user)
				return err
			})
			return u, err
		}}

	return a, nil
}

// ErrRefused marks a failure that retrying will not fix (a token Slack
// refuses): Run ends with it, and the message names the fix.
var ErrRefused = errors.New("refused by Slack")

// authenticate checks the bot token with auth.test and learns the bot's
// identity. A refusal wraps ErrRefused; anything else may pass.
func (a *Adapter) authenticate(ctx context.Context) error {
	var auth *slack.AuthTestResponse
	err := a.call(ctx, "auth.test", func(ctx context.Context) (err error) {
		auth, err = a.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		var se slack.SlackErrorResponse
		if errors.As(err, &se) {
			return fmt.Errorf("slack: the bot token (SLACK_BOT_TOKEN) was refused by auth.test (%w: %w); copy the Bot User OAuth Token (xoxb-) from the app's OAuth & Permissions page, reinstall the app if it was revoked", ErrRefused, err)
		}
		return fmt.Errorf("slack: cannot check the bot token with auth.test: %w", err)
	}
	a.bot = identity{UserID: auth.UserID, BotID: auth.BotID, TeamID: auth.TeamID, Team: auth.Team}
	a.ready.Store(true)
	a.log.Info("slack bot authenticated", "bot_user", auth.UserID, "team", auth.Team, "mode", a.cfg.Mode)
	return nil
}

// Authenticate checks the bot token once (auth.test) so that the adapter
// is ready as soon as it runs; an error is only reported: Run retries an
// unreachable Slack and ends with a refused token.
func (a *Adapter) Authenticate(ctx context.Context) error {
	if a.ready.Load() {
		return nil
	}
	return a.authenticate(ctx)
}

// status reports the connection's state to the bot.
func (a *Adapter) status(up bool, detail string) {
	if a.cfg.Status != nil {
		a.cfg.Status(up, detail)
	}
}

// Quiet waits until nothing is queued or running (tests of the whole bot
// that must know every accepted event was handled).
func (a *Adapter) Quiet(ctx context.Context) error {
	for {
		vIdle, vChanged := a.visible.Idle()
		wIdle, wChanged := a.work.Idle()
		if vIdle && wIdle {
			return nil
		}
		select {
		case <-vChanged:
		case <-wChanged:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// QueueDepth is the number of turns waiting for a worker (a metric).
func (a *Adapter) QueueDepth() int { return a.work.Depth() }

// authenticateLoop checks the token until Slack answers: an unreachable
// Slack is retried with backoff, a refused token is returned.
func (a *Adapter) authenticateLoop(ctx context.Context) error {
	b := backoff.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax}
	for !a.ready.Load() {
		actx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := a.authenticate(actx)
		cancel()
		switch {
		case err == nil:
		case errors.Is(err, ErrRefused):
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			wait := b.Next()
			a.log.Warn("cannot reach Slack; retrying", "err", err, "retry_in", wait.Round(time.Second), "attempt", b.Failures())
			a.status(false, "cannot reach Slack; retrying")
			if err := backoff.Sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
	return nil
}

// Name implements the bot's platform interface.
func (a *Adapter) Name() string { return "slack" }

// Run serves until ctx ends: in Socket Mode it holds the WebSocket
// connection, in HTTP mode the bot's server calls Routes' handlers. When
// ctx ends it stops taking work and waits for in-flight work (at most
// DrainTimeout, then cancels it). Run may be called once.
func (a *Adapter) Run(ctx context.Context) error {
	ran := false
	a.once.Do(func() { ran = true })
	if !ran {
		return errors.New("slack: Run called twice")
	}
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	a.work.Start(workCtx)
	a.visible.Start(workCtx)
	a.fast.Start(workCtx)
	err := a.authenticateLoop(ctx)
	if err == nil {
		if a.cfg.Mode == ModeSocket {
			err = a.runSocket(ctx)
		} else {
			a.status(true, "")
			<-ctx.Done()
		}
	}
	if ctx.Err() != nil {
		a.log.Info("stopping Slack; draining in-flight work", "timeout", a.cfg.DrainTimeout)
		err = nil
	}
	a.drain(cancelWork)
	return err
}

func (a *Adapter) drain(cancel context.CancelFunc) {
	done := make(chan struct{})
	go func() {
		// Placeholders feed the work pool: they go first.
		a.visible.Stop()
		a.fast.Stop()
		a.work.Stop()
		close(done)
	}()
	t := time.NewTimer(a.cfg.DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		a.log.Warn("in-flight Slack work did not finish in time; cancelling it", "timeout", a.cfg.DrainTimeout)
		cancel()
		<-done
	}
}

// maxRateLimitWaits bounds how often one call waits out a rate limit.
const maxRateLimitWaits = 8

// call runs one Web API call, waiting out rate limits (HTTP 429 with
// Retry-After) rather than dropping the message.
func (a *Adapter) call(ctx context.Context, method string, fn func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		var rl *slack.RateLimitedError
		if !errors.As(err, &rl) || attempt == maxRateLimitWaits {
			a.cfg.Hooks.apiError(method)
			return fmt.Errorf("%s: %w", method, err)
		}
		a.cfg.Hooks.retry(method)
		wait := max(rl.RetryAfter, time.Second)
		a.log.Warn("slack rate limit; waiting", "method", method, "retry_after", wait, "attempt", attempt+1)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: waiting out a rate limit: %w", method, ctx.Err())
		}
	}
}
