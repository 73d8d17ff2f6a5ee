// Package discord is the Discord adapter: it turns gateway messages and
// interactions (slash commands, buttons, modals) into dialog events and
// renders the manager's replies as Discord messages with components.
//
// The adapter keeps no conversation state of its own. A guild question is
// answered in a thread started from the question message, and a thread
// started from a message has the message's id, so the conversation key is
// that id both before and after the thread exists. In DMs the key is the
// DM channel plus the question message id, and the bot replies to the
// question instead of threading. Buttons carry the conversation key and
// the clarification, answer or fact id in their custom_id (see ids.go), so
// a click after a restart still reaches the right conversation.
//
// Interactions get their first response (a deferral, usually) from the
// gateway handler at once, on a lane of many goroutines, before any other
// REST call: Discord allows 3 seconds. The slow work (warehouse, model)
// runs in a bounded worker pool that is fair across warehouses and people,
// with panic recovery, drained on shutdown.
//
// The adapter owns its gateway connection: one that drops is opened again
// with backoff, and Discord's refusals (a bad token, close code 4004;
// disallowed intents, 4014) end Run with the fix instead of being retried
// for ever.
package discord

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

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/backoff"
	"github.com/clarify-bot/clarify/internal/workpool"
)

// Platform is the Who.Platform of Discord events.
const Platform = "discord"

// Dialog is what the adapter needs from the conversation manager (or the
// router over several managers).
type Dialog interface {
	Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
}

var _ Dialog = (*dialog.Manager)(nil)

// Channel is a data channel: mentions of the bot there are questions, and
// with AnyMessage every message is.
type Channel struct {
	ID         string
	AnyMessage bool
}

// Config configures the adapter. Token is required; zero fields take defaults.
type Config struct {
	// Token is the bot token (with or without the "Bot " prefix).
	Token string
	// ApplicationID registers the slash commands; empty takes it from READY.
	ApplicationID string
	// GuildID registers the commands in one guild (instant, for development);
	// empty registers them globally.
	GuildID string
	// DataChannels are where plain messages are questions. With none, a
	// mention of the bot in any channel is a question.
	DataChannels []Channel
	// AdminRoles and Admins (user ids) are admins besides members with the
	// Manage Server or Administrator permission.
	AdminRoles []string
	Admins     []string
	// ShardID and ShardCount shard the gateway connection (ShardCount 0 or
	// 1: no sharding). Only shard 0 registers the commands.
	ShardID    int
	ShardCount int
	// Workers bounds the events handled at once (default 8);
	// WarehouseLimit, when set, caps one warehouse's (by the name Lanes
	// gives).
	Workers        int
	WarehouseLimit func(name string) int
	// APIURL sends the REST calls and the gateway lookup to another server
	// (tests, staging); GatewayURL overrides the gateway URL the lookup
	// returns.
	APIURL, GatewayURL string
	// Status hears the gateway connection's state (the bot's /healthz).
	Status func(up bool, detail string)
	// RetryMin and RetryMax bound the waits between connection attempts
	// (defaults 1s and 2 minutes).
	RetryMin, RetryMax time.Duration
	// DrainTimeout is how long shutdown waits for in-flight work before
	// cancelling it (default 10s).
	DrainTimeout time.Duration
	// HTTPClient makes the REST calls; nil keeps discordgo's. Tests give a
	// client whose transport reaches a fake Discord.
	HTTPClient *http.Client
	Logger     *slog.Logger

	// Hooks hear failed and retried REST calls, for metrics.
	Hooks Hooks
	// AdminLinks answers /clarify admin with a sign-in link to the admin
	// console (adminlink.go); nil: the console is off.
	AdminLinks AdminLinker
}

const (
	defaultWorkers      = 8
	defaultDrainTimeout = 10 * time.Second
	// First responses each take one REST call: up to ackWorkers go at
	// once, so a burst of clicks is answered within Discord's 3 seconds.
	ackWorkers = 128
	ackQueue   = 4096
)

// Lanes is implemented by a Dialog that knows which warehouse an event
// will ask (the bot's router), for the work pool's fairness.
type Lanes interface {
	Lane(who dialog.Who, conversation string) string
}

// Intents are the gateway intents the adapter needs. MessageContent is
// privileged: enable it in the developer portal (Bot → Privileged Gateway
// Intents), or message text arrives empty except in DMs and mentions.
const Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages |
	discordgo.IntentsDirectMessages | discordgo.IntentMessageContent

// Permissions is the bot permissions integer for the invite URL: View
// Channels, Send Messages, Attach Files (CSV results), Read Message History
// (to find a question answered by a typed reply), Create Public Threads
// and Send Messages in Threads (309237746688).
const Permissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionAttachFiles | discordgo.PermissionReadMessageHistory |
	discordgo.PermissionCreatePublicThreads | discordgo.PermissionSendMessagesInThreads

