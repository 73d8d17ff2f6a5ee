package warehouse_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

const itemsDump = "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2));\n" +
	"INSERT INTO items VALUES (1,'pen','1.50'),(2,'ink','2.25'),(3,'pad',NULL);"

// checksum reads the table directly, behind the guard's back.
func checksum(tb testing.TB, w *warehouse.DB) string {
	tb.Helper()
	res, err := w.Query(context.Background(), "SELECT id, name, price FROM items ORDER BY id", warehouse.Limits{})
	if err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprint(res.Rows)
}

func TestGuardRefusesEveryWriteAndTheTableIsUnchanged(t *testing.T) {
	refused := []struct{ name, sql string }{
		{"insert", "INSERT INTO items VALUES (9,'x','1.00')"},
		{"update", "UPDATE items SET price = 0"},
		{"delete", "DELETE FROM items"},
		{"replace", "REPLACE INTO items VALUES (1,'x','1.00')"},
		{"drop", "DROP TABLE items"},
		{"truncate", "TRUNCATE TABLE items"},
		{"alter", "ALTER TABLE items ADD COLUMN x INT"},
		{"create", "CREATE TABLE x (a INT)"},
		{"two statements", "SELECT 1; DELETE FROM items"},
		{"select then drop", "SELECT * FROM items; DROP TABLE items"},
		{"into outfile", "SELECT * FROM items INTO OUTFILE '/tmp/x.csv'"},
		{"into dumpfile", "SELECT name FROM items LIMIT 1 INTO DUMPFILE '/tmp/x'"},
		{"into var", "SELECT name INTO @v FROM items LIMIT 1"},
		{"for update", "SELECT * FROM items FOR UPDATE"},
		{"lock in share mode", "SELECT * FROM items LOCK IN SHARE MODE"},
		{"sleep", "SELECT SLEEP(30)"},
		{"benchmark", "SELECT BENCHMARK(100000000, MD5('x'))"},
		{"load_file", "SELECT LOAD_FILE('/etc/passwd')"},
		{"get_lock", "SELECT GET_LOCK('x', 10)"},
		{"sleep in subquery", "SELECT * FROM items WHERE id IN (SELECT SLEEP(5))"},
		{"set", "SET @x = 1"},
	}
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{})
			before := checksum(t, w)
			for _, tc := range refused {
				t.Run(tc.name, func(t *testing.T) {
					_, err := w.Query(context.Background(), tc.sql, warehouse.Limits{})
					if !errors.Is(err, warehouse.ErrRefused) {
						t.Fatalf("want a refusal, got %v", err)
					}
					if err.Error() == "" || strings.Contains(err.Error(), "Error 1") {
						t.Fatalf("refusal should be a plain sentence, got %q", err)
					}
				})
			}
			if after := checksum(t, w); after != before {
				t.Fatalf("table changed: before %s after %s", before, after)
			}
			if n := d.Count(t, "items"); n != 3 {
				t.Fatalf("items has %d rows, want 3", n)
			}
		})
	}
}

func TestSlowQueryIsStoppedAtTheLimit(t *testing.T) {
	// SLEEP is refused, so a heavy cross join stands in for a slow query.
	dump := numbersDump(1000)
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, dump)
			w := d.Open(t, warehouse.Config{QueryTimeout: 700 * time.Millisecond})
			start := time.Now()
			_, err := w.Query(context.Background(), "SELECT COUNT(*) FROM n a, n b, n c WHERE a.i + b.i + c.i = 7", warehouse.Limits{})
			if !errors.Is(err, warehouse.ErrTimeout) {
				t.Fatalf("want a timeout, got %v", err)
			}
			if !strings.Contains(err.Error(), "700 ms") {
				t.Fatalf("message should name the limit: %q", err)
			}
			// Not a hang: a billion-row join would run for minutes.
			if el := time.Since(start); el > 15*time.Second {
				t.Fatalf("query ran %s past a 700 ms limit", el)
			}
			if target.Real {
				// The server itself stopped working on it, not just the client.
				if n := runningCopies(t, w, "a.i + b.i + c.i = 7"); n != 0 {
					t.Fatalf("%v copies of the slow query still run on the server", n)
				}
			}
			// The pool is still usable afterwards.
			res, err := w.Query(context.Background(), "SELECT COUNT(*) FROM n", warehouse.Limits{})
			if err != nil || fmt.Sprint(res.Rows[0][0]) != "1000" {
				t.Fatalf("after timeout: %v %v", res, err)
			}
		})
	}
}

