package warehouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

func TestReadingMode(t *testing.T) {
	cases := []struct{ server, want string }{
		{"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION", "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"},
		{"ANSI_QUOTES,ONLY_FULL_GROUP_BY", "ONLY_FULL_GROUP_BY"},
		{"REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI", "REAL_AS_FLOAT,ONLY_FULL_GROUP_BY"},
		{"NO_BACKSLASH_ESCAPES,HIGH_NOT_PRECEDENCE,EMPTY_STRING_IS_NULL,ORACLE,SIMULTANEOUS_ASSIGNMENT", ""},
		{"", ""},
	}
	for _, tc := range cases {
		if got := warehouse.ReadingMode(tc.server); got != tc.want {
			t.Errorf("ReadingMode(%q) = %q, want %q", tc.server, got, tc.want)
		}
	}
}

// TestSessionReadsStatementsAsTheGuard: every session runs with the pinned
// sql_mode, and a session whose mode was changed behind the warehouse's
// back is set again before the next statement: "name" stays a string and
// || stays OR, as the guard and the access rules read them.
func TestSessionReadsStatementsAsTheGuard(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{MaxOpenConns: 1})
			for _, flag := range []string{"ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "PIPES_AS_CONCAT", "IGNORE_SPACE"} {
				if strings.Contains(w.SQLMode(), flag) {
					t.Fatalf("pinned mode %q has %s", w.SQLMode(), flag)
				}
			}
			ctx := context.Background()
			conn, err := w.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT'"); err != nil {
				t.Fatal(err)
			}
			conn.Close() // back to the pool of one
			res, err := w.Query(ctx, `SELECT "name" AS v, 1 || 0 AS w FROM items ORDER BY id LIMIT 1`, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Rows[0][0]; got != "name" {
				t.Errorf(`"name" read as %v: the session kept ANSI_QUOTES`, got)
			}
			if got := res.Rows[0][1]; got != int64(1) {
				t.Errorf("1 || 0 read as %v (%T): the session kept PIPES_AS_CONCAT", got, got)
			}
			if target.Real {
				res, err := w.Query(ctx, "SELECT @@SESSION.sql_mode", warehouse.Limits{})
				if err != nil || res.Rows[0][0] != w.SQLMode() {
					t.Errorf("session mode %v (%v), want %q", res, err, w.SQLMode())
				}
			}
		})
	}
}

