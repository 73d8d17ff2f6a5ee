package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
)

// TestTwoReplicas runs two whole bots on one server store, Slack in HTTP
// mode behind an imaginary load balancer (the test picks the replica):
// an event delivered to both is answered once; clicks that land on the
// other replica continue the conversation; a fact learned through one is
// used by the other; two racing clicks on the same question, one per
// replica, give one answer; a channel's warehouse choice is shared.
func TestTwoReplicas(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	fake := slackfake.New(t)
	cfg := func() Config {
		return Config{
			Store:      StoreConfig{DSN: dsn},
			Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}, {Name: "finance", Demo: true, DemoOrders: 300}},
			Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
		}
	}
	ma, cancelA, waitA := startMain(t, cfg())
	mb, cancelB, waitB := startMain(t, cfg())
	h := &replicas{t: t, fake: fake, base: [2]string{"http://" + ma.Addr(), "http://" + mb.Addr()}}
	const A, B = 0, 1
	const ana, bob, ch = "U0ANA", "U0BOB", "C0SALES"

	// (a) The same event delivered to A, then (Slack retrying) to B.
	t1 := h.newTS()
	since := fake.Mark()
	ev := h.mention("Ev0REPLICA01", ana, ch, t1, "what was revenue in 2024?")
	h.post(A, slackadapter.EventsPath, "application/json", ev, nil)
	h.wait(since, ch, t1, func(b blocks) bool { return strings.Contains(b.text(), "Looking") })
	h.post(B, slackadapter.EventsPath, "application/json", ev, http.Header{"X-Slack-Retry-Num": {"1"}, "X-Slack-Retry-Reason": {"http_timeout"}})

	// (b) Each click goes to the other replica than the last message came
	// from; the conversation continues until the answer.
	q := h.wait(since, ch, t1, isClarificationBlocks)
	if !strings.Contains(q.blocks.text(), "revenue") {
		t.Fatalf("want a question about revenue: %s", q.blocks.text())
	}
	to := B
	var answer msgCall
	clicks := 0
	for range 6 {
		since = fake.Mark()
		clicks++
		h.click(to, q, ana, "net revenue")
		m := h.wait(since, ch, t1, func(b blocks) bool {
			return isAnswerBlocks(b) || (isClarificationBlocks(b) && !strings.Contains(b.text(), `"value":"`+q.ts))
		})
		if isAnswerBlocks(m.blocks) {
			answer = m
			break
		}
		q, to = m, 1-to
	}
	if answer.ts == "" {
		t.Fatal("no answer after six clarifications")
	}
	// (c) The choice learned through one replica is used by the other.
	t2 := h.newTS()
	since = fake.Mark()
	h.post(A, slackadapter.EventsPath, "application/json", h.mention("Ev0REPLICA02", ana, ch, t2, "what was revenue in 2023?"), nil)
	again := h.wait(since, ch, t2, func(b blocks) bool { return isAnswerBlocks(b) || isClarificationBlocks(b) })
	if !isAnswerBlocks(again.blocks) || !strings.Contains(again.blocks.text(), "Using your earlier choice") {
		t.Fatalf("the other replica should use the learned choice without asking: %s", again.blocks.text())
	}

	// (d) Two clicks on one clarification race, one on each replica.
	t3 := h.newTS()
	since = fake.Mark()
	h.post(B, slackadapter.EventsPath, "application/json", h.mention("Ev0REPLICA03", bob, ch, t3, "what was revenue in 2024?"), nil)
	q3 := h.wait(since, ch, t3, isClarificationBlocks)
	since = fake.Mark()
	var wg sync.WaitGroup
	for _, r := range []int{A, B} {
		wg.Go(func() { h.click(r, q3, bob, "net revenue") })
	}
	wg.Wait()
	next := h.wait(since, ch, t3, func(b blocks) bool {
		return isAnswerBlocks(b) || (isClarificationBlocks(b) && !strings.Contains(b.text(), `"value":"`+q3.ts))
	})
	// The losing click hears the question was already answered.
	fake.Wait(t, since, "chat.postEphemeral", func(c slackfake.Call) bool {
		return c.Get("user") == bob && strings.Contains(c.Get("text"), "already answered")
	})
	if n := h.count(ch, t3, func(c slackfake.Call) bool {
		return c.Seq >= since && c.TS != q3.ts && (isAnswerBlocks(parseBlocks(c)) || isClarificationBlocks(parseBlocks(c)))
	}); n != 1 {
		t.Errorf("two racing clicks produced %d follow-ups, want 1 (next: %s)", n, next.blocks.text())
	}
	if n := h.count(ch, t3, func(c slackfake.Call) bool {
		return c.Seq >= since && c.TS == q3.ts && strings.Contains(c.Get("blocks"), "✓")
	}); n != 1 {
		t.Errorf("the question was marked answered %d times, want once", n)
	}
	// The stored conversation closed the question once.
	srv := kvtest.MustServerOn(t, dsn)
	st := h.loadConversation(srv, "slack:"+slackfake.TeamID+":"+ch+":"+t3)
	if len(st.History) != 1 {
		t.Errorf("the stored conversation closed %d questions, want 1: %+v", len(st.History), st.History)
	}

	// (e) A channel's warehouse choice made on one replica routes the
	// other's questions too.
	if _, err := ma.router.Choose(slackWho("C0OPS"), "finance"); err != nil {
		t.Fatal(err)
	}
	if got := mb.router.Current(slackWho("C0OPS")); got != "finance" {
		t.Errorf("replica B routes the channel to %q after A chose finance", got)
	}

	cancelA()
	cancelB()
	if err := waitA(); err != nil {
		t.Error(err)
	}
	if err := waitB(); err != nil {
		t.Error(err)
	}
	// Counted after both replicas drained their work: a placeholder per
	// step (the question, then each click), none for the duplicate event.
	if n := h.count(ch, t1, func(c slackfake.Call) bool {
		return c.Method == "chat.postMessage" && strings.HasPrefix(c.Get("text"), "Looking")
	}); n != 1+clicks {
		t.Errorf("%d placeholders in the first thread for a question and %d clicks: the event delivered to both replicas was handled twice", n, clicks)
	}
}

