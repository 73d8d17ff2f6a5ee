package slack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestSocketMode drives the adapter over a local Socket Mode WebSocket:
// events, a retried envelope, a click, a refused modal submission and a
// slash command are each acknowledged, and the work shows up in Slack.
func TestSocketMode(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeSocket, func(c *Config) { c.Workers = 1 })
	sock := fake.Socket(t)
	if c := fake.Calls("apps.connections.open"); len(c) != 1 {
		t.Fatalf("apps.connections.open called %d times", len(c))
	}
	const ana, ch = "U0ANA", "C0SOCK"

	// A mention, then Slack sending the same event again.
	ts := newTS()
	ev := mention(t, ana, ch, ts, "", "list customers in Ohio")
	since := fake.Mark()
	sock.Send(t, "env-1", "events_api", mustJSON(t, ev), 0)
	if p := sock.WaitAck(t, "env-1"); string(p) != "null" {
		t.Fatalf("an event ack carries no payload, got %s", p)
	}
	sock.Send(t, "env-1-retry", "events_api", mustJSON(t, ev), 1)
	sock.WaitAck(t, "env-1-retry")
	q := h.reply(since, ch, ts, isClarification)

	// An app_home_opened event publishes the Home tab.
	home := fixture(t, "app_home_opened.json")
	set(home, "event_id", uniq("Ev"))
	sock.Send(t, "env-home", "events_api", mustJSON(t, home), 0)
	sock.WaitAck(t, "env-home")
	pub := fake.Wait(t, since, "views.publish", nil)
	if pub.Get("user_id") != "U0ANA" || pub.View()["type"] != "home" {
		t.Fatalf("views.publish %s", pub.Raw)
	}

	// Other… opens a modal; an empty submission is refused in the ack.
	since = fake.Mark()
	sock.Send(t, "env-2", "interactive", mustJSON(t, h.click(q, ana, actOther, "")), 0)
	sock.WaitAck(t, "env-2")
	open := fake.Wait(t, since, "views.open", nil)
	sub := fixture(t, "view_submission.json")
	set(sub, "view.private_metadata", open.View()["private_metadata"])
	set(sub, "view.state.values.input.value.value", "")
	sock.Send(t, "env-3", "interactive", mustJSON(t, sub), 0)
	var refusal struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(sock.WaitAck(t, "env-3"), &refusal); err != nil || refusal.Action != "errors" || refusal.Errors[inputBlock] == "" {
		t.Fatalf("empty submission ack: %+v %v", refusal, err)
	}

	// A click answers the question.
	since = fake.Mark()
	sock.Send(t, "env-4", "interactive", mustJSON(t, h.click(q, ana, indexed(actChoose, 0), "")), 0)
	sock.WaitAck(t, "env-4")
	h.reply(since, ch, ts, func(m msg) bool { return m.ts == q.ts && !m.has(actOther) })

	// A slash command, acknowledged at once, answered through its response_url.
	form := formQuery(t, "slash_command.form")
	cmd := map[string]string{}
	for k := range form {
		cmd[k] = form.Get(k)
	}
	cmd["response_url"] = fake.ResponseURL("sock-cmd")
	cmd["text"] = "help"
	since = fake.Mark()
	sock.Send(t, "env-5", "slash_commands", mustJSON(t, cmd), 0)
	sock.WaitAck(t, "env-5")
	reply := fake.Wait(t, since, "response_url", nil)
	if !strings.Contains(reply.Get("text"), "/clarify prefs") {
		t.Fatalf("help: %s", reply.Raw)
	}

	// The retried envelope was not handled again: one placeholder in the thread.
	mts := newTS()
	since = fake.Mark()
	sock.Send(t, "env-6", "events_api", mustJSON(t, mention(t, "U0MARK", ch, mts, "", "how many customers do we have?")), 0)
	h.reply(since, ch, mts, isAnswer)
	if n := threadCalls(fake, 0, ts); n != 2 { // the question's placeholder, and the click's
		t.Fatalf("%d messages posted in the thread, want 2", n)
	}
	if err := h.stop(); err != nil {
		t.Fatalf("Run after shutdown: %v", err)
	}
	noViolations(t, fake)
}

// TestSocketModeRefusedAppToken: a refused app-level token ends Run with a clear error.
func TestSocketModeRefusedAppToken(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 300, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeSocket, func(c *Config) { c.AppToken = "xapp-1-revoked" })
	err := h.wait()
	if err == nil || !strings.Contains(err.Error(), "SLACK_APP_TOKEN") {
		t.Fatalf("want a clear error about the app-level token, got %v", err)
	}
}
