package dialog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

type chat struct {
	t    *testing.T
	env  *dialogtest.Env
	who  dialog.Who
	conv string
	n    int
}

func newChat(t *testing.T, env *dialogtest.Env, user string) *chat {
	return &chat{t: t, env: env, who: dialog.Who{Platform: "test", Workspace: "w1", Channel: "c1", User: user}}
}

func (c *chat) send(ev dialog.Event) []dialog.Reply {
	c.t.Helper()
	ev.Who = c.who
	if ev.Conversation == "" {
		ev.Conversation = c.conv
	}
	replies, err := c.env.Manager.Handle(context.Background(), ev)
	if err != nil {
		c.t.Fatalf("handle %+v: %v", ev, err)
	}
	if len(replies) == 0 {
		c.t.Fatalf("no reply to %+v", ev)
	}
	return replies
}

func (c *chat) ask(q string) dialog.Reply {
	c.t.Helper()
	c.n++
	c.conv = fmt.Sprintf("%s-%d", c.who.User, c.n)
	r := c.send(dialog.Event{Kind: dialog.EventMessage, Text: q})
	return r[len(r)-1]
}

// choose picks the option whose label contains want.
func (c *chat) choose(r dialog.Reply, want string) dialog.Reply {
	c.t.Helper()
	if r.Kind != dialog.ReplyClarification {
		c.t.Fatalf("want a clarification, got %v: %s", r.Kind, r.Text)
	}
	for i, o := range r.Clarification.Options {
		if strings.Contains(strings.ToLower(o.Label), strings.ToLower(want)) {
			replies := c.send(dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: i})
			if replies[0].Resolved == nil || replies[0].Resolved.ClarificationID != r.Clarification.ID {
				c.t.Fatalf("the click should resolve the question: %+v", replies[0].Resolved)
			}
			return replies[len(replies)-1]
		}
	}
	c.t.Fatalf("no option %q in %s", want, r.Text)
	return dialog.Reply{}
}

// answerUntil answers clarifications by label until an answer comes.
func (c *chat) answerUntil(r dialog.Reply, picks map[string]string) (dialog.Reply, int) {
	c.t.Helper()
	asked := 0
	for r.Kind == dialog.ReplyClarification {
		asked++
		pick := ""
		for key, label := range picks {
			if strings.HasPrefix(r.Clarification.Key.String(), key) {
				pick = label
			}
		}
		if pick == "" {
			c.t.Fatalf("unexpected question %s (%s)", r.Clarification.Key, r.Text)
		}
		r = c.choose(r, pick)
	}
	return r, asked
}

func mustAnswer(t *testing.T, r dialog.Reply) *dialog.Answer {
	t.Helper()
	if r.Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer, got %v: %s", r.Kind, r.Text)
	}
	return r.Answer
}

// scalar reads one value directly, to check answers against.
func scalar(t *testing.T, env *dialogtest.Env, sql string) string {
	t.Helper()
	res, err := env.Demo.DB.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%s: %v", sql, err)
	}
	// As people see it: the gold's own name and type say how it reads (money
	// with two decimals in the warehouse's currency, counts with separators).
	fs := []colfmt.Format{colfmt.Detect(colfmt.Column{Name: res.Columns[0].Name, Type: res.Columns[0].Type})}
	colfmt.Consistent(fs, env.Manager.Labels().Currency())
	return fs[0].Value(res.Rows[0][0])
}