type replicas struct {
	t    *testing.T
	fake *slackfake.Server
	base [2]string
	seq  atomic.Int64
}

func (h *replicas) newTS() string {
	return fmt.Sprintf("1767200%03d.%06d", h.seq.Add(1), 100)
}

func (h *replicas) post(r int, path, contentType string, body []byte, extra http.Header) {
	h.t.Helper()
	code, resp := slackfake.Post(h.t, h.base[r]+path, slackfake.Secret, time.Now(), contentType, body, extra)
	if code != http.StatusOK {
		h.t.Fatalf("replica %d %s: %d %s", r, path, code, resp)
	}
}

func (h *replicas) mention(eventID, user, channel, ts, text string) []byte {
	b, err := json.Marshal(map[string]any{
		"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
		"event_id": eventID, "event_time": 1767200000,
		"event": map[string]any{
			"type": "app_mention", "user": user, "channel": channel, "ts": ts, "event_ts": ts,
			"text": "<@" + slackfake.BotUserID + "> " + text,
		},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

type blocks []map[string]any

func parseBlocks(c slackfake.Call) blocks {
	var b blocks
	_ = json.Unmarshal([]byte(c.Get("blocks")), &b)
	return b
}

func (b blocks) text() string {
	out, _ := json.Marshal(b)
	return string(out)
}

// element finds a button or overflow by action id prefix and label.
func (b blocks) element(prefix, label string) (map[string]any, string) {
	for _, bl := range b {
		var els []any
		if e, ok := bl["elements"].([]any); ok && bl["type"] == "actions" {
			els = e
		}
		if acc, ok := bl["accessory"].(map[string]any); ok {
			els = append(els, acc)
		}
		for _, e := range els {
			em, _ := e.(map[string]any)
			id, _ := em["action_id"].(string)
			txt, _ := json.Marshal(em["text"])
			if strings.HasPrefix(id, prefix) && strings.Contains(strings.ToLower(string(txt)), label) {
				bid, _ := bl["block_id"].(string)
				return em, bid
			}
		}
	}
	return nil, ""
}

func isClarificationBlocks(b blocks) bool {
	e, _ := b.element("clarify.choose.", "")
	o, _ := b.element("clarify.other", "")
	return e != nil && o != nil
}

func isAnswerBlocks(b blocks) bool {
	e, _ := b.element("clarify.correct", "")
	s, _ := b.element("clarify.sql", "")
	return e != nil && s != nil
}

// msgCall is a message the bot posted or updated in a thread.
type msgCall struct {
	ts     string
	blocks blocks
}

// inThread reports whether a chat call is about a message in the thread.
func (h *replicas) inThread(c slackfake.Call, channel, thread string) bool {
	if c.Get("channel") != channel {
		return false
	}
	switch c.Method {
	case "chat.postMessage":
		return c.Get("thread_ts") == thread
	case "chat.update":
		for _, p := range h.fake.Calls("chat.postMessage") {
			if p.TS == c.TS {
				return p.Get("thread_ts") == thread
			}
		}
	}
	return false
}

func (h *replicas) wait(since int, channel, thread string, want func(blocks) bool) msgCall {
	h.t.Helper()
	c := h.fake.Wait(h.t, since, "", func(c slackfake.Call) bool {
		return h.inThread(c, channel, thread) && want(parseBlocks(c))
	})
	return msgCall{ts: c.TS, blocks: parseBlocks(c)}
}

func (h *replicas) count(channel, thread string, match func(slackfake.Call) bool) int {
	n := 0
	for _, m := range []string{"chat.postMessage", "chat.update"} {
		for _, c := range h.fake.Calls(m) {
			if h.inThread(c, channel, thread) && match(c) {
				n++
			}
		}
	}
	return n
}

// click sends a real-shaped block_actions payload for the option whose
// label contains label (or the first option) to replica r.
func (h *replicas) click(r int, m msgCall, user, label string) {
	h.t.Helper()
	el, blockID := m.blocks.element("clarify.choose.", label)
	if el == nil {
		el, blockID = m.blocks.element("clarify.choose.", "")
	}
	if el == nil {
		h.t.Fatalf("no option in %s", m.blocks.text())
	}
	raw, err := os.ReadFile("../adapters/slack/testdata/block_actions.json")
	if err != nil {
		h.t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		h.t.Fatal(err)
	}
	thread := ""
	for _, c := range h.fake.Calls("chat.postMessage") {
		if c.TS == m.ts {
			thread = c.Get("thread_ts")
		}
	}
	channel := "C0SALES"
	p["user"].(map[string]any)["id"] = user
	cont := p["container"].(map[string]any)
	cont["message_ts"], cont["channel_id"], cont["thread_ts"] = m.ts, channel, thread
	p["channel"].(map[string]any)["id"] = channel
	msg := p["message"].(map[string]any)
	msg["ts"], msg["thread_ts"], msg["blocks"] = m.ts, thread, m.blocks
	n := h.seq.Add(1)
	p["trigger_id"] = fmt.Sprintf("trigger.%d", n)
	p["response_url"] = h.fake.ResponseURL(fmt.Sprintf("actions-%d", n))
	p["actions"] = []any{map[string]any{
		"action_id": el["action_id"], "block_id": blockID, "type": el["type"], "text": el["text"], "value": el["value"],
		"action_ts": fmt.Sprintf("1767300%03d.000100", n),
	}}
	body, err := json.Marshal(p)
	if err != nil {
		h.t.Fatal(err)
	}
	h.post(r, slackadapter.InteractivityPath, "application/x-www-form-urlencoded", slackfake.FormBody(body), nil)
}

// storedConversation is the part of the dialog's stored state the test
// checks.
type storedConversation struct {
	History []json.RawMessage `json:"history"`
}

func (h *replicas) loadConversation(srv *mysqlkv.Server, key string) storedConversation {
	h.t.Helper()
	ctx := context.Background()
	cs, err := convstore.New(ctx, srv.Namespace(cli.NsConversations), srv.Name(), convstore.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	b, err := cs.Load(ctx, key)
	if err != nil {
		h.t.Fatalf("load conversation %s: %v", key, err)
	}
	var st storedConversation
	if err := json.Unmarshal(b, &st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// TestReplicasShareRateLimits: a person's rate of questions is counted in
// the store, so asking the other replica does not double it.
func TestReplicasShareRateLimits(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	fake := slackfake.New(t)
	cfg := Config{
		Store:      StoreConfig{DSN: dsn},
		Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 300}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
		Limits:     LimitsConfig{UserQuestionsPerMinute: 1, Burst: 1},
	}
	ma, cancelA, waitA := startMain(t, cfg)
	mb, cancelB, waitB := startMain(t, cfg)
	h := &replicas{t: t, fake: fake, base: [2]string{"http://" + ma.Addr(), "http://" + mb.Addr()}}
	const ana, ch = "U0ANA", "C0SALES"

	t1, t2 := h.newTS(), h.newTS()
	since := fake.Mark()
	h.post(0, slackadapter.EventsPath, "application/json", h.mention("Ev0RATE01", ana, ch, t1, "how many customers do we have?"), nil)
	h.wait(since, ch, t1, isAnswerBlocks)
	since = fake.Mark()
	h.post(1, slackadapter.EventsPath, "application/json", h.mention("Ev0RATE02", ana, ch, t2, "how many orders do we have?"), nil)
	refusal := fake.Wait(t, since, "", func(c slackfake.Call) bool { return strings.Contains(c.Get("text"), "asking faster") })
	if !strings.Contains(refusal.Get("text"), "1 question a minute") {
		t.Fatalf("the second replica's refusal: %q", refusal.Get("text"))
	}
	cancelA()
	cancelB()
	if err := errors.Join(waitA(), waitB()); err != nil {
		t.Fatal(err)
	}
	if n := h.count(ch, t2, func(c slackfake.Call) bool { return isAnswerBlocks(parseBlocks(c)) }); n != 0 {
		t.Fatalf("the second question was answered %d times despite the shared limit", n)
	}
}