// TestCancellationStopsTheQuery cancels a statement once the server shows
// it running, and checks that the call ends with ErrCanceled and the
// server stops working on it. The statement would run for hours, so it
// ends only if the cancellation stops it; the waits are bounded so that a
// failure says what it waited for instead of hanging.
func TestCancellationStopsTheQuery(t *testing.T) {
	const (
		marker = "cancellation test"
		stmt   = "SELECT /* " + marker + " */ COUNT(*) FROM n a, n b, n c, n d WHERE a.i + b.i + c.i + d.i = 7"
	)
	dump := numbersDump(1000)
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, dump)
			// Far beyond the test, so that no time limit ends the statement.
			w := d.Open(t, warehouse.Config{QueryTimeout: 10 * time.Minute})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := w.Query(ctx, stmt, warehouse.Limits{})
				done <- err
			}()
			waitForCopies(t, w, marker, 1)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, warehouse.ErrCanceled) {
					t.Fatalf("want canceled, got %v", err)
				}
			case <-time.After(stopBound):
				t.Fatalf("Query had not returned %s after its context was cancelled", stopBound)
			}
			waitForCopies(t, w, marker, 0)
		})
	}
}

// stopBound is how long a test waits for the server to start or stop a
// statement: far longer than either takes, far shorter than the statements
// it is used with would run.
const stopBound = 30 * time.Second

// runningCopies counts the statements holding marker that the server is
// running, read behind the guard (which refuses PROCESSLIST).
func runningCopies(tb testing.TB, w *warehouse.DB, marker string) int {
	tb.Helper()
	conn, err := w.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	var n int
	q := "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" + marker + "%' AND INFO NOT LIKE '%PROCESSLIST%'"
	if err := conn.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		tb.Fatalf("read the process list: %v", err)
	}
	return n
}

// waitForCopies polls the process list until the server runs want copies
// of the statement holding marker, and fails after stopBound.
func waitForCopies(tb testing.TB, w *warehouse.DB, marker string, want int) {
	tb.Helper()
	deadline := time.NewTimer(stopBound)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		n := runningCopies(tb, w, marker)
		if n == want {
			return
		}
		select {
		case <-deadline.C:
			tb.Fatalf("after %s the server runs %d copies of the statement holding %q, want %d", stopBound, n, marker, want)
		case <-tick.C:
		}
	}
}

func TestTruncationIsReported(t *testing.T) {
	dump := numbersDump(50)
	cases := []struct {
		name      string
		sql       string
		max       int
		rows      int
		truncated bool
	}{
		{"under the cap", "SELECT i FROM n ORDER BY i", 100, 50, false},
		{"exactly the cap", "SELECT i FROM n ORDER BY i", 50, 50, false},
		{"over the cap", "SELECT i FROM n ORDER BY i", 10, 10, true},
		{"own limit under the cap", "SELECT i FROM n ORDER BY i LIMIT 5", 10, 5, false},
		{"own limit over the cap", "SELECT i FROM n ORDER BY i LIMIT 40", 10, 10, true},
		{"union over the cap", "SELECT i FROM n UNION ALL SELECT i FROM n", 60, 60, true},
		{"trailing comment", "SELECT i FROM n -- all of them", 10, 10, true},
	}
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, dump)
			w := d.Open(t, warehouse.Config{})
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					res, err := w.Query(context.Background(), tc.sql, warehouse.Limits{MaxRows: tc.max})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Rows) != tc.rows || res.Truncated != tc.truncated {
						t.Fatalf("got %d rows truncated=%v, want %d truncated=%v", len(res.Rows), res.Truncated, tc.rows, tc.truncated)
					}
					if strings.Contains(tc.sql, "ORDER BY") && res.Rows[0][0] != int64(0) {
						t.Fatalf("first row %v, want 0", res.Rows[0][0])
					}
				})
			}
		})
	}
}

