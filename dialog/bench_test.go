package dialog

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

type noExec struct{}

func (noExec) Query(context.Context, string, warehouse.Limits) (*warehouse.Result, error) {
	return nil, fmt.Errorf("not in a benchmark")
}

// BenchmarkDialogTurn measures one turn of the manager once the candidates
// have run: reading the asker's preferences, finding the decision points,
// their information gain, and wording the question. 32 candidates read
// "revenue in <year>" four ways and filter on one of two states.
func BenchmarkDialogTurn(b *testing.B) {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{
		{Name: "orders", Columns: []warehouse.Column{
			{Table: "orders", Name: "net_amount", DataType: "decimal", Comment: "Net revenue after discounts"},
			{Table: "orders", Name: "gross_amount", DataType: "decimal", Comment: "Gross revenue before discounts"},
			{Table: "orders", Name: "ordered_at", DataType: "date", Comment: "Date the order was placed"},
			{Table: "orders", Name: "shipped_at", DataType: "date", Comment: "Date the order left the warehouse"},
			{Table: "orders", Name: "ship_state", DataType: "char"},
		}},
	}}}
	dir := b.TempDir()
	facts, err := ontologyfile.Open(filepath.Join(dir, "o.db"), ontology.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer facts.Close()
	convs := memStates{}
	who := Who{Platform: "bench", Workspace: "w", Channel: "c", User: "u"}
	ctx := context.Background()
	// Preferences of other people and of this one, for the lookup to sift.
	for i := 0; i < 200; i++ {
		owner := fmt.Sprintf("bench:w:user%d", i)
		if i == 0 {
			owner = "bench:w:u"
		}
		if _, err := facts.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: owner, Warehouse: "wh", Phrase: fmt.Sprintf("phrase %d", i), Kind: ontology.KindColumn, Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}, Meaning: "net"}); err != nil {
			b.Fatal(err)
		}
	}
	m, err := New(Config{Warehouse: "wh"}, Deps{Engine: placeholderEngine{}, Exec: noExec{}, Catalog: catalog.New(snap, catalog.Options{}), Facts: facts, States: convs})
	if err != nil {
		b.Fatal(err)
	}
	var base []candState
	g := 0
	for _, measure := range []string{"net_amount", "gross_amount"} {
		for _, date := range []string{"ordered_at", "shipped_at"} {
			for _, state := range []string{"TX", "CA"} {
				for year := 2021; year < 2025; year++ {
					sql := fmt.Sprintf("SELECT SUM(orders.%s) FROM orders WHERE orders.ship_state = '%s' AND orders.%s >= '%d-01-01' AND orders.%s < '%d-01-01'", measure, state, date, year, date, year+1)
					slots, display := m.slots(sql)
					base = append(base, candState{SQL: sql, Prior: 1.0 / 32, Group: g, Slots: slots, Display: display,
						Phrases: map[sqlshape.SlotKey]string{sqlshape.Key(sqlshape.SlotMeasure): "revenue", sqlshape.FilterOnKey([]string{fmt.Sprint(year)}, nil): fmt.Sprint(year)}})
					g++
				}
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		st := &convState{Key: "k", Who: who, Warehouse: "wh", Question: "what was revenue?", Candidates: append([]candState(nil), base...)}
		pt, _ := m.decide(ctx, st)
		if pt == nil {
			b.Fatal("no question")
		}
		m.question(st, *pt, "")
		if r := m.clarificationReply(st, "c"); r.Clarification == nil || len(r.Clarification.Options) == 0 {
			b.Fatal("no options")
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/turn")
}

type placeholderEngine struct{}

func (placeholderEngine) Name() string { return "placeholder" }

func (placeholderEngine) Candidates(context.Context, Request) (*Proposal, error) {
	return nil, fmt.Errorf("not used")
}

// memStates keeps conversation states in memory: a benchmark of the turn
// itself, not of the store.
type memStates map[string][]byte

func (s memStates) Save(_ context.Context, id string, state []byte, _ time.Time) error {
	s[id] = state
	return nil
}

func (s memStates) Load(_ context.Context, id string) ([]byte, error) {
	b, ok := s[id]
	if !ok {
		return nil, ErrConversationNotFound
	}
	return b, nil
}

// BenchmarkSharedScans runs the 27 readings of "top 5 customers by revenue
// in 2025" on the demo warehouse (100,000 orders, no result cache) one by
// one and with shared scans, and reports the statements each round
// executes and its time.
func BenchmarkSharedScans(b *testing.B) {
	ctx := context.Background()
	testwh.Quiet()
	srv, err := embedded.Start(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	if err := srv.LoadTables(ctx, "demo", demodata.Generate(demodata.DefaultSeed, demodata.DefaultOrders).EmbeddedTables()); err != nil {
		b.Fatal(err)
	}
	db, err := warehouse.Open(ctx, warehouse.Config{MySQL: srv.Config("demo")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	stmts := readStatements(b, "testdata/top5-customers-2025.sql")
	cfg := Config{}.withDefaults()
	for _, bc := range []struct {
		name      string
		shareRows int
	}{{"one-by-one", -1}, {"shared", cfg.SharedScanRows}} {
		b.Run(bc.name, func(b *testing.B) {
			ex := &countingExec{ex: db}
			opts := execOptions{parallel: cfg.Parallel, lim: cfg.CandidateLimits, shareRows: bc.shareRows, ordered: orderedSQL}
			for b.Loop() {
				for s, r := range executeAll(ctx, ex, stmts, opts) {
					if r.err != nil {
						b.Fatalf("%s: %v", s, r.err)
					}
				}
			}
			b.ReportMetric(float64(ex.count())/float64(b.N), "statements/op")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}