func TestClarifyRememberAndReuse(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")

	// An ambiguous question asks, and the chosen options give the right figure.
	r := ana.ask("what was revenue in 2024?")
	if r.Kind != dialog.ReplyClarification || !strings.Contains(r.Clarification.Prompt, "revenue") {
		t.Fatalf("want a question about revenue, got: %s", r.Text)
	}
	if n := len(r.Clarification.Options); n < 2 || n > dialog.MaxOptions {
		t.Fatalf("%d options", n)
	}
	r, asked := ana.answerUntil(r, map[string]string{"measure": "net revenue", "filteron:2024": "left the warehouse"})
	a := mustAnswer(t, r)
	want := scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2024")
	if len(a.Rows) != 1 || a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
	if asked != 2 {
		t.Fatalf("asked %d questions, want 2 (revenue, then which date)", asked)
	}

	// The same person asks again: nothing is asked, the facts are used and said.
	r = ana.ask("what was revenue in 2023?")
	a = mustAnswer(t, r)
	want = scalar(t, env, "SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2023")
	if a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
	if len(a.UsedFacts) != 2 || !strings.Contains(r.Text, "Using your earlier choice: 'revenue'") {
		t.Fatalf("used facts %+v\n%s", a.UsedFacts, r.Text)
	}

	// The date preference was learned among the orders' dates: it does not
	// decide questions about other tables' dates.
	if r := ana.ask("how many new customers signed up in 2024?"); r.Kind == dialog.ReplyAnswer {
		for _, f := range r.Answer.UsedFacts {
			if f.Phrase == "dates" {
				t.Fatalf("the orders' date preference decided a customers question: %s", r.Text)
			}
		}
	}

	// Someone else is still asked.
	ben := newChat(t, env, "ben")
	if r := ben.ask("what was revenue in 2023?"); r.Kind != dialog.ReplyClarification {
		t.Fatalf("another user must be asked, got: %s", r.Text)
	}

	// "change" reopens the decision and updates the fact.
	r = ana.ask("what was revenue in 2022?")
	a = mustAnswer(t, r)
	var revenueFact string
	for _, f := range a.UsedFacts {
		if f.Phrase == "revenue" {
			revenueFact = f.FactID
		}
	}
	r = ana.send(dialog.Event{Kind: dialog.EventChange, Target: a.ID, FactID: revenueFact})[0]
	r = ana.choose(r, "gross")
	a = mustAnswer(t, r)
	want = scalar(t, env, "SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2022")
	if a.Rows[0][0] != want {
		t.Fatalf("after change: %v, want %s", a.Rows, want)
	}
	a = mustAnswer(t, ana.ask("what was revenue in 2025?"))
	want = scalar(t, env, "SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2025")
	if a.Rows[0][0] != want {
		t.Fatalf("the changed fact should now apply: %v, want %s", a.Rows, want)
	}
}

func TestRestartBetweenQuestionAndClick(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	c := newChat(t, env, "cy")
	r := c.ask("list customers in Ohio")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got %s", r.Text)
	}
	env.Restart()
	r = c.choose(r, "name")
	for r.Kind == dialog.ReplyClarification {
		r = c.choose(r, r.Clarification.Options[0].Label)
	}
	a := mustAnswer(t, r)
	if a.RowCount == 0 || len(a.Columns) == 0 {
		t.Fatalf("empty answer after restart: %+v", a)
	}
	// A second click on the same (now answered) question gets a short note.
	again := c.send(dialog.Event{Kind: dialog.EventChoose, Target: "zzzzzzzz", Option: 0})
	if again[0].Kind != dialog.ReplyNotice || !again[0].Ephemeral {
		t.Fatalf("stale click: %+v", again[0])
	}
}

func TestClickedTwiceAndExpired(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	c := newChat(t, env, "dee")
	r := c.ask("who is our best customer?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got %s", r.Text)
	}
	id := r.Clarification.ID
	c.send(dialog.Event{Kind: dialog.EventChoose, Target: id, Option: 0})
	twice := c.send(dialog.Event{Kind: dialog.EventChoose, Target: id, Option: 1})
	if !strings.Contains(twice[0].Text, "already answered") || !twice[0].Ephemeral {
		t.Fatalf("second click: %+v", twice[0])
	}
	gone := c.send(dialog.Event{Kind: dialog.EventChoose, Conversation: "never-existed", Target: id, Option: 0})
	if !strings.Contains(gone[0].Text, "ask your question again") {
		t.Fatalf("unknown conversation: %+v", gone[0])
	}
}

// first2 is the first of two results.
func first2[A, B any](a A, _ B) A { return a }

