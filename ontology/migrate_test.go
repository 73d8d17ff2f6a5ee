package ontology

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// copyFile copies testdata to a temp dir: tests never write testdata.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// testdata/ontology-v1.db was written by the previous build (schema 1,
// records with string targets) after real conversations on the demo
// warehouse; ontology-v1-export.json is its export at the same moment.
func TestOpenMigratesAFileOfTheLastFormat(t *testing.T) {
	ctx := context.Background()
	path := copyFile(t, "testdata/ontology-v1.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	var old struct {
		Facts []struct {
			ID, Phrase, Meaning, Target string
			Confirmations, Uses         int
		} `json:"facts"`
	}
	b, err := os.ReadFile("testdata/ontology-v1-export.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(old.Facts) {
		t.Fatalf("%d facts, want %d", len(got), len(old.Facts))
	}
	byID := map[string]Fact{}
	for _, f := range got {
		byID[f.ID] = f
	}
	for _, o := range old.Facts {
		f, ok := byID[o.ID]
		if !ok {
			t.Fatalf("fact %s (%s) lost", o.ID, o.Phrase)
		}
		if f.Phrase != o.Phrase || f.Meaning != o.Meaning || f.Confirmations != o.Confirmations || f.Uses != o.Uses {
			t.Errorf("fact %s changed: %+v, was %+v", o.ID, f, o)
		}
		if !f.Target.Equal(parseLegacyTarget(o.Target)) {
			t.Errorf("fact %s: target %v, from %q", o.ID, f.Target, o.Target)
		}
	}
	// Specific targets, typed.
	want := map[string]Target{
		"dates": {Slot: "filteron", Arg: "2024", Choice: ColumnTerm("orders.shipped_at"), Over: []Term{ColumnTerm("orders.ordered_at")}},
		"ohio":  {Slot: "filteron", Arg: "ohio", Choice: ColumnTerm("customers.state"), Over: []Term{ColumnTerm("orders.ship_state")}},
		"customers": {Slot: "output", Choice: ListTerm("customers.id", "customers.name", "customers.email"),
			Over: []Term{ListTerm("customers.name")}},
	}
	for _, f := range got {
		if w, ok := want[f.Phrase]; ok && !f.Target.Equal(w) {
			t.Errorf("%q: target %v, want %v", f.Phrase, f.Target, w)
		}
	}
	// The audit written by the old build reads with typed targets.
	audit, err := s.Audit(ctx, 0)
	if err != nil || len(audit) < 2 {
		t.Fatalf("audit %d entries: %v", len(audit), err)
	}
	for _, e := range audit {
		for _, f := range []*Fact{e.Before, e.After} {
			if f != nil && f.Target.Choice.Kind == "" {
				t.Errorf("audit entry %s %s has an untyped target", e.Action, e.FactID)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The file now holds schema 2 and version 2 records only.
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte("meta")).Get([]byte("schema"))); v != schemaVersion {
			t.Errorf("schema %q, want %q", v, schemaVersion)
		}
		return tx.Bucket(bucketFacts).ForEach(func(k, v []byte) error {
			if v[0] != factVersion {
				t.Errorf("record %q is version %d", k, v[0])
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesANewerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ontology.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("schema"), []byte("9"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), `schema version "9"`) {
		t.Fatalf("Open = %v, want a refusal naming the version", err)
	}
}

func TestImportOfALastFormatExport(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, nil)
	f, err := os.Open("testdata/ontology-v1-export.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := s.Import(ctx, f, admin)
	if err != nil || st.Added == 0 {
		t.Fatalf("import: %+v, %v", st, err)
	}
	facts, _ := s.List(ctx, Filter{Phrase: "revenue", IncludeInactive: true})
	if len(facts) == 0 || facts[0].Target.Slot != "measure" || facts[0].Target.Choice.Kind != TermColumn {
		t.Fatalf("revenue facts: %+v", facts)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	awkward := []string{"Nuts, Bolts | Washers", "a => b || c", ""}
	tests := []Target{
		{Slot: "measure", Choice: ColumnTerm("orders.net_amount"), Over: []Term{ColumnTerm("orders.gross_amount"), {Kind: TermExpr, Expr: "order_lines.quantity * order_lines.unit_price"}}},
		{Slot: "measure", Choice: Term{Kind: TermMeasure, Fn: "COUNT", Expr: "orders.customer_id", Distinct: true}},
		{Slot: "order", Choice: Term{Kind: TermOrdering, Expr: "SUM(orders.net_amount)", Desc: true}},
		{Slot: "output", Choice: ListTerm()},
		{Slot: "tables", Choice: Term{Kind: TermJoinPath, Tables: []string{"customers", "orders"}, Joins: []Join{{Left: "customers.id", Right: "orders.customer_id"}}}},
		{Slot: "filteron", Arg: "nuts, bolts | washers", Choice: Term{Kind: TermValues, Column: "products.name", Op: "in", Values: awkward}},
		{Slot: SlotDefinition, Arg: "active", Choice: Term{Kind: TermPredicate, Subject: "customers", Related: "orders", Op: "exists", Column: "orders.ordered_at", Days: 90,
			Joins: []Join{{Left: "orders.customer_id", Right: "customers.id"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.Slot+" "+string(tc.Choice.Kind), func(t *testing.T) {
			f := Fact{ID: "abc", Scope: ScopeUser, Owner: "u", Warehouse: "w", Phrase: "p", Kind: KindDefinition, Target: tc, Uses: 3, Confirmations: 2}
			b := encodeFact(f)
			got, err := decodeFact(b)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFact(got, f) {
				t.Fatalf("round trip\n got %+v\nwant %+v", got, f)
			}
			// Every truncation is an error, never a panic.
			for n := 1; n < len(b); n++ {
				if _, err := decodeFact(b[:n]); err == nil {
					t.Fatalf("truncated to %d bytes: no error", n)
				}
			}
		})
	}
}

func TestLegacyTargets(t *testing.T) {
	tests := []struct {
		in   string
		want Target
	}{
		{"measure => orders.net_amount || orders.gross_amount, order_lines.line_amount",
			Target{Slot: "measure", Choice: ColumnTerm("orders.net_amount"), Over: []Term{ColumnTerm("orders.gross_amount"), ColumnTerm("order_lines.line_amount")}}},
		{"measure => SUM(orders.net_amount)", Target{Slot: "measure", Choice: Term{Kind: TermMeasure, Fn: "SUM", Expr: "orders.net_amount"}}},
		{"measure => COUNT(DISTINCT orders.customer_id)", Target{Slot: "measure", Choice: Term{Kind: TermMeasure, Fn: "COUNT", Expr: "orders.customer_id", Distinct: true}}},
		{"measure => SUM(a.x) | COUNT(*)", Target{Slot: "measure", Choice: ListTerm("SUM(a.x)", "COUNT(*)")}},
		{"filteron:texas => customers.state", Target{Slot: "filteron", Arg: "texas", Choice: ColumnTerm("customers.state")}},
		{"order => orders.total desc", Target{Slot: "order", Choice: Term{Kind: TermOrdering, Expr: "orders.total", Desc: true}}},
		{"tables => customers, orders | customers.id = orders.customer_id",
			Target{Slot: "tables", Choice: Term{Kind: TermJoinPath, Tables: []string{"customers", "orders"}, Joins: []Join{{Left: "customers.id", Right: "orders.customer_id"}}}}},
		{"output => customers.id, customers.name", Target{Slot: "output", Choice: ListTerm("customers.id", "customers.name")}},
		{"limit => ", Target{Slot: "limit", Choice: ListTerm()}},
		{"no arrow at all", Target{Choice: ListTerm("no arrow at all")}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := parseLegacyTarget(tc.in); !got.Equal(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
