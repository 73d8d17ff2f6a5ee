package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// The burst: n mentions at once, each in its own thread by its own
// person, delivered to one replica and at the same moment delivered again
// (a Slack retry, X-Slack-Retry-Num: 1) to the other, two whole bots on
// one server store (MariaDB) behind an imaginary load balancer. Every
// thread must get exactly one reply; no event may be handled without its
// id being checked. The figures (time to the first visible message, time
// to the reply) are logged, not asserted: timing depends on the machine.
//
// CI runs a short burst (20); CLARIFY_BURST=100 go test -run Burst -v
// ./bot runs the long one the operations guide reports.

// burstQuestions cycle: one answered at once, two that need a
// clarification (the reply is then the question, with its buttons).
var burstQuestions = []string{
	"how many customers do we have?",
	"list customers in Ohio",
	"what was revenue in 2024?",
}

func burstSize(tb testing.TB) int {
	if v := os.Getenv("CLARIFY_BURST"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			tb.Fatalf("CLARIFY_BURST=%q: want a positive number", v)
		}
		return n
	}
	return 20
}

// logCounter counts log records whose message contains one of its words:
// the old adapter logged "cannot check the event id; handling the event"
// each time it skipped the check.
type logCounter struct {
	words  []string
	counts []atomic.Int64
}

func newLogCounter(words ...string) *logCounter {
	return &logCounter{words: words, counts: make([]atomic.Int64, len(words))}
}

func (c *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *logCounter) Handle(_ context.Context, r slog.Record) error {
	for i, w := range c.words {
		if strings.Contains(r.Message, w) {
			c.counts[i].Add(1)
		}
	}
	return nil
}
func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCounter) WithGroup(string) slog.Handler      { return c }
func (c *logCounter) count(i int) int64                  { return c.counts[i].Load() }

// burstReplica is one running bot.
type burstReplica struct {
	m    *Main
	base string
	stop func() error
}

func startBurstReplica(tb testing.TB, cfg Config, logger *slog.Logger) *burstReplica {
	tb.Helper()
	testwh.Quiet()
	cfg.DataDir = tb.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := NewMain(ctx, cfg, logger)
	if err != nil {
		cancel()
		tb.Fatalf("the bot did not start: %v", err)
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
			case <-time.After(90 * time.Second):
				runErr = fmt.Errorf("Run did not return within 90s of cancel")
			}
		})
		return runErr
	}
	tb.Cleanup(func() {
		stop()
		m.Close()
	})
	return &burstReplica{m: m, base: "http://" + m.Addr(), stop: stop}
}

// burstResult is what one burst measured.
type burstResult struct {
	Threads      []string
	FirstVisible []time.Duration // mention sent → first message in its thread
	ToReply      []time.Duration // mention sent → the reply (answer, question or notice)
	Replies      map[string]int  // thread → replies (placeholders excluded)
	NotOK        []string        // deliveries not acknowledged with 200
	Ack          []time.Duration // delivery sent → its HTTP acknowledgement (mentions and retries)
	Elapsed      time.Duration
	Stalled      bool // nothing happened for two minutes before every thread had its reply
}

// burstThread is where a mention of the burst goes.
type burstThread struct {
	channel, ts, user, question string
}

