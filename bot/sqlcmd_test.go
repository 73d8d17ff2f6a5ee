package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/internal/testwh"
)

func runBot(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSQLCommand(t *testing.T) {
	cases := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   []string
		stderr   string
		noStdout bool
	}{
		{name: "demo count", args: []string{"sql", "--demo", "--orders", "500", "SELECT COUNT(*) AS n FROM orders"}, code: exitOK, stdout: []string{"n\n", "500", "(1 row,"}},
		{name: "statement on stdin", stdin: "SELECT name FROM regions ORDER BY name", args: []string{"sql", "--demo", "--orders", "200"}, code: exitOK, stdout: []string{"Midwest", "West", "(4 rows,"}},
		{name: "truncated", args: []string{"sql", "--demo", "--orders", "200", "--max-rows", "3", "SELECT code FROM states"}, code: exitOK, stdout: []string{"first 3 rows shown"}},
		{name: "write refused", args: []string{"sql", "--demo", "DELETE FROM orders"}, code: exitRefused, stderr: "refused: only SELECT", noStdout: true},
		{name: "two statements refused", args: []string{"sql", "--demo", "SELECT 1; DROP TABLE orders"}, code: exitRefused, stderr: "refused:", noStdout: true},
		{name: "unknown column", args: []string{"sql", "--demo", "--orders", "200", "SELECT nope FROM orders"}, code: exitFailure, stderr: "unknown column `nope`", noStdout: true},
		{name: "down warehouse", args: []string{"sql", "--dsn", "root@tcp(127.0.0.1:1)/x", "SELECT 1"}, code: exitFailure, stderr: "connection refused", noStdout: true},
		{name: "no target", args: []string{"sql", "SELECT 1"}, code: exitUsage, stderr: "exactly one of --demo, --dsn or --config"},
		{name: "no statement", args: []string{"sql", "--demo"}, code: exitUsage, stderr: "no statement"},
		{name: "unknown command", args: []string{"nope"}, code: exitUsage, stderr: "unknown command"},
		// Figures exactly as stored (decimals kept); years and ids with
		// their digits only, counts grouped.
		{name: "exact figures", args: []string{"sql", "--demo", "--orders", "200", "SELECT YEAR(MIN(ordered_at)), SUM(net_amount) * 0 + 316507.02 AS revenue, CAST(316507.02 AS DECIMAL(12,2)) AS total, 1234567 AS n, 100001 AS order_id FROM orders"},
			code: exitOK, stdout: []string{"  2022  ", "316,507.02  316,507.02", "1,234,567", "100001"}},
		{name: "show tables", args: []string{"sql", "--demo", "--orders", "200", "SHOW TABLES"}, code: exitOK, stdout: []string{"customers", "orders"}},
		{name: "describe", args: []string{"sql", "--demo", "--orders", "200", "DESCRIBE regions"}, code: exitOK, stdout: []string{"name", "id"}},
		// Cut at the limit, the prefix would be a valid statement: it must
		// be refused whole, not run.
		{name: "stdin longer than the cap", stdin: "SELECT 1 " + strings.Repeat(" ", 70000) + "-- tail", args: []string{"sql", "--demo"}, code: exitRefused, stderr: "longer than", noStdout: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBot(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Fatalf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tc.stderr != "" && !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("stderr lacks %q:\n%s", tc.stderr, errOut)
			}
			if tc.noStdout && out != "" {
				t.Fatalf("want nothing on stdout, got:\n%s", out)
			}
		})
	}
}

func TestSQLCommandAgainstARealServer(t *testing.T) {
	for _, target := range testwh.Targets() {
		if !target.Real {
			continue
		}
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20));\nINSERT INTO t VALUES (1,'Zoë'),(2,NULL);")
			code, out, errOut := runBot(t, "", "sql", "--dsn", d.Config.FormatDSN(), "SELECT id, name FROM t ORDER BY id")
			if code != exitOK || !strings.Contains(out, "Zoë") || !strings.Contains(out, "NULL") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			code, _, errOut = runBot(t, "", "sql", "--dsn", d.Config.FormatDSN(), "UPDATE t SET name = 'x'")
			if code != exitRefused {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if n := d.Count(t, "t"); n != 2 {
				t.Fatalf("table changed: %d rows", n)
			}
		})
	}
}
