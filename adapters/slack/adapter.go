// Package slack is the Slack adapter: it turns mentions, direct messages,
// button clicks, modals, the /clarify command and the App Home into
// dialog events, and renders the dialog's replies as Block Kit messages in
// the question's thread.
//
// It runs in Socket Mode (no public URL; an app-level token) or in HTTP
// mode (signed requests to the bot's HTTP server). Either way every event,
// interaction and command is acknowledged first, and the work runs in a
// bounded worker pool. The adapter keeps no conversation state: buttons and
// modals carry the conversation and what they refer to, and the dialog
// manager persists the rest, so a click after a restart still works.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/workpool"
)

// platform is the Who.Platform of Slack events.
const platform = "slack"

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
	// Workers bounds concurrent work (default 4); Queue the events waiting (default 256).
	Workers int
	Queue   int
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
		c.Workers = 4
	}
	if c.Queue <= 0 {
		c.Queue = 256
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
	bot    identity
	admins *admins
	events Dedup          // event ids, against Slack's retries
	sigs   *seenSet       // request signatures, against replays
	work   *workpool.Pool // dialog work
	fast   *workpool.Pool // opening modals: a trigger id expires after 3 s
	once   sync.Once
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
	if cfg.Dedup == nil {
		cfg.Dedup = newSeenSet(dedupTTL, cfg.Now)
	}
	a := &Adapter{
		cfg:    cfg,
		d:      d,
		api:    slack.New(cfg.BotToken, opts...),
		log:    log,
		events: cfg.Dedup,
		sigs:   newSeenSet(10*time.Minute, cfg.Now),
		work:   workpool.New("work", cfg.Workers, cfg.Queue, log),
		fast:   workpool.New("modals", 2, 64, log),
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

	actx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var auth *slack.AuthTestResponse
	err := a.call(actx, "auth.test", func(ctx context.Context) (err error) {
		auth, err = a.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		var se slack.SlackErrorResponse
		if errors.As(err, &se) {
			return nil, fmt.Errorf("slack: the bot token (SLACK_BOT_TOKEN) was refused by auth.test: %w", err)
		}
		return nil, fmt.Errorf("slack: cannot check the bot token with auth.test: %w", err)
	}
	a.bot = identity{UserID: auth.UserID, BotID: auth.BotID, TeamID: auth.TeamID, Team: auth.Team}
	log.Info("slack bot authenticated", "bot_user", auth.UserID, "team", auth.Team, "mode", cfg.Mode)
	return a, nil
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
	a.fast.Start(workCtx)
	var err error
	if a.cfg.Mode == ModeSocket {
		err = a.runSocket(ctx)
	} else {
		<-ctx.Done()
	}
	a.drain(cancelWork)
	return err
}

func (a *Adapter) drain(cancel context.CancelFunc) {
	done := make(chan struct{})
	go func() {
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