// runBurst sends every mention to replica i%2 and its retry to the other
// at the same moment, then waits until every thread has its reply.
func runBurst(tb testing.TB, fake *slackfake.Server, reps [2]*burstReplica, threads []burstThread, isReply func(slackfake.Call) bool) burstResult {
	tb.Helper()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4 * len(threads)}}
	res := burstResult{Replies: map[string]int{}}
	sent := make([]time.Time, len(threads))
	byThread := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	deliver := func(r int, body []byte, retry bool) {
		defer wg.Done()
		req, _ := http.NewRequest(http.MethodPost, reps[r].base+slackadapter.EventsPath, bytes.NewReader(body))
		for k, v := range slackfake.Sign(slackfake.Secret, time.Now(), body) {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		if retry {
			req.Header.Set("X-Slack-Retry-Num", "1")
			req.Header.Set("X-Slack-Retry-Reason", "http_timeout")
		}
		sentAt := time.Now()
		resp, err := client.Do(req)
		acked := time.Since(sentAt)
		mu.Lock()
		res.Ack = append(res.Ack, acked)
		mu.Unlock()
		status := ""
		switch {
		case err != nil:
			status = err.Error()
		case resp.StatusCode != http.StatusOK:
			status = resp.Status
		}
		if resp != nil {
			resp.Body.Close()
		}
		if status != "" {
			mu.Lock()
			res.NotOK = append(res.NotOK, fmt.Sprintf("replica %d retry=%v: %s", r, retry, status))
			mu.Unlock()
		}
	}
	start := time.Now()
	for i, th := range threads {
		res.Threads = append(res.Threads, th.ts)
		byThread[th.channel+"/"+th.ts] = i
		ev, _ := json.Marshal(map[string]any{
			"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
			"event_id": "Ev0BURST" + strings.ReplaceAll(th.ts, ".", ""), "event_time": 1768000000,
			"event": map[string]any{
				"type": "app_mention", "user": th.user, "channel": th.channel, "ts": th.ts, "event_ts": th.ts,
				"text": "<@" + slackfake.BotUserID + "> " + th.question,
			},
		})
		sent[i] = time.Now()
		wg.Add(2)
		go deliver(i%2, ev, false)
		go deliver(1-i%2, ev, true)
	}

	first := make([]time.Time, len(threads))
	reply := make([]time.Time, len(threads))
	tsThread := map[string]int{}
	replied := 0
	since := 0
	for replied < len(threads) {
		c, ok := fake.Next(since, 2*time.Minute)
		if !ok {
			wg.Wait()
			tb.Errorf("nothing happened for 2 minutes: %d of %d threads have a reply, %d have a first message; deliveries not acknowledged: %d %v",
				replied, len(threads), countSet(first), len(res.NotOK), res.NotOK[:min(len(res.NotOK), 5)])
			res.Stalled = true
			break
		}
		since = c.Seq + 1
		i, ok := -1, false
		switch c.Method {
		case "chat.postMessage":
			i, ok = byThread[c.Get("channel")+"/"+c.Get("thread_ts")]
			if ok {
				tsThread[c.TS] = i
			}
		case "chat.update":
			i, ok = tsThread[c.TS]
		}
		if !ok {
			continue
		}
		if first[i].IsZero() {
			first[i] = c.At
		}
		if isReply(c) && reply[i].IsZero() {
			reply[i] = c.At
			replied++
			res.Elapsed = time.Since(start)
		}
	}
	wg.Wait()
	for i := range threads {
		if !first[i].IsZero() {
			res.FirstVisible = append(res.FirstVisible, first[i].Sub(sent[i]))
		}
		if !reply[i].IsZero() {
			res.ToReply = append(res.ToReply, reply[i].Sub(sent[i]))
		}
	}
	return res
}

func countSet(ts []time.Time) int {
	n := 0
	for _, t := range ts {
		if !t.IsZero() {
			n++
		}
	}
	return n
}

// countReplies counts, over every call the fake received, the replies in
// each thread of the burst (after the replicas stopped, so a late
// duplicate shows).
func countReplies(fake *slackfake.Server, threads []burstThread, isReply func(slackfake.Call) bool) map[string]int {
	byThread := map[string]string{}
	for _, th := range threads {
		byThread[th.channel+"/"+th.ts] = th.ts
	}
	tsThread := map[string]string{}
	counts := map[string]int{}
	for _, c := range fake.Calls("") {
		var thread string
		switch c.Method {
		case "chat.postMessage":
			thread = byThread[c.Get("channel")+"/"+c.Get("thread_ts")]
			tsThread[c.TS] = thread
		case "chat.update":
			thread = tsThread[c.TS]
		}
		if thread != "" && isReply(c) {
			counts[thread]++
		}
	}
	return counts
}

