package dialog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/demotest"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// auditClock ticks a millisecond on every reading (the bot's own work
// takes time) and jumps when the person "thinks" between turns.
type auditClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *auditClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *auditClock) think(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// auditEnv is a manager over the demo warehouse that records questions
// in the ontology's audit log.
type auditEnv struct {
	t     *testing.T
	demo  *demotest.Demo
	facts *ontology.Store
	deps  dialog.Deps
	cfg   dialog.Config
	mgr   *dialog.Manager
	clock *auditClock
}

func newAuditEnv(t *testing.T, cfg dialog.Config) *auditEnv {
	t.Helper()
	demo := demotest.Start(t, 2000)
	facts, convs := dialogtest.Stores(t)
	clock := &auditClock{now: dialogtest.Now()}
	cfg.Warehouse, cfg.Now = "demo", clock.Now
	e := &auditEnv{t: t, demo: demo, facts: facts, cfg: cfg, clock: clock}
	e.deps = dialog.Deps{
		Engine: offline.New(demo.Catalog, offline.Options{Now: dialogtest.Now}),
		Exec:   demo.DB, Catalog: demo.Catalog, Facts: facts, Admin: facts, States: convs, Questions: facts,
	}
	e.restart()
	return e
}

// restart builds a new manager over the same stores, as a process restart would.
func (e *auditEnv) restart() {
	e.t.Helper()
	m, err := dialog.New(e.cfg, e.deps)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mgr = m
}

// questions reads the question records, oldest first.
func (e *auditEnv) questions() []ontology.QuestionRecord {
	e.t.Helper()
	entries, err := e.facts.AuditQuery(context.Background(), ontology.AuditFilter{Actions: []string{ontology.ActionQuestion}})
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]ontology.QuestionRecord, len(entries))
	for i, en := range entries {
		out[len(entries)-1-i] = *en.Question
	}
	return out
}

// slackWho is a Slack-shaped asker: the conversation key is
// "<channel>:<thread ts>", as the Slack adapter makes it.
var slackWho = dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C7", User: "U9"}

func (e *auditEnv) send(conv string, ev dialog.Event) dialog.Reply {
	e.t.Helper()
	ev.Who, ev.Conversation = slackWho, conv
	replies, err := e.mgr.Handle(context.Background(), ev)
	if err != nil || len(replies) == 0 {
		e.t.Fatalf("handle %+v: %v (%d replies)", ev, err, len(replies))
	}
	return replies[len(replies)-1]
}

func (e *auditEnv) choose(conv string, r dialog.Reply, want string) dialog.Reply {
	e.t.Helper()
	if r.Kind != dialog.ReplyClarification {
		e.t.Fatalf("want a clarification, got: %s", r.Text)
	}
	for i, o := range r.Clarification.Options {
		if strings.Contains(strings.ToLower(o.Label), want) {
			return e.send(conv, dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: i})
		}
	}
	e.t.Fatalf("no option %q in %s", want, r.Text)
	return dialog.Reply{}
}

func labels(c *dialog.Clarification) []string {
	var out []string
	for _, o := range c.Options {
		out = append(out, o.Label)
	}
	return out
}