func TestValuesSurviveARoundTrip(t *testing.T) {
	long := strings.Repeat("ab€", 20000) // 60,000 characters, multi-byte
	dump := "CREATE TABLE `select` (`order` INT PRIMARY KEY, `group` VARCHAR(100), `from` MEDIUMTEXT, amount DECIMAL(12,2), ratio DOUBLE, d DATE, big BIGINT UNSIGNED);\n" +
		"INSERT INTO `select` VALUES (1, 'Zürich 東京 🚀', '" + long + "', '1204.50', 0.25, '2024-02-29', 18446744073709551615),(2, NULL, NULL, NULL, NULL, NULL, NULL);"
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, dump)
			w := d.Open(t, warehouse.Config{})
			res, err := w.Query(context.Background(), "SELECT `order`, `group`, `from`, amount, ratio, d, big FROM `select` ORDER BY `order`", warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Columns) != 7 || res.Columns[1].Name != "group" {
				t.Fatalf("columns %+v", res.Columns)
			}
			r := res.Rows[0]
			if r[0] != int64(1) || r[1] != "Zürich 東京 🚀" || r[2] != long || r[3] != "1204.50" || r[4] != 0.25 || r[5] != "2024-02-29" {
				t.Fatalf("row 1: %v %q (long value intact: %v) %v %v %v", r[0], r[1], r[2] == long, r[3], r[4], r[5])
			}
			if f, ok := warehouse.AsFloat(r[6]); !ok || f < 1.8e19 {
				t.Fatalf("unsigned bigint: %T %v", r[6], r[6])
			}
			for i, v := range res.Rows[1][1:] {
				if v != nil {
					t.Fatalf("row 2 column %d: want NULL, got %T %v", i+2, v, v)
				}
			}
			if res.Columns[3].Kind() != warehouse.KindNumber || res.Columns[1].Kind() != warehouse.KindText || res.Columns[5].Kind() != warehouse.KindTime {
				t.Fatalf("column kinds: %+v", res.Columns)
			}
		})
	}
}

func TestErrorsNameTheProblem(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		want error
		text string
	}{
		{"unknown column with alias", "SELECT i.nope FROM items AS i", warehouse.ErrUnknownColumn, "unknown column `nope` in table `items`"},
		{"unknown column", "SELECT nope FROM items", warehouse.ErrUnknownColumn, "unknown column `nope`"},
		{"unknown table", "SELECT * FROM nope", warehouse.ErrUnknownTable, "unknown table `nope`"},
		{"syntax", "SELECT FROM WHERE", warehouse.ErrSyntax, "syntax"},
	}
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{})
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					_, err := w.Query(context.Background(), tc.sql, warehouse.Limits{})
					if !errors.Is(err, tc.want) {
						t.Fatalf("want %v, got %v (%T)", tc.want, err, errors.Unwrap(err))
					}
					if !strings.Contains(err.Error(), tc.text) {
						t.Fatalf("message %q should contain %q", err, tc.text)
					}
				})
			}
		})
	}
}

func TestUnreachableWarehouseFailsClearlyAndQuickly(t *testing.T) {
	// A closed port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	// A port that accepts but never speaks.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	cases := []struct {
		name, dsn, text string
		want            error
	}{
		{"closed port", "root@tcp(" + closed + ")/db", "connection refused", warehouse.ErrUnavailable},
		{"silent server", "root@tcp(" + silent.Addr().String() + ")/db", "did not answer", warehouse.ErrUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := warehouse.Open(context.Background(), warehouse.Config{DSN: tc.dsn, ConnectTimeout: 500 * time.Millisecond})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("want %v mentioning %q, got %v", tc.want, tc.text, err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("took %s: a down warehouse must not hang", el)
			}
		})
	}
	t.Run("bad dsn", func(t *testing.T) {
		_, err := warehouse.Open(context.Background(), warehouse.Config{DSN: "not a dsn"})
		if err == nil || !strings.Contains(err.Error(), "DSN") {
			t.Fatalf("want a DSN error, got %v", err)
		}
	})
}

func TestLoginRefused(t *testing.T) {
	for _, target := range testwh.Targets() {
		if !target.Real {
			continue // the embedded server has no accounts
		}
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, "")
			cfg := d.Config.Clone()
			cfg.User = "clarify_no_such_user"
			cfg.Passwd = "wrong"
			_, err := warehouse.Open(context.Background(), warehouse.Config{MySQL: cfg})
			if !errors.Is(err, warehouse.ErrAccessDenied) || !strings.Contains(err.Error(), "refused the login") {
				t.Fatalf("want access denied, got %v", err)
			}
		})
	}
}