func TestNotWhatIMeantAsksAgain(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	c := newChat(t, env, "eve")
	r, _ := c.answerUntil(c.ask("what was revenue in 2024?"), map[string]string{"measure": "net", "filteron:2024": "placed"})
	first := mustAnswer(t, r)
	replies := c.send(dialog.Event{Kind: dialog.EventWrong, Target: first.ID})
	last := replies[len(replies)-1]
	if last.Kind == dialog.ReplyAnswer && last.Answer.Rows[0][0] == first.Rows[0][0] {
		t.Fatal("the rejected answer came back")
	}
	// The choices the rejected answer was built on are not kept: the
	// next question asks again, and its answer teaches them.
	r = c.ask("what was revenue in 2023?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("choices whose answer was rejected must not apply: %s", r.Text)
	}
	mustAnswer(t, first2(c.answerUntil(r, map[string]string{"measure": "net", "filteron:2023": "placed"})))
	// The next question uses both facts; rejecting that answer weakens
	// them, so the one after asks again.
	a := mustAnswer(t, c.ask("what was revenue in 2022?"))
	if len(a.UsedFacts) != 2 {
		t.Fatalf("facts not used: %+v", a.UsedFacts)
	}
	replies = c.send(dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	if last := replies[len(replies)-1]; last.Kind != dialog.ReplyClarification {
		t.Fatalf("after 'not what I meant' on a remembered choice, ask again: %s", last.Text)
	}
	if r := c.ask("what was revenue in 2021?"); r.Kind != dialog.ReplyClarification {
		t.Fatalf("weakened preferences must not apply silently: %s", r.Text)
	}
}

func TestGarbageGetsAClearReplyAndChangesNothing(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 500, dialog.Config{})
	cases := []struct{ name, text, want string }{
		{"empty", "   ", "Ask me a question"},
		{"too long", strings.Repeat("revenue ", 1300), "characters long"},
		{"emoji only", "🚀🔥💯", "couldn't find a question"},
		{"sql injection", "'; DROP TABLE orders; --", ""},
		{"union injection", "customers' UNION SELECT password FROM mysql.user --", ""},
	}
	before := scalar(t, env, "SELECT COUNT(*) FROM orders")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, env, "mallory")
			r := c.ask(tc.text)
			if r.Text == "" {
				t.Fatal("empty reply")
			}
			if tc.want != "" && !strings.Contains(r.Text, tc.want) {
				t.Fatalf("reply %q should contain %q", r.Text, tc.want)
			}
			if r.Kind == dialog.ReplyAnswer && strings.Contains(strings.ToUpper(r.Answer.SQL), "DROP") {
				t.Fatalf("injected text reached the SQL: %s", r.Answer.SQL)
			}
		})
	}
	if after := scalar(t, env, "SELECT COUNT(*) FROM orders"); after != before {
		t.Fatalf("orders changed: %s → %s", before, after)
	}
	prefs := newChat(t, env, "mallory").send(dialog.Event{Kind: dialog.EventPrefs, Conversation: "p"})
	if prefs[0].Prefs == nil || len(prefs[0].Prefs.Facts) != 0 {
		t.Fatalf("garbage must not teach anything: %+v", prefs[0].Prefs)
	}
}

func TestANewQuestionWhilePendingStartsOver(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1000, dialog.Config{})
	c := newChat(t, env, "fay")
	r := c.ask("what was revenue in 2024?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got %s", r.Text)
	}
	replies := c.send(dialog.Event{Kind: dialog.EventMessage, Text: "how many customers do we have?"})
	if replies[0].Resolved == nil {
		t.Fatal("the pending question should be closed")
	}
	a := mustAnswer(t, replies[len(replies)-1])
	if want := scalar(t, env, "SELECT COUNT(*) FROM customers"); a.Rows[0][0] != want {
		t.Fatalf("got %v, want %s", a.Rows, want)
	}
	// A short typed answer is still an answer.
	r = c.ask("what was revenue in 2024?")
	replies = c.send(dialog.Event{Kind: dialog.EventMessage, Text: "net revenue"})
	if replies[0].Resolved == nil || !strings.Contains(strings.ToLower(replies[0].Resolved.Choice), "net revenue") {
		t.Fatalf("typed answer: %+v", replies[0].Resolved)
	}
}

// askingEngine proposes one query and, on its first round, its own
// question; the chosen option's feedback selects the second query.
type askingEngine struct{ first, second string }

func (askingEngine) Name() string { return "asking" }

