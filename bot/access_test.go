package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	cfg := accessConfig(t)
	as := []string{"sql", "--config", cfg, "--as", "slack:T1:U1", "--channel", "slack:T1:C1"}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"hidden column refused", append(as, "SELECT name, email FROM customers LIMIT 3"), exitRefused, "", "refused: This warehouse hides customers.email; the answer can't use it."},
		{"hidden column in a filter refused", append(as, "SELECT COUNT(*) FROM customers WHERE email LIKE '%@%'"), exitRefused, "", "hides customers.email"},
		{"star refused", append(as, "SELECT * FROM customers LIMIT 1"), exitRefused, "", "name the columns"},
		{"sensitive value refused", append(as, "SELECT name, unit_cost FROM products"), exitRefused, "", "keeps products.unit_cost sensitive"},
		{"sensitive filter and count run", append(as, "SELECT COUNT(*) AS cheap FROM products WHERE unit_cost < 1000000"), exitOK, "cheap", ""},
		{"allowed columns run", append(as, "SELECT COUNT(DISTINCT city) AS cities FROM customers"), exitOK, "cities", ""},
		{"channel not allowed", []string{"sql", "--config", cfg, "--as", "slack:T1:U1", "--channel", "slack:T1:C2", "SELECT 1"}, exitRefused, "", `refused: This channel can't ask the warehouse "shop". Ask an admin to add it.`},
		// An admin's own check, without --as, sees the whole warehouse.
		{"without --as the rules do not apply", []string{"sql", "--config", cfg, "SELECT email FROM customers ORDER BY id LIMIT 1"}, exitOK, "@", ""},
		{"unknown warehouse", []string{"sql", "--config", cfg, "--warehouse", "nope", "SELECT 1"}, exitUsage, "", `no warehouse called "nope"`},
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
		})
	}
}
