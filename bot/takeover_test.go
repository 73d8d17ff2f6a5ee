package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// leftPlaceholder is a "Looking…" message a stopped process left, as its
// Slack adapter recorded it.
type leftPlaceholder struct {
	thread, question string
	// withTurn: recorded with its turn (releases before 28 did not).
	withTurn  bool
	takeovers int
	ts        string
}

// leavePlaceholders posts each placeholder in its thread of the fake and
// records it in db as the placeholder of replica gone, with the turn the
// Slack adapter records (the question's event and who asked).
func leavePlaceholders(t *testing.T, fake *slackfake.Server, db kv.DB, gone, channel, user string, ps []*leftPlaceholder) {
	t.Helper()
	ctx := context.Background()
	st, err := inflight.New(ctx, db, gone, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(fake.APIURL()))
	for _, p := range ps {
		_, ts, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("Looking…", false), slack.MsgOptionTS(p.thread))
		if err != nil {
			t.Fatal(err)
		}
		p.ts = ts
		rec := inflight.Placeholder{Platform: "slack", Workspace: slackfake.TeamID, Channel: channel, Thread: p.thread, Message: ts, Takeovers: p.takeovers}
		if p.withTurn {
			turn := struct {
				Event dialog.Event `json:"event"`
				User  string       `json:"user"`
			}{dialog.Event{
				Kind:         dialog.EventMessage,
				Conversation: dialog.ThreadKey(channel, p.thread),
				Who:          dialog.Who{Platform: "slack", Workspace: slackfake.TeamID, Channel: channel, User: user},
				Text:         p.question,
			}, user}
			if rec.Turn, err = json.Marshal(turn); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Track(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStoppedTurnsTakenOver: placeholders a stopped process left are
// taken over when the bot starts — by the restarted bot on its data
// directory (files), or by one of two replicas starting at once on the
// shared store (server). The placeholder with its turn becomes the
// answer, once, in its thread; one recorded without a turn, and one
// whose turn already stopped the replica that took it over, become the
// note to ask again.
func TestStoppedTurnsTakenOver(t *testing.T) {
	const ana, ch = "U0ANA", "C0CLINIC"
	demo := []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}}
	for _, variant := range []string{"files", "server"} {
		t.Run(variant, func(t *testing.T) {
			fake := slackfake.New(t)
			h := &replicas{t: t, fake: fake}
			answered := &leftPlaceholder{thread: h.newTS(), question: "how many customers are there?", withTurn: true}
			old := &leftPlaceholder{thread: h.newTS(), question: "how many orders are there?"}
			again := &leftPlaceholder{thread: h.newTS(), question: "how many products are there?", withTurn: true, takeovers: 1}
			left := []*leftPlaceholder{answered, old, again}
			slackCfg := SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()}

			type running struct {
				m    *Main
				stop func()
			}
			var (
				mu   sync.Mutex
				bots []running
			)
			start := func(cfg Config) {
				m, cancel, wait := startMainWith(t, cfg, MainOptions{Timings: fastTimings})
				mu.Lock()
				defer mu.Unlock()
				bots = append(bots, running{m, func() { cancel(); wait(); m.Close() }})
			}
			var check func() kv.DB
			switch variant {
			case "files":
				dir := t.TempDir()
				db, err := boltkv.Open(filepath.Join(dir, stack.InflightFile), boltkv.Options{Timeout: time.Second})
				if err != nil {
					t.Fatal(err)
				}
				leavePlaceholders(t, fake, db, "earlier-run", ch, ana, left)
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				start(Config{DataDir: dir, Warehouses: demo, Slack: slackCfg})
				check = func() kv.DB {
					db, err := boltkv.Open(filepath.Join(dir, stack.InflightFile), boltkv.Options{Timeout: time.Second})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { db.Close() })
					return db
				}
			case "server":
				dsn := kvtest.MustDatabase(t)
				srv := kvtest.MustServerOn(t, dsn)
				leavePlaceholders(t, fake, srv.Namespace(stack.NsInflight), "stopped-replica", ch, ana, left)
				// Two survivors look for orphans at once.
				done := make(chan struct{})
				go func() {
					defer close(done)
					start(Config{Store: StoreConfig{DSN: dsn}, Warehouses: demo, Slack: slackCfg})
				}()
				start(Config{Store: StoreConfig{DSN: dsn}, Warehouses: demo, Slack: slackCfg})
				<-done
				check = func() kv.DB { return srv.Namespace(stack.NsInflight) }
			}

			finished := h.wait(0, ch, answered.thread, func(b blocks) bool { return isAnswerBlocks(b) || isClarificationBlocks(b) })
			if finished.ts != answered.ts {
				t.Errorf("the turn was finished in a new message %s, not in place of its placeholder %s", finished.ts, answered.ts)
			}
			for _, p := range []*leftPlaceholder{old, again} {
				note := fake.Wait(t, 0, "chat.update", func(c slackfake.Call) bool { return c.TS == p.ts })
				if !strings.Contains(note.Get("text"), "Please ask again") {
					t.Errorf("placeholder of %q became %q, want the note to ask again", p.question, note.Get("text"))
				}
			}
			resumed := 0.0
			for _, b := range bots {
				resumed += sample(scrape(t, b.m.Addr()), "clarify_orphaned_turns_resumed_total", map[string]string{"platform": "slack"})
			}
			if resumed != 1 {
				t.Errorf("turns resumed = %v, want 1", resumed)
			}
			// Once every bot has stopped, nothing more can come: the turn
			// was answered exactly once, and no placeholder is left over.
			for _, b := range bots {
				b.stop()
			}
			if n := h.count(ch, answered.thread, func(c slackfake.Call) bool {
				b := parseBlocks(c)
				return isAnswerBlocks(b) || isClarificationBlocks(b)
			}); n != 1 {
				t.Errorf("the taken-over turn was answered %d times, want once", n)
			}
			for _, p := range []*leftPlaceholder{old, again} {
				if n := h.count(ch, p.thread, func(c slackfake.Call) bool { return c.Method == "chat.update" }); n != 1 {
					t.Errorf("placeholder of %q updated %d times, want once", p.question, n)
				}
			}
			st, err := inflight.New(context.Background(), check(), "checker", nil)
			if err != nil {
				t.Fatal(err)
			}
			rest, err := st.Orphans(context.Background(), func(context.Context, string) (bool, error) { return false, nil })
			if err != nil || len(rest) != 0 {
				t.Errorf("placeholders still recorded after the takeover: %+v %v", rest, err)
			}
		})
	}
}
