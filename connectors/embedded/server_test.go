package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/go-sql-driver/mysql"
	"github.com/shopspring/decimal"
)

func TestMain(m *testing.M) {
	QuietEngineLogs(io.Discard, slog.LevelError)
	m.Run()
}

func mustServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func mustOpen(tb testing.TB, s *Server, db string) *sql.DB {
	tb.Helper()
	conn, err := mysql.NewConnector(s.Config(db))
	if err != nil {
		tb.Fatal(err)
	}
	d := sql.OpenDB(conn)
	tb.Cleanup(func() { d.Close() })
	return d
}

func TestLoadTablesVisibleOverProtocol(t *testing.T) {
	s := mustServer(t)
	ctx := context.Background()
	err := s.LoadTables(ctx, "shop", []Table{{
		Name:      "items",
		CreateSQL: "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), added DATE)",
		Rows:      [][]any{{1, "pen", "1.50", "2024-01-02"}, {2, "ink", nil, nil}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, s, "shop")
	var n int
	var total float64
	var added sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(price), MAX(added) FROM items").Scan(&n, &total, &added); err != nil {
		t.Fatal(err)
	}
	if n != 2 || total != 1.5 || added.String != "2024-01-02" {
		t.Fatalf("got count %d sum %v max date %v, want 2, 1.5 and 2024-01-02", n, total, added)
	}
}

func TestLoadTablesRejectsWrongWidth(t *testing.T) {
	s := mustServer(t)
	err := s.LoadTables(context.Background(), "shop", []Table{{
		Name: "items", CreateSQL: "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40))",
		Rows: [][]any{{1}},
	}})
	if err == nil || !strings.Contains(err.Error(), "row 1 has 1 values") {
		t.Fatalf("want a width error, got %v", err)
	}
}

func TestLoadDump(t *testing.T) {
	s := mustServer(t)
	ctx := context.Background()
	dump := `-- a comment
DROP TABLE IF EXISTS ` + "`t`" + `;
CREATE TABLE t (a INT, b TEXT);
/* block comment */
INSERT INTO t VALUES (1,'x;y'),(2,'it''s');
`
	if err := s.LoadDump(ctx, "d1", strings.NewReader(dump)); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, s, "d1")
	var b string
	if err := db.QueryRowContext(ctx, "SELECT b FROM t WHERE a = 2").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if b != "it's" {
		t.Fatalf("got %q", b)
	}
	err := s.LoadDump(ctx, "d2", strings.NewReader("CREATE TABLE t (a INT);\nINSERT INTO nope VALUES (1);"))
	if err == nil || !strings.Contains(err.Error(), "statement 2") {
		t.Fatalf("want an error naming statement 2, got %v", err)
	}
}

// A large table loaded with LoadTables keeps its keys, and lookups through
// its indexes (binary searches, see staticTable) return what a scan would.
func TestLoadedTablesKeepKeysAndLookUpByIndex(t *testing.T) {
	s := mustServer(t)
	ctx := context.Background()
	const n = 3000
	big := make([][]any, n)
	for i := range big {
		var when any = fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)
		if i%10 == 0 {
			when = nil
		}
		big[i] = []any{i + 1, i%3 + 1, []string{"tx", "TX", "Ohio", "ohio "}[i%4], when, i % 7}
	}
	err := s.LoadTables(ctx, "k", []Table{
		{Name: "small", CreateSQL: "CREATE TABLE small (id INT PRIMARY KEY, name VARCHAR(10))", Rows: [][]any{{1, "a"}, {2, "b"}, {3, "c"}}},
		{Name: "big", CreateSQL: "CREATE TABLE big (id INT PRIMARY KEY, small_id INT NOT NULL, st VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, at DATE NULL, k INT, " +
			"KEY (small_id), KEY (st), KEY (at), KEY (k, small_id), FOREIGN KEY (small_id) REFERENCES small(id))", Rows: big},
	})
	if err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, s, "k")
	var keys int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'k' AND TABLE_NAME = 'big'").Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if keys != 2 {
		t.Fatalf("big has %d key columns, want its primary key and its foreign key", keys)
	}
	count := func(keep func(r []any) bool) int {
		c := 0
		for _, r := range big {
			if keep(r) {
				c++
			}
		}
		return c
	}
	date := func(r []any) string { s, _ := r[3].(string); return s }
	tests := []struct {
		name  string
		query string
		want  int
	}{
		{"primary key point", "SELECT COUNT(*) FROM big WHERE id = 1234", 1},
		{"primary key range", "SELECT COUNT(*) FROM big WHERE id > 2990 OR id <= 5", 15},
		{"primary key IN", "SELECT COUNT(*) FROM big WHERE id IN (3, 30, 300, 3000, 30000)", 4},
		{"key given as text", "SELECT COUNT(*) FROM big WHERE id = '17'", 1},
		{"lookup join", "SELECT COUNT(*) FROM big b JOIN small s ON s.id = b.small_id WHERE s.name = 'b'", count(func(r []any) bool { return r[1] == 2 })},
		{"date range", "SELECT COUNT(*) FROM big WHERE at >= '2024-03-01' AND at < '2024-05-01'",
			count(func(r []any) bool { return date(r) >= "2024-03-01" && date(r) < "2024-05-01" })},
		{"date is null", "SELECT COUNT(*) FROM big WHERE at IS NULL", n / 10},
		{"date is not null", "SELECT COUNT(*) FROM big WHERE at IS NOT NULL", n - n/10},
		{"text by a case-blind collation", "SELECT COUNT(*) FROM big WHERE st = 'tx'", n / 2},
		{"text range", "SELECT COUNT(*) FROM big WHERE st > 'P'", n / 2},
		{"text without padding", "SELECT COUNT(*) FROM big WHERE st = 'OHIO'", n / 4},
		{"two-column index", "SELECT COUNT(*) FROM big WHERE k = 3 AND small_id = 1", count(func(r []any) bool { return r[4] == 3 && r[1] == 1 })},
		{"first column of two", "SELECT COUNT(*) FROM big WHERE k BETWEEN 2 AND 4", count(func(r []any) bool { k := r[4].(int); return k >= 2 && k <= 4 })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got int
			if err := db.QueryRowContext(ctx, tc.query).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("%s: %d rows, want %d", tc.query, got, tc.want)
			}
		})
	}
	// The indexes are used, not only declared.
	var plan strings.Builder
	rows, err := db.QueryContext(ctx, "EXPLAIN PLAN SELECT id FROM big WHERE at >= '2024-03-01' AND at < '2024-05-01'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if !strings.Contains(plan.String(), "IndexedTableAccess(big)") {
		t.Fatalf("the date range does not use the index:\n%s", plan.String())
	}
}

