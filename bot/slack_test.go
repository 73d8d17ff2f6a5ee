package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
)

// TestSlackHTTPModeServe runs the whole bot with Slack in HTTP mode against
// a fake Slack: the endpoints are on the bot's server, a mention is
// answered in its thread, /clarify reaches the warehouse router, and
// shutdown is clean.
func TestSlackHTTPModeServe(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	m, cancel, wait := startMain(t, Config{
		Warehouses: []WarehouseConfig{{Name: "sales", Demo: true, DemoOrders: 300}, {Name: "finance", Demo: true, DemoOrders: 300}},
		Slack: SlackConfig{
			BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL(),
		},
	})
	if len(fake.Calls("auth.test")) != 1 {
		t.Fatal("the bot token should be checked with auth.test at start-up")
	}
	base := "http://" + m.Addr()

	// Slack checks the events URL first.
	code, body := slackfake.Post(t, base+slackadapter.EventsPath, slackfake.Secret, time.Now(), "application/json",
		[]byte(`{"token":"x","challenge":"c-123","type":"url_verification"}`), nil)
	if code != http.StatusOK || body != "c-123" {
		t.Fatalf("url_verification: %d %q", code, body)
	}
	// An unsigned request is refused.
	resp, err := http.Post(base+slackadapter.EventsPath, "application/json", strings.NewReader(`{"type":"url_verification","challenge":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned request: %d", resp.StatusCode)
	}

	// A mention is answered in its thread.
	ev := map[string]any{
		"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
		"event_id": "Ev0BOT0000001", "event_time": 1767100000,
		"event": map[string]any{
			"type": "app_mention", "user": "U0ANA", "channel": "C0SALES", "ts": "1767100000.000100", "event_ts": "1767100000.000100",
			"text": "<@" + slackfake.BotUserID + "> how many customers do we have?",
		},
	}
	raw, _ := json.Marshal(ev)
	since := fake.Mark()
	if code, body := slackfake.Post(t, base+slackadapter.EventsPath, slackfake.Secret, time.Now(), "application/json", raw, nil); code != http.StatusOK {
		t.Fatalf("event: %d %s", code, body)
	}
	placeholder := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool { return c.Get("thread_ts") == "1767100000.000100" })
	answer := fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == placeholder.TS })
	if !strings.Contains(answer.Get("blocks"), "clarify.correct") || !strings.Contains(answer.Get("text"), "customers") {
		t.Fatalf("want the answer in the thread: %s", answer.Get("text"))
	}

	// /clarify warehouse goes to the bot's router.
	form := url.Values{"team_id": {slackfake.TeamID}, "channel_id": {"C0SALES"}, "user_id": {"U0ANA"}, "command": {"/clarify"},
		"text": {"warehouse finance"}, "response_url": {fake.ResponseURL("wh")}, "trigger_id": {"1.2.3"}}
	since = fake.Mark()
	if code, body := slackfake.Post(t, base+slackadapter.CommandsPath, slackfake.Secret, time.Now(), "application/x-www-form-urlencoded", []byte(form.Encode()), nil); code != http.StatusOK {
		t.Fatalf("command: %d %s", code, body)
	}
	reply := fake.Wait(t, since, "response_url", nil)
	if !strings.Contains(reply.Get("text"), `"finance"`) {
		t.Fatalf("warehouse command: %s", reply.Raw)
	}
	if cur := m.router.Current(slackWho("C0SALES")); cur != "finance" {
		t.Fatalf("router not switched: %s", cur)
	}
	if v := fake.Violations(); len(v) > 0 {
		t.Fatalf("Block Kit violations: %v", v)
	}

	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestSlackBadTokenStopsServe: a token auth.test refuses stops the Slack
// platform only: the bot starts and serves, the log and /healthz name the
// setting and the fix, and the token is not tried again and again.
func TestSlackBadTokenStopsServe(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	fake.FailAuth("invalid_auth")
	m, cancel, wait := startMain(t, Config{Slack: SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()}})
	h := waitHealth(t, m, func(h healthzBody) bool { return h.Components["slack"].State == stateStopped })
	if d := h.Components["slack"].Detail; !strings.Contains(d, "SLACK_BOT_TOKEN") || !strings.Contains(d, "invalid_auth") || !strings.Contains(d, "OAuth & Permissions") {
		t.Fatalf("slack detail %q", d)
	}
	if h.Status != "degraded" || h.Warehouses["demo"] != "ok" {
		t.Fatalf("healthz %+v", h)
	}
	if n := len(fake.Calls("auth.test")); n != 2 {
		t.Fatalf("auth.test called %d times; once at start and once by Run, then never again", n)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestSlackNotConfigured: no Slack tokens, no Slack platform.
func TestSlackNotConfigured(t *testing.T) {
	t.Parallel()
	p, err := buildSlack(context.Background(), Config{}, platformDeps{})
	if p != nil || err != nil {
		t.Fatalf("buildSlack without tokens: %v %v", p, err)
	}
}

func slackWho(channel string) dialog.Who {
	return dialog.Who{Platform: "slack", Workspace: slackfake.TeamID, Channel: channel, User: "U0ANA"}
}

// TestSlackThreadFollowUpServe: with the whole bot, a reply in the thread
// of a question the bot answered (a message.channels event, no mention)
// continues that conversation, with two warehouses to route between; a
// reply in a thread the bot is not in is left alone.
func TestSlackThreadFollowUpServe(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	m, _, _ := startMain(t, Config{
		Warehouses: []WarehouseConfig{{Name: "sales", Demo: true, DemoOrders: 300}, {Name: "finance", Demo: true, DemoOrders: 300}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	})
	h := &replicas{t: t, fake: fake, base: [2]string{"http://" + m.Addr(), "http://" + m.Addr()}}
	const ch = "C0SALES"
	t1 := h.newTS()
	since := fake.Mark()
	h.post(0, slackadapter.EventsPath, "application/json", h.mention("Ev0FOLLOW01", "U0ANA", ch, t1, "list customers in Ohio"), nil)
	q := h.wait(since, ch, t1, isClarificationBlocks)

	reply := func(eventID, thread, text string) {
		b, _ := json.Marshal(map[string]any{
			"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback", "event_id": eventID, "event_time": 1767200000,
			"event": map[string]any{"type": "message", "channel_type": "channel", "user": "U0ANA", "channel": ch,
				"ts": h.newTS(), "thread_ts": thread, "text": text},
		})
		h.post(0, slackadapter.EventsPath, "application/json", b, nil)
	}
	since = fake.Mark()
	reply("Ev0FOLLOW02", t1, "1") // the first option, typed in the thread
	next := h.wait(since, ch, t1, func(b blocks) bool {
		return isAnswerBlocks(b) || (isClarificationBlocks(b) && !strings.Contains(b.text(), `"value":"`+q.ts))
	})
	if next.ts == "" {
		t.Fatal("the follow-up got no reply")
	}
	other := h.newTS()
	since = fake.Mark()
	reply("Ev0FOLLOW03", other, "how many customers do we have?")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.platforms[0].(*slackadapter.Adapter).Quiet(ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.count(ch, other, func(slackfake.Call) bool { return true }); n != 0 {
		t.Fatalf("%d messages in a thread the bot is not in", n)
	}
}
