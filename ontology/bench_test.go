package ontology

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// BenchmarkApplicable measures the lookup made for every question: one
// user's, channel's and workspace's facts among 10,000 facts of 1,000
// users (plus 100 channel and 10 workspace facts per warehouse).
func BenchmarkApplicable(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "ontology.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchApplicable(b, s)
}

// BenchmarkApplicableServer is the same lookup on a MySQL-protocol server
// (MYSQL_TEST_DSN): what a replica pays per question.
func BenchmarkApplicableServer(b *testing.B) {
	s, err := New(context.Background(), kvtest.MustServer(b).Namespace("ontology"), "bench", Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchApplicable(b, s)
}

func benchApplicable(b *testing.B, s *Store) {
	ctx := context.Background()
	const users, perUser = 1000, 10
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var facts []Fact
	add := func(sc Scope, owner string, i int) {
		facts = append(facts, Fact{Scope: sc, Owner: owner, Warehouse: []string{"shop", "crm"}[i%2],
			Phrase: fmt.Sprintf("phrase %d", i), Kind: Kinds()[i%len(Kinds())],
			Target: exprTarget(fmt.Sprintf("filter=customers.state|value %d", i)), Meaning: "customers.state is something",
			Question: "how many customers in texas by month?", Created: t0, LastUsed: t0.Add(time.Duration(i) * time.Minute), Confirmations: 1})
	}
	for u := range users {
		for i := range perUser {
			add(ScopeUser, fmt.Sprintf("slack:T1:U%04d", u), u*perUser+i)
		}
	}
	for i := range 100 {
		add(ScopeChannel, "slack:T1:C1", i)
	}
	for i := range 10 {
		add(ScopeWorkspace, "slack:T1", i)
	}
	// One Import is one transaction: seeding with 10,000 Learns would
	// spend most of the benchmark in fsync.
	doc, err := json.Marshal(exportDoc{Version: ExportVersion, Facts: facts})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Import(ctx, bytes.NewReader(doc), Actor{ID: "bench", Admin: true}); err != nil {
		b.Fatal(err)
	}
	n := 0
	i := 0
	runtime.GC() // the seeding garbage is not the lookup's
	b.ReportAllocs()
	for b.Loop() {
		got, err := s.Applicable(ctx, Owners{User: fmt.Sprintf("slack:T1:U%04d", i%users), Channel: "slack:T1:C1", Workspace: "slack:T1"}, "shop")
		if err != nil {
			b.Fatal(err)
		}
		n += len(got)
		i += 7
	}
	b.ReportMetric(float64(n)/float64(b.N), "facts/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
}
