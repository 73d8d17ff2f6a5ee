package slack

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/inflight"
)

// knowing is a real manager that can tell its conversations (as the bot's
// router does), so thread replies without a mention reach it.
type knowing struct{ *dialog.Manager }

func (k knowing) Knows(ctx context.Context, who dialog.Who, conv string) (bool, error) {
	return k.Owns(ctx, who, conv)
}

// channelMessage is a message.channels event: a reply in thread (""
// for a top-level message).
func channelMessage(t *testing.T, user, channel, ts, thread, text string) map[string]any {
	p := fixture(t, "message_im.json")
	set(p, "event_id", uniq("Ev"))
	set(p, "event.user", user)
	set(p, "event.channel", channel)
	set(p, "event.channel_type", "channel")
	set(p, "event.ts", ts)
	set(p, "event.event_ts", ts)
	set(p, "event.text", text)
	if thread != "" {
		set(p, "event.thread_ts", thread)
	}
	return p
}

// TestThreadFollowUpWithoutMention: with message.channels subscribed, a
// reply in a thread the bot answers in continues the conversation without
// a mention; replies in other threads, top-level messages and replies
// that mention the bot (Slack sends those as app_mention too) are not
// handled from this event.
func TestThreadFollowUpWithoutMention(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, knowing{env.Manager}, ModeHTTP, nil)
	const ch = "C0THREADS"
	q := newTS()
	since := fake.Mark()
	h.event(mention(t, "U0ANA", ch, q, "", "list customers in Ohio"))
	clar := h.reply(since, ch, q, isClarification)

	// The person answers in the thread (the first option), no mention.
	since = fake.Mark()
	h.event(channelMessage(t, "U0ANA", ch, newTS(), q, "1"))
	next := h.reply(since, ch, q, func(m msg) bool { return m.ts != clar.ts && (isAnswer(m) || isClarification(m)) })
	if next.ts == "" {
		t.Fatal("no reply to the follow-up")
	}

	// Not the bot's thread, a top-level message, and a reply with a mention.
	other := newTS()
	since = fake.Mark()
	h.event(channelMessage(t, "U0BOB", ch, newTS(), other, "how many customers do we have?"))
	h.event(channelMessage(t, "U0BOB", ch, newTS(), "", "how many customers do we have?"))
	h.event(channelMessage(t, "U0ANA", ch, newTS(), q, "<@"+slackfake.BotUserID+"> how many customers do we have?"))
	h.marker(ch)
	for _, c := range fake.Calls("chat.postMessage") {
		if c.Seq < since || c.Get("channel") != ch {
			continue
		}
		switch c.Get("thread_ts") {
		case other:
			t.Errorf("answered in a thread the bot did not start: %s", c.Get("text"))
		case q:
			t.Errorf("a message event with a mention was handled besides its app_mention: %s", c.Get("text"))
		case "":
			t.Errorf("answered a top-level message without a mention: %s", c.Get("text"))
		}
	}
	noViolations(t, fake)
}

// failingDedup is a shared store that is down until up is set.
type failingDedup struct {
	up   atomic.Bool
	mu   sync.Mutex
	seen map[string]bool
}

