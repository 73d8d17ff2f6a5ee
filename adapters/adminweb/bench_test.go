package adminweb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
)

// BenchmarkPhrasesPage measures the Phrases page of a busy workspace: 50
// people with 40 phrases each (2,000 facts; half the phrases agreed on, the
// others with 8 meanings each), 1,000
// question records, on bbolt. The page reads every fact and the question
// records of the last 90 days, so its time grows with both.
func BenchmarkPhrasesPage(b *testing.B) {
	e := newBenchEnv(b)
	u, _ := e.signIn("slack:T1:UADMIN")
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if st, _ := u.get("/admin/phrases"); st != http.StatusOK {
			b.Fatalf("status %d", st)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/page")
}

// BenchmarkProposals measures finding the agreement proposals among the
// same workspace's facts.
func BenchmarkProposals(b *testing.B) {
	e := newBenchEnv(b)
	ws := mustLoadB(b, e)
	b.ResetTimer()
	n := 0
	for range b.N {
		props, err := e.server.proposals(context.Background(), ws)
		if err != nil {
			b.Fatal(err)
		}
		n = len(props)
	}
	b.ReportMetric(float64(n), "proposals")
}

// benchQuestions question records are written one by one (as the bot
// does); a synced write each, so the set-up takes a while.
const benchQuestions = 1000

func newBenchEnv(b *testing.B) *env {
	b.Helper()
	e := newEnv(b, kvtest.Targets()[0], nil)
	ctx := context.Background()
	// One import transaction (learning them one by one would cost a
	// synced write each).
	var facts []ontology.Fact
	for p := range 50 {
		for ph := range 40 {
			col := fmt.Sprintf("t%d.c%d", ph, p%8)
			if ph%2 == 0 {
				col = fmt.Sprintf("t%d.c0", ph) // everyone agrees: a proposal
			}
			facts = append(facts, ontology.Fact{Scope: ontology.ScopeUser, Owner: fmt.Sprintf("slack:T1:U%03d", p), Warehouse: "shop", Phrase: fmt.Sprintf("phrase %d", ph),
				Kind: ontology.KindColumn, Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm(col)}, Meaning: "meaning " + col})
		}
	}
	doc, _ := json.Marshal(map[string]any{"version": ontology.ExportVersion, "facts": facts})
	if _, err := e.store.Import(ctx, bytes.NewReader(doc), ontology.Actor{ID: "bench", Admin: true}); err != nil {
		b.Fatal(err)
	}
	for i := range benchQuestions {
		q := ontology.QuestionRecord{Platform: "slack", Workspace: "T1", Channel: fmt.Sprintf("C%d", i%5), User: fmt.Sprintf("slack:T1:U%03d", i%50),
			Warehouse: "shop", Question: fmt.Sprintf("phrase %d by month", i%40), Outcome: "answered",
			FactsUsed: []ontology.FactUse{{ID: "x", Phrase: fmt.Sprintf("phrase %d", i%40), Scope: "user"}}}
		if err := e.store.RecordQuestion(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func mustLoadB(b *testing.B, e *env) *workspace {
	id, _ := ParseUser("slack:T1:UADMIN")
	ws, err := e.server.load(context.Background(), id, true)
	if err != nil {
		b.Fatal(err)
	}
	return ws
}