// TestAuditTwoClarifications is the "done when": the record of a
// conversation with two clarifications holds every step, in order; the
// same question again holds the facts that decided it instead.
func TestAuditTwoClarifications(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	const conv = "C7:1700000000.000100"
	q1 := e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "what was revenue in 2024?"})
	if q1.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got: %s", q1.Text)
	}
	if got := e.questions(); len(got) != 0 {
		t.Fatalf("a record before the answer: %+v", got)
	}
	e.clock.think(time.Hour) // the person's thinking is not the bot's time
	// A restart between the clicks: the trail travels with the conversation.
	e.restart()
	q2 := e.choose(conv, q1, "net revenue")
	e.clock.think(time.Hour)
	r := e.choose(conv, q2, "left the warehouse")
	if r.Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer, got: %s", r.Text)
	}
	recs := e.questions()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %+v", len(recs), recs)
	}
	rec := recs[0]
	want := []struct{ asked, answer string }{{q1.Clarification.Prompt, "Net revenue"}, {q2.Clarification.Prompt, "left the warehouse"}}
	if len(rec.Steps) != 2 {
		t.Fatalf("steps %+v, want the two clarifications", rec.Steps)
	}
	for i, w := range want {
		s := rec.Steps[i]
		opts := labels([]*dialog.Clarification{q1.Clarification, q2.Clarification}[i])
		if s.Kind != dialog.StepClarification || s.Asked != w.asked || !strings.Contains(s.Answer, w.answer) || s.Typed || fmt.Sprint(s.Options) != fmt.Sprint(opts) {
			t.Errorf("step %d = %+v, want %q → %q among %q", i, s, w.asked, w.answer, opts)
		}
	}
	if !rec.Steps[0].At.Before(rec.Steps[1].At) {
		t.Errorf("steps out of order: %v, %v", rec.Steps[0].At, rec.Steps[1].At)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"outcome", rec.Outcome, dialog.OutcomeAnswered},
		{"user", rec.User, "slack:T1:U9"},
		{"platform", rec.Platform, "slack"},
		{"workspace", rec.Workspace, "T1"},
		{"channel", rec.Channel, "C7"},
		{"thread", rec.Thread, "1700000000.000100"},
		{"conversation", rec.Conversation, conv},
		{"warehouse", rec.Warehouse, "demo"},
		{"question", rec.Question, "what was revenue in 2024?"},
		{"engine", rec.Engine, "offline"},
		{"sql", fmt.Sprint(rec.SQL), fmt.Sprint([]string{r.Answer.SQL})},
		{"rows", rec.Rows, r.Answer.RowCount},
		{"facts used", len(rec.FactsUsed), 0},
		{"tokens", rec.PromptTokens + rec.CompletionTokens, 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if rec.Duration <= 0 || rec.Duration >= time.Hour {
		t.Errorf("duration %v: want the bot's own time, without the two hours of thinking", rec.Duration)
	}
	assertNoValues(t, e, r.Answer)

	// The same question again: decided by the two facts, nothing asked.
	r = e.send("C7:1700000000.000200", dialog.Event{Kind: dialog.EventMessage, Text: "what was revenue in 2024?"})
	if r.Kind != dialog.ReplyAnswer || len(r.Answer.UsedFacts) != 2 {
		t.Fatalf("want an answer from two facts, got: %s", r.Text)
	}
	recs = e.questions()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	rec = recs[1]
	if len(rec.Steps) != 0 || rec.Thread != "1700000000.000200" {
		t.Errorf("second record: steps %+v thread %q", rec.Steps, rec.Thread)
	}
	phrases := map[string]string{}
	for _, f := range rec.FactsUsed {
		phrases[f.Phrase] = f.ID
		if f.Scope != ontology.ScopeUser || f.Meaning == "" {
			t.Errorf("fact use %+v: want a user fact with its meaning", f)
		}
	}
	for _, u := range r.Answer.UsedFacts {
		if phrases[u.Phrase] != u.FactID {
			t.Errorf("facts used %+v, want %s=%s among them", rec.FactsUsed, u.Phrase, u.FactID)
		}
	}
	if _, ok := phrases["revenue"]; !ok || len(phrases) != 2 {
		t.Errorf("facts used %+v, want revenue and dates", rec.FactsUsed)
	}
}