func (d *failingDedup) First(_ context.Context, key string, _ time.Duration) (bool, error) {
	if !d.up.Load() {
		return false, errors.New("dial tcp 10.0.0.9:3306: connection refused")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen[key] {
		return false, nil
	}
	d.seen[key] = true
	return true, nil
}

func (d *failingDedup) Forget(_ context.Context, key string) error {
	d.mu.Lock()
	delete(d.seen, key)
	d.mu.Unlock()
	return nil
}

// TestDedupStoreDownLeavesEventForRetry: an event whose id the shared
// store cannot check is not handled and not acknowledged (503), so that
// Slack sends it again; once the store is back the retry is handled, once.
func TestDedupStoreDownLeavesEventForRetry(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	dd := &failingDedup{seen: map[string]bool{}}
	var unavailable atomic.Int32
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) {
		c.Dedup = dd
		c.Hooks.DedupUnavailable = func() { unavailable.Add(1) }
	})
	ts := newTS()
	p := mention(t, "U0ANA", "C0DEDUP", ts, "", "how many customers do we have?")
	since := fake.Mark()
	if code, _ := h.send(EventsPath, "application/json", mustJSON(t, p), nil); code != http.StatusServiceUnavailable {
		t.Fatalf("with the store down: %d, want 503 so that Slack retries", code)
	}
	if unavailable.Load() != 1 {
		t.Fatalf("DedupUnavailable heard %d times", unavailable.Load())
	}
	dd.up.Store(true)
	for n := 1; n <= 2; n++ {
		retry := http.Header{"X-Slack-Retry-Num": {string(rune('0' + n))}}
		if code, body := h.send(EventsPath, "application/json", mustJSON(t, p), retry); code != http.StatusOK {
			t.Fatalf("retry %d: %d %s", n, code, body)
		}
	}
	h.reply(since, "C0DEDUP", ts, isAnswer)
	h.marker("C0DEDUP")
	if n := threadCalls(fake, since, ts); n != 1 {
		t.Fatalf("%d messages in the thread; want the event handled once", n)
	}
}

// blockingDialog holds every question whose text contains "slow" until
// released; others are answered with a notice at once.
type blockingDialog struct {
	release chan struct{}
	started chan string
}

func (d *blockingDialog) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	d.started <- ev.Text
	if strings.Contains(ev.Text, "slow") {
		select {
		case <-d.release:
		case <-ctx.Done():
		}
	}
	return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "done: " + ev.Text}}, nil
}

// TestPlaceholderAtAckTime: with the only worker busy on a slow question,
// the next question still shows its placeholder at once (it is posted
// from the intake lane, not by a worker), and the first-message and
// answer hooks hear both.
func TestPlaceholderAtAckTime(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	d := &blockingDialog{release: make(chan struct{}), started: make(chan string, 4)}
	var firsts, answers atomic.Int32
	h := start(t, fake, d, ModeHTTP, func(c *Config) {
		c.Workers = 1
		c.Hooks.FirstMessage = func(time.Duration) { firsts.Add(1) }
		c.Hooks.Answered = func(time.Duration) { answers.Add(1) }
	})
	slow, quick := newTS(), newTS()
	h.event(mention(t, "U0ANA", "C0BUSY", slow, "", "a slow one"))
	if got := <-d.started; got != "a slow one" {
		t.Fatalf("started %q", got)
	}
	since := fake.Mark()
	h.event(mention(t, "U0BOB", "C0BUSY", quick, "", "a quick one"))
	ph := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool { return c.Get("thread_ts") == quick })
	if !strings.HasPrefix(ph.Get("text"), "Looking") {
		t.Fatalf("first message in the waiting thread: %q", ph.Get("text"))
	}
	select {
	case got := <-d.started:
		t.Fatalf("%q started while the only worker was busy", got)
	default:
	}
	close(d.release)
	fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == ph.TS && strings.Contains(c.Get("text"), "a quick one") })
	h.quiet()
	if firsts.Load() != 2 || answers.Load() != 2 {
		t.Fatalf("hooks heard %d first messages and %d answers, want 2 and 2", firsts.Load(), answers.Load())
	}
}

