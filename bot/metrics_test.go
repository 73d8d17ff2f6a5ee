package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
)

// scrape GETs /metrics and parses the Prometheus text format.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample sums the counters (or histogram counts) of family name whose
// labels include want.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	total := 0.0
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// TestMetricsEndToEnd runs the whole bot, asks a question that needs a
// clarification, answers it, and reads the counters back from /metrics.
func TestMetricsEndToEnd(t *testing.T) {
	m, _, _ := startMain(t, Config{})
	before := scrape(t, m.Addr())
	if v := sample(before, "clarify_questions_total", nil); v > 0 {
		t.Fatalf("questions before any: %v", v)
	}
	if v := sample(before, "clarify_refusals_total", map[string]string{"reason": "rate_limited"}); v != 0 {
		t.Fatalf("known refusal reasons should start at zero, got %v", v)
	}

	ctx := context.Background()
	who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "u"}
	replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "m1", Who: who, Text: "what was revenue in 2024?"})
	if err != nil || len(replies) == 0 || replies[0].Kind != dialog.ReplyClarification {
		t.Fatalf("want a clarification first: %+v %v", replies, err)
	}
	asked, chosen := 1, 0
	for r := replies[len(replies)-1]; r.Kind == dialog.ReplyClarification; r = replies[len(replies)-1] {
		if chosen == 5 {
			t.Fatal("still asking after 5 answers")
		}
		replies, err = m.router.Handle(ctx, dialog.Event{Kind: dialog.EventChoose, Conversation: "m1", Who: who, Target: r.Clarification.ID, Option: 0})
		if err != nil || len(replies) == 0 {
			t.Fatalf("answer: %+v %v", replies, err)
		}
		chosen++
		if replies[len(replies)-1].Kind == dialog.ReplyClarification {
			asked++
		}
	}
	if replies[len(replies)-1].Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer at the end: %s", replies[len(replies)-1].Text)
	}

	fams := scrape(t, m.Addr())
	demo := map[string]string{"warehouse": "demo"}
	checks := []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
		says   string
	}{
		{"clarify_questions_total", demo, func(v float64) bool { return v == 1 }, "1"},
		{"clarify_clarifications_total", demo, func(v float64) bool { return v == float64(asked) && v >= 1 }, "the questions asked"},
		{"clarify_clarification_answers_total", demo, func(v float64) bool { return v == float64(chosen) }, "the options chosen"},
		{"clarify_answers_total", demo, func(v float64) bool { return v == 1 }, "1"},
		{"clarify_warehouse_query_duration_seconds", demo, func(v float64) bool { return v >= 1 }, "at least one observation"},
		{"clarify_engine_duration_seconds", map[string]string{"engine": "offline"}, func(v float64) bool { return v >= 1 }, "at least one observation"},
		{"clarify_refusals_total", nil, func(v float64) bool { return v == 0 }, "none"},
		{"go_goroutines", nil, func(v float64) bool { return v != -1 }, "present"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if v := sample(fams, c.name, c.labels); !c.want(v) {
				t.Errorf("%s%v = %v, want %s", c.name, c.labels, v, c.says)
			}
		})
	}
}

// TestRateLimitThroughSlack: with one question a minute per person, a
// second question in Slack gets an ephemeral notice saying when to try
// again; asked again after the wait, it is answered; the refusal is
// counted as rate_limited.
func TestRateLimitThroughSlack(t *testing.T) {
	fake := slackfake.New(t)
	m, _, _ := startMain(t, Config{
		Slack:  SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
		Limits: LimitsConfig{UserQuestionsPerMinute: 1, ChannelQuestionsPerMinute: 30, Burst: 1},
	})
	start := time.Now()
	c := &clock{t: start}
	m.limiter.SetClock(c.now) // before any event: the HTTP requests order it
	base := "http://" + m.Addr()

	n := 0
	ask := func(text string) string {
		n++
		ts := "1767100000.00010" + string(rune('0'+n))
		ev := map[string]any{
			"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback",
			"event_id": "Ev0LIMIT00" + string(rune('0'+n)), "event_time": 1767100000,
			"event": map[string]any{
				"type": "app_mention", "user": "U0ANA", "channel": "C0SALES", "ts": ts, "event_ts": ts,
				"text": "<@" + slackfake.BotUserID + "> " + text,
			},
		}
		raw, _ := json.Marshal(ev)
		if code, body := slackfake.Post(t, base+slackadapter.EventsPath, slackfake.Secret, time.Now(), "application/json", raw, nil); code != http.StatusOK {
			t.Fatalf("event: %d %s", code, body)
		}
		return ts
	}
	answered := func(since int, ts string) {
		t.Helper()
		ph := fake.Wait(t, since, "chat.postMessage", func(c slackfake.Call) bool { return c.Get("thread_ts") == ts })
		a := fake.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return c.TS == ph.TS })
		if !strings.Contains(a.Get("blocks"), "clarify.correct") {
			t.Fatalf("want an answer in thread %s: %s", ts, a.Get("text"))
		}
	}

	since := fake.Mark()
	answered(since, ask("how many customers do we have?"))

	since = fake.Mark()
	c.t = start.Add(20 * time.Second)
	ts := ask("how many products do we have?")
	notice := fake.Wait(t, since, "chat.postEphemeral", func(c slackfake.Call) bool { return c.Get("user") == "U0ANA" })
	want := "You're asking faster than I can take questions from one person (1 question a minute). Please try again in about 40 seconds."
	if got := notice.Get("text"); got != want || notice.Get("thread_ts") != ts {
		t.Fatalf("notice %q in thread %q, want %q in %q", got, notice.Get("thread_ts"), want, ts)
	}

	since = fake.Mark()
	c.t = start.Add(60 * time.Second)
	answered(since, ask("how many products do we have?"))

	fams := scrape(t, m.Addr())
	if v := sample(fams, "clarify_refusals_total", map[string]string{"reason": "rate_limited"}); v != 1 {
		t.Errorf("rate_limited refusals = %v, want 1", v)
	}
	if v := sample(fams, "clarify_questions_total", nil); v != 2 {
		t.Errorf("questions = %v, want 2 (the refused one is not counted)", v)
	}
}

// clock is a settable time for the rate limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
