package slack

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

func TestSeenSetRemembersForTTL(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newSeenSet(time.Hour, func() time.Time { return now })
	if !s.first("Ev1") || s.first("Ev1") {
		t.Fatal("a key is new once")
	}
	now = now.Add(59 * time.Minute)
	if s.first("Ev1") {
		t.Fatal("forgotten within the hour")
	}
	now = now.Add(2 * time.Minute)
	if !s.first("Ev1") {
		t.Fatal("remembered after its time")
	}
	s.forget("Ev1")
	if !s.first("Ev1") {
		t.Fatal("forget did not forget")
	}
}

func TestAdminsConfiguredOrFromUsersInfo(t *testing.T) {
	t.Parallel()
	var lookups atomic.Int32
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &admins{
		fixed: map[string]bool{"U0CFG": true}, now: func() time.Time { return now }, log: slog.New(slog.DiscardHandler), cache: map[string]adminEntry{},
		lookup: func(_ context.Context, user string) (*slack.User, error) {
			lookups.Add(1)
			switch user {
			case "U0OWNER":
				return &slack.User{ID: user, IsOwner: true}, nil
			case "U0DOWN":
				return nil, errors.New("users.info: timeout")
			}
			return &slack.User{ID: user}, nil
		},
	}
	ctx := context.Background()
	cases := []struct {
		user string
		want bool
	}{{"U0CFG", true}, {"U0OWNER", true}, {"U0OWNER", true}, {"U0ANA", false}, {"U0DOWN", false}, {"", false}}
	for _, tc := range cases {
		if got := a.isAdmin(ctx, "T1", tc.user); got != tc.want {
			t.Errorf("isAdmin(%q) = %v", tc.user, got)
		}
	}
	if n := lookups.Load(); n != 3 { // owner once (cached), ana, down
		t.Fatalf("%d users.info calls", n)
	}
	now = now.Add(adminTTL + time.Second)
	a.isAdmin(ctx, "T1", "U0OWNER")
	if n := lookups.Load(); n != 4 {
		t.Fatalf("the cache should expire: %d calls", n)
	}
}

// TestShutdownDrains: work acknowledged before shutdown is finished
// before Run returns.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Workers = 1 })
	var threads []string
	for range 3 {
		ts := newTS()
		threads = append(threads, ts)
		h.event(mention(t, "U0HAL", "C0DRAIN", ts, "", "how many customers do we have?"))
	}
	if err := h.stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	answered := map[string]bool{}
	for _, c := range fake.Calls("chat.update") {
		if strings.Contains(c.Get("blocks"), actCorrect) {
			answered[h.postedIn(c.TS)] = true
		}
	}
	for _, ts := range threads {
		if !answered[ts] {
			t.Fatalf("question %s was acknowledged but not answered before Run returned", ts)
		}
	}
	// After shutdown, new events are refused (not acknowledged) so that
	// Slack sends them again, to the next run of the bot.
	ev, err := slackevents.ParseEvent(mustJSON(t, mention(t, "U0HAL", "C0DRAIN", newTS(), "", "hello")), slackevents.OptionNoVerifyToken())
	if err != nil {
		t.Fatal(err)
	}
	if h.a.acceptEvent(ev) {
		t.Fatal("an event accepted after shutdown would be lost")
	}
}

// panicky is fault injection: a dialog that panics on its first event.
type panicky struct {
	Dialog
	fired atomic.Bool
}

func (p *panicky) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	if ev.Kind == dialog.EventMessage && !p.fired.Swap(true) {
		panic("injected fault")
	}
	return p.Dialog.Handle(ctx, ev)
}

// TestPanicBecomesApology: a panic while handling an event is recovered,
// the person gets a short apology, and the next event is answered.
func TestPanicBecomesApology(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, &panicky{Dialog: env.Manager}, ModeHTTP, func(c *Config) { c.Workers = 1 })
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, "U0IDA", "C0PANIC", ts, "", "how many customers do we have?"))
	sorry := h.reply(since, "C0PANIC", ts, func(m msg) bool { return strings.Contains(m.text(), "Sorry") })
	if strings.Contains(sorry.text(), "injected") {
		t.Fatalf("the panic's details must stay in the log: %s", sorry.text())
	}
	h.marker("C0PANIC")
}
