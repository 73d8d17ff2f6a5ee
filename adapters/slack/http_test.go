package slack

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// marker asks a quick question, waits for its answer, then waits until
// the adapter has nothing queued or running: everything accepted before
// the marker is finished.
func (h *harness) marker(channel string) {
	h.t.Helper()
	ts := newTS()
	since := h.fake.Mark()
	h.event(mention(h.t, "U0MARK", channel, ts, "", "how many customers do we have?"))
	h.reply(since, channel, ts, isAnswer)
	h.quiet()
}

// quiet waits until the intake lane and the work pool are both idle.
func (h *harness) quiet() {
	h.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		vIdle, vChanged := h.a.visible.Idle()
		wIdle, wChanged := h.a.work.Idle()
		if vIdle && wIdle {
			return
		}
		select {
		case <-vChanged:
		case <-wChanged:
		case <-deadline:
			h.t.Fatal("the adapter did not become idle")
		}
	}
}

// threadCalls counts the messages posted in a thread (each handled
// question posts one, its placeholder, which the answer replaces).
func threadCalls(fake *slackfake.Server, since int, thread string) int {
	n := 0
	for _, c := range fake.Calls("chat.postMessage") {
		if c.Seq >= since && c.Get("thread_ts") == thread {
			n++
		}
	}
	return n
}

