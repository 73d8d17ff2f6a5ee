package llmengine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// End to end: the real dialog manager over the demo warehouse, with this
// engine in front and the offline engine as its fallback, as bot/internal/stack
// builds it; only the model is fake.

type chat struct {
	t    *testing.T
	f    *fixture
	mgr  *dialog.Manager
	who  dialog.Who
	conv string
	n    int
}

func newChat(t *testing.T, f *fixture) *chat {
	t.Helper()
	dir := t.TempDir()
	facts, err := ontologyfile.Open(filepath.Join(dir, "ontology.db"), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { facts.Close() })
	convs, err := convstore.Open(filepath.Join(dir, "conversations.db"), convstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { convs.Close() })
	mgr, err := dialog.New(dialog.Config{Warehouse: "demo"}, dialog.Deps{
		Engine: f.engineWith(t, f.demo.DB), Fallback: offline.New(f.demo.Catalog, offline.Options{}),
		Exec: f.demo.DB, Catalog: f.demo.Catalog, Facts: facts, Admin: facts, States: convs,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &chat{t: t, f: f, mgr: mgr, who: ana}
}

func (c *chat) send(ev dialog.Event) dialog.Reply {
	c.t.Helper()
	ev.Who, ev.Conversation = c.who, c.conv
	replies, err := c.mgr.Handle(context.Background(), ev)
	if err != nil || len(replies) == 0 {
		c.t.Fatalf("handle %+v: %v %v", ev, replies, err)
	}
	return replies[len(replies)-1]
}

func (c *chat) ask(q string) dialog.Reply {
	c.t.Helper()
	c.n++
	c.conv = fmt.Sprintf("conv-%d", c.n)
	return c.send(dialog.Event{Kind: dialog.EventMessage, Text: q})
}

func (c *chat) choose(r dialog.Reply, label string) dialog.Reply {
	c.t.Helper()
	if r.Kind != dialog.ReplyClarification {
		c.t.Fatalf("want a clarification, got: %s", r.Text)
	}
	for i, o := range r.Clarification.Options {
		if strings.Contains(strings.ToLower(o.Label), label) {
			return c.send(dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: i})
		}
	}
	c.t.Fatalf("no option %q in:\n%s", label, r.Text)
	return dialog.Reply{}
}

func (c *chat) scalar(sql string) string {
	c.t.Helper()
	res, err := c.f.demo.DB.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		c.t.Fatalf("%s: %v", sql, err)
	}
	// As people see it: the gold's own name and type say how it reads (money
	// with two decimals in the warehouse's currency, counts with separators).
	fs := []colfmt.Format{colfmt.Detect(colfmt.Column{Name: res.Columns[0].Name, Type: res.Columns[0].Type})}
	colfmt.Consistent(fs, dialog.NewLabels(c.f.demo.Snapshot).Currency())
	return fs[0].Value(res.Rows[0][0])
}

func mustAnswer(t *testing.T, r dialog.Reply) *dialog.Answer {
	t.Helper()
	if r.Kind != dialog.ReplyAnswer {
		t.Fatalf("want an answer, got %v: %s", r.Kind, r.Text)
	}
	return r.Answer
}

func TestEndToEndSamplesDisagree(t *testing.T) {
	f := newFixture(t, Options{}, false)
	c := newChat(t, f)
	f.srv.Enqueue(
		// Three samples read revenue as net, two as gross: the manager asks.
		expect("generate", isGenerate, llmtest.SQL(netSQL, grossSQL, netSQL, grossSQL, netSQL), nil),
		// The answer is remembered; next time the prompt says what revenue
		// means, the samples agree and the review finds nothing open.
		expect("generate", isGenerate, llmtest.SQL(strings.Replace(netSQL, "2024", "2023", 1)), func(tb testing.TB, c llmtest.Call) {
			mustContain(tb, "prompt", c.User(), `for this person, "revenue" means`, "orders.net_amount")
		}),
		expect("review", isReview, noAmbiguity(), nil),
	)
	r := c.ask("what was revenue in 2024?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != sqlshape.SlotMeasure || r.Clarification.Prompt != "By 'revenue', which do you mean?" {
		t.Fatalf("want the manager to ask about revenue, got %+v\n%s", r.Clarification, r.Text)
	}
	a := mustAnswer(t, c.choose(r, "net"))
	if want := c.scalar(netSQL); a.Rows[0][0] != want || a.SQL != netSQL {
		t.Fatalf("answer %v (%s), want %s", a.Rows, a.SQL, want)
	}

	r = c.ask("what was revenue in 2023?")
	a = mustAnswer(t, r)
	if want := c.scalar(strings.Replace(netSQL, "2024", "2023", 1)); a.Rows[0][0] != want {
		t.Fatalf("answer %v, want %s", a.Rows, want)
	}
}

func TestEndToEndReviewAsks(t *testing.T) {
	f := newFixture(t, Options{}, false)
	c := newChat(t, f)
	f.srv.Enqueue(
		expect("generate", isGenerate, llmtest.SQL(countSQL), nil),
		expect("review", isReview, llmtest.JSON(map[string]any{
			"ambiguous": true, "kind": "question", "phrase": "2024",
			"question": "Which date should 2024 refer to?",
			"options": []map[string]string{
				{"label": "When the order was placed", "constraint": "use orders.ordered_at for the year", "sql": countSQL},
				{"label": "When it left the warehouse", "constraint": "use orders.shipped_at for the year", "sql": shipSQL},
			},
		}), nil),
	)
	r := c.ask("how many orders in 2024?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.FilterOnKey([]string{"2024"}, nil) || !strings.Contains(r.Clarification.Prompt, "'2024'") {
		t.Fatalf("want the review's question about 2024 asked, got %+v\n%s", r.Clarification, r.Text)
	}
	a := mustAnswer(t, c.choose(r, "left the warehouse"))
	if want := c.scalar(shipSQL); a.Rows[0][0] != want || a.SQL != shipSQL {
		t.Fatalf("answer %v (%s), want %s", a.Rows, a.SQL, want)
	}
}

func TestEndToEndModelDownUsesOffline(t *testing.T) {
	f := newFixture(t, Options{}, false)
	c := newChat(t, f)
	f.srv.Enqueue(llmtest.Always(llmtest.Error(401, "invalid_api_key", "Incorrect API key provided: sk-test", nil), nil))
	r := c.ask("how many orders are there?")
	a := mustAnswer(t, r)
	if want := c.scalar("SELECT COUNT(*) FROM orders"); a.Rows[0][0] != want {
		t.Fatalf("offline answer %v, want %s", a.Rows, want)
	}
	note := strings.Join(a.Notes, "\n")
	if !strings.Contains(note, "The llm engine is unavailable right now (the language model server refused the bot's credentials") || strings.Contains(r.Text, "sk-test") {
		t.Fatalf("notes %q\n%s", a.Notes, r.Text)
	}
}
