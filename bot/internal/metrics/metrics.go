// Package metrics is the only package that knows Prometheus: the dialog,
// the warehouse, the model client and the adapters offer plain hooks, and
// Metrics maps them to collectors in its own registry (no global state).
// Labels are few-valued: warehouse, engine, model, platform, API method,
// reason. Never a user, a channel or a question's text.
package metrics

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/clarify-bot/clarify/adapters/discord"
	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/llmengine"
)

// Refusal reasons counted here besides the dialog's (dialog.Refuse…).
const (
	refuseNotReadOnly  = "not_read_only" // the guard refused a statement
	refuseAccessDenied = "access_denied" // the warehouse refused to read
	refuseAccessRule   = "access_rule"   // the warehouse's access rules (config) forbid it
	refuseBudget       = "budget"        // a daily model token budget is used up
)

// Metrics holds the bot's collectors and the registry that serves them.
// A nil *Metrics hands out no-op hooks, so builders can be called without.
type Metrics struct {
	registry *prometheus.Registry

	questions      *prometheus.CounterVec
	clarifications *prometheus.CounterVec
	clarAnswers    *prometheus.CounterVec
	answers        *prometheus.CounterVec
	facts          *prometheus.CounterVec
	refusals       *prometheus.CounterVec

	queryLatency *prometheus.HistogramVec
	queryErrors  *prometheus.CounterVec

	engineLatency  *prometheus.HistogramVec
	engineFailures *prometheus.CounterVec

	tokens       *prometheus.CounterVec
	modelCalls   *prometheus.CounterVec
	modelRetries *prometheus.CounterVec

	apiErrors  *prometheus.CounterVec
	apiRetries *prometheus.CounterVec
	duplicates *prometheus.CounterVec

	// Production: time to the first visible message and to the answer,
	// events left for a retry because the store could not check them,
	// components up, placeholders of stopped replicas replaced.
	firstMessage     *prometheus.HistogramVec
	answerTime       *prometheus.HistogramVec
	dedupUnavailable *prometheus.CounterVec
	componentUp      *prometheus.GaugeVec
	orphans          *prometheus.CounterVec
	resumed          *prometheus.CounterVec
}

