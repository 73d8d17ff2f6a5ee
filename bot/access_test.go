package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
)

// accessConfig writes a configuration whose demo warehouse hides
// customers.email, keeps products.unit_cost sensitive and may be asked
// only in one Slack channel.
func accessConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clarify.yaml")
	const yaml = `warehouses:
  - name: shop
    demo: true
    demo_orders: 300
    access:
      channels: ["slack:T1:C1"]
      hidden: ["customers.email"]
      sensitive: ["products.unit_cost"]
`
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSQLCommandAppliesAccessRules(t *testing.T) {
	t.Parallel()
	cfg := accessConfig(t)
	as := []string{"sql", "--config", cfg, "--as", "slack:T1:U1", "--channel", "slack:T1:C1"}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"hidden column refused", append(as, "SELECT name, email FROM customers LIMIT 3"), exitRefused, "", "refused: This warehouse hides some of what this statement reads; the answer can't use it."},
		{"hidden column in a filter refused", append(as, "SELECT COUNT(*) FROM customers WHERE email LIKE '%@%'"), exitRefused, "", "hides some of what this statement reads"},
		{"star refused", append(as, "SELECT * FROM customers LIMIT 1"), exitRefused, "", "name the columns"},
		{"sensitive value refused", append(as, "SELECT name, unit_cost FROM products"), exitRefused, "", "keeps products.unit_cost sensitive"},
		{"sensitive filter and count run", append(as, "SELECT COUNT(*) AS cheap FROM products WHERE unit_cost < 1000000"), exitOK, "cheap", ""},
		{"allowed columns run", append(as, "SELECT COUNT(DISTINCT city) AS cities FROM customers"), exitOK, "cities", ""},
		{"channel not allowed", []string{"sql", "--config", cfg, "--as", "slack:T1:U1", "--channel", "slack:T1:C2", "SELECT 1"}, exitRefused, "", `refused: This channel can't ask the warehouse "shop". Ask an admin to add it.`},
		// An admin's own check, without --as, sees the whole warehouse.
		{"without --as the rules do not apply", []string{"sql", "--config", cfg, "SELECT email FROM customers ORDER BY id LIMIT 1"}, exitOK, "@", ""},
		{"unknown warehouse", []string{"sql", "--config", cfg, "--warehouse", "nope", "SELECT 1"}, exitUsage, "", `no warehouse called "nope"`},
		// SHOW, DESCRIBE and EXPLAIN describe the schema under the same rules.
		{"show tables", append(as, "SHOW TABLES"), exitOK, "customers", ""},
		{"describe leaves the hidden column out", append(as, "DESCRIBE customers"), exitOK, "segment", ""},
		{"describe the hidden column refused", append(as, "DESCRIBE customers email"), exitRefused, "", "hides some of what this statement reads"},
		{"show create table with a hidden column refused", append(as, "SHOW CREATE TABLE customers"), exitRefused, "", "SHOW COLUMNS lists the others"},
		{"show create table of another table", append(as, "SHOW CREATE TABLE regions"), exitOK, "CREATE TABLE", ""},
		{"explain of a refused statement refused", append(as, "EXPLAIN SELECT email FROM customers"), exitRefused, "", "hides some of what this statement reads"},
		{"show processlist refused", append(as, "SHOW PROCESSLIST"), exitRefused, "", "SHOW statement is not allowed"},
		{"show where refused", append(as, "SHOW TABLES WHERE (SELECT 1) = 1"), exitRefused, "", "LIKE 'pattern'"},
		{"--as needs --config", []string{"sql", "--demo", "--as", "slack:T1:U1", "SELECT 1"}, exitUsage, "", "need --config"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBot(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.stdout != "" && !strings.Contains(out, tc.stdout) {
				t.Fatalf("stdout lacks %q:\n%s", tc.stdout, out)
			}
			if tc.stderr != "" && !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("stderr lacks %q:\n%s", tc.stderr, errOut)
			}
			if tc.code == exitRefused && out != "" {
				t.Fatalf("a refusal printed rows:\n%s", out)
			}
			if strings.Contains(out, "@") && strings.Contains(strings.Join(tc.args, " "), "--as") {
				t.Fatalf("an email reached the output:\n%s", out)
			}
			if strings.HasPrefix(tc.name, "describe") && strings.Contains(out, "email") {
				t.Fatalf("DESCRIBE shows the hidden column:\n%s", out)
			}
		})
	}
}

// TestAccessRulesNamesCheckedAtStartUp: a name the schema lacks stops the
// bot with an error that names it.
func TestAccessRulesNamesCheckedAtStartUp(t *testing.T) {
	t.Parallel()
	cfg := Config{DataDir: t.TempDir(), HTTP: HTTPConfig{Addr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{{
		Name: "shop", Demo: true, DemoOrders: 200, Access: access.Rules{Hidden: []string{"customers.e_mail"}},
	}}}
	cfg.ApplyDefaults()
	m, err := NewMain(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		m.Close()
		t.Fatal("started with an unknown column in the access rules")
	}
	if !strings.Contains(err.Error(), `table customers has no column "e_mail"`) || !strings.Contains(err.Error(), "shop") {
		t.Fatalf("error does not name the column and warehouse: %v", err)
	}
}
