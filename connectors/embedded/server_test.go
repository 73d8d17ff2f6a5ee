package embedded

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
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

func TestLargeTablesAreStoredWithoutKeys(t *testing.T) {
	s := mustServer(t)
	ctx := context.Background()
	big := make([][]any, keyedLoadLimit+1)
	wantB := 0
	for i := range big {
		big[i] = []any{i + 1, i%3 + 1}
		if i%3+1 == 2 {
			wantB++
		}
	}
	err := s.LoadTables(ctx, "k", []Table{
		{Name: "small", CreateSQL: "CREATE TABLE small (id INT PRIMARY KEY, name VARCHAR(10))", Rows: [][]any{{1, "a"}, {2, "b"}, {3, "c"}}},
		{Name: "big", CreateSQL: "CREATE TABLE big (id INT PRIMARY KEY, small_id INT, KEY (small_id), FOREIGN KEY (small_id) REFERENCES small(id))", Rows: big},
	})
	if err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, s, "k")
	keys := map[string]int{}
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME, COUNT(*) FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'k' GROUP BY TABLE_NAME")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var n int
		rows.Scan(&name, &n)
		keys[name] = n
	}
	rows.Close()
	if keys["small"] != 1 || keys["big"] != 0 {
		t.Fatalf("key columns per table: %v; want the small table keyed and the big one not", keys)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM big b JOIN small s ON s.id = b.small_id WHERE s.name = 'b'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != wantB {
		t.Fatalf("join counted %d rows", n)
	}
}