// New makes the collectors and registers them in a registry of their own.
func New() *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "clarify", Name: name, Help: help}, labels)
	}
	m := &Metrics{
		registry:       prometheus.NewRegistry(),
		questions:      counter("questions_total", "New questions accepted for work.", "warehouse"),
		clarifications: counter("clarifications_total", "Multiple-choice clarifications asked, by kind of doubt.", "warehouse", "kind"),
		clarAnswers:    counter("clarification_answers_total", "Clarifications people answered (an option or their own words).", "warehouse"),
		answers:        counter("answers_total", "Results shown.", "warehouse"),
		facts:          counter("facts_used_total", "Remembered choices applied instead of asking, by the fact's scope.", "warehouse", "scope"),
		refusals:       counter("refusals_total", "Messages, statements or model calls turned away, by reason.", "reason"),
		queryLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "clarify", Name: "warehouse_query_duration_seconds",
			Help:    "Time of statements run on the warehouse (cache hits excluded), failed ones included.",
			Buckets: prometheus.ExponentialBuckets(0.002, 2.5, 12),
		}, []string{"warehouse"}),
		queryErrors: counter("warehouse_query_errors_total", "Statements the warehouse failed to run, by kind.", "warehouse", "kind"),
		engineLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "clarify", Name: "engine_duration_seconds",
			Help:    "Time an engine took to propose candidates.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"engine"}),
		engineFailures: counter("engine_failures_total", "Engine calls that failed.", "engine"),
		tokens:         counter("model_tokens_total", "Language model tokens, by model and type (prompt, completion).", "model", "type"),
		modelCalls:     counter("model_requests_total", "Language model completions received.", "model"),
		modelRetries:   counter("model_retries_total", "Language model requests sent again, by reason.", "reason"),
		apiErrors:      counter("platform_api_errors_total", "Chat platform API calls that failed.", "platform", "method"),
		apiRetries:     counter("platform_api_retries_total", "Chat platform API calls sent again after a rate limit.", "platform", "method"),
		duplicates:     counter("events_deduplicated_total", "Events the platform delivered again and that were dropped.", "platform"),
		firstMessage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "clarify", Name: "first_message_seconds",
			Help:    "Time from receiving a question or click to the first message the person sees (the placeholder).",
			Buckets: []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30},
		}, []string{"platform"}),
		answerTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "clarify", Name: "answer_seconds",
			Help:    "Time from receiving a question or click to its replies delivered (an answer or the next clarification).",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 12),
		}, []string{"platform"}),
		dedupUnavailable: counter("events_store_unavailable_total", "Events left for the platform to send again because the shared store could not check their id.", "platform"),
		componentUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "clarify", Name: "component_up",
			Help: "1 when a component (warehouse:<name>, slack, discord, store) is up, else 0."}, []string{"component"}),
		orphans: counter("orphaned_placeholders_replaced_total", "Placeholders left by a stopped replica, replaced with a note to try again.", "platform"),
		resumed: counter("orphaned_turns_resumed_total", "Turns a stopped replica began, taken over and finished by another (or by the restarted bot).", "platform"),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.questions, m.clarifications, m.clarAnswers, m.answers, m.facts, m.refusals,
		m.queryLatency, m.queryErrors, m.engineLatency, m.engineFailures,
		m.tokens, m.modelCalls, m.modelRetries, m.apiErrors, m.apiRetries, m.duplicates,
		m.firstMessage, m.answerTime, m.dedupUnavailable, m.componentUp, m.orphans, m.resumed,
	)
	// Known reasons start at zero, so that rate() works from the first one.
	for _, r := range []string{dialog.RefuseTooLong, dialog.RefuseNoQuestion, dialog.RefuseWrite, dialog.RefuseRateLimited, refuseNotReadOnly, refuseAccessDenied, refuseAccessRule, refuseBudget} {
		m.refusals.WithLabelValues(r)
	}
	m.engine(offlineEngine)
	return m
}

// offlineEngine and modelEngine are the engine labels (dialog's engines'
// names); the offline engine always runs.
const (
	offlineEngine = "offline"
	modelEngine   = "llm"
)

// engine makes an engine's series exist at zero, so that a fresh replica
// shows every documented metric and rate() works from the first event.
func (m *Metrics) engine(name string) {
	m.engineLatency.WithLabelValues(name)
	m.engineFailures.WithLabelValues(name)
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler(logger *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		Registry: m.registry,
	})
}

// DialogObserver counts one warehouse's conversations.
func (m *Metrics) DialogObserver(warehouseName string) dialog.Observer {
	if m == nil {
		return nil
	}
	o := &dialogMetrics{m: m, warehouse: warehouseName,
		questions: m.questions.WithLabelValues(warehouseName), answers: m.answers.WithLabelValues(warehouseName),
		clarAnswers: m.clarAnswers.WithLabelValues(warehouseName)}
	for _, k := range []dialog.AmbiguityKind{dialog.AmbColumn, dialog.AmbOutput, dialog.AmbQuestion, dialog.AmbValue} {
		m.clarifications.WithLabelValues(warehouseName, string(k))
	}
	for _, scope := range []string{"user", "channel", "workspace"} {
		m.facts.WithLabelValues(warehouseName, scope)
	}
	return o
}

type dialogMetrics struct {
	m                               *Metrics
	warehouse                       string
	questions, answers, clarAnswers prometheus.Counter
}

var _ dialog.Observer = (*dialogMetrics)(nil)

func (d *dialogMetrics) Question() { d.questions.Inc() }
func (d *dialogMetrics) Clarification(kind dialog.AmbiguityKind) {
	d.m.clarifications.WithLabelValues(d.warehouse, string(kind)).Inc()
}
func (d *dialogMetrics) ClarificationAnswered() { d.clarAnswers.Inc() }
func (d *dialogMetrics) Answer()                { d.answers.Inc() }
func (d *dialogMetrics) FactApplied(scope string) {
	d.m.facts.WithLabelValues(d.warehouse, scope).Inc()
}

