package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// envReplicaConfig names the configuration of a replica process that
// TestReplicaProcess runs (for TestKilledReplicaMidClick).
const envReplicaConfig = "CLARIFY_TEST_REPLICA_CONFIG"

// TestReplicaProcess is not a test: it is `bot serve` in a process of
// its own, started (and killed) by TestKilledReplicaMidClick.
func TestReplicaProcess(t *testing.T) {
	path := os.Getenv(envReplicaConfig)
	if path == "" {
		t.Skip("a helper process of TestKilledReplicaMidClick")
	}
	os.Exit(runServe(context.Background(), []string{"--config", path}, nil, os.Stdout, os.Stderr))
}

// startReplicaProcess runs bot serve in a process of its own and returns
// its HTTP address and the process (to kill).
func startReplicaProcess(t *testing.T, yaml string) (string, *os.Process) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clarify.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$")
	cmd.Env = append(os.Environ(), envReplicaConfig+"="+path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg=serving http=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return a, cmd.Process
	case <-time.After(2 * time.Minute):
		t.Fatal("the replica process did not start serving")
		return "", nil
	}
}

// TestKilledReplicaMidClick: replica A is killed (SIGKILL) while it works
// on a click, after it showed "Looking…". Replica B notices A's heartbeat
// lease lapse, takes the placeholder over and finishes the click in the
// same thread — the placeholder becomes the answer (or the next
// question), with no note to click again: the conversation's turn lock A
// held has lapsed with it.
func TestKilledReplicaMidClick(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	fake := slackfake.New(t)
	const lease = 3 * time.Second
	addrA, procA := startReplicaProcess(t, fmt.Sprintf(`
data_dir: %q
http: {addr: "127.0.0.1:0"}
log_level: info
store: {dsn: %q, lease_ttl: 3s}
warehouses: [{name: demo, demo: true, demo_orders: 400}]
slack: {mode: http, bot_token: %q, signing_secret: %q, api_url: %q}
`, t.TempDir(), dsn, slackfake.BotToken, slackfake.Secret, fake.APIURL()))
	mb, _, _ := startMainWith(t, Config{
		Store:      StoreConfig{DSN: dsn, LeaseTTL: lease},
		Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	}, MainOptions{Timings: fastTimings})
	h := &replicas{t: t, fake: fake, base: [2]string{"http://" + addrA, "http://" + mb.Addr()}}
	const A, B = 0, 1
	const ana, ch = "U0ANA", "C0SALES"

	t1 := h.newTS()
	since := fake.Mark()
	h.post(B, slackadapter.EventsPath, "application/json", h.mention("Ev0KILL01", ana, ch, t1, "what was revenue in 2024?"), nil)
	q := h.wait(since, ch, t1, isClarificationBlocks)

	// The click goes to A, which has not seen ana before: it asks Slack
	// who she is (users.info) after showing "Looking…", and Slack is slow
	// to answer, so A is mid-turn, holding the conversation, when killed.
	fake.SetMethodLatency("users.info", time.Minute)
	since = fake.Mark()
	h.click(A, q, ana, "net revenue")
	ph := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool {
		return c.Get("thread_ts") == t1 && strings.HasPrefix(c.Get("text"), "Looking")
	})
	fake.Wait(t, since, "users.info", nil)
	if err := procA.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	fake.SetMethodLatency("users.info", 0)

	done := fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == ph.TS })
	finished := time.Since(killed)
	if strings.Contains(done.Get("text"), "interrupted") {
		t.Fatalf("the orphaned placeholder became a note, not the answer: %q", done.Get("text"))
	}
	next := h.wait(since, ch, t1, func(b blocks) bool {
		return isAnswerBlocks(b) || (isClarificationBlocks(b) && !strings.Contains(b.text(), `"value":"`+q.ts))
	})
	if next.ts == "" {
		t.Fatal("no reply to the click in the thread")
	}
	t.Logf("A killed mid-click: B finished the click after %s (lease %s)", finished.Round(time.Millisecond), lease)
	fams := scrape(t, mb.Addr())
	if v := sample(fams, "clarify_orphaned_turns_resumed_total", map[string]string{"platform": "slack"}); v != 1 {
		t.Errorf("turns resumed = %v, want 1", v)
	}
	if v := sample(fams, "clarify_orphaned_placeholders_replaced_total", map[string]string{"platform": "slack"}); v != 0 {
		t.Errorf("placeholders replaced with a note = %v, want 0", v)
	}
}

// TestKilledBotFinishesOnRestart: with files (one process), a bot killed
// (SIGKILL) mid-question leaves its "Looking…" placeholder recorded in the
// data directory; the bot started again on that directory takes it over
// and answers the question in the same thread, in place of the
// placeholder.
func TestKilledBotFinishesOnRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the bot in a process of its own")
	}
	fake := slackfake.New(t)
	dir := t.TempDir()
	addrA, procA := startReplicaProcess(t, fmt.Sprintf(`
data_dir: %q
http: {addr: "127.0.0.1:0"}
log_level: info
warehouses: [{name: demo, demo: true, demo_orders: 400}]
slack: {mode: http, bot_token: %q, signing_secret: %q, api_url: %q}
`, dir, slackfake.BotToken, slackfake.Secret, fake.APIURL()))
	h := &replicas{t: t, fake: fake, base: [2]string{"http://" + addrA, ""}}
	const ana, ch = "U0ANA", "C0SALES"

	// Slack is slow to say who ana is: the bot is mid-turn, after showing
	// "Looking…", when it is killed.
	fake.SetMethodLatency("users.info", time.Minute)
	t1 := h.newTS()
	since := fake.Mark()
	h.post(0, slackadapter.EventsPath, "application/json", h.mention("Ev0RESTART1", ana, ch, t1, "how many customers are there?"), nil)
	ph := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool {
		return c.Get("thread_ts") == t1 && strings.HasPrefix(c.Get("text"), "Looking")
	})
	fake.Wait(t, since, "users.info", nil)
	if err := procA.Kill(); err != nil {
		t.Fatal(err)
	}
	procA.Wait()
	fake.SetMethodLatency("users.info", 0)

	since = fake.Mark()
	mb, _, _ := startMainWith(t, Config{
		DataDir:    dir,
		Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}},
		Slack:      SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	}, MainOptions{Timings: fastTimings})
	done := fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == ph.TS })
	if strings.Contains(done.Get("text"), "interrupted") || strings.HasPrefix(done.Get("text"), "Looking") {
		t.Fatalf("the placeholder became %q, not the answer", done.Get("text"))
	}
	fams := scrape(t, mb.Addr())
	if v := sample(fams, "clarify_orphaned_turns_resumed_total", map[string]string{"platform": "slack"}); v != 1 {
		t.Errorf("turns resumed = %v, want 1", v)
	}
}
