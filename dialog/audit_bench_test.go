package dialog

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// BenchmarkAuditRecord measures what recording an answered question adds
// to the turn that answers it: building the record (two clarifications,
// two facts used) and appending it to the bbolt audit log, fsync included.
func BenchmarkAuditRecord(b *testing.B) {
	facts, err := ontologyfile.Open(filepath.Join(b.TempDir(), "o.db"), ontology.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer facts.Close()
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{{Name: "orders"}}}}
	m, err := New(Config{Warehouse: "wh"}, Deps{Engine: placeholderEngine{}, Exec: noExec{}, Catalog: catalog.New(snap, catalog.Options{}), Facts: facts, States: memStates{}, Questions: facts})
	if err != nil {
		b.Fatal(err)
	}
	who := Who{Platform: "bench", Workspace: "w", Channel: "c", User: "u"}
	q := &pendingQ{Prompt: "By 'revenue', which do you mean?", Options: []pendingOpt{{Label: "Net revenue"}, {Label: "Gross revenue"}, {Label: "Line revenue"}}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		st := m.newState("bench:w:C1:1.2", who, "what was revenue in 2024?")
		st.Engine = "offline"
		st.addStep(st.Created, clarificationStep(q, "Net revenue", false))
		st.addStep(st.Created, clarificationStep(q, "Date shipped", false))
		st.Applied = []appliedFact{{FactID: "f1", Phrase: "revenue", Meaning: "Net revenue", Scope: "user"}, {FactID: "f2", Phrase: "dates", Meaning: "Date shipped", Scope: "user"}}
		m.recordQuestion(ctx, st, OutcomeAnswered, "", []string{"SELECT SUM(orders.net_amount) FROM orders WHERE orders.shipped_at >= '2024-01-01'"}, 1)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N)/1000, "ms/record")
}