// assertNoValues fails if any value of the answer's rows, raw or as shown,
// appears in an encoded audit entry. Short values ("1", "TX") could appear
// in any text, so values under five characters are not looked for.
func assertNoValues(t *testing.T, e *auditEnv, a *dialog.Answer) {
	t.Helper()
	entries, err := e.facts.AuditQuery(context.Background(), ontology.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for _, en := range entries {
		b, err := json.Marshal(en)
		if err != nil {
			t.Fatal(err)
		}
		log.Write(b)
	}
	var values []string
	for _, row := range a.Result.Rows {
		for _, v := range row {
			values = append(values, fmt.Sprint(v))
		}
	}
	for _, row := range a.Rows {
		values = append(values, row...)
	}
	looked := 0
	for _, v := range values {
		if len(v) < 5 {
			continue
		}
		looked++
		if strings.Contains(log.String(), v) {
			t.Errorf("result value %q is in the audit log", v)
		}
	}
	if looked == 0 {
		t.Fatalf("no distinctive values to look for in %v", values)
	}
}

func TestAuditNoResultValues(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	const conv = "C7:1700000000.000300"
	r := e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "list customers in Ohio"})
	r = e.choose(conv, r, "email")
	for r.Kind == dialog.ReplyClarification {
		r = e.choose(conv, r, strings.ToLower(r.Clarification.Options[0].Label))
	}
	if r.Kind != dialog.ReplyAnswer || r.Answer.RowCount < 2 {
		t.Fatalf("want a list of customers, got: %s", r.Text)
	}
	if recs := e.questions(); len(recs) != 1 || recs[0].Rows != r.Answer.RowCount {
		t.Fatalf("records %+v, want one with %d rows", recs, r.Answer.RowCount)
	}
	assertNoValues(t, e, r.Answer)
}

// TestAuditFollowUpsAndFeedback: every answer is a record of its own,
// holding the steps since the previous record.
func TestAuditFollowUpsAndFeedback(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	const conv = "C7:1700000000.000400"
	answerAll := func(r dialog.Reply) dialog.Reply {
		for r.Kind == dialog.ReplyClarification {
			r = e.choose(conv, r, strings.ToLower(r.Clarification.Options[0].Label))
		}
		if r.Kind != dialog.ReplyAnswer {
			t.Fatalf("want an answer, got: %s", r.Text)
		}
		return r
	}
	first := answerAll(e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "what was revenue in 2024?"}))
	second := answerAll(e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "and by month?"}))
	e.send(conv, dialog.Event{Kind: dialog.EventCorrect, Target: second.Answer.ID})
	third := e.send(conv, dialog.Event{Kind: dialog.EventWrong, Target: second.Answer.ID})
	if third.Kind == dialog.ReplyClarification {
		third = answerAll(third)
	}
	recs := e.questions()
	kinds := make([][]string, len(recs))
	for i, rec := range recs {
		for _, s := range rec.Steps {
			kinds[i] = append(kinds[i], s.Kind)
		}
		if rec.Question != "what was revenue in 2024?" || rec.Conversation != conv {
			t.Errorf("record %d: question %q conversation %q", i, rec.Question, rec.Conversation)
		}
	}
	if len(recs) < 3 {
		t.Fatalf("%d records (%v), want the first answer, the follow-up's, the confirmation and more", len(recs), kinds)
	}
	checks := []struct {
		rec       int
		outcome   string
		firstStep string
		sql       string
	}{
		{0, dialog.OutcomeAnswered, dialog.StepClarification, first.Answer.SQL},
		{1, dialog.OutcomeAnswered, dialog.StepFollowUp, second.Answer.SQL},
		{2, dialog.OutcomeConfirmed, dialog.StepCorrect, second.Answer.SQL},
	}
	if len(recs) == 4 {
		sql := ""
		outcome := dialog.OutcomeFailed
		if third.Kind == dialog.ReplyAnswer {
			sql, outcome = third.Answer.SQL, dialog.OutcomeAnswered
		}
		checks = append(checks, struct {
			rec                     int
			outcome, firstStep, sql string
		}{3, outcome, dialog.StepWrong, sql})
	}
	for _, c := range checks {
		t.Run(fmt.Sprint(c.rec), func(t *testing.T) {
			rec := recs[c.rec]
			if rec.Outcome != c.outcome || len(rec.Steps) == 0 || rec.Steps[0].Kind != c.firstStep {
				t.Fatalf("record %+v, want %s starting with %s (all: %v)", rec, c.outcome, c.firstStep, kinds)
			}
			if c.sql != "" && (len(rec.SQL) != 1 || rec.SQL[0] != c.sql) {
				t.Errorf("sql %q, want %q", rec.SQL, c.sql)
			}
		})
	}
	if got := recs[1].Steps[0].Answer; got != "and by month?" {
		t.Errorf("follow-up step answer %q", got)
	}
	if len(recs) != 4 {
		t.Errorf("%d records (%v), want 4: the wrong answer's replacement too", len(recs), kinds)
	}
}