// TestSlackUnreachableAtStart: Run keeps trying while Slack cannot be
// reached (events get 503 meanwhile, so Slack retries them) and serves
// once it answers; the status hook hears both.
func TestSlackUnreachableAtStart(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	var up atomic.Bool
	target, _ := url.Parse(fake.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	type state struct {
		up     bool
		detail string
	}
	states := make(chan state, 64)
	a, err := Build(Config{
		BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: ModeHTTP, APIURL: gate.URL + "/api/",
		RetryMin: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: testLogger(t),
		Status: func(up bool, detail string) { states <- state{up, detail} },
	}, env.Manager)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Routes(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	if s := <-states; s.up || !strings.Contains(s.detail, "cannot reach Slack") {
		t.Fatalf("first status %+v", s)
	}
	p := mention(t, "U0ANA", "C0LATE", newTS(), "", "how many customers do we have?")
	if code, _ := slackfake.Post(t, srv.URL+EventsPath, slackfake.Secret, time.Now(), "application/json", mustJSON(t, p), nil); code != http.StatusServiceUnavailable {
		t.Fatalf("an event before Slack answered: %d, want 503", code)
	}
	up.Store(true)
	for s := range states {
		if s.up {
			break
		}
	}
	if code, body := slackfake.Post(t, srv.URL+EventsPath, slackfake.Secret, time.Now(), "application/json", mustJSON(t, p), nil); code != http.StatusOK {
		t.Fatalf("the retried event: %d %s", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestRefusedTokenEndsRun: a token Slack refuses is not retried: Run ends
// with an error that names the variable and the fix.
func TestRefusedTokenEndsRun(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	fake.FailAuth("token_revoked")
	a, err := Build(Config{BotToken: slackfake.BotToken, SigningSecret: "s", Mode: ModeHTTP, APIURL: fake.APIURL(), RetryMin: time.Millisecond}, nopDialog{})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Run(context.Background())
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "SLACK_BOT_TOKEN") || !strings.Contains(err.Error(), "token_revoked") || !strings.Contains(err.Error(), "OAuth & Permissions") {
		t.Fatalf("Run: %v", err)
	}
	if n := len(fake.Calls("auth.test")); n != 1 {
		t.Fatalf("auth.test called %d times; a refusal is not retried", n)
	}
}

// recordingInflight keeps what the adapter tracks.
type recordingInflight struct {
	mu      sync.Mutex
	tracked map[string]inflight.Placeholder
	done    int
}

func (r *recordingInflight) Track(_ context.Context, p inflight.Placeholder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tracked[p.Message] = p
	return nil
}

func (r *recordingInflight) Done(_ context.Context, p inflight.Placeholder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tracked, p.Message)
	r.done++
	return nil
}

// TestPlaceholdersTrackedAndOrphansReplaced: a placeholder is recorded
// while its turn runs and forgotten once delivered; one a dead process
// left is replaced with a note that says to try again.
func TestPlaceholdersTrackedAndOrphansReplaced(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	d := &blockingDialog{release: make(chan struct{}), started: make(chan string, 4)}
	rec := &recordingInflight{tracked: map[string]inflight.Placeholder{}}
	h := start(t, fake, d, ModeHTTP, func(c *Config) { c.Inflight = rec })
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, "U0ANA", "C0FAIL", ts, "", "a slow one"))
	<-d.started
	ph := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool { return c.Get("thread_ts") == ts })
	rec.mu.Lock()
	p, ok := rec.tracked[ph.TS]
	rec.mu.Unlock()
	if !ok || p.Channel != "C0FAIL" || p.Thread != ts || p.Platform != "slack" || p.Click {
		t.Fatalf("tracked %+v (found %v)", p, ok)
	}
	close(d.release)
	h.quiet()
	rec.mu.Lock()
	left, done := len(rec.tracked), rec.done
	rec.mu.Unlock()
	if left != 0 || done != 1 {
		t.Fatalf("after delivery %d placeholders tracked, %d done", left, done)
	}

	since = fake.Mark()
	orphan := inflight.Placeholder{Replica: "dead", Platform: "slack", Workspace: slackfake.TeamID, Channel: "C0FAIL", Thread: "1.1", Message: "1.2", Click: true}
	if resumed, err := h.a.Orphaned(context.Background(), orphan); err != nil || resumed {
		t.Fatalf("a placeholder without its turn: resumed %v, %v", resumed, err)
	}
	c := fake.Wait(t, since, "chat.update", nil)
	if c.TS != "1.2" || !strings.Contains(c.Get("text"), "click it again") {
		t.Fatalf("orphan replaced with %s %q", c.TS, c.Get("text"))
	}
}

// resumingDialog answers every event, recording it.
type resumingDialog struct {
	events chan dialog.Event
}