// TestOpenRefusesSessionSettings: settings under which the server would
// read a statement otherwise than the guard are refused before connecting.
func TestOpenRefusesSessionSettings(t *testing.T) {
	cases := []struct{ dsn, want string }{
		{"u:p@tcp(127.0.0.1:1)/shop?sql_mode=%27ANSI_QUOTES%27", "sets sql_mode"},
		{"u:p@tcp(127.0.0.1:1)/shop?SQL_MODE=ANSI", "sets SQL_MODE"},
		{"u:p@tcp(127.0.0.1:1)/shop?@@sql_mode=%27ANSI_QUOTES%27", "sets @@sql_mode"},
		{"u:p@tcp(127.0.0.1:1)/shop?@@SESSION.sql_mode=PIPES_AS_CONCAT", "sets @@SESSION.sql_mode"},
		{"u:p@tcp(127.0.0.1:1)/shop?@@Local.SQL_Mode=ANSI", "sets @@Local.SQL_Mode"},
		{"u:p@tcp(127.0.0.1:1)/shop?@@character_set_client=gbk", "sets @@character_set_client"},
		{"u:p@tcp(127.0.0.1:1)/shop?names=gbk", "sets names"},
		{"u:p@tcp(127.0.0.1:1)/shop?collation_connection=gbk_chinese_ci", "sets collation_connection"},
		{"u:p@tcp(127.0.0.1:1)/shop?@@global.time_zone=%27%2B00:00%27", "global variable"},
		{"u:p@tcp(127.0.0.1:1)/shop?time_zone=%27%2B00:00%27,sql_mode=%27ANSI%27", "must be one word"},
		{"u:p@tcp(127.0.0.1:1)/shop?time_zone=(SELECT%201)", "must be one word"},
		{"u:p@tcp(127.0.0.1:1)/shop?SESSION%20sql_mode=ANSI", "is not a session variable"},
		{"u:p@tcp(127.0.0.1:1)/shop?optimizer_switch=%27index_merge=off%27", "does not allow"},
		{"u:p@tcp(127.0.0.1:1)/shop?charset=gbk", "charset gbk is not UTF-8"},
		{"u:p@tcp(127.0.0.1:1)/shop?collation=sjis_japanese_ci", "collation sjis_japanese_ci"},
		{"u:p@tcp(127.0.0.1:1)/shop?character_set_client=big5", "character_set_client"},
	}
	for _, tc := range cases {
		_, err := warehouse.Open(context.Background(), warehouse.Config{DSN: tc.dsn})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%s) = %v, want %q", tc.dsn, err, tc.want)
		}
	}
	mc, err := mysql.ParseDSN("u:p@tcp(127.0.0.1:1)/shop?charset=utf8mb4&collation=utf8mb4_unicode_ci&time_zone=%27%2B00:00%27")
	if err != nil {
		t.Fatal(err)
	}
	if err := warehouse.CheckSession(mc); err != nil {
		t.Errorf("a UTF-8 DSN was refused: %v", err)
	}
	mc, err = mysql.ParseDSN("u:p@tcp(127.0.0.1:1)/shop?@@session.wait_timeout=100&TRANSACTION_ISOLATION=%27READ-COMMITTED%27")
	if err != nil {
		t.Fatal(err)
	}
	if err := warehouse.CheckSession(mc); err != nil {
		t.Errorf("allowed session variables were refused: %v", err)
	}
}

const wideDump = "CREATE TABLE notes (id INT PRIMARY KEY, body TEXT);\n" +
	"INSERT INTO notes VALUES (1, REPEAT('a', 3000)),(2, REPEAT('b', 3000)),(3, REPEAT('c', 3000)),(4, REPEAT('d', 3000)),(5, REPEAT('e', 3000)),(6, REPEAT('f', 30000));"

// TestResultBytesAreCapped: rows past the byte cap are not read, as rows
// past the row cap; a row larger than the cap on its own is an error.
func TestResultBytesAreCapped(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, wideDump)
			w := d.Open(t, warehouse.Config{MaxBytes: 10000})
			ctx := context.Background()
			res, err := w.Query(ctx, "SELECT id, body FROM notes WHERE id <= 5 ORDER BY id", warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Truncated || len(res.Rows) != 3 {
				t.Fatalf("got %d rows, truncated %v; want 3 rows of 3000 bytes under a 10000-byte cap", len(res.Rows), res.Truncated)
			}
			_, err = w.Query(ctx, "SELECT body FROM notes WHERE id = 6", warehouse.Limits{})
			if !errors.Is(err, warehouse.ErrTooLarge) || !strings.Contains(err.Error(), "larger than the") {
				t.Fatalf("a 30000-byte row under a 10000-byte cap: %v", err)
			}
			res, err = w.Query(ctx, "SELECT id, body FROM notes WHERE id <= 5 ORDER BY id", warehouse.Limits{MaxBytes: 1 << 20})
			if err != nil || res.Truncated || len(res.Rows) != 5 {
				t.Fatalf("a larger cap per statement: %d rows, %v", len(res.Rows), err)
			}
		})
	}
}

// TestStatementSizeIsCappedBeforeParsing: bot sql and the model's SQL
// alike; the cap is the guard's.
func TestStatementSizeIsCappedBeforeParsing(t *testing.T) {
	err := warehouse.Guard("SELECT 1" + strings.Repeat("+1", 40000))
	if !errors.Is(err, warehouse.ErrRefused) || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("got %v", err)
	}
}

