package llmengine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/demotest"
)

// Statements the tests script the model to write, over the demo warehouse.
const (
	netSQL   = "SELECT SUM(net_amount) FROM orders WHERE YEAR(ordered_at) = 2024"
	grossSQL = "SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2024"
	countSQL = "SELECT COUNT(*) FROM orders WHERE YEAR(ordered_at) = 2024"
	shipSQL  = "SELECT COUNT(*) FROM orders WHERE YEAR(shipped_at) = 2024"
)

const testModel = "gpt-4o-mini"

// recordingExec is the demo warehouse with a record of what reached it.
type recordingExec struct {
	db *warehouse.DB
	mu sync.Mutex
	// stmts are the statements the engine ran.
	stmts []string
}

func (x *recordingExec) Query(ctx context.Context, sql string, lim warehouse.Limits) (*warehouse.Result, error) {
	x.mu.Lock()
	x.stmts = append(x.stmts, sql)
	x.mu.Unlock()
	return x.db.Query(ctx, sql, lim)
}

func (x *recordingExec) ran() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.stmts...)
}

type fixture struct {
	demo   *demotest.Demo
	srv    *llmtest.Server
	client *llm.Client
	exec   *recordingExec
	eng    *Engine
}

// newFixture starts the demo warehouse and the fake model server and
// builds an engine over them; opts fill in the rest.
func newFixture(t *testing.T, opts Options, exec bool) *fixture {
	t.Helper()
	f := &fixture{demo: demotest.Start(t, 300), srv: llmtest.New(t)}
	f.srv.Model = testModel
	var err error
	f.client, err = llm.New(llm.Config{BaseURL: f.srv.URL, APIKey: "sk-test", Model: testModel, HTTPClient: f.srv.Client(), Timeout: 10 * time.Second, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	opts.Model, opts.Catalog, opts.ModelName = f.client, f.demo.Catalog, testModel
	if exec {
		f.exec = &recordingExec{db: f.demo.DB}
		opts.Exec = f.exec
	}
	f.eng, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// engineWith builds an engine like the fixture's that runs its own
// checks on exec, as bot/ builds it.
func (f *fixture) engineWith(t *testing.T, exec Executor) *Engine {
	t.Helper()
	opts := f.eng.opts
	opts.Exec = exec
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var ana = dialog.Who{Platform: "test", Workspace: "w1", Channel: "c1", User: "ana"}

func (f *fixture) ask(t *testing.T, req dialog.Request) (*dialog.Proposal, error) {
	t.Helper()
	if req.Who == (dialog.Who{}) {
		req.Who = ana
	}
	if req.Warehouse == "" {
		req.Warehouse = "demo"
	}
	return f.eng.Candidates(context.Background(), req)
}

// step kinds, told apart by their system prompt.
func isGenerate(c llmtest.Call) bool { return c.System() == systemSQL }
func isReview(c llmtest.Call) bool   { return c.System() == systemReview }
func isRevise(c llmtest.Call) bool   { return c.System() == systemRevise }
func isRepair(c llmtest.Call) bool   { return c.System() == systemRepair }

// expect returns a step that checks the call's kind (and more) before
// replying. A reply with fewer choices than the call's n is repeated up to
// n (a server that honours n); the tests of servers that ignore n are in
// connectors/llm.
func expect(kind string, is func(llmtest.Call) bool, reply llmtest.Reply, check func(tb testing.TB, c llmtest.Call)) llmtest.Step {
	return func(tb testing.TB, c llmtest.Call) llmtest.Reply {
		if !is(c) {
			tb.Errorf("want a %s call, got %s", kind, c.Summary())
		}
		if check != nil {
			check(tb, c)
		}
		if k := len(reply.Choices); k > 0 && k < c.N() {
			choices := reply.Choices
			for len(choices) < c.N() {
				choices = append(choices, reply.Choices[len(choices)%k])
			}
			reply.Choices = choices
		}
		return reply
	}
}

func noAmbiguity() llmtest.Reply { return llmtest.Text(`{"ambiguous": false}`) }

func mustContain(tb testing.TB, what, text string, subs ...string) {
	tb.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			tb.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
}

func bySQL(p *dialog.Proposal) map[string]dialog.Candidate {
	out := map[string]dialog.Candidate{}
	for _, c := range p.Candidates {
		out[c.SQL] = c
	}
	return out
}
