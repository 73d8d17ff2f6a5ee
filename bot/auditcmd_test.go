package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/ontology"
)

// testClock is a settable clock for the store's entry times.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// seedAudit writes an audit log relative to now: alice's question ten days
// ago (two clarifications), an admin's fact edit two days ago, bob's
// question an hour ago (decided by a fact), and a Discord user with
// alice's bare id thirty minutes ago (refused).
func seedAudit(t *testing.T, now time.Time) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	clk := &testClock{now: now.Add(-10 * 24 * time.Hour)}
	s, err := ontology.Open(filepath.Join(dir, ontologyFile), ontology.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	record := func(q ontology.QuestionRecord) {
		t.Helper()
		if err := s.RecordQuestion(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	record(ontology.QuestionRecord{
		AskedAt: clk.Now(), Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1700000000.000100", Conversation: "C1:1700000000.000100",
		User: "slack:T1:U1", Warehouse: "shop", Question: "what was revenue in 2024?",
		Steps: []ontology.QuestionStep{
			{Kind: "clarification", Asked: "By 'revenue', which do you mean?", Options: []string{"Net revenue", "Gross revenue"}, Answer: "Net revenue"},
			{Kind: "clarification", Asked: "By 'in 2024', which do you mean?", Options: []string{"Date placed", "Date shipped"}, Answer: "ship date", Typed: true},
		},
		SQL: []string{"SELECT SUM(net_amount)\n  FROM orders"}, Rows: 1, Duration: 42 * time.Millisecond, Engine: "gpt-4o-mini",
		PromptTokens: 120, CompletionTokens: 30, Outcome: "answered",
	})
	f, err := s.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:U2", Warehouse: "shop", Phrase: "revenue",
		Kind: ontology.KindAggregate, Target: netSum, Meaning: "net revenue"})
	if err != nil {
		t.Fatal(err)
	}
	clk.set(now.Add(-2 * 24 * time.Hour))
	if _, err := s.Edit(ctx, f.ID, nil, "net revenue after discounts", ontology.Actor{ID: "cli:admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	clk.set(now.Add(-time.Hour))
	record(ontology.QuestionRecord{
		AskedAt: clk.Now(), Platform: "slack", Workspace: "T1", Channel: "C1", User: "slack:T1:U2", Warehouse: "shop",
		Question: "revenue last month", FactsUsed: []ontology.FactUse{{ID: f.ID, Phrase: "revenue", Scope: ontology.ScopeUser, Meaning: "net revenue after discounts"}},
		SQL: []string{"SELECT 1"}, Rows: 1, Engine: "offline", Outcome: "answered",
	})
	clk.set(now.Add(-30 * time.Minute))
	record(ontology.QuestionRecord{
		AskedAt: clk.Now(), Platform: "discord", Workspace: "G1", Channel: "D1", User: "discord:G1:U1", Warehouse: "shop",
		Question: "??", Outcome: "refused", Detail: "no question in that",
	})
	return dir
}

func runAuditT(t *testing.T, now time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = auditCmd{stdout: &out, stderr: &errOut, now: func() time.Time { return now }}.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestAuditCommand(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	cases := []struct {
		name string
		args []string
		// want are the questions or actions listed, newest first, as the
		// JSON lines name them: a question by its text, others by action.
		want []string
	}{
		{"everything, newest first", nil, []string{"??", "revenue last month", "edit", "what was revenue in 2024?"}},
		{"since a week", []string{"--since", "7d"}, []string{"??", "revenue last month", "edit"}},
		{"since hours", []string{"--since", "90m"}, []string{"??", "revenue last month"}},
		{"only questions", []string{"--action", "question"}, []string{"??", "revenue last month", "what was revenue in 2024?"}},
		{"questions and edits since 3 days", []string{"--action", "question,edit", "--since", "3d"}, []string{"??", "revenue last month", "edit"}},
		{"owner key", []string{"--user", "slack:T1:U1"}, []string{"what was revenue in 2024?"}},
		{"bare id: every platform", []string{"--user", "U1"}, []string{"??", "what was revenue in 2024?"}},
		{"bare id with a limit", []string{"--user", "U1", "--limit", "1"}, []string{"??"}},
		{"the shell admin", []string{"--user", "cli:admin"}, []string{"edit"}},
		{"limit", []string{"--limit", "2"}, []string{"??", "revenue last month"}},
		{"nobody", []string{"--user", "U404"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--data", dir, "--json"}, tc.args...)
			code, out, errOut := runAuditT(t, now, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got []string
			dec := json.NewDecoder(strings.NewReader(out))
			for dec.More() {
				var e ontology.AuditEntry
				if err := dec.Decode(&e); err != nil {
					t.Fatalf("not JSON lines: %v\n%s", err, out)
				}
				if e.Question != nil {
					got = append(got, e.Question.Question)
				} else {
					got = append(got, e.Action)
				}
			}
			if strings.Join(got, " | ") != strings.Join(tc.want, " | ") {
				t.Errorf("listed %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAuditCommandText(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	code, out, errOut := runAuditT(t, now, "--data", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"question by slack:T1:U1  (answered)",
		"where:     slack · workspace T1 · channel C1 · thread 1700000000.000100",
		"warehouse: shop",
		"question:  what was revenue in 2024?",
		"asked:     By 'revenue', which do you mean? [Net revenue | Gross revenue] → Net revenue",
		`→ "ship date" (typed)`,
		"sql:       SELECT SUM(net_amount) FROM orders",
		"rows:      1",
		"cost:      time 42ms · engine gpt-4o-mini · tokens 120 prompt + 30 completion",
		"edit by cli:admin  fact ",
		`"revenue": meaning "net revenue" → "net revenue after discounts"`,
		"fact used: 'revenue' = net revenue after discounts (user fact ",
		"question by discord:G1:U1  (refused)",
		"detail:    no question in that",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// Newest first: the refusal, then bob's question, the edit, alice's question.
	order := []string{"discord:G1:U1", "slack:T1:U2", "cli:admin", "slack:T1:U1"}
	last := -1
	for _, who := range order {
		i := strings.Index(out, who)
		if i < last {
			t.Errorf("%s listed out of order:\n%s", who, out)
		}
		last = i
	}
}

func TestAuditCommandErrors(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	cases := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"bad since", []string{"--since", "7x"}, exitUsage, "invalid age"},
		{"negative since", []string{"--since", "-7d"}, exitUsage, "invalid age"},
		{"unknown action", []string{"--action", "question,drop"}, exitUsage, `--action "drop"`},
		{"stray argument", []string{"everything"}, exitUsage, "unexpected arguments"},
		{"negative limit", []string{"--limit", "-1"}, exitUsage, "--limit"},
		{"prune zero", []string{"--prune", "0"}, exitUsage, "--prune"},
		{"no ontology", []string{"--data", t.TempDir()}, exitFailure, "no ontology at"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runAuditT(t, now, append([]string{"--data", dir}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.inStderr) {
				t.Errorf("exit %d (want %d): %s", code, tc.code, errOut)
			}
		})
	}
}

func TestAuditLockedByRunningBot(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	openPrefs(t, dir) // the "running bot" holds the file
	code, _, errOut := runAuditT(t, now, "--data", dir, "--lock-timeout", "100ms")
	if code != exitFailure || !strings.Contains(errOut, "is locked, probably by a running bot") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestAuditPruneCommand: --prune drops old question records, never the
// history of facts, whatever its age.
func TestAuditPruneCommand(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	code, out, errOut := runAuditT(t, now, "--data", dir, "--prune", "1d")
	if code != exitOK || !strings.Contains(out, "pruned 1 question record older than 1d") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	_, out, _ = runAuditT(t, now, "--data", dir, "--json")
	if strings.Contains(out, "what was revenue in 2024?") || !strings.Contains(out, `"action":"edit"`) || !strings.Contains(out, "revenue last month") {
		t.Errorf("after pruning:\n%s", out)
	}
}

// TestPruneQuestionsLoop runs the serve loop with an injected clock and
// ticks: it prunes at start and at every tick, keeps fact history, and
// stops with its context.
func TestPruneQuestionsLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &testClock{now: t0}
	s, err := ontology.Open(filepath.Join(t.TempDir(), ontologyFile), ontology.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	record := func(q string) {
		t.Helper()
		if err := s.RecordQuestion(ctx, ontology.QuestionRecord{User: "slack:T1:U1", Question: q, Outcome: "answered"}); err != nil {
			t.Fatal(err)
		}
	}
	record("january question")
	f, err := s.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:U1", Warehouse: "shop", Phrase: "revenue", Kind: ontology.KindAggregate, Target: netSum, Meaning: "net"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, f.ID, ontology.Actor{ID: "slack:T1:U1"}); err != nil {
		t.Fatal(err)
	}
	questions := func() string {
		t.Helper()
		entries, err := s.AuditQuery(context.Background(), ontology.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if e.Question != nil {
				out = append(out, e.Question.Question)
			} else {
				out = append(out, e.Action)
			}
		}
		return strings.Join(out, ",")
	}

	clk.set(t0.Add(45 * 24 * time.Hour))
	record("february question")
	tick := make(chan time.Time)
	done := make(chan struct{})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		pruneQuestions(ctx, s, 30*24*time.Hour, tick, clk.Now, logger)
		close(done)
	}()
	// The loop takes a tick only after its start-up prune.
	tick <- clk.Now()
	if got := questions(); strings.Contains(got, "january") || !strings.Contains(got, "february question") || !strings.Contains(got, "delete") {
		t.Fatalf("after the start-up prune: %s", got)
	}
	// A month and a half later the daily prune takes February's too. The
	// loop takes the next tick only once that prune is done: sending it
	// is how the test knows, without racing cancel against the prune.
	clk.set(t0.Add(90 * 24 * time.Hour))
	tick <- clk.Now()
	tick <- clk.Now()
	if got := questions(); got != "delete" {
		t.Fatalf("after the daily prune: %s, want only the fact's history", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the prune loop did not stop with its context")
	}
}

func TestAuditRetentionConfig(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       time.Duration
		wantErr    string
	}{
		{"default 90 days", "", 90 * 24 * time.Hour, ""},
		{"days", "audit: {question_retention: 30d}\n", 30 * 24 * time.Hour, ""},
		{"hours", "audit: {question_retention: 36h}\n", 36 * time.Hour, ""},
		{"zero keeps forever", "audit: {question_retention: 0}\n", 0, ""},
		{"negative", "audit: {question_retention: -3d}\n", 0, "invalid age"},
		{"typo", "audit: {question_retention: 3 weeks}\n", 0, "invalid age"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = filepath.Join(t.TempDir(), "clarify.yaml")
				if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := LoadConfig(path, func(string) string { return "" })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Audit.retention(); got != tc.want {
				t.Errorf("retention %v, want %v", got, tc.want)
			}
		})
	}
}

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

	code, out, errOut := runAuditT(t, time.Now(), "--data", dir, "--user", "U0ANA", "--since", "1h", "--json")
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