// Adapter is the Discord platform. Build it with New, then Run it once.
type Adapter struct {
	cfg        Config
	d          Dialog
	log        *slog.Logger
	s          *discordgo.Session
	data       map[string]Channel
	admins     map[string]bool
	adminRoles map[string]bool

	// botID and appID are set from READY (gateway goroutine) and read by
	// handlers and workers.
	botID atomic.Pointer[string]
	appID atomic.Pointer[string]

	// acks answers interactions within Discord's 3 seconds; work runs the
	// dialog. Their workers run while Run runs.
	acks, work *workpool.Pool
	ran        atomic.Bool
	// disconnected hears the gateway connection drop.
	disconnected chan struct{}
}

// libraryLog bridges discordgo's package-wide logger to slog, once per
// process (discordgo.Logger is a global hook: the first adapter's logger
// gets the library's messages).
var libraryLog sync.Once

// New checks the configuration and prepares the session; it does not
// connect.
func New(cfg Config, d Dialog) (*Adapter, error) {
	token := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cfg.Token), "Bot "))
	switch {
	case token == "":
		return nil, errors.New("discord: no bot token")
	case d == nil:
		return nil, errors.New("discord: no dialog")
	case cfg.ShardCount < 0 || cfg.ShardCount > 0 && (cfg.ShardID < 0 || cfg.ShardID >= cfg.ShardCount):
		return nil, fmt.Errorf("discord: shard %d is outside 0..%d", cfg.ShardID, cfg.ShardCount-1)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = defaultWorkers
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = defaultDrainTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = time.Second
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 2 * time.Minute
	}
	a := &Adapter{
		cfg: cfg, d: d, log: cfg.Logger.With("platform", Platform),
		data: map[string]Channel{}, admins: set(cfg.Admins), adminRoles: set(cfg.AdminRoles),
		disconnected: make(chan struct{}, 1),
	}
	for _, c := range cfg.DataChannels {
		if c.ID = strings.TrimSpace(c.ID); c.ID != "" {
			a.data[c.ID] = c
		}
	}
	if id := strings.TrimSpace(cfg.ApplicationID); id != "" {
		a.appID.Store(&id)
	}
	libraryLog.Do(func() { discordgo.Logger = bridge(cfg.Logger.With("component", "discordgo")) })

	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("discord: new session: %w", err)
	}
	s.Identify.Intents = Intents
	if cfg.ShardCount > 1 {
		s.ShardID, s.ShardCount = cfg.ShardID, cfg.ShardCount
	}
	if cfg.HTTPClient != nil {
		s.Client = cfg.HTTPClient
	}
	if cfg.APIURL != "" || cfg.GatewayURL != "" {
		if s.Client, err = withEndpoints(s.Client, cfg.APIURL, cfg.GatewayURL); err != nil {
			return nil, err
		}
	}
	if cfg.Hooks.set() {
		s.Client = withHooks(s.Client, cfg.Hooks)
	}
	// Handlers run on the gateway goroutine and only hand work to the
	// bounded pools: no goroutine per event.
	s.SyncEvents = true
	s.ShouldRetryOnRateLimit = true // wait out 429s (the default, stated)
	// discordgo would reconnect for ever, even after 4004 or 4014; the
	// adapter reconnects itself and stops on those.
	s.ShouldReconnectOnError = false
	s.LogLevel = discordgo.LogWarning
	if cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		// Never LogDebug: it prints the identify packet, token included.
		s.LogLevel = discordgo.LogInformational
	}
	// The state cache only needs channels and threads (to know a thread's
	// parent and owner); members, presences and the rest would cost memory.
	st := s.State
	st.TrackChannels, st.TrackThreads = true, true
	st.TrackEmojis, st.TrackStickers, st.TrackMembers, st.TrackThreadMembers = false, false, false, false
	st.TrackRoles, st.TrackVoice, st.TrackPresences = false, false, false
	st.MaxMessageCount = 0
	a.s = s
	a.acks = workpool.New("first responses", ackWorkers, ackQueue, a.log)
	a.work = workpool.NewFair("work", cfg.Workers, cfg.Workers*16, workpool.Limits{GroupLimit: cfg.WarehouseLimit}, a.log)
	s.AddHandler(a.onReady)
	s.AddHandler(a.onDisconnect)
	s.AddHandler(a.onMessage)
	s.AddHandler(a.onInteraction)
	return a, nil
}

func set(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			m[id] = true
		}
	}
	return m
}

// Name implements the bot's platform interface.
func (a *Adapter) Name() string { return Platform }

