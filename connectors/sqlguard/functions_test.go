package sqlguard

import (
	"strings"
	"testing"
)

func mustGuard(tb testing.TB, o Options) *Guard {
	tb.Helper()
	g, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func TestFunctionsByFlavor(t *testing.T) {
	maria := mustGuard(t, Options{Flavor: FlavorMariaDB})
	mysql := mustGuard(t, Options{Flavor: FlavorMySQL})
	tidb := mustGuard(t, Options{Flavor: FlavorTiDB})
	withStored := mustGuard(t, Options{Flavor: FlavorMariaDB, Functions: []string{"fiscal_year", "Shop.Net_Price"}})
	cases := []struct {
		name  string
		g     *Guard
		sql   string
		want  string // "" accepts; else a word of the refusal
		kind  RefusalKind
		flavr string
	}{
		{"common built-in", maria, "SELECT ROUND(AVG(total), 2), DATE_FORMAT(ts, '%Y-%m') FROM orders GROUP BY 2", "", 0, ""},
		{"mariadb-only on mariadb", maria, "SELECT NATURAL_SORT_KEY(name) FROM t", "", 0, ""},
		{"mariadb-only on mysql", mysql, "SELECT NATURAL_SORT_KEY(name) FROM t", "NATURAL_SORT_KEY", KindFunction, "MySQL"},
		{"mysql-only on mysql", mysql, "SELECT REGEXP_LIKE(name, 'a') FROM t", "", 0, ""},
		{"mysql-only on mariadb", maria, "SELECT REGEXP_LIKE(name, 'a') FROM t", "REGEXP_LIKE", KindFunction, "MariaDB"},
		{"tidb-only on tidb", tidb, "SELECT TIDB_VERSION()", "", 0, ""},
		{"tidb-only on mariadb", maria, "SELECT TIDB_VERSION()", "TIDB_VERSION", KindFunction, ""},
		{"unknown name is a stored function", maria, "SELECT refund_all(1)", "REFUND_ALL", KindFunction, ""},
		{"galera wait", maria, "SELECT WSREP_SYNC_WAIT_UPTO_GTID('0-1-1')", "WSREP_SYNC_WAIT_UPTO_GTID", KindFunction, ""},
		{"last_insert_id sets session state", maria, "SELECT LAST_INSERT_ID(5)", "LAST_INSERT_ID", KindFunction, ""},
		{"qualified stored function", maria, "SELECT shop.net_price(1)", "stored function", KindFunction, ""},
		{"configured stored function", withStored, "SELECT fiscal_year(ts), shop.net_price(id) FROM orders", "", 0, ""},
		{"configured name, other database", withStored, "SELECT other.net_price(id) FROM orders", "stored function", KindFunction, ""},
		{"configured unqualified, called qualified", withStored, "SELECT shop.fiscal_year(ts) FROM orders", "stored function", KindFunction, ""},
		{"denied even in a derived table", withStored, "SELECT * FROM (SELECT GET_LOCK('x', 1)) t", "GET_LOCK", KindFunction, ""},
		{"odbc date literal", maria, "SELECT * FROM orders WHERE ts >= {d '2020-01-01'} AND ts < {ts '2021-01-01 00:00:00'}", "", 0, ""},
		{"typed date literal", maria, "SELECT DATE '2020-01-01', TIME '10:00:00', TIMESTAMP '2020-01-01 10:00:00'", "", 0, ""},
		{"odbc escape around an expression", maria, "SELECT {fn UPPER(name)} FROM t", "", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.g.Check(tc.sql)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			r, ok := Refused(err)
			if !ok || r.Kind != tc.kind || !strings.Contains(r.Reason, tc.want) || !strings.Contains(r.Reason, tc.flavr) {
				t.Fatalf("got %v (%v); want a %v refusal naming %q %q", err, r, tc.kind, tc.want, tc.flavr)
			}
		})
	}
}

func TestConfiguredFunctionsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"sleep"}, "can never be allowed"},
		{[]string{"shop.get_lock"}, "can never be allowed"},
		{[]string{"a.b.c"}, "not a function name"},
		{[]string{"bad name"}, "not a function name"},
		{[]string{"`x`"}, "not a function name"},
	} {
		if err := ValidateFunctions(tc.names); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateFunctions(%q) = %v, want %q", tc.names, err, tc.want)
		}
	}
	if err := ValidateFunctions([]string{"fiscal_year", "shop.net_price"}); err != nil {
		t.Fatal(err)
	}
}

