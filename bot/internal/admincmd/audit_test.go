package admincmd

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
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
	s, err := ontologyfile.Open(filepath.Join(dir, cli.OntologyFile), ontology.Options{Now: clk.Now})
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
			if code != cli.ExitOK {
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
	if code != cli.ExitOK {
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
		{"bad since", []string{"--since", "7x"}, cli.ExitUsage, "invalid age"},
		{"negative since", []string{"--since", "-7d"}, cli.ExitUsage, "invalid age"},
		{"unknown action", []string{"--action", "question,drop"}, cli.ExitUsage, `--action "drop"`},
		{"stray argument", []string{"everything"}, cli.ExitUsage, "unexpected arguments"},
		{"negative limit", []string{"--limit", "-1"}, cli.ExitUsage, "--limit"},
		{"prune zero", []string{"--prune", "0"}, cli.ExitUsage, "--prune"},
		{"no ontology", []string{"--data", t.TempDir()}, cli.ExitFailure, "no ontology at"},
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
	if code != cli.ExitFailure || !strings.Contains(errOut, "is locked, probably by a running bot") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestAuditPruneCommand: --prune drops old question records, never the
// history of facts, whatever its age.
func TestAuditPruneCommand(t *testing.T) {
	now := time.Now()
	dir := seedAudit(t, now)
	code, out, errOut := runAuditT(t, now, "--data", dir, "--prune", "1d")
	if code != cli.ExitOK || !strings.Contains(out, "pruned 1 question record older than 1d") {
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
	s, err := ontologyfile.Open(filepath.Join(t.TempDir(), cli.OntologyFile), ontology.Options{Now: clk.Now})
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
		PruneQuestions(ctx, s, 30*24*time.Hour, tick, clk.Now, logger)
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

// TestAuditShowsWhere: bot audit says where a change came from.
func TestAuditShowsWhere(t *testing.T) {
	e := ontology.AuditEntry{At: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC), Action: ontology.ActionRollback, Actor: "slack:T1:U9",
		Via: "admin console from 192.0.2.7", FactID: "abc", Before: &ontology.Fact{Phrase: "revenue"}, Undoes: 12, Note: "rolled back change #12 (edit by x)"}
	got := formatAuditEntry(e)
	if !strings.Contains(got, "rollback by slack:T1:U9 (admin console from 192.0.2.7)  fact abc \"revenue\"") {
		t.Errorf("audit line: %q", got)
	}
}