const inspectDump = "CREATE TABLE members (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(80), city VARCHAR(40), KEY by_email (email), KEY by_city (city));\n" +
	"CREATE TABLE payroll (id INT PRIMARY KEY, amount INT);\n" +
	"CREATE TABLE towns (id INT PRIMARY KEY, name VARCHAR(40));\n" +
	"INSERT INTO members VALUES (1, 'Ana', 'ana@x.org', 'Oslo');"

// TestInspectAppliesTheRules: SHOW, DESCRIBE and EXPLAIN for bot sql; a
// hidden table or column never appears in what they return, and EXPLAIN
// of a statement the rules refuse is refused.
func TestInspectAppliesTheRules(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, inspectDump)
			raw := d.Open(t, warehouse.Config{})
			ctx := context.Background()
			schema, err := raw.Introspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pol, err := access.New(access.Rules{Hidden: []string{"members.email", "payroll"}}, schema)
			if err != nil {
				t.Fatal(err)
			}
			w := raw.WithPolicy(pol)
			shows := func(sql string) string {
				t.Helper()
				res, err := w.Inspect(ctx, sql, warehouse.Limits{})
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				var b strings.Builder
				for _, r := range res.Rows {
					for _, v := range r {
						b.WriteString(strings.ToLower(fmt.Sprint(v)) + "|")
					}
					b.WriteString("\n")
				}
				return b.String()
			}
			if out := shows("SHOW TABLES"); strings.Contains(out, "payroll") || !strings.Contains(out, "members") {
				t.Errorf("SHOW TABLES:\n%s", out)
			}
			for _, sql := range []string{"SHOW COLUMNS FROM members", "SHOW FULL COLUMNS FROM members", "DESCRIBE members", "SHOW INDEX FROM members"} {
				if out := shows(sql); strings.Contains(out, "email") || !strings.Contains(out, "name") && !strings.Contains(out, "city") {
					t.Errorf("%s:\n%s", sql, out)
				}
			}
			if out := shows("SHOW CREATE TABLE towns"); !strings.Contains(out, "create table") {
				t.Errorf("SHOW CREATE TABLE towns:\n%s", out)
			}
			// The embedded server's EXPLAIN output does not scan (a NULL in
			// an integer column); it must not be refused all the same.
			if res, err := w.Inspect(ctx, "EXPLAIN SELECT name FROM members WHERE city = 'Oslo'", warehouse.Limits{}); errors.Is(err, warehouse.ErrRefused) || target.Real && (err != nil || len(res.Rows) == 0) {
				t.Errorf("EXPLAIN: %v %v", res, err)
			}
			for _, sql := range []string{"SHOW CREATE TABLE members", "DESCRIBE members email", "SHOW COLUMNS FROM payroll",
				"EXPLAIN SELECT email FROM members", "EXPLAIN SELECT name FROM members ORDER BY email", "SELECT email FROM members"} {
				if _, err := w.Inspect(ctx, sql, warehouse.Limits{}); !errors.Is(err, warehouse.ErrRefused) {
					t.Errorf("%s: %v, want a refusal", sql, err)
				}
			}
			if _, err := w.Inspect(ctx, "SHOW PROCESSLIST", warehouse.Limits{}); !errors.Is(err, warehouse.ErrRefused) {
				t.Errorf("SHOW PROCESSLIST: %v", err)
			}
			if _, err := w.Query(ctx, "SHOW TABLES", warehouse.Limits{}); !errors.Is(err, warehouse.ErrRefused) {
				t.Errorf("Query ran SHOW TABLES: %v", err)
			}
		})
	}
}