func (d *resumingDialog) Handle(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	d.events <- ev
	return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: "done: " + ev.Text}}, nil
}

// TestOrphanedTurnIsFinished: a placeholder is recorded with its turn; a
// process that takes it over (another replica, or this one restarted)
// sends the same event again, marked resumed, and its reply replaces the
// "Looking…" placeholder in the same thread; the taken-over placeholder
// is forgotten once delivered.
func TestOrphanedTurnIsFinished(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	d := &resumingDialog{events: make(chan dialog.Event, 4)}
	rec := &recordingInflight{tracked: map[string]inflight.Placeholder{}}
	var seen []inflight.Placeholder
	h := start(t, fake, d, ModeHTTP, func(c *Config) { c.Inflight = &keepingInflight{rec, &seen} })
	ts := newTS()
	h.event(mention(t, "U0ANA", "C0TAKE", ts, "", "how many loans this year?"))
	first := <-d.events
	h.quiet()
	rec.mu.Lock()
	if len(seen) != 1 || len(seen[0].Turn) == 0 {
		rec.mu.Unlock()
		t.Fatalf("tracked without its turn: %+v", seen)
	}
	orphan, doneBefore := seen[0], rec.done
	rec.mu.Unlock()
	orphan.Replica = "dead"

	since := fake.Mark()
	resumed, err := h.a.Orphaned(context.Background(), orphan)
	if err != nil || !resumed {
		t.Fatalf("resumed %v, %v", resumed, err)
	}
	again := <-d.events
	if !again.Resume || again.Text != first.Text || again.Conversation != first.Conversation || again.Who.User != "U0ANA" {
		t.Fatalf("resumed event %+v, want %+v resumed", again, first)
	}
	up := fake.Wait(t, since, "chat.update", nil)
	if up.TS != orphan.Message || !strings.Contains(up.Get("text"), "done: how many loans this year?") {
		t.Fatalf("the reply did not replace the placeholder: %s %q", up.TS, up.Get("text"))
	}
	h.quiet()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.done != doneBefore+1 {
		t.Fatalf("the finished placeholder was forgotten %d times, want once", rec.done-doneBefore)
	}
}

// keepingInflight also keeps every placeholder tracked, in order.
type keepingInflight struct {
	*recordingInflight
	seen *[]inflight.Placeholder
}

func (k *keepingInflight) Track(ctx context.Context, p inflight.Placeholder) error {
	k.mu.Lock()
	*k.seen = append(*k.seen, p)
	k.mu.Unlock()
	return k.recordingInflight.Track(ctx, p)
}

// prechecked refuses every new question before the dialog sees it.
type prechecked struct {
	blockingDialog
	handled atomic.Int32
}

func (p *prechecked) Precheck(context.Context, dialog.Who) string {
	return "You're asking faster than this channel allows (10 questions a minute). Please try again in about 5 seconds."
}

func (p *prechecked) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	p.handled.Add(1)
	return nil, nil
}

// TestRefusalIsOneEphemeralMessage: a question the rate limits refuse
// costs one chat.postEphemeral: no placeholder, no dialog turn.
func TestRefusalIsOneEphemeralMessage(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	d := &prechecked{}
	h := start(t, fake, d, ModeHTTP, nil)
	since := fake.Mark()
	h.event(mention(t, "U0ANA", "C0RATE", newTS(), "", "how many customers do we have?"))
	e := fake.Wait(t, since, "chat.postEphemeral", nil)
	if !strings.Contains(e.Get("text"), "faster than this channel") || e.Get("user") != "U0ANA" {
		t.Fatalf("refusal: %q to %s", e.Get("text"), e.Get("user"))
	}
	h.quiet()
	var calls []string
	for _, c := range fake.Calls("") {
		if c.Seq >= since {
			calls = append(calls, c.Method)
		}
	}
	if len(calls) != 1 || d.handled.Load() != 0 {
		t.Fatalf("a refusal cost %v and %d dialog turns, want one chat.postEphemeral and none", calls, d.handled.Load())
	}
}