// TestHTTPRequestsAreVerified: unsigned, badly signed and stale requests
// are refused before anything is done with them; a replayed event (a
// retry in the same second has the same signature) is answered 200 and
// handled once, by its event id; a replayed command is refused.
func TestHTTPRequestsAreVerified(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Workers = 1 })

	ts := newTS()
	body := mustJSON(t, mention(t, "U0EVE", "C0SEC", ts, "", "how many customers do we have?"))
	now := time.Now()
	cases := []struct {
		name    string
		headers http.Header
		want    int
	}{
		{"no signature", http.Header{"Content-Type": {"application/json"}}, http.StatusUnauthorized},
		{"wrong secret", slackfake.Sign("not-the-secret", now, body), http.StatusUnauthorized},
		{"stale timestamp", slackfake.Sign(slackfake.Secret, now.Add(-10*time.Minute), body), http.StatusUnauthorized},
		{"future timestamp", slackfake.Sign(slackfake.Secret, now.Add(10*time.Minute), body), http.StatusUnauthorized},
		{"tampered body", slackfake.Sign(slackfake.Secret, now, append([]byte(" "), body...)), http.StatusUnauthorized},
	}
	since := fake.Mark()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, h.url+EventsPath, strings.NewReader(string(body)))
			for k, v := range tc.headers {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	// The same signed request twice: the second is a replay.
	signed := slackfake.Sign(slackfake.Secret, now, body)
	send := func() int {
		req, _ := http.NewRequest(http.MethodPost, h.url+EventsPath, strings.NewReader(string(body)))
		for k, v := range signed {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(); code != http.StatusOK {
		t.Fatalf("signed request: %d", code)
	}
	if code := send(); code != http.StatusOK {
		t.Fatalf("replayed event: %d, want 200 (de-duplicated by its id)", code)
	}
	cmd := []byte("command=%2Fclarify&text=help&team_id=" + slackfake.TeamID + "&user_id=U0EVE&channel_id=C0SEC&response_url=" + url.QueryEscape(fake.ResponseURL("replay")))
	cmdSigned := slackfake.Sign(slackfake.Secret, now, cmd)
	for i, want := range []int{http.StatusOK, http.StatusUnauthorized} {
		req, _ := http.NewRequest(http.MethodPost, h.url+CommandsPath, strings.NewReader(string(cmd)))
		for k, v := range cmdSigned {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("command sent %d times: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	// Interactivity and commands are guarded too.
	for _, path := range []string{InteractivityPath, CommandsPath} {
		req, _ := http.NewRequest(http.MethodPost, h.url+path, strings.NewReader("payload=%7B%7D"))
		for k, v := range slackfake.Sign("wrong", now, []byte("payload=%7B%7D")) {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s with a bad signature: %d", path, resp.StatusCode)
		}
	}
	h.marker("C0SEC")
	if n := threadCalls(fake, since, ts); n != 1 { // one placeholder, replaced by the answer
		t.Fatalf("the one verified request should be handled once: %d messages in its thread", n)
	}
}

func TestURLVerification(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	h := start(t, slackfake.New(t), env.Manager, ModeHTTP, nil)
	p := fixture(t, "url_verification.json")
	code, body := h.send(EventsPath, "application/json", mustJSON(t, p), nil)
	if code != http.StatusOK || body != p["challenge"] {
		t.Fatalf("url_verification: %d %q", code, body)
	}
}

// TestRetriedEventHandledOnce: Slack sends an event again (X-Slack-Retry-Num,
// fresh signature, same event_id); it is acknowledged and not handled twice.
func TestRetriedEventHandledOnce(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Workers = 1 })
	ts := newTS()
	p := mention(t, "U0FAY", "C0RETRY", ts, "", "how many customers do we have?")
	since := fake.Mark()
	h.event(p)
	for n := 1; n <= 3; n++ {
		retry := http.Header{"X-Slack-Retry-Num": {string(rune('0' + n))}, "X-Slack-Retry-Reason": {"http_timeout"}}
		// A fresh timestamp makes a fresh signature, as Slack's retries have.
		code, body := slackfake.Post(t, h.url+EventsPath, slackfake.Secret, time.Now().Add(time.Duration(n)*time.Second), "application/json", mustJSON(t, p), retry)
		if code != http.StatusOK {
			t.Fatalf("retry %d: %d %s", n, code, body)
		}
	}
	h.reply(since, "C0RETRY", ts, isAnswer)
	h.marker("C0RETRY")
	if n := threadCalls(fake, since, ts); n != 1 {
		t.Fatalf("a retried event must be handled once: %d messages in its thread", n)
	}
}

// TestIgnoresBotsAndItself: the bot's own messages and other bots' are
// not questions (no reply loops).
func TestIgnoresBotsAndItself(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Workers = 1 })
	since := fake.Mark()
	own := fixture(t, "message_im_bot.json")
	h.event(own)
	other := fixture(t, "message_im_bot.json")
	set(other, "event_id", uniq("Ev"))
	set(other, "event.bot_id", "B0OTHER")
	set(other, "event.user", "U0OTHERBOT")
	h.event(other)
	edited := fixture(t, "message_im.json")
	set(edited, "event_id", uniq("Ev"))
	set(edited, "event.subtype", "message_changed")
	h.event(edited)
	selfMention := mention(t, slackfake.BotUserID, "C0BOTS", newTS(), "", "what was revenue?")
	h.event(selfMention)
	h.marker("C0BOTS")
	for _, c := range fake.Calls("") {
		if c.Seq >= since && c.Method != "users.info" && c.Get("channel") != "C0BOTS" {
			t.Fatalf("the bot answered a bot: %s %v", c.Method, c.Form)
		}
	}
	if n := len(fake.Calls("chat.postMessage")); n != 1 {
		t.Fatalf("%d messages posted; want only the marker's placeholder", n)
	}
}

// TestRateLimitIsWaitedOut: a 429 on posting is waited out (Retry-After)
// and the message still arrives.
func TestRateLimitIsWaitedOut(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	fake.RateLimit("chat.postMessage", 1)
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, "U0GIL", "C0LIMIT", ts, "", "how many customers do we have?"))
	h.reply(since, "C0LIMIT", ts, isAnswer)
	posts := 0
	for _, c := range fake.Calls("chat.postMessage") {
		if c.Seq >= since && c.Get("thread_ts") == ts {
			posts++
		}
	}
	if posts != 2 { // the refused attempt and the one that went through
		t.Fatalf("want the rate-limited post retried once, saw %d attempts", posts)
	}
}

