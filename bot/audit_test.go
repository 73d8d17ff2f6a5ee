package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/ontology"
)

// TestServeRecordsQuestionsForAudit: the whole bot with a fake Slack
// records a mention's question with its thread, and `bot audit` lists it
// once the bot has stopped.
func TestServeRecordsQuestionsForAudit(t *testing.T) {
	fake := slackfake.New(t)
	dir := t.TempDir()
	m, cancel, wait := startMain(t, Config{
		DataDir: dir,
		Slack:   SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	})
	ev := map[string]any{
		"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
		"event_id": "Ev0AUDIT00001", "event_time": 1767100000,
		"event": map[string]any{
			"type": "app_mention", "user": "U0ANA", "channel": "C0SALES", "ts": "1767100000.000100", "event_ts": "1767100000.000100",
			"text": "<@" + slackfake.BotUserID + "> how many customers do we have?",
		},
	}
	raw, _ := json.Marshal(ev)
	since := fake.Mark()
	if code, body := slackfake.Post(t, "http://"+m.Addr()+slackadapter.EventsPath, slackfake.Secret, time.Now(), "application/json", raw, nil); code != http.StatusOK {
		t.Fatalf("event: %d %s", code, body)
	}
	placeholder := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool { return c.Get("thread_ts") == "1767100000.000100" })
	fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == placeholder.TS })
	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	var outB, errB bytes.Buffer
	code := runAudit(context.Background(), []string{"--data", dir, "--user", "U0ANA", "--since", "1h", "--json"}, nil, &outB, &errB)
	out, errOut := outB.String(), errB.String()
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e ontology.AuditEntry
	if err := json.Unmarshal([]byte(out), &e); err != nil || e.Question == nil {
		t.Fatalf("want one question record: %v\n%s", err, out)
	}
	q := e.Question
	if q.Platform != "slack" || q.Workspace != slackfake.TeamID || q.Channel != "C0SALES" || q.Thread != "1767100000.000100" ||
		q.User != "slack:"+slackfake.TeamID+":U0ANA" || q.Warehouse != "demo" || q.Question != "how many customers do we have?" ||
		q.Outcome != "answered" || len(q.SQL) != 1 || q.Rows != 1 || q.Engine != "offline" {
		t.Errorf("record %+v", q)
	}
}
