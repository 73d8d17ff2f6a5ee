package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// The load: loadConversations conversations at once, each a mention in its
// own thread by its own person (so no one's earlier answers skip a
// question), cycling through a question answered at once, one that needs
// one clarification and one that needs two. Clarifications are answered
// with signed block_actions clicks on the first option.
const loadConversations = 100

var loadQuestions = []string{
	"how many customers do we have?", // answered at once
	"list customers in Ohio",         // one clarification
	"what was revenue in 2024?",      // two clarifications
}

// loadBot is the whole bot (bot.Main) with Slack in HTTP mode against the
// Slack fake and the demo warehouse, on loopback.
type loadBot struct {
	base   string
	fake   *slackfake.Server
	client *http.Client
	stop   func() error // cancels Run and waits for it (in-flight work drains)
}

func startLoadBot(tb testing.TB) *loadBot {
	tb.Helper()
	testwh.Quiet()
	fake := slackfake.New(tb)
	cfg := Config{
		DataDir:    tb.TempDir(),
		HTTP:       HTTPConfig{Addr: "127.0.0.1:0"},
		Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 2000}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := NewMain(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(60 * time.Second):
				runErr = fmt.Errorf("Run did not return within 60s of cancel")
			}
		})
		return runErr
	}
	tb.Cleanup(func() {
		stop()
		m.Close()
	})
	// One client with enough idle connections for every conversation, as
	// Slack's senders keep theirs open.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * loadConversations
	return &loadBot{base: "http://" + m.Addr(), fake: fake, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, stop: stop}
}

// loadRound is what one round of conversations measured.
type loadRound struct {
	Threads []string
	Acks    []time.Duration // request sent → HTTP 200, events and clicks
	Clicks  int
	Elapsed time.Duration // first mention sent → last answer posted
}

// post sends a signed request and measures the time to the response.
func (lb *loadBot) post(path, contentType string, body []byte) (time.Duration, error) {
	req, err := http.NewRequest(http.MethodPost, lb.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range slackfake.Sign(slackfake.Secret, time.Now(), body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	start := time.Now()
	resp, err := lb.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post %s: %w", path, err)
	}
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Errorf("post %s: %s", path, resp.Status)
	}
	return d, nil
}

// runLoadRound drives n concurrent conversations and waits until each has
// its answer. Requests are sent from goroutines; the fake's calls are
// read here, in the test's goroutine, one at a time in order.
func runLoadRound(tb testing.TB, lb *loadBot, round, n int) loadRound {
	tb.Helper()
	type ack struct {
		d   time.Duration
		err error
	}
	acks := make(chan ack, 8*n)
	var wg sync.WaitGroup
	send := func(path, ct string, body []byte) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := lb.post(path, ct, body)
			acks <- ack{d, err}
		}()
	}

	since := lb.fake.Mark()
	var res loadRound
	ours := map[string]bool{}
	user := map[string]string{}
	start := time.Now()
	for i := range n {
		thread := fmt.Sprintf("%d.%06d", 1_768_000_000+round, i+1)
		u := fmt.Sprintf("U0LOAD%02d%04d", round, i)
		ours[thread], user[thread] = true, u
		res.Threads = append(res.Threads, thread)
		ev, _ := json.Marshal(map[string]any{
			"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
			"event_id": fmt.Sprintf("Ev0LOAD%02d%04d", round, i), "event_time": 1768000000,
			"event": map[string]any{
				"type": "app_mention", "user": u, "channel": "C0LOAD", "ts": thread, "event_ts": thread,
				"text": "<@" + slackfake.BotUserID + "> " + loadQuestions[i%len(loadQuestions)],
			},
		})
		send(slackadapter.EventsPath, "application/json", ev)
	}

	tsThread := map[string]string{}
	answered := 0
	for answered < n {
		c := lb.fake.Wait(tb, since, "", nil)
		since = c.Seq + 1
		thread := c.Get("thread_ts")
		switch c.Method {
		case "chat.postMessage":
			tsThread[c.TS] = thread
		case "chat.update":
			thread = tsThread[c.TS]
		default:
			continue
		}
		if !ours[thread] {
			continue
		}
		blocks := c.Get("blocks")
		switch {
		case strings.Contains(blocks, `"clarify.feedback"`):
			answered++
			res.Elapsed = time.Since(start)
		case strings.Contains(blocks, `"clarify.options"`):
			value, ok := firstOption(blocks)
			if !ok {
				tb.Fatalf("a clarification without options in thread %s: %s", thread, blocks)
			}
			res.Clicks++
			send(slackadapter.InteractivityPath, "application/x-www-form-urlencoded",
				slackfake.FormBody(blockAction(user[thread], thread, c.TS, value, lb.fake.ResponseURL("load"))))
		}
	}
	wg.Wait()
	close(acks)
	for a := range acks {
		if a.err != nil {
			tb.Fatalf("a request was not acknowledged: %v", a.err)
		}
		res.Acks = append(res.Acks, a.d)
	}
	return res
}

// firstOption is the value of the clarify.choose.0 button in blocks.
func firstOption(blocks string) (string, bool) {
	var bs []struct {
		BlockID  string `json:"block_id"`
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(blocks), &bs); err != nil {
		return "", false
	}
	for _, b := range bs {
		for _, e := range b.Elements {
			if e.ActionID == "clarify.choose.0" {
				return e.Value, true
			}
		}
	}
	return "", false
}