// TestSpacedCalls: MySQL and MariaDB read COUNT (x), SUM/**/(x) and
// `count`(x) as calls of a stored function named count; the parser reads
// them as the built-in, so the guard refuses them from the text.
func TestSpacedCalls(t *testing.T) {
	refused := []string{
		"SELECT COUNT (id) FROM t",
		"SELECT `count`(id) FROM t",
		"SELECT MAX/**/(id) FROM t",
		"SELECT NOW () FROM t",
		"SELECT SUBSTRING\n(name, 1, 2) FROM t",
		"SELECT MAX#c\n(id) FROM t",
		"SELECT 1--1, COUNT (id) FROM t",
		"SELECT ROW_NUMBER () OVER () FROM t",
	}
	for _, sql := range refused {
		_, err := Check(sql)
		if r, ok := Refused(err); !ok || (r.Kind != KindSpacedCall && r.Kind != KindSyntax) {
			t.Errorf("Check(%q) = %v; want a spaced-call refusal", sql, err)
		}
	}
	accepted := []string{
		"SELECT COUNT(id), MAX(id) FROM t WHERE id IN (1, 2) AND EXISTS (SELECT 1)",
		"SELECT 'COUNT (x)' AS s, `count` FROM t -- SUM (x)\n",
		"SELECT name FROM t /* MAX (x) */ WHERE a = \"now (\"",
		"SELECT t.count, x.sum FROM t JOIN (SELECT 1 AS sum) x ON TRUE",
	}
	for _, sql := range accepted {
		if _, err := Check(sql); err != nil {
			t.Errorf("Check(%q) refused: %v", sql, err)
		}
	}
}

func TestInformationSchemaTables(t *testing.T) {
	for _, sql := range []string{
		"SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
		"SELECT column_name FROM INFORMATION_SCHEMA.COLUMNS",
		"SELECT * FROM information_schema.key_column_usage",
	} {
		if _, err := Check(sql); err != nil {
			t.Errorf("Check(%q) refused: %v", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT info FROM information_schema.processlist",
		"SELECT * FROM information_schema.PROCESSLIST",
		"SELECT * FROM information_schema.user_privileges",
		"SELECT * FROM information_schema.global_variables",
		"SELECT name FROM t WHERE EXISTS (SELECT 1 FROM information_schema.innodb_trx)",
	} {
		_, err := Check(sql)
		if r, ok := Refused(err); !ok || r.Kind != KindSystemTable {
			t.Errorf("Check(%q) = %v; want a system table refusal", sql, err)
		}
	}
}

func TestCheckInspect(t *testing.T) {
	accepted := []string{
		"SHOW TABLES", "SHOW FULL TABLES LIKE 'ord%'", "SHOW COLUMNS FROM orders", "SHOW FULL COLUMNS FROM orders",
		"DESCRIBE orders", "DESC orders id", "SHOW CREATE TABLE orders", "SHOW INDEX FROM orders",
		"SHOW TABLE STATUS", "SHOW DATABASES", "EXPLAIN SELECT * FROM orders", "EXPLAIN FORMAT=JSON SELECT 1",
		"DESCRIBE SELECT id FROM orders", "SELECT 1",
	}
	for _, sql := range accepted {
		if _, err := CheckInspect(sql); err != nil {
			t.Errorf("CheckInspect(%q) refused: %v", sql, err)
		}
	}
	refused := []struct{ sql, want string }{
		{"SHOW PROCESSLIST", "SHOW statement is not allowed"},
		{"SHOW GRANTS", "SHOW statement is not allowed"},
		{"SHOW VARIABLES", "SHOW statement is not allowed"},
		{"SHOW TABLES WHERE (SELECT 1) = 1", "WHERE"},
		{"SHOW TABLES FROM mysql", "system database"},
		{"SHOW COLUMNS FROM mysql.user", "system table"},
		{"EXPLAIN ANALYZE SELECT 1", "ANALYZE"},
		{"EXPLAIN DELETE FROM orders", "only EXPLAIN of a SELECT"},
		{"EXPLAIN SELECT SLEEP(5)", "SLEEP"},
		{"EXPLAIN FOR CONNECTION 5", "only SELECT, SHOW"},
		{"DELETE FROM orders", "only SELECT, SHOW"},
	}
	for _, tc := range refused {
		_, err := CheckInspect(tc.sql)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckInspect(%q) = %v; want %q", tc.sql, err, tc.want)
		}
	}
	// Check alone keeps refusing them: the bot's own path runs SELECTs only.
	if _, err := Check("SHOW TABLES"); err == nil {
		t.Error("Check accepted SHOW TABLES")
	}
}

// TestMaxLen: the cap applies before parsing, and a guard may set its own.
func TestMaxLen(t *testing.T) {
	g := mustGuard(t, Options{MaxLen: 100})
	_, err := g.Check("SELECT " + strings.Repeat("1+", 60) + "1")
	if r, ok := Refused(err); !ok || r.Kind != KindTooLong {
		t.Fatalf("got %v", err)
	}
	if _, err := g.Check("SELECT 1"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCheckLargestStatement is the worst the guard spends on one
// statement: "SELECT 1+1+…" of the largest size it accepts.
func BenchmarkCheckLargestStatement(b *testing.B) {
	sql := "SELECT 1" + strings.Repeat("+1", (DefaultMaxLen-16)/2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check(sql); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sql)), "statement-bytes")
}