func (e askingEngine) Candidates(_ context.Context, req dialog.Request) (*dialog.Proposal, error) {
	for _, f := range req.Feedback {
		if f.Text == "use ship date" {
			return &dialog.Proposal{Candidates: []dialog.Candidate{{SQL: e.second, Prior: 1}}}, nil
		}
	}
	return &dialog.Proposal{
		Candidates: []dialog.Candidate{{SQL: e.first, Prior: 1}},
		Ask: &dialog.EngineQuestion{Kind: dialog.AmbColumn, Phrase: "2024", Prompt: "Which date should 2024 refer to?",
			Options: []dialog.EngineOption{{Label: "When the order was placed", Feedback: "use order date"}, {Label: "When it shipped", Feedback: "use ship date"}}},
	}, nil
}

func TestEngineQuestionIsAskedWhenCandidatesAgree(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 800, dialog.Config{})
	eng := askingEngine{
		first:  "SELECT COUNT(*) FROM orders WHERE YEAR(ordered_at) = 2024",
		second: "SELECT COUNT(*) FROM orders WHERE YEAR(shipped_at) = 2024",
	}
	m, err := dialog.New(dialog.Config{Warehouse: "demo"}, dialog.Deps{Engine: eng, Exec: env.Demo.DB, Catalog: env.Demo.Catalog, Facts: env.Facts, Admin: env.Facts, States: env.Convs})
	if err != nil {
		t.Fatal(err)
	}
	env.Manager = m
	c := newChat(t, env, "gus")
	r := c.ask("how many orders in 2024?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Prompt != "Which date should 2024 refer to?" {
		t.Fatalf("want the engine's question, got %s", r.Text)
	}
	a := mustAnswer(t, c.choose(r, "shipped"))
	if want := scalar(t, env, eng.second); a.Rows[0][0] != want || a.SQL != eng.second {
		t.Fatalf("got %v (%s), want %s", a.Rows, a.SQL, want)
	}
}

func TestFollowUpsRefineTheAnswer(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	c := newChat(t, env, "hal")
	r, _ := c.answerUntil(c.ask("what was revenue in 2024?"), map[string]string{"measure": "net revenue", "filteron:2024": "placed"})
	mustAnswer(t, r)
	// "and by month?" keeps the choices and adds a breakdown.
	replies := c.send(dialog.Event{Kind: dialog.EventMessage, Text: "and by month?"})
	r, _ = c.answerUntil(replies[len(replies)-1], map[string]string{"filteron": "placed", "group": "placed"})
	a := mustAnswer(t, r)
	if a.RowCount != 12 || !strings.Contains(a.SQL, "net_amount") || !strings.Contains(a.SQL, "MONTH(") {
		t.Fatalf("by month: %d rows\n%s", a.RowCount, a.SQL)
	}
	// "only 2023" replaces the year.
	replies = c.send(dialog.Event{Kind: dialog.EventMessage, Text: "only 2023"})
	r, _ = c.answerUntil(replies[len(replies)-1], map[string]string{"filteron": "placed", "group": "placed"})
	a = mustAnswer(t, r)
	if !strings.Contains(a.SQL, "2023-01-01") || strings.Contains(a.SQL, "2024-01-01'") && !strings.Contains(a.SQL, "< '2024-01-01'") {
		t.Fatalf("only 2023:\n%s", a.SQL)
	}
}

func TestUnusableTypedAnswersKeepTheQuestionOpen(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 500, dialog.Config{})
	c := newChat(t, env, "gus")
	q := c.ask("what was revenue in 2024?")
	if q.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question, got %s", q.Text)
	}
	cases := []struct{ name, text, want string }{
		{"emoji only", "🙂🙂", "couldn't read that"},
		{"a statement", "SELECT * FROM orders; DROP TABLE orders", "don't run SQL"},
		{"an injection fragment", "net' OR 1=1 --", "don't run SQL"},
		{"words the data doesn't know", "blah blah", "matches nothing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			replies := c.send(dialog.Event{Kind: dialog.EventMessage, Text: tc.text})
			r := replies[len(replies)-1]
			if replies[0].Resolved != nil {
				t.Fatalf("the question should stay open, got resolved %+v", replies[0].Resolved)
			}
			if !strings.Contains(r.Text, tc.want) || !strings.Contains(r.Text, q.Clarification.Prompt) {
				t.Fatalf("reply %q should say %q and repeat the question", r.Text, tc.want)
			}
		})
	}
	// The original question still takes its answer.
	a, _ := c.answerUntil(c.choose(q, "net revenue"), map[string]string{"time": "placed", "date": "placed", "filter": "placed"})
	if mustAnswer(t, a).SQL == "" {
		t.Fatal("no SQL in the answer")
	}
}

