package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// harness runs one adapter against a fake Slack; inbound HTTP-mode
// requests go to url.
type harness struct {
	t    *testing.T
	fake *slackfake.Server
	a    *Adapter
	url  string
	stop func() error // cancels Run and waits for it
	wait func() error // waits for Run to end by itself
}

var seq atomic.Int64

// uniq makes ids (event ids, timestamps) unique within the test binary.
func uniq(prefix string) string { return fmt.Sprintf("%s%06d", prefix, seq.Add(1)) }

// testLogger writes warnings and errors to the test log while it runs.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(&testWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// start builds and runs an adapter in mode against fake; it is stopped
// (and drained) when the test ends, or earlier with h.stop.
func start(t *testing.T, fake *slackfake.Server, d Dialog, mode string, edit func(*Config)) *harness {
	t.Helper()
	testwh.Quiet()
	cfg := Config{
		BotToken: slackfake.BotToken, AppToken: slackfake.AppToken, SigningSecret: slackfake.Secret,
		Mode: mode, APIURL: fake.APIURL(), Logger: testLogger(t),
		PingInterval: time.Hour, DrainTimeout: time.Minute, Workers: 2,
	}
	if edit != nil {
		edit(&cfg)
	}
	a, err := New(context.Background(), cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Routes(mux)
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	var runErr error
	go func() {
		defer close(finished)
		runErr = a.Run(ctx)
	}()
	wait := func() error {
		select {
		case <-finished:
		case <-time.After(2 * time.Minute):
			t.Error("Run did not return")
		}
		return runErr
	}
	var once sync.Once
	stop := func() error {
		once.Do(func() {
			cancel()
			wait()
			srv.Close()
		})
		return wait()
	}
	t.Cleanup(func() { _ = stop() })
	return &harness{t: t, fake: fake, a: a, url: srv.URL, stop: stop, wait: wait}
}

// fixture reads testdata/name as a JSON object.
func fixture(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// set changes a field of a decoded payload by its dotted path.
func set(m map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// send posts a signed request to an HTTP-mode endpoint.
func (h *harness) send(path, contentType string, body []byte, extra http.Header) (int, string) {
	h.t.Helper()
	return slackfake.Post(h.t, h.url+path, slackfake.Secret, time.Now(), contentType, body, extra)
}

func (h *harness) event(payload map[string]any) {
	h.t.Helper()
	if code, body := h.send(EventsPath, "application/json", mustJSON(h.t, payload), nil); code != http.StatusOK {
		h.t.Fatalf("event refused: %d %s", code, body)
	}
}

func (h *harness) interact(payload map[string]any) string {
	h.t.Helper()
	code, body := h.send(InteractivityPath, "application/x-www-form-urlencoded", slackfake.FormBody(mustJSON(h.t, payload)), nil)
	if code != http.StatusOK {
		h.t.Fatalf("interaction refused: %d %s", code, body)
	}
	return body
}

// mention is an app_mention payload; thread "" starts a new thread.
func mention(t *testing.T, user, channel, ts, thread, text string) map[string]any {
	p := fixture(t, "app_mention.json")
	set(p, "event_id", uniq("Ev"))
	set(p, "event.user", user)
	set(p, "event.channel", channel)
	set(p, "event.ts", ts)
	set(p, "event.event_ts", ts)
	set(p, "event.text", "<@"+slackfake.BotUserID+"> "+text)
	if thread != "" {
		set(p, "event.thread_ts", thread)
	}
	return p
}

func newTS() string { return fmt.Sprintf("1767200000.%06d", seq.Add(1)) }

// msg is a message the bot showed: posted, or put in place of another.
type msg struct {
	call    slackfake.Call
	channel string
	ts      string
	thread  string
	blocks  []map[string]any
}

func toMsg(t *testing.T, c slackfake.Call) msg {
	t.Helper()
	m := msg{call: c, channel: c.Get("channel"), ts: c.TS, thread: c.Get("thread_ts")}
	if raw := c.BlocksJSON(); raw != "" {
		if err := json.Unmarshal([]byte(raw), &m.blocks); err != nil {
			t.Fatalf("blocks of %s: %v", c.Method, err)
		}
	}
	return m
}

// reply waits for the bot to show a message in the channel (a new one in
// the thread, or a placeholder replaced) whose blocks satisfy want.
func (h *harness) reply(since int, channel, thread string, want func(msg) bool) msg {
	h.t.Helper()
	c := h.fake.Wait(h.t, since, "", func(c slackfake.Call) bool {
		switch c.Method {
		case "chat.postMessage":
			if c.Get("thread_ts") != thread {
				return false
			}
		case "chat.update":
			// An update carries no thread: it must be of a message posted in this one.
			if h.postedIn(c.TS) != thread {
				return false
			}
		default:
			return false
		}
		return c.Get("channel") == channel && want(toMsg(h.t, c))
	})
	return toMsg(h.t, c)
}

// postedIn is the thread of the message the bot posted with ts.
func (h *harness) postedIn(ts string) string {
	for _, p := range h.fake.Calls("chat.postMessage") {
		if p.TS == ts {
			return p.Get("thread_ts")
		}
	}
	return ""
}

// element finds a button or menu by action id in the message's blocks.
func (m msg) element(actionID string) (map[string]any, string) {
	for _, b := range m.blocks {
		var els []any
		if e, ok := b["elements"].([]any); ok && b["type"] == "actions" {
			els = e
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			els = append(els, acc)
		}
		for _, e := range els {
			em, _ := e.(map[string]any)
			if em["action_id"] == actionID {
				id, _ := b["block_id"].(string)
				return em, id
			}
		}
	}
	return nil, ""
}

func (m msg) has(actionID string) bool { e, _ := m.element(actionID); return e != nil }

// text is all the text of the message's blocks.
func (m msg) text() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m.blocks)
	return b.String()
}

// click builds a real-shaped block_actions payload for a button (or an
// overflow option, with option set) on m.
func (h *harness) click(m msg, user, actionID string, option string) map[string]any {
	h.t.Helper()
	el, blockID := m.element(actionID)
	if el == nil {
		h.t.Fatalf("no %s in message %s", actionID, m.text())
	}
	p := fixture(h.t, "block_actions.json")
	set(p, "user.id", user)
	set(p, "user.username", strings.ToLower(user))
	set(p, "container.message_ts", m.ts)
	set(p, "container.channel_id", m.channel)
	set(p, "container.thread_ts", m.thread)
	set(p, "channel.id", m.channel)
	set(p, "message.ts", m.ts)
	set(p, "message.thread_ts", m.thread)
	set(p, "message.blocks", m.blocks)
	set(p, "trigger_id", uniq("trigger."))
	set(p, "response_url", h.fake.ResponseURL(uniq("actions-")))
	act := map[string]any{"action_id": actionID, "block_id": blockID, "type": el["type"], "action_ts": newTS()}
	switch el["type"] {
	case "button":
		act["text"], act["value"] = el["text"], el["value"]
	case "overflow":
		for _, o := range el["options"].([]any) {
			om := o.(map[string]any)
			var r ref
			_ = json.Unmarshal([]byte(om["value"].(string)), &r)
			if r.Do == option {
				act["selected_option"] = om
			}
		}
		if act["selected_option"] == nil {
			h.t.Fatalf("no option %q in %s", option, actionID)
		}
	}
	p["actions"] = []any{act}
	return p
}

// choose clicks the option whose label contains label.
func (h *harness) choose(m msg, user, label string) {
	h.t.Helper()
	for i := range dialogMaxOptions {
		el, _ := m.element(indexed(actChoose, i))
		if el == nil {
			break
		}
		text, _ := el["text"].(map[string]any)["text"].(string)
		if strings.Contains(strings.ToLower(text), strings.ToLower(label)) {
			h.interact(h.click(m, user, indexed(actChoose, i), ""))
			return
		}
	}
	h.t.Fatalf("no option %q in %s", label, m.text())
}

const dialogMaxOptions = 3

// untilAnswer picks the first option of each further question until the
// answer comes.
func (h *harness) untilAnswer(since int, user, channel, thread string) msg {
	h.t.Helper()
	for range 6 {
		m := h.reply(since, channel, thread, func(m msg) bool { return isAnswer(m) || isClarification(m) })
		if isAnswer(m) {
			return m
		}
		since = h.fake.Mark()
		h.interact(h.click(m, user, indexed(actChoose, 0), ""))
	}
	h.t.Fatal("no answer after six questions")
	return msg{}
}

// isClarification, isAnswer and isLooking recognise what a message is.
func isClarification(m msg) bool { return m.has(indexed(actChoose, 0)) && m.has(actOther) }
func isAnswer(m msg) bool        { return m.has(actCorrect) && m.has(actSQL) && m.has(actWrong) }

// formQuery decodes a form body.
func formQuery(t *testing.T, name string) url.Values {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	v, err := url.ParseQuery(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