// TestProfileWithholdsProtectedValues: the values of hidden and sensitive
// columns are never read for the profile, and a snapshot cached before
// they were protected is cleaned, on disk too.
func TestProfileWithholdsProtectedValues(t *testing.T) {
	d := testwh.NewDatabase(t, testwh.Targets()[0], itemsDump)
	w := d.Open(t, warehouse.Config{})
	ctx := context.Background()
	path := t.TempDir() + "/snap.json.gz"
	open, err := w.CachedSnapshot(ctx, path, 0, false, warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := open.Profile("items", "price"); p == nil || p.Max == "" || len(p.Samples) == 0 {
		t.Fatalf("unprotected profile has no values: %+v", p)
	}
	rules := access.Rules{Sensitive: []string{"Items.Price"}, Hidden: []string{"items.name"}}
	opts := warehouse.ProfileOptions{Withhold: rules.Withholds}
	check := func(snap *warehouse.Snapshot, what string) {
		t.Helper()
		for _, col := range []string{"price", "name"} {
			p := snap.Profile("items", col)
			if p == nil || p.Min != "" || p.Max != "" || len(p.Samples) > 0 || len(p.Top) > 0 || len(p.Values) > 0 {
				t.Errorf("%s: items.%s keeps values: %+v", what, col, p)
			}
		}
		if p := snap.Profile("items", "id"); p == nil || p.Max == "" {
			t.Errorf("%s: items.id lost its range: %+v", what, p)
		}
	}
	cached, err := w.CachedSnapshot(ctx, path, 0, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	check(cached, "cached")
	onDisk, err := warehouse.LoadSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	check(onDisk, "on disk")
	fresh, err := w.TakeSnapshot(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	check(fresh, "fresh")
}

// TestSessionsStartingOtherwiseArePinned: sessions that start in another
// sql_mode or client character set (as a server's defaults, or anything
// else setting them when a connection opens, could make them) are set
// back before a statement runs. Under gbk, the bytes of 你 followed by a
// backtick are one letter, and the statement below would show every
// email; under ANSI_QUOTES "name" would be the column.
func TestSessionsStartingOtherwiseArePinned(t *testing.T) {
	var target testwh.Target
	for _, tg := range testwh.Targets() {
		if tg.Real {
			target = tg
		}
	}
	if !target.Real {
		t.Skip("needs a real server (MYSQL_TEST_DSN): the embedded one reads UTF-8 only")
	}
	d := testwh.NewDatabase(t, target, "CREATE TABLE people (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(80));\nINSERT INTO people VALUES (1, 'Ana', 'ana@secret.test');")
	ctx := context.Background()
	for _, start := range []map[string]string{
		{"sql_mode": "'ANSI_QUOTES'"},
		{"sql_mode": "'PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES'"},
		{"character_set_client": "gbk"},
		{"@@character_set_client": "gbk", "@@sql_mode": "'ANSI'"},
	} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			mc := d.Config.Clone()
			if err := mc.Apply(mysql.BeforeConnect(func(_ context.Context, c *mysql.Config) error {
				if c.Params == nil {
					c.Params = map[string]string{}
				}
				for k, v := range start {
					c.Params[k] = v
				}
				return nil
			})); err != nil {
				t.Fatal(err)
			}
			w, err := warehouse.Open(ctx, warehouse.Config{MySQL: mc, MaxOpenConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			res, err := w.Query(ctx, "SELECT 1 AS `你`, ' `, email FROM people #' AS v, \"name\" AS w, 1 || 0 AS x", warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Columns) != 4 || res.Rows[0][1] != " `, email FROM people #" || res.Rows[0][2] != "name" || res.Rows[0][3] != int64(1) {
				t.Errorf("the statement was read otherwise: %v %v", res.Columns, res.Rows)
			}
			res, err = w.Query(ctx, "SELECT @@SESSION.sql_mode, @@character_set_client", warehouse.Limits{})
			if err != nil || res.Rows[0][0] != w.SQLMode() || res.Rows[0][1] != warehouse.SessionCharset {
				t.Errorf("session %v (%v), want %q and %s", res, err, w.SQLMode(), warehouse.SessionCharset)
			}
		})
	}
}