// A remembered choice yields to the question's own words: a date chosen
// as "when the order was placed" does not decide a question about what
// was shipped, and a 'Texas' learned about orders does not decide a
// question about customers.
func TestTheQuestionsOwnWordsBeatAFact(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	cy := newChat(t, env, "cy")
	r, _ := cy.answerUntil(cy.ask("how many orders in 2024?"), map[string]string{"filteron:2024": "placed"})
	mustAnswer(t, r)
	r, _ = cy.answerUntil(cy.ask("how many orders went to Texas?"), map[string]string{"filteron:texas": "shipped to"})
	mustAnswer(t, r)

	// The fact still decides when the question says nothing else.
	a := mustAnswer(t, cy.ask("how many orders in 2025?"))
	if len(a.UsedFacts) != 1 || !strings.Contains(a.SQL, "ordered_at") {
		t.Fatalf("the date preference should decide: %+v\n%s", a.UsedFacts, a.SQL)
	}

	cases := []struct{ question, phrase, wantCol string }{
		{"how many orders did we ship in 2025?", "dates", "shipped_at"},
		{"how many customers live in Texas?", "texas", "customers.state"},
	}
	for _, tc := range cases {
		r := cy.ask(tc.question)
		if r.Kind == dialog.ReplyClarification {
			continue // asking is right too
		}
		a := mustAnswer(t, r)
		for _, f := range a.UsedFacts {
			if f.Phrase == tc.phrase {
				t.Errorf("%q: the preference %q decided against the question's words:\n%s", tc.question, f.Phrase, a.SQL)
			}
		}
		if !strings.Contains(a.SQL, tc.wantCol) {
			t.Errorf("%q: want a reading on %s, got\n%s", tc.question, tc.wantCol, a.SQL)
		}
	}
}

// Counting readings are told apart by what they count (when asked), the
// customers are counted once each, and "count the customers once each" remembered from a question over orders does not
// pick a join for a question that counts customers anyway.
func TestCountingChoices(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	dee := newChat(t, env, "dee")
	r := dee.ask("how many customers placed an order in 2025?")
	var labels []string
	for r.Kind == dialog.ReplyClarification {
		if r.Clarification.Key.Name == sqlshape.SlotMeasure {
			if r.Clarification.Prompt != "For 'customers', what should I count?" {
				t.Errorf("prompt %q", r.Clarification.Prompt)
			}
			for _, o := range r.Clarification.Options {
				labels = append(labels, o.Label)
			}
		}
		pick := map[string]string{"filteron:2025": "order was placed", "filteron:placed": "as what happened", "measure": "number of customers"}[r.Clarification.Key.String()]
		if pick == "" {
			t.Fatalf("unexpected question %s", r.Text)
		}
		r = dee.choose(r, pick)
	}
	// The question names what it counts, so the engine may not need to
	// ask; when it does ask, the options say what each counts.
	if len(labels) > 0 && strings.Join(labels, " · ") != "Number of customers · Number of orders" {
		t.Fatalf("the counting options should say what they count: %q\n%s", labels, r.Text)
	}
	a := mustAnswer(t, r)
	want := scalar(t, env, "SELECT COUNT(DISTINCT customer_id) FROM orders WHERE YEAR(ordered_at) = 2025")
	if a.Rows[0][0] != want {
		t.Fatalf("got %v, want %s\n%s", a.Rows, want, a.SQL)
	}
	r = dee.ask("how many customers are in TX?")
	if r.Kind == dialog.ReplyAnswer {
		for _, f := range r.Answer.UsedFacts {
			if f.Phrase == "customers" {
				t.Fatalf("the counting preference decided between a join and no join:\n%s", r.Answer.SQL)
			}
		}
	}
}