// TestSlashCommand: /clarify help, prefs, forget and warehouse answer
// ephemerally through the command's response_url.
func TestSlashCommand(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	wh := &warehouses{names: []string{"sales", "finance"}}
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Warehouses = wh })
	cases := []struct{ text, want string }{
		{"", "/clarify prefs"},
		{"help", "/clarify forget"},
		{"help", "This warehouse holds 10 subjects"}, // and what the data holds
		{"prefs", "haven't learned any preferences"},
		{"forget revenue", "no preference for 'revenue'"},
		{"forget", "which word to forget"},
		{"warehouse", `go to the "sales" warehouse`},
		{"warehouse finance", `now go to the "finance" warehouse`},
		{"warehouse nowhere", "no warehouse called"},
		{"dance", "don't know the command"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			form := formQuery(t, "slash_command.form")
			form.Set("text", tc.text)
			hook := uniq("cmd-")
			form.Set("response_url", fake.ResponseURL(hook))
			since := fake.Mark()
			code, body := h.send(CommandsPath, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
			if code != http.StatusOK || body != "" {
				t.Fatalf("ack: %d %q", code, body)
			}
			c := fake.Wait(t, since, "response_url", func(c slackfake.Call) bool {
				return c.Get("hook") == hook && strings.Contains(c.Get("text"), tc.want)
			})
			if c.Get("response_type") != "ephemeral" || !strings.Contains(c.Get("text"), tc.want) {
				t.Fatalf("reply %s %q, want %q", c.Get("response_type"), c.Get("text"), tc.want)
			}
		})
	}
	if wh.current != "finance" {
		t.Fatalf("warehouse not switched: %q", wh.current)
	}
	noViolations(t, fake)
}

// TestSlashWarehouseKnowsTheAdmin: /clarify warehouse from a configured
// admin reaches the router as an admin, whose access rules may allow only
// the "admin" role.
func TestSlashWarehouseKnowsTheAdmin(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	wh := &warehouses{names: []string{"sales", "finance"}}
	form := formQuery(t, "slash_command.form")
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.Warehouses = wh; c.Admins = []string{form.Get("user_id")} })
	form.Set("text", "warehouse finance")
	hook := uniq("cmd-")
	form.Set("response_url", fake.ResponseURL(hook))
	since := fake.Mark()
	if code, body := h.send(CommandsPath, "application/x-www-form-urlencoded", []byte(form.Encode()), nil); code != http.StatusOK || body != "" {
		t.Fatalf("ack: %d %q", code, body)
	}
	fake.Wait(t, since, "response_url", func(c slackfake.Call) bool { return c.Get("hook") == hook })
	if !wh.lastWho.Admin {
		t.Fatalf("the configured admin chose a warehouse as %+v", wh.lastWho)
	}
}

// warehouses stands in for the bot's router.
type warehouses struct {
	names   []string
	current string
	lastWho dialog.Who
}

func (w *warehouses) Warehouses() []string { return w.names }
func (w *warehouses) Current(dialog.Who) string {
	if w.current == "" {
		return w.names[0]
	}
	return w.current
}
func (w *warehouses) Choose(who dialog.Who, name string) (string, error) {
	w.lastWho = who
	for _, n := range w.names {
		if n == name {
			w.current = n
			return n, nil
		}
	}
	return "", &noWarehouse{name}
}

type noWarehouse struct{ name string }

func (e *noWarehouse) Error() string { return "there is no warehouse called " + e.name }

// TestBadTokenFailsAtStart: auth.test refusing the token is a clear error.
func TestBadTokenFailsAtStart(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(t)
	fake.FailAuth("invalid_auth")
	_, err := New(context.Background(), Config{BotToken: slackfake.BotToken, Mode: ModeHTTP, SigningSecret: "s", APIURL: fake.APIURL()}, nopDialog{})
	if err == nil || !strings.Contains(err.Error(), "SLACK_BOT_TOKEN") || !strings.Contains(err.Error(), "invalid_auth") {
		t.Fatalf("want a clear auth.test error, got %v", err)
	}
	for _, cfg := range []Config{
		{BotToken: "xoxp-user-token", Mode: ModeHTTP, SigningSecret: "s"},
		{BotToken: slackfake.BotToken, Mode: ModeSocket},
		{BotToken: slackfake.BotToken, Mode: ModeHTTP},
		{BotToken: slackfake.BotToken, Mode: "webhook", SigningSecret: "s"},
	} {
		cfg.APIURL = fake.APIURL()
		if _, err := New(context.Background(), cfg, nopDialog{}); err == nil {
			t.Errorf("config %+v should be refused", cfg)
		}
	}
}

type nopDialog struct{}

func (nopDialog) Handle(context.Context, dialog.Event) ([]dialog.Reply, error) { return nil, nil }