// RateLimited counts a question the rate limits refused before the dialog.
func (m *Metrics) RateLimited() {
	if m != nil {
		m.refusals.WithLabelValues(dialog.RefuseRateLimited).Inc()
	}
}

// AccessRefused counts a person or channel turned away by access rules.
func (m *Metrics) AccessRefused() {
	if m != nil {
		m.refusals.WithLabelValues(refuseAccessRule).Inc()
	}
}

func (d *dialogMetrics) Refused(reason string) { d.m.refusals.WithLabelValues(reason).Inc() }
func (d *dialogMetrics) EngineDone(engine string, took time.Duration, err error) {
	d.m.engineLatency.WithLabelValues(engine).Observe(took.Seconds())
	if err != nil {
		d.m.engineFailures.WithLabelValues(engine).Inc()
	}
}

// WarehouseHook times one warehouse's statements and counts its refusals.
func (m *Metrics) WarehouseHook(warehouseName string) func(warehouse.QueryEvent) {
	if m == nil {
		return nil
	}
	latency := m.queryLatency.WithLabelValues(warehouseName)
	for _, k := range warehouse.ErrorKinds() {
		m.queryErrors.WithLabelValues(warehouseName, errorKindLabel(k))
	}
	return func(ev warehouse.QueryEvent) {
		kind := warehouse.KindOfError(ev.Err)
		switch {
		case ev.Err == nil:
			latency.Observe(ev.Elapsed.Seconds())
			return
		case kind == warehouse.KindRefused:
			// Never reached the server: a refusal, not a query.
			reason := refuseNotReadOnly
			if r, ok := sqlguard.Refused(ev.Err); ok && r.Kind == sqlguard.KindAccess {
				reason = refuseAccessRule
			}
			m.refusals.WithLabelValues(reason).Inc()
			return
		case kind == warehouse.KindAccessDenied:
			m.refusals.WithLabelValues(refuseAccessDenied).Inc()
		}
		latency.Observe(ev.Elapsed.Seconds())
		m.queryErrors.WithLabelValues(warehouseName, errorKindLabel(kind)).Inc()
	}
}

func errorKindLabel(k warehouse.ErrorKind) string { return strings.ReplaceAll(k.String(), " ", "_") }

// ModelHooks counts tokens, completions, retries and budget refusals. The
// configured model's series start at zero ("" when none is configured).
func (m *Metrics) ModelHooks(model string) ModelHooks {
	if m == nil {
		return ModelHooks{}
	}
	if model != "" {
		m.engine(modelEngine)
		m.tokens.WithLabelValues(model, "prompt")
		m.tokens.WithLabelValues(model, "completion")
		m.modelCalls.WithLabelValues(model)
		for _, r := range []string{llm.RetryRateLimited, llm.RetryServerError, llm.RetryNetwork} {
			m.modelRetries.WithLabelValues(r)
		}
	}
	return ModelHooks{
		LLM: llm.Hooks{
			Usage: func(model string, u llm.Usage) {
				m.tokens.WithLabelValues(model, "prompt").Add(float64(u.PromptTokens))
				m.tokens.WithLabelValues(model, "completion").Add(float64(u.CompletionTokens))
				m.modelCalls.WithLabelValues(model).Inc()
			},
			Retry: func(reason string) { m.modelRetries.WithLabelValues(reason).Inc() },
		},
		BudgetRefused: func() { m.refusals.WithLabelValues(refuseBudget).Inc() },
	}
}

// ModelHooks are what the model engine's builder wires in.
type ModelHooks struct {
	LLM llm.Hooks
	// BudgetRefused hears each question a daily token budget turned away
	// (nil: none); wrap the usage store in a CountedUsage to call it.
	BudgetRefused func()
}

// CountedUsage reports budget refusals of the usage store.
type CountedUsage struct {
	llmengine.Usage
	Refused func()
}