// isBurstReply: an answer, a clarification, or a notice that is not the
// placeholder.
func isBurstReply(c slackfake.Call) bool {
	b := c.Get("blocks")
	if strings.Contains(b, `"clarify.feedback"`) || strings.Contains(b, `"clarify.options"`) {
		return true
	}
	text := c.Get("text")
	return c.Method != "chat.delete" && text != "" && !strings.HasPrefix(text, "Looking") &&
		!strings.Contains(b, `"clarify.looking"`) && strings.Contains(strings.ToLower(text), "unreachable")
}

func durations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	r := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return fmt.Sprintf("p50 %s p90 %s p99 %s max %s", r(percentile(s, 0.5)), r(percentile(s, 0.9)), r(percentile(s, 0.99)), r(s[len(s)-1]))
}

// burstConfig is the configuration of both replicas.
func burstConfig(dsn string, fake *slackfake.Server, down bool) Config {
	cfg := Config{
		Store:      StoreConfig{DSN: dsn},
		Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	}
	if down {
		// Nothing listens on port 1: the warehouse is down from the start.
		cfg.Warehouses = append(cfg.Warehouses, WarehouseConfig{Name: "finance", DSN: "clarify:secret@tcp(127.0.0.1:1)/finance"})
	}
	return cfg
}

func TestBurstTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("burst test: skipped in -short")
	}
	t.Run("all up", func(t *testing.T) { testBurst(t, false) })
	t.Run("one warehouse down", func(t *testing.T) { testBurst(t, true) })
}

func testBurst(t *testing.T, down bool) {
	dsn := kvtest.MustDatabase(t)
	fake := slackfake.New(t)
	fake.SetLatency(100 * time.Millisecond)
	logs := newLogCounter("cannot check the event id", "refused a replayed")
	logger := slog.New(logs)
	var reps [2]*burstReplica
	for i := range reps {
		reps[i] = startBurstReplica(t, burstConfig(dsn, fake, down), logger)
	}
	n := burstSize(t)
	var threads []burstThread
	for i := range n {
		th := burstThread{channel: "C0BURST", ts: fmt.Sprintf("1768100%03d.%06d", i/1000, i+1), user: fmt.Sprintf("U0BURST%04d", i), question: burstQuestions[i%len(burstQuestions)]}
		if down && i%5 == 4 {
			// A fifth of the questions are asked where people chose the
			// warehouse that is down.
			th.channel = "C0FINANCE"
		}
		threads = append(threads, th)
	}
	if down {
		if _, err := reps[0].m.router.Choose(slackWho("C0FINANCE"), "finance"); err != nil {
			t.Fatal(err)
		}
	}
	r := runBurst(t, fake, reps, threads, isBurstReply)
	for _, rep := range reps {
		if err := rep.stop(); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	counts := countReplies(fake, threads, isBurstReply)
	var lost, dup []string
	for _, th := range threads {
		switch c := counts[th.ts]; {
		case c == 0:
			lost = append(lost, th.ts)
		case c > 1:
			dup = append(dup, fmt.Sprintf("%s×%d", th.ts, c))
		}
	}
	t.Logf("%d mentions + %d retries over 2 replicas (store on %s, Slack latency 100ms%s): ack (%d) %s; first visible message (%d) %s; reply (%d) %s; %d without a reply, %d answered more than once, %d checks skipped, %d deliveries not acknowledged; last reply after %s",
		n, n, map[bool]string{true: "TiDB", false: "MariaDB"}[kvtest.OnTiDB(t)], map[bool]string{true: ", warehouse finance down", false: ""}[down],
		len(r.Ack), durations(r.Ack), len(r.FirstVisible), durations(r.FirstVisible), len(r.ToReply), durations(r.ToReply), len(lost), len(dup), logs.count(0), len(r.NotOK), r.Elapsed.Round(time.Millisecond))
	if len(lost) > 0 || len(dup) > 0 {
		t.Errorf("%d threads without a reply %v, %d answered more than once %v", len(lost), lost, len(dup), dup)
	}
	if c := logs.count(0); c > 0 {
		t.Errorf("%d event ids were not checked before handling", c)
	}
	if v := fake.Violations(); len(v) > 0 {
		t.Errorf("Block Kit violations: %v", v)
	}
}