// Run connects to the gateway, registers the slash commands, and handles
// events until ctx ends; then it disconnects and drains in-flight work
// (cancelling it after DrainTimeout). A connection that fails or drops is
// opened again with backoff; Run ends early only when Discord refuses the
// bot (ErrRefused), with the fix in the error.
func (a *Adapter) Run(ctx context.Context) error {
	if !a.ran.CompareAndSwap(false, true) {
		return errors.New("discord: Run called twice")
	}
	// Work outlives ctx by the drain timeout, so that an answer being
	// computed at shutdown is still delivered.
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	a.acks.Start(workCtx)
	a.work.Start(workCtx)

	err := a.connectLoop(ctx)
	if ctx.Err() != nil {
		a.log.Info("disconnecting from Discord; draining in-flight work", "timeout", a.cfg.DrainTimeout)
		err = nil
	}
	if cerr := a.s.Close(); cerr != nil && err == nil && ctx.Err() == nil {
		a.log.Warn("closing the gateway connection", "err", cerr)
	}
	a.stopPools(cancelWork)
	return err
}

// connectLoop holds the gateway connection until ctx ends.
func (a *Adapter) connectLoop(ctx context.Context) error {
	b := backoff.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax}
	registered := false
	for {
		select {
		case <-a.disconnected: // a drop before this connection counts for nothing
		default:
		}
		err := a.s.Open()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if refused := refusal(err); refused != nil {
				a.status(false, firstLine(refused.Error()))
				return refused
			}
			wait := b.Next()
			a.log.Warn("cannot connect to the Discord gateway; retrying", "err", err, "retry_in", wait.Round(time.Second), "attempt", b.Failures())
			a.status(false, "cannot reach the Discord gateway; retrying")
			if backoff.Sleep(ctx, wait) != nil {
				return nil
			}
			continue
		}
		b.Reset()
		a.log.Info("connected to the Discord gateway", "shard", a.cfg.ShardID, "shards", max(a.cfg.ShardCount, 1), "bot", a.bot())
		a.status(true, "")
		if !registered {
			// A shutdown that interrupts the registration is a shutdown,
			// not a failure: the work already accepted still drains.
			if err := a.registerCommands(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if refused := refusal(err); refused != nil {
					return refused
				}
				a.log.Warn("slash commands not registered; trying again at the next connection (mentions and buttons work meanwhile)", "err", err)
			} else {
				registered = true
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-a.disconnected:
		}
		wait := b.Next()
		a.log.Warn("the Discord gateway connection dropped; reconnecting", "retry_in", wait.Round(time.Second))
		a.status(false, "gateway connection lost; reconnecting")
		if backoff.Sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// onDisconnect hears discordgo close the connection (after a read error,
// or our own Close).
func (a *Adapter) onDisconnect(_ *discordgo.Session, _ *discordgo.Disconnect) {
	select {
	case a.disconnected <- struct{}{}:
	default:
	}
}

func (a *Adapter) status(up bool, detail string) {
	if a.cfg.Status != nil {
		a.cfg.Status(up, detail)
	}
}

// QueueDepth is the number of turns waiting for a worker (a metric).
func (a *Adapter) QueueDepth() int { return a.work.Depth() }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// stopPools stops intake, lets queued work finish for DrainTimeout, then
// cancels what is left and waits for it. Acks go first: they feed work.
func (a *Adapter) stopPools(cancel context.CancelFunc) {
	deadline := time.NewTimer(a.cfg.DrainTimeout)
	defer deadline.Stop()
	for _, p := range []*workpool.Pool{a.acks, a.work} {
		p.Close()
		select {
		case <-p.Done():
		case <-deadline.C:
			a.log.Warn("drain timeout: cancelling in-flight work", "pool", p.Name())
			cancel()
			<-p.Done()
		}
	}
	cancel()
}

func (a *Adapter) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	if r.User != nil {
		id := r.User.ID
		a.botID.Store(&id)
	}
	if a.appID.Load() == nil && r.Application != nil && r.Application.ID != "" {
		id := r.Application.ID
		a.appID.Store(&id)
	}
}

func (a *Adapter) bot() string {
	if p := a.botID.Load(); p != nil {
		return *p
	}
	return ""
}

func (a *Adapter) app() string {
	if p := a.appID.Load(); p != nil {
		return *p
	}
	return a.bot() // a bot's user id is its application's id
}

// bridge turns discordgo's printf-style log calls into slog records.
func bridge(l *slog.Logger) func(msgL, caller int, format string, a ...any) {
	return func(msgL, _ int, format string, args ...any) {
		level := slog.LevelDebug - 4
		switch msgL {
		case discordgo.LogError:
			level = slog.LevelError
		case discordgo.LogWarning:
			level = slog.LevelWarn
		case discordgo.LogInformational:
			level = slog.LevelDebug
		}
		ctx := context.Background()
		if !l.Enabled(ctx, level) {
			return
		}
		l.Log(ctx, level, strings.TrimSpace(fmt.Sprintf(format, args...)))
	}
}
