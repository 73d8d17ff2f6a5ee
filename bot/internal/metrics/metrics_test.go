package metrics

import (
	"context"
	"database/sql"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// fakeUsage is a usage store whose Allow answers err.
type fakeUsage struct{ err error }

func (f fakeUsage) Allow(context.Context, string, string) error   { return f.err }
func (f fakeUsage) Record(context.Context, llmusage.Record) error { return nil }

// TestHooksMapToCollectors: each hook moves the collector it should and
// no other refusal.
func TestHooksMapToCollectors(t *testing.T) {
	tests := []struct {
		name string
		do   func(m *Metrics)
		want func(m *Metrics) prometheus.Collector
		// refusal is the reason counted, or "".
		refusal string
	}{
		{"query ok", func(m *Metrics) {
			m.WarehouseHook("w")(warehouse.QueryEvent{Elapsed: time.Millisecond, Rows: 3})
		}, func(m *Metrics) prometheus.Collector { return m.queryLatency }, ""},
		{"query refused", func(m *Metrics) {
			m.WarehouseHook("w")(warehouse.QueryEvent{Err: warehouse.Guard("DELETE FROM orders")})
		}, nil, refuseNotReadOnly},
		{"access rule", func(m *Metrics) {
			refusal := &sqlguard.Refusal{Kind: sqlguard.KindAccess, Reason: "This warehouse hides customers.email; the answer can't use it."}
			m.WarehouseHook("w")(warehouse.QueryEvent{Err: &warehouse.Error{Kind: warehouse.KindRefused, Msg: refusal.Reason, Err: refusal}})
		}, nil, refuseAccessRule},
		{"asker turned away", func(m *Metrics) { m.AccessRefused() }, nil, refuseAccessRule},
		{"access denied", func(m *Metrics) {
			m.WarehouseHook("w")(warehouse.QueryEvent{Elapsed: time.Millisecond, Err: &warehouse.Error{Kind: warehouse.KindAccessDenied, Msg: "denied"}})
		}, func(m *Metrics) prometheus.Collector { return m.queryErrors.WithLabelValues("w", "access_denied") }, refuseAccessDenied},
		{"model usage", func(m *Metrics) {
			m.ModelHooks("gpt-x").LLM.Usage("gpt-x", llm.Usage{PromptTokens: 100, CompletionTokens: 20, Calls: 1})
		}, func(m *Metrics) prometheus.Collector { return m.tokens.WithLabelValues("gpt-x", "prompt") }, ""},
		{"model retry", func(m *Metrics) { m.ModelHooks("gpt-x").LLM.Retry(llm.RetryRateLimited) },
			func(m *Metrics) prometheus.Collector { return m.modelRetries.WithLabelValues(llm.RetryRateLimited) }, ""},
		{"budget", func(m *Metrics) {
			u := CountedUsage{Usage: fakeUsage{err: &llmusage.BudgetError{Scope: "user", Limit: 10, Used: 10}}, Refused: m.ModelHooks("gpt-x").BudgetRefused}
			u.Allow(context.Background(), "u", "w")
		}, nil, refuseBudget},
		{"budget not reached", func(m *Metrics) {
			u := CountedUsage{Usage: fakeUsage{}, Refused: m.ModelHooks("gpt-x").BudgetRefused}
			u.Allow(context.Background(), "u", "w")
		}, nil, ""},
		{"slack duplicate", func(m *Metrics) { m.SlackHooks().Duplicate() },
			func(m *Metrics) prometheus.Collector { return m.duplicates.WithLabelValues("slack") }, ""},
		{"slack retry", func(m *Metrics) { m.SlackHooks().Retry("chat.postMessage") },
			func(m *Metrics) prometheus.Collector {
				return m.apiRetries.WithLabelValues("slack", "chat.postMessage")
			}, ""},
		{"discord error", func(m *Metrics) { m.DiscordHooks().APIError("POST /channels") },
			func(m *Metrics) prometheus.Collector { return m.apiErrors.WithLabelValues("discord", "POST /channels") }, ""},
		{"dialog refusal", func(m *Metrics) { m.DialogObserver("w").Refused(dialog.RefuseTooLong) }, nil, dialog.RefuseTooLong},
		{"fact used", func(m *Metrics) { m.DialogObserver("w").FactApplied("channel") },
			func(m *Metrics) prometheus.Collector { return m.facts.WithLabelValues("w", "channel") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			tt.do(m)
			if tt.want != nil {
				if n := testutil.CollectAndCount(tt.want(m)); n != 1 {
					t.Fatalf("want one series, got %d", n)
				}
				if c, ok := tt.want(m).(prometheus.Counter); ok && testutil.ToFloat64(c) <= 0 {
					t.Fatal("counter did not move")
				}
			}
			for _, r := range []string{dialog.RefuseTooLong, dialog.RefuseNoQuestion, dialog.RefuseRateLimited, refuseNotReadOnly, refuseAccessDenied, refuseBudget} {
				want := 0.0
				if r == tt.refusal {
					want = 1
				}
				if got := testutil.ToFloat64(m.refusals.WithLabelValues(r)); got != want {
					t.Errorf("refusals{reason=%q} = %v, want %v", r, got, want)
				}
			}
		})
	}
}

// TestNilMetricsGiveNoHooks: builders called without metrics (tests, other
// subcommands) get no-op hooks, and the dialog a nil observer.
func TestNilMetricsGiveNoHooks(t *testing.T) {
	var m *Metrics
	if m.DialogObserver("w") != nil || m.WarehouseHook("w") != nil || m.ModelHooks("gpt-x").LLM.Usage != nil || m.SlackHooks().Duplicate != nil || m.DiscordHooks().APIError != nil {
		t.Fatal("a nil *Metrics should hand out no hooks")
	}
}

// TestEveryDocumentedMetricAtStart: a fresh replica, wired the way bot
// serve wires one warehouse, a model and both platforms, serves every
// metric docs/CONFIGURATION.md lists before anything happened, at zero,
// so dashboards and rate() work from the first event.
func TestEveryDocumentedMetricAtStart(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/CONFIGURATION.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `clarify_") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, name := range regexp.MustCompile("`(clarify_[a-z_]+)`").FindAllStringSubmatch(cell, -1) {
			documented[name[1]] = true
		}
	}
	if len(documented) < 20 {
		t.Fatalf("found %d documented metrics; has the table moved?", len(documented))
	}

	m := New()
	m.DialogObserver("shop")
	m.WarehouseHook("shop")
	m.ModelHooks("gpt-x")
	m.SlackHooks()
	m.DiscordHooks()
	m.QueueDepth("slack", func() int { return 0 })
	m.StorePool(fakePool{})
	m.ComponentUp("warehouse:shop", true)

	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range families {
		served[f.GetName()] = true
		if strings.HasPrefix(f.GetName(), "clarify_") && f.GetName() != "clarify_component_up" {
			for _, s := range f.GetMetric() {
				if v := s.GetCounter().GetValue() + s.GetGauge().GetValue() + float64(s.GetHistogram().GetSampleCount()); v != 0 {
					t.Errorf("%s starts at %v, want 0", f.GetName(), v)
				}
			}
		}
	}
	for name := range documented {
		if !served[name] {
			t.Errorf("%s is documented but not served on a fresh replica", name)
		}
	}
}

type fakePool struct{}

func (fakePool) Stats() sql.DBStats { return sql.DBStats{} }