func TestAuditRefusedAndTyped(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{MaxQuestionLength: 300})
	long := strings.Repeat("how much revenue did we make ", 20)
	tests := []struct {
		name, text, detail string
	}{
		{"too long", long, "characters long"},
		{"no words", "??? 42", "couldn't find a question"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conv := fmt.Sprintf("C7:1700000001.%06d", i)
			r := e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: tc.text})
			if r.Kind != dialog.ReplyNotice {
				t.Fatalf("want a refusal, got: %s", r.Text)
			}
			recs := e.questions()
			rec := recs[len(recs)-1]
			if rec.Outcome != dialog.OutcomeRefused || !strings.Contains(rec.Detail, tc.detail) || rec.Conversation != conv || rec.User != "slack:T1:U9" {
				t.Fatalf("record %+v, want refused (%s)", rec, tc.detail)
			}
			if len(rec.Question) > 250 || len(rec.SQL) != 0 || rec.Rows != 0 {
				t.Errorf("a refused record keeps a clipped question and nothing run: %+v", rec)
			}
		})
	}

	// An answer written under "Other…" is recorded as typed.
	const conv = "C7:1700000002.000000"
	r := e.send(conv, dialog.Event{Kind: dialog.EventMessage, Text: "what was revenue in 2024?"})
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got: %s", r.Text)
	}
	r = e.send(conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "use gross amount"})
	for r.Kind == dialog.ReplyClarification {
		r = e.choose(conv, r, strings.ToLower(r.Clarification.Options[0].Label))
	}
	recs := e.questions()
	rec := recs[len(recs)-1]
	if len(rec.Steps) == 0 || !rec.Steps[0].Typed || rec.Steps[0].Answer != "use gross amount" {
		t.Fatalf("steps %+v, want the typed answer first", rec.Steps)
	}
}

// Without a question log nothing is recorded and nothing fails.
func TestAuditOff(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	e.deps.Questions = nil
	e.restart()
	r := e.send("C7:1.0", dialog.Event{Kind: dialog.EventMessage, Text: "how many orders are there?"})
	if r.Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer, got: %s", r.Text)
	}
	if recs := e.questions(); len(recs) != 0 {
		t.Fatalf("records without a log: %+v", recs)
	}
}

// A team glossary's fact is recorded with its source.
func TestAuditNamesTheGlossary(t *testing.T) {
	t.Parallel()
	e := newAuditEnv(t, dialog.Config{})
	team := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: "slack:T1", Warehouse: "demo", Phrase: "sales region", Kind: ontology.KindAggregate,
		Target: ontology.Target{Slot: "group", Choice: ontology.ColumnTerm("regions.name")}, Meaning: "the sales rep's region"}
	if _, err := e.facts.ReplaceSource(context.Background(), ontology.SourceGlossary+"team", []ontology.Fact{team}, ontology.Actor{ID: "admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	r := e.send("C7:1.1", dialog.Event{Kind: dialog.EventMessage, Text: "number of orders by sales region"})
	if r.Answer == nil {
		t.Fatalf("want an answer: %s", r.Text)
	}
	qs := e.questions()
	if len(qs) != 1 || len(qs[0].FactsUsed) != 1 || qs[0].FactsUsed[0].Source != ontology.SourceGlossary+"team" || qs[0].FactsUsed[0].Phrase != "sales region" {
		t.Fatalf("records: %+v", qs)
	}
}