// Allow asks the usage store and counts a budget refusal.
func (u CountedUsage) Allow(ctx context.Context, user, workspace string) error {
	err := u.Usage.Allow(ctx, user, workspace)
	if errors.Is(err, llm.ErrBudget) {
		u.Refused()
	}
	return err
}

// SlackHooks count the Slack adapter's API errors, retries and duplicates.
func (m *Metrics) SlackHooks() slackadapter.Hooks {
	if m == nil {
		return slackadapter.Hooks{}
	}
	const p = "slack"
	dup := m.duplicates.WithLabelValues(p)
	first, answer := m.firstMessage.WithLabelValues(p), m.answerTime.WithLabelValues(p)
	m.platformAtZero(p, slackadapter.Methods)
	return slackadapter.Hooks{
		APIError:         func(method string) { m.apiErrors.WithLabelValues(p, method).Inc() },
		Retry:            func(method string) { m.apiRetries.WithLabelValues(p, method).Inc() },
		Duplicate:        dup.Inc,
		DedupUnavailable: m.dedupUnavailable.WithLabelValues(p).Inc,
		FirstMessage:     func(d time.Duration) { first.Observe(d.Seconds()) },
		Answered:         func(d time.Duration) { answer.Observe(d.Seconds()) },
	}
}

// ComponentUp sets a component's up gauge (the health registry's hook).
func (m *Metrics) ComponentUp(name string, up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.componentUp.WithLabelValues(name).Set(v)
}

// OrphanResumed counts a turn of a stopped replica taken over.
func (m *Metrics) OrphanResumed(platform string) {
	if m != nil {
		m.resumed.WithLabelValues(platform).Inc()
	}
}

// OrphanReplaced counts a placeholder of a stopped replica replaced.
func (m *Metrics) OrphanReplaced(platform string) {
	if m != nil {
		m.orphans.WithLabelValues(platform).Inc()
	}
}

// QueueDepth exports a platform's waiting turns.
func (m *Metrics) QueueDepth(platform string, depth func() int) {
	if m == nil {
		return
	}
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "clarify", Name: "queue_depth", ConstLabels: prometheus.Labels{"platform": platform},
		Help: "Turns (questions, clicks) waiting for a worker.",
	}, func() float64 { return float64(depth()) }))
}

// StorePool exports the server store's connection pool.
func (m *Metrics) StorePool(s interface{ Stats() sql.DBStats }) {
	if m == nil {
		return
	}
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "clarify", Name: "store_connections_in_use",
			Help: "Connections to the server store in use."}, func() float64 { return float64(s.Stats().InUse) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "clarify", Name: "store_connection_waits_total",
			Help: "Times a store statement waited for a connection (the pool was full)."}, func() float64 { return float64(s.Stats().WaitCount) }),
	)
}

// DiscordHooks count the Discord adapter's failed and retried REST calls.
func (m *Metrics) DiscordHooks() discord.Hooks {
	if m == nil {
		return discord.Hooks{}
	}
	const p = "discord"
	first, answer := m.firstMessage.WithLabelValues(p), m.answerTime.WithLabelValues(p)
	m.platformAtZero(p, discord.Routes)
	return discord.Hooks{
		APIError:     func(route string) { m.apiErrors.WithLabelValues(p, route).Inc() },
		Retry:        func(route string) { m.apiRetries.WithLabelValues(p, route).Inc() },
		FirstMessage: func(d time.Duration) { first.Observe(d.Seconds()) },
		Answered:     func(d time.Duration) { answer.Observe(d.Seconds()) },
	}
}

// platformAtZero makes a platform's series exist at zero: API errors and
// retries of each method it calls, duplicates, events left for a retry and
// placeholders of stopped replicas replaced.
func (m *Metrics) platformAtZero(platform string, methods []string) {
	for _, method := range methods {
		m.apiErrors.WithLabelValues(platform, method)
		m.apiRetries.WithLabelValues(platform, method)
	}
	m.duplicates.WithLabelValues(platform)
	m.dedupUnavailable.WithLabelValues(platform)
	m.orphans.WithLabelValues(platform)
	m.resumed.WithLabelValues(platform)
}
