package llmusage

import (
	"context"
	"errors"
	"github.com/clarify-bot/clarify/connectors/llm"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func mustUsage(tb testing.TB, path string, opts Options) *Store {
	tb.Helper()
	if kvtest.OnServer(tb) {
		s, err := New(context.Background(), kvtest.MustServer(tb).Namespace("usage"), "test", opts)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	s, err := Open(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestUsageRecordAndReport(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), File)
	s := mustUsage(t, path, Options{Now: clk.now, Prices: map[string]Price{"gpt-4o": {Prompt: 2.5, Completion: 10}}})
	recs := []Record{
		{User: "slack:T1:ana", Workspace: "slack:T1", Model: "gpt-4o", Question: "revenue in 2024?", PromptTokens: 1000, CompletionTokens: 200, Calls: 2},
		{User: "slack:T1:ben", Workspace: "slack:T1", Model: "gpt-4o", Question: "orders by state", PromptTokens: 3000, CompletionTokens: 100, Calls: 1},
		{User: "slack:T1:ana", Workspace: "slack:T1", Model: "llama3", Question: "top customers", PromptTokens: 500, CompletionTokens: 50, Calls: 1},
	}
	for _, r := range recs {
		if err := s.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(time.Minute)
	}
	rep, err := s.Report(ctx, Query{Since: clk.t.Add(-time.Hour), Records: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Questions != 3 || rep.Total.Tokens() != 4850 || rep.Total.Calls != 4 || rep.Total.Unpriced != 1 {
		t.Fatalf("total %+v", rep.Total)
	}
	wantCost := (1000*2.5 + 200*10 + 3000*2.5 + 100*10) / 1e6
	if math.Abs(rep.Total.Cost-wantCost) > 1e-12 {
		t.Fatalf("cost %v, want %v", rep.Total.Cost, wantCost)
	}
	if len(rep.Users) != 2 || rep.Users[0].Key != "slack:T1:ben" || len(rep.Models) != 2 || len(rep.Days) != 1 {
		t.Fatalf("users %+v models %+v days %+v", rep.Users, rep.Models, rep.Days)
	}
	if len(rep.Records) != 3 || rep.Records[0].Question != "top customers" || !rep.Records[1].Priced {
		t.Fatalf("records %+v", rep.Records)
	}
	ana, err := s.Report(ctx, Query{User: "slack:T1:ana"})
	if err != nil || ana.Total.Questions != 2 || ana.Total.Tokens() != 1750 {
		t.Fatalf("%v %+v", err, ana)
	}
	later, err := s.Report(ctx, Query{Since: clk.t})
	if err != nil || later.Total.Questions != 0 {
		t.Fatalf("%v %+v", err, later)
	}
}

func TestUsageBudgets(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)}
	s := mustUsage(t, filepath.Join(t.TempDir(), File), Options{Now: clk.now, Budget: Budget{DailyUser: 1000, DailyWorkspace: 1500}})
	use := func(user string, tokens int) {
		t.Helper()
		if err := s.Record(ctx, Record{User: user, Workspace: "slack:T1", Model: "m", PromptTokens: tokens}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		before    func()
		user      string
		wantScope string
	}{
		{"fresh", func() {}, "slack:T1:ana", ""},
		{"under", func() { use("slack:T1:ana", 999) }, "slack:T1:ana", ""},
		{"user spent", func() { use("slack:T1:ana", 1) }, "slack:T1:ana", "user"},
		{"other user fine", func() {}, "slack:T1:ben", ""},
		{"workspace spent", func() { use("slack:T1:ben", 500) }, "slack:T1:ben", "workspace"},
		{"next day", func() { clk.t = clk.t.Add(2 * time.Hour) }, "slack:T1:ana", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.before()
			err := s.Allow(ctx, tt.user, "slack:T1")
			if tt.wantScope == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || be.Scope != tt.wantScope || !errors.Is(err, llm.ErrBudget) {
				t.Fatalf("%v", err)
			}
			msg := llm.UserMessage(err)
			want := map[string]string{"user": "your daily language model budget of 1,000 tokens", "workspace": "this workspace's daily language model budget of 1,500 tokens"}[tt.wantScope]
			if !strings.Contains(msg, want) || !strings.Contains(msg, "resets at 00:00 UTC") {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

func TestUsageFileHandling(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, File)

	if _, err := Open(path, Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only open of a missing file should fail")
	}
	s := mustUsage(t, path, Options{})
	if err := s.Record(ctx, Record{User: "u", Workspace: "w", Model: "m", PromptTokens: 5}); err != nil {
		t.Fatal(err)
	}

	t.Run("readable while the bot has it between operations", func(t *testing.T) {
		ro := mustUsage(t, path, Options{ReadOnly: true})
		rep, err := ro.Report(ctx, Query{})
		if err != nil || rep.Total.Questions != 1 {
			t.Fatalf("%v %+v", err, rep)
		}
		if err := ro.Record(ctx, Record{}); err == nil {
			t.Fatal("a read-only store recorded")
		}
	})
	t.Run("lock timeout", func(t *testing.T) {
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		held := mustUsage(t, filepath.Join(dir, "other.db"), Options{})
		held.path = path
		held.opts.Timeout = 50 * time.Millisecond
		if err := held.Record(ctx, Record{User: "u"}); !errors.Is(err, ErrInUse) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("unknown value version", func(t *testing.T) {
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketRecords).Put([]byte("\xff\xff\xff\xff\xff\xff\xff\xff00000000"), []byte(`{"v":2,"r":{}}`))
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Report(ctx, Query{}); err == nil || !strings.Contains(err.Error(), "version 2") {
			t.Fatalf("%v", err)
		}
	})
}

func TestUsagePrunesOldRecords(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	s := mustUsage(t, filepath.Join(t.TempDir(), File), Options{Now: clk.now, Retention: 48 * time.Hour})
	for range 3 {
		if err := s.Record(ctx, Record{User: "u", Workspace: "w", Model: "m", PromptTokens: 1}); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(24 * time.Hour)
	}
	// Now 2026-01-04 12:00: the record of 01-01 is older than 48 hours.
	if err := s.Record(ctx, Record{User: "u", Workspace: "w", Model: "m", PromptTokens: 1}); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report(ctx, Query{})
	if err != nil || rep.Total.Questions != 3 || len(rep.Days) != 3 || rep.Days[0].Key != "2026-01-02" {
		t.Fatalf("%v %+v", err, rep)
	}
}