func TestConcurrentQueries(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{MaxOpenConns: 4})
			var wg sync.WaitGroup
			errs := make(chan error, 32)
			for i := 0; i < 32; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					res, err := w.Query(context.Background(), fmt.Sprintf("SELECT name FROM items WHERE id = %d", i%3+1), warehouse.Limits{})
					if err == nil && len(res.Rows) != 1 {
						err = fmt.Errorf("query %d: %d rows", i, len(res.Rows))
					}
					errs <- err
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// numbersDump creates table n holding 0..count-1.
func numbersDump(count int) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE n (i INT PRIMARY KEY);\nINSERT INTO n VALUES ")
	for i := 0; i < count; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d)", i)
	}
	b.WriteString(";")
	return b.String()
}

func TestCachedDBAnswersRepeatsFromMemory(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, itemsDump)
			w := d.Open(t, warehouse.Config{Cache: warehouse.CacheOptions{Entries: 4}})
			ctx := context.Background()
			first, err := w.Query(ctx, "SELECT id, name FROM items ORDER BY id", warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			again, err := w.Query(ctx, "SELECT id, name\n  FROM items\n  ORDER BY id", warehouse.Limits{MaxRows: 2})
			if err != nil {
				t.Fatal(err)
			}
			if first.Cached || !again.Cached {
				t.Fatalf("cached: first %v, repeat %v; want only the repeat", first.Cached, again.Cached)
			}
			if fmt.Sprint(again.Rows) != fmt.Sprint(first.Rows[:2]) || !again.Truncated {
				t.Fatalf("repeat under a cap of 2: %v truncated=%v; want %v truncated", again.Rows, again.Truncated, first.Rows[:2])
			}
			// The guard still sees every statement, cached or not.
			if _, err := w.Query(ctx, "SELECT id, name FROM items ORDER BY id; DELETE FROM items", warehouse.Limits{}); !errors.Is(err, warehouse.ErrRefused) {
				t.Fatalf("want a refusal, got %v", err)
			}
		})
	}
}

// TestRememberedResultsAreServedAsTheStatements: a result remembered for a
// statement is what Query returns for it, under the caller's row cap.
func TestRememberedResultsAreServedAsTheStatements(t *testing.T) {
	d := testwh.NewDatabase(t, testwh.Targets()[0], itemsDump)
	ctx := context.Background()
	derived := &warehouse.Result{Columns: []warehouse.ResultColumn{{Name: "id", Type: "INT"}}, Rows: [][]any{{int64(2)}, {int64(1)}}}
	const stmt = "SELECT id FROM items WHERE price IS NOT NULL ORDER BY price DESC"
	tests := []struct {
		name    string
		cache   warehouse.CacheOptions
		holds   bool
		maxRows int
		want    string
		trunc   bool
	}{
		{"with a cache", warehouse.CacheOptions{Entries: 4}, true, 10, "[[2] [1]]", false},
		{"under a smaller cap", warehouse.CacheOptions{Entries: 4}, true, 1, "[[2]]", true},
		// The statement runs; its rows are the server's.
		{"without a cache", warehouse.CacheOptions{}, false, 10, "[[2] [1]]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := d.Open(t, warehouse.Config{Cache: tt.cache})
			lim := warehouse.Limits{MaxRows: tt.maxRows}
			if w.Holds(stmt, lim) {
				t.Fatal("holds a statement before it ran")
			}
			w.Remember("SELECT id FROM items; DELETE FROM items", derived)
			w.Remember(stmt, derived)
			if got := w.Holds("SELECT id\nFROM items WHERE price IS NOT NULL ORDER BY price DESC", lim); got != tt.holds {
				t.Fatalf("holds %v, want %v", got, tt.holds)
			}
			res, err := w.Query(ctx, stmt, lim)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(res.Rows) != tt.want || res.Truncated != tt.trunc || res.Cached != tt.holds {
				t.Fatalf("rows %v truncated %v cached %v; want %s truncated %v cached %v", res.Rows, res.Truncated, res.Cached, tt.want, tt.trunc, tt.holds)
			}
		})
	}
}