func TestLoadedTablesAreReadOnly(t *testing.T) {
	s := mustServer(t)
	ctx := context.Background()
	if err := s.LoadTables(ctx, "ro", []Table{{Name: "t", CreateSQL: "CREATE TABLE t (id INT PRIMARY KEY)", Rows: [][]any{{1}}}}); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, s, "ro")
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err == nil {
		t.Fatal("an insert into a loaded table succeeded")
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("count %d (%v), want 1", n, err)
	}
}

func TestPlainDecimalMatchesTheEngine(t *testing.T) {
	s := mustServer(t)
	ctx := s.newContext(context.Background(), "")
	dt := types.MustCreateDecimalType(6, 2)
	for _, in := range []string{"0", "0.00", "1204.5", "1204.50", "-3.07", "9999.99", "-0.5", "007.10", "10000.00", "1.234", "1e3", "", "-", "12.3.4", "abc"} {
		t.Run(in, func(t *testing.T) {
			want, _, werr := dt.Convert(ctx, in)
			got, ok := plainDecimal(in, dt)
			if !ok {
				return // left to the engine's own conversion
			}
			if werr != nil {
				t.Fatalf("read %v; the engine refuses it: %v", got, werr)
			}
			if !got.Equal(want.(decimal.Decimal)) || got.Exponent() != want.(decimal.Decimal).Exponent() {
				t.Fatalf("read %v (exponent %d), the engine stores %v (exponent %d)", got, got.Exponent(), want, want.(decimal.Decimal).Exponent())
			}
		})
	}
}
