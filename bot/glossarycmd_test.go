package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGlossaryCheckCommand(t *testing.T) {
	t.Parallel()
	testwh.Quiet()
	bad := writeFile(t, "team.yml", `name: team
measures:
  - name: revenue
    expr: SUM(orders.net_amt)
verified_queries:
  - question: wipe
    sql: DELETE FROM orders
    verified_by: ana
`)
	good := writeFile(t, "demo.yml", string(demodata.Glossary))
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"problems at their lines", []string{"glossary", "check", bad, "--demo", "--orders", "300"}, exitFailure,
			[]string{bad + `:4: measure "revenue": unknown column orders.net_amt`, bad + `:7: verified query "wipe": not a read-only expression`, "2 problems"}},
		{"the demo glossary passes", []string{"glossary", "check", "--demo", "--orders", "300", good}, exitOK, []string{"ok (2 measures"}},
		{"no warehouse", []string{"glossary", "check", good}, exitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func glossaryFacts(t *testing.T, dir, owner string) map[string]ontology.Fact {
	t.Helper()
	s, err := ontologyfile.Open(filepath.Join(dir, ontologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	facts, err := s.List(context.Background(), ontology.Filter{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ontology.Fact{}
	for _, f := range facts {
		if f.FromGlossary() {
			out[f.Phrase+"/"+string(f.Kind)] = f
		}
	}
	return out
}

func TestGlossaryLoadReplacesThePreviousLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v1 := writeFile(t, "team.yml", `name: team
warehouse: sales
workspaces: ["slack:T1"]
measures:
  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [revenue]}
verified_queries:
  - {question: "How many orders?", sql: "SELECT COUNT(*) FROM orders", verified_by: ana}
`)
	code, out, errOut := runCmd(t, "glossary", "load", v1, "--data", dir, "--demo", "--orders", "300")
	if code != exitOK || !strings.Contains(out, "glossary:team loaded into sales for slack:T1: 5 added, 0 updated, 0 unchanged, 0 removed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	facts := glossaryFacts(t, dir, "slack:T1")
	if f, ok := facts["how many order/query"]; !ok || f.VerifiedBy != "ana" || f.Warehouse != "sales" {
		t.Fatalf("verified query fact: %+v (all: %v)", f, facts)
	}
	// The same file again changes nothing; a new version replaces the old.
	if code, out, _ := runCmd(t, "glossary", "load", v1, "--data", dir, "--demo", "--orders", "300"); code != exitOK || !strings.Contains(out, "0 added, 0 updated, 5 unchanged, 0 removed") {
		t.Fatalf("reload: exit %d %s", code, out)
	}
	v2 := writeFile(t, "team.yml", `name: team
warehouse: sales
workspaces: ["slack:T1"]
measures:
  - {name: net revenue, expr: SUM(orders.gross_amount)}
`)
	if code, out, _ := runCmd(t, "glossary", "load", v2, "--data", dir, "--demo", "--orders", "300"); code != exitOK || !strings.Contains(out, "0 added, 2 updated, 0 unchanged, 3 removed") {
		t.Fatalf("new version: exit %d %s", code, out)
	}
	facts = glossaryFacts(t, dir, "slack:T1")
	if len(facts) != 2 || facts["net revenue/column"].Target.Choice.Column != "orders.gross_amount" {
		t.Fatalf("after the new version: %v", facts)
	}
	// A glossary with problems loads nothing: one the engines cannot use,
	// one whose statements do not pass the full check (a verified DELETE,
	// a filter on a column the warehouse lacks).
	for _, bad := range []struct{ yaml, want string }{
		{"name: team\nwarehouse: sales\nworkspaces: [\"slack:T1\"]\nfilters:\n  - {name: big order, where: orders.net_amount > 100}\n", "team.yml:5: filter \"big order\""},
		{"name: team\nwarehouse: sales\nworkspaces: [\"slack:T1\"]\nverified_queries:\n  - {question: wipe, sql: DELETE FROM orders, verified_by: mallory}\n", "team.yml:5: verified query \"wipe\": not a read-only expression"},
		{"name: team\nwarehouse: sales\nworkspaces: [\"slack:T1\"]\nfilters:\n  - {name: vip customer, table: customers, where: customers.tier = 'vip'}\n", "unknown column customers.tier"},
	} {
		path := writeFile(t, "team.yml", bad.yaml)
		code, out, errOut := runCmd(t, "glossary", "load", path, "--data", dir, "--demo", "--orders", "300")
		if code != exitFailure || !strings.Contains(out, bad.want) || !strings.Contains(out, "nothing was loaded") {
			t.Fatalf("bad glossary: exit %d\n%s\n%s", code, out, errOut)
		}
		if facts := glossaryFacts(t, dir, "slack:T1"); len(facts) != 2 {
			t.Fatalf("a failed load changed the facts: %v", facts)
		}
	}
	// The check needs the warehouse.
	if code, _, errOut := runCmd(t, "glossary", "load", v1, "--data", dir); code != exitUsage || !strings.Contains(errOut, "checked against its warehouse") {
		t.Fatalf("load without a warehouse: exit %d %s", code, errOut)
	}
}

// TestGlossaryLoadAppliesTheAccessRules: with --config, the glossary is
// checked under the warehouse's access rules, and nothing of one that
// uses a hidden column is loaded.
func TestGlossaryLoadAppliesTheAccessRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, "clarify.yaml", "data_dir: "+dir+"\nwarehouses:\n  - name: shop\n    demo: true\n    demo_orders: 300\n    access:\n      hidden: [customers.email]\n      sensitive: [customers.segment]\n")
	secret := writeFile(t, "team.yml", `name: team
warehouse: shop
workspaces: ["slack:T1"]
filters:
  - {name: secret customer, table: customers, where: "customers.email IN ('a@example.com')"}
  - {name: enterprise customer, table: customers, where: "customers.segment = 'Enterprise'"}
verified_queries:
  - {question: "emails?", sql: "SELECT name, email FROM customers", verified_by: ana}
`)
	code, out, errOut := runCmd(t, "glossary", "load", secret, "--config", cfg)
	for _, want := range []string{"team.yml:5: filter \"secret customer\": the access rules refuse it: This warehouse hides some of what",
		"team.yml:6: filter \"enterprise customer\": it writes values of customers.segment", "team.yml:8: verified query \"emails?\": the access rules refuse it"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != exitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ontologyFile)); err == nil {
		if facts := glossaryFacts(t, dir, "slack:T1"); len(facts) != 0 {
			t.Fatalf("a refused glossary left facts: %v", facts)
		}
	}
	fine := writeFile(t, "team.yml", "name: team\nwarehouse: shop\nworkspaces: [\"slack:T1\"]\nmeasures:\n  - {name: customer count, expr: COUNT(DISTINCT customers.id)}\n")
	if code, out, errOut := runCmd(t, "glossary", "load", fine, "--config", cfg); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// The configured glossary is loaded at start; a reload (what SIGHUP
// does) applies a changed file and keeps the previous load when the new
// one has problems.
func TestServeLoadsAndReloadsTheGlossary(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "team.yml", `name: team
workspaces: ["slack:T1"]
measures:
  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [revenue]}
relationships:
  - {from: shipments.order_id, to: orders.id}
`)
	m, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400, Glossary: path}}})
	phrases := func() []string {
		facts, err := m.stores.Facts.List(context.Background(), ontology.Filter{Owner: "slack:T1", Warehouse: "demo"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range facts {
			if f.Kind == ontology.KindColumn {
				out = append(out, f.Phrase)
			}
		}
		return out
	}
	if got := strings.Join(phrases(), ","); got != "net revenue,revenue" {
		t.Fatalf("at start: %s", got)
	}
	if !strings.Contains(m.slots[0].Current().Catalog.Snapshot().Schema.Joins[len(m.slots[0].Current().Catalog.Snapshot().Schema.Joins)-1].Reason, "glossary team") {
		t.Errorf("the relationship did not reach the catalog")
	}
	if err := os.WriteFile(path, []byte("name: team\nworkspaces: [\"slack:T1\"]\nmeasures:\n  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [turnover]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.ReloadGlossaries(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phrases(), ","); got != "net revenue,turnover" {
		t.Fatalf("after reload: %s", got)
	}
	for _, broken := range []struct{ yaml, want string }{
		{"name: team\nmeasures:\n  - {name: net revenue}\n", "team.yml:3: measure \"net revenue\" has no expr"},
		// The full check runs on reload too: a verified write and a
		// column the warehouse lacks keep the previous load.
		{"name: team\nworkspaces: [\"slack:T1\"]\nmeasures:\n  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [takings]}\nverified_queries:\n  - {question: wipe, sql: DELETE FROM orders, verified_by: mallory}\n", "team.yml:6: verified query \"wipe\""},
		{"name: team\nworkspaces: [\"slack:T1\"]\nmeasures:\n  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [takings]}\nfilters:\n  - {name: vip customer, table: customers, where: customers.tier = 'vip'}\n", "unknown column customers.tier"},
	} {
		if err := os.WriteFile(path, []byte(broken.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := m.ReloadGlossaries(context.Background()); err == nil || !strings.Contains(err.Error(), broken.want) {
			t.Fatalf("a broken glossary should be reported with its line: %v", err)
		}
		if got := strings.Join(phrases(), ","); got != "net revenue,turnover" {
			t.Fatalf("a broken reload changed the facts: %s", got)
		}
	}
}

// eval --glossary loads the glossary for the simulated users: a team
// glossary that makes 'revenue' net revenue decides the measure, so only
// the date is asked.
func TestEvalWithGlossary(t *testing.T) {
	t.Parallel()
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	path := writeFile(t, "team.yml", "name: team\nmeasures:\n  - {name: net revenue, expr: SUM(orders.net_amount), synonyms: [revenue]}\n")
	code, out, errOut := runEvalCmd(t, "--dataset", "demo", "--filter", "demo-020-ana", "--glossary", path, "--json", jsonPath)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r := readReport(t, jsonPath).Datasets[0].Runs[0].Results[0]
	if !r.Correct || r.FactsUsed == 0 || r.Questions != 1 {
		t.Fatalf("with the glossary: correct=%v facts used=%d asked=%d, want correct, the team's revenue used, 1 question (the date)", r.Correct, r.FactsUsed, r.Questions)
	}
}

func TestPrefsVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ontologyfile.Open(filepath.Join(dir, ontologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	confirmed, err := s.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:U1", Warehouse: "sales", Phrase: "how many order cancelled", Kind: ontology.KindQuery, Question: "how many orders were cancelled?",
		Target: ontology.Target{Slot: "query", Choice: ontology.Term{Kind: ontology.TermSQL, Expr: "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'"}}})
	if err != nil {
		t.Fatal(err)
	}
	learned, err := s.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:U1", Warehouse: "sales", Phrase: "revenue", Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"needs a verifier", []string{"prefs", "--data", dir, "verify", confirmed.ID}, exitUsage, ""},
		{"not an answer", []string{"prefs", "--data", dir, "verify", learned.ID, "--by", "maria"}, exitFailure, ""},
		{"verified for the asker's workspace", []string{"prefs", "--data", dir, "verify", confirmed.ID, "--by", "maria"}, exitOK, "for slack:T1 as "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d; output %q lacks %q\n%s", code, tt.code, out, tt.want, errOut)
			}
		})
	}
	s, err = ontologyfile.Open(filepath.Join(dir, ontologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	facts, err := s.List(ctx, ontology.Filter{Scope: ontology.ScopeWorkspace, Owner: "slack:T1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Kind != ontology.KindQuery || facts[0].VerifiedBy != "maria" || facts[0].PromotedFrom != confirmed.ID {
		t.Fatalf("workspace facts: %+v", facts)
	}
}

// TestServeRefusesAGlossaryThatUsesAHiddenColumn: at start the configured
// glossary is checked under the warehouse's access rules; one that defines
// a word by a hidden column's values stops the start, so the definition
// never reaches a prompt.
func TestServeRefusesAGlossaryThatUsesAHiddenColumn(t *testing.T) {
	t.Parallel()
	testwh.Quiet()
	path := writeFile(t, "team.yml", `name: team
workspaces: ["slack:T1"]
filters:
  - {name: secret customer, table: customers, where: "customers.email IN ('a@example.com', 'b@example.com')"}
`)
	wc := shopWarehouse()
	wc.Glossary = path
	cfg := Config{DataDir: t.TempDir(), HTTP: HTTPConfig{Addr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{wc}}
	cfg.ApplyDefaults()
	m, err := NewMain(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		m.Close()
		t.Fatal("the bot started with a glossary that uses a hidden column")
	}
	for _, want := range []string{"team.yml:4:", "hides some of what this statement reads", "writes values of customers.email"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
}