// blockAction is a block_actions payload as Slack sends it for a click on
// the first option of the question message at ts.
func blockAction(user, thread, ts, value, responseURL string) []byte {
	p, _ := json.Marshal(map[string]any{
		"type":         "block_actions",
		"user":         map[string]any{"id": user, "username": strings.ToLower(user), "name": strings.ToLower(user), "team_id": slackfake.TeamID},
		"api_app_id":   "A0CLARIFY",
		"token":        "x",
		"container":    map[string]any{"type": "message", "message_ts": ts, "channel_id": "C0LOAD", "is_ephemeral": false, "thread_ts": thread},
		"trigger_id":   "1.2." + ts,
		"team":         map[string]any{"id": slackfake.TeamID, "domain": "clarify-test"},
		"channel":      map[string]any{"id": "C0LOAD", "name": "load"},
		"message":      map[string]any{"type": "message", "user": slackfake.BotUserID, "bot_id": slackfake.BotID, "ts": ts, "thread_ts": thread, "text": "", "blocks": []any{}},
		"state":        map[string]any{"values": map[string]any{}},
		"response_url": responseURL,
		"actions": []any{map[string]any{
			"action_id": "clarify.choose.0", "block_id": "clarify.options", "value": value, "type": "button",
			"text": map[string]any{"type": "plain_text", "text": "option"}, "action_ts": ts,
		}},
	})
	return p
}

// answersPerThread counts, over every call the fake received, the answers
// (messages with the feedback buttons) posted or put in place in each
// thread: a message is attributed to a thread by chat.postMessage's
// thread_ts, and chat.update by the ts it updates.
func answersPerThread(fake *slackfake.Server) map[string]int {
	tsThread := map[string]string{}
	counts := map[string]int{}
	for _, c := range fake.Calls("") {
		thread := c.Get("thread_ts")
		switch c.Method {
		case "chat.postMessage":
			tsThread[c.TS] = thread
		case "chat.update":
			thread = tsThread[c.TS]
		default:
			continue
		}
		if strings.Contains(c.Get("blocks"), `"clarify.feedback"`) {
			counts[thread]++
		}
	}
	return counts
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// checkExactlyOnce fails unless every thread got exactly one answer.
func checkExactlyOnce(tb testing.TB, fake *slackfake.Server, threads []string) {
	tb.Helper()
	counts := answersPerThread(fake)
	var lost, dup []string
	for _, th := range threads {
		switch n := counts[th]; {
		case n == 0:
			lost = append(lost, th)
		case n > 1:
			dup = append(dup, fmt.Sprintf("%s×%d", th, n))
		}
	}
	if len(lost) > 0 || len(dup) > 0 {
		tb.Fatalf("%d conversations: %d without an answer %v, %d answered more than once %v", len(threads), len(lost), lost, len(dup), dup)
	}
}

// TestLoadSlackHTTP starts the whole bot and drives 100 concurrent
// conversations through Slack's HTTP mode; every one must get exactly one
// answer, every request must be acknowledged with 200. The figures are
// logged (go test -v), not asserted: timing depends on the machine.
func TestLoadSlackHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped in -short")
	}
	lb := startLoadBot(t)
	before := heapInUse()
	r := runLoadRound(t, lb, 0, loadConversations)
	after := heapInUse()
	if err := lb.stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	// After shutdown nothing is in flight: a late duplicate would show.
	checkExactlyOnce(t, lb.fake, r.Threads)
	if want := loadConversations / len(loadQuestions) * 3; r.Clicks < want {
		t.Fatalf("%d clarifications answered, want at least %d: the load should exercise clicks", r.Clicks, want)
	}
	if v := lb.fake.Violations(); len(v) > 0 {
		t.Fatalf("Block Kit violations: %v", v)
	}
	t.Logf("%d conversations, %d clicks, %d requests: ack p50 %s p99 %s max %s; %.1f answers/s; heap in use %.1f → %.1f MiB",
		len(r.Threads), r.Clicks, len(r.Acks), percentile(r.Acks, 0.50), percentile(r.Acks, 0.99), percentile(r.Acks, 1),
		float64(len(r.Threads))/r.Elapsed.Seconds(), float64(before)/(1<<20), float64(after)/(1<<20))
}

// BenchmarkLoadSlackHTTP: each iteration is a round of 100 concurrent
// conversations against one running bot (go test -run XXX -bench
// LoadSlackHTTP -benchtime=3x ./bot). Metrics: ack latency p50/p99 over
// all rounds, answers per second, and heap in use before the first round
// and after the last.
func BenchmarkLoadSlackHTTP(b *testing.B) {
	lb := startLoadBot(b)
	before := heapInUse()
	var acks []time.Duration
	var threads []string
	var elapsed time.Duration
	for i := 0; b.Loop(); i++ {
		r := runLoadRound(b, lb, i, loadConversations)
		acks = append(acks, r.Acks...)
		threads = append(threads, r.Threads...)
		elapsed += r.Elapsed
		// Check each round, then drop the fake's records: it runs in this
		// process, and its memory is not the bot's.
		b.StopTimer()
		checkExactlyOnce(b, lb.fake, r.Threads)
		lb.fake.DropCalls()
		b.StartTimer()
	}
	b.StopTimer()
	after := heapInUse()
	if err := lb.stop(); err != nil {
		b.Fatalf("Run: %v", err)
	}
	b.ReportMetric(float64(percentile(acks, 0.50).Microseconds())/1000, "ack-p50-ms")
	b.ReportMetric(float64(percentile(acks, 0.99).Microseconds())/1000, "ack-p99-ms")
	b.ReportMetric(float64(len(threads))/elapsed.Seconds(), "answers/s")
	b.ReportMetric(float64(before)/(1<<20), "heap-before-MiB")
	b.ReportMetric(float64(after)/(1<<20), "heap-after-MiB")
}
