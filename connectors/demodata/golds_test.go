package demodata

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/go-sql-driver/mysql"
)

// question is one line of questions.jsonl (shared/eval/README.md).
type question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	GoldSQL  string   `json:"gold_sql"`
	AltGold  []string `json:"alt_gold_sql,omitempty"`
	Ordered  bool     `json:"ordered"`
	Source   string   `json:"source"`
	User     string   `json:"user,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Evidence string   `json:"evidence,omitempty"`
}

func mustQuestions(tb testing.TB) []question {
	tb.Helper()
	var qs []question
	sc := bufio.NewScanner(bytes.NewReader(Questions()))
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var q question
		if err := dec.Decode(&q); err != nil {
			tb.Fatalf("questions.jsonl line %d: %v", n, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return qs
}

func TestQuestionsFile(t *testing.T) {
	qs := mustQuestions(t)
	if len(qs) < 45 {
		t.Errorf("%d questions, want at least 45", len(qs))
	}
	known := map[string]bool{"unambiguous": true, "ambiguity:column": true, "ambiguity:output": true,
		"ambiguity:question": true, "ambiguity:value": true, "empty-gold": true}
	relative := regexp.MustCompile(`(?i)\b(last|this|next|previous) (year|month|quarter|week)\b|\b(yesterday|today|ytd|recently)\b`)
	ids := map[string]bool{}
	byText := map[string]map[string]string{} // question → user → gold
	kinds := map[string]int{}
	for _, q := range qs {
		t.Run(q.ID, func(t *testing.T) {
			if q.ID == "" || ids[q.ID] {
				t.Errorf("empty or repeated id")
			}
			ids[q.ID] = true
			if q.Question == "" || q.GoldSQL == "" || q.Source != "clarify demo" {
				t.Errorf("question %q, gold %q, source %q", q.Question, q.GoldSQL, q.Source)
			}
			if relative.MatchString(q.Question) {
				t.Errorf("relative date in %q", q.Question)
			}
			if len(q.Tags) == 0 {
				t.Error("no tags")
			}
			for _, tag := range q.Tags {
				if !known[tag] {
					t.Errorf("unknown tag %q", tag)
				}
				kinds[tag]++
			}
			if slices.Contains(q.Tags, "unambiguous") && len(q.Tags) > 1 {
				t.Errorf("tagged unambiguous and %v", q.Tags)
			}
			if q.User != "" {
				if byText[q.Question] == nil {
					byText[q.Question] = map[string]string{}
				}
				byText[q.Question][q.User] = q.GoldSQL
			}
		})
	}
	pairs := 0
	for text, golds := range byText {
		if golds["ana"] == "" || golds["ben"] == "" {
			t.Errorf("%q has golds for %d users, want ana and ben", text, len(golds))
			continue
		}
		if golds["ana"] == golds["ben"] {
			t.Errorf("%q: ana and ben share a gold", text)
		}
		pairs++
	}
	if pairs < 8 {
		t.Errorf("%d questions asked by both ana and ben, want at least 8", pairs)
	}
	if kinds["unambiguous"] < 8 || len(qs)-kinds["unambiguous"] < 30 {
		t.Errorf("%d unambiguous and %d ambiguous questions", kinds["unambiguous"], len(qs)-kinds["unambiguous"])
	}
	for _, k := range []string{"ambiguity:column", "ambiguity:output", "ambiguity:question", "ambiguity:value"} {
		if kinds[k] < 5 {
			t.Errorf("%d questions tagged %s, want at least 5", kinds[k], k)
		}
	}
}

func mustServer(tb testing.TB) *embedded.Server {
	tb.Helper()
	srv, err := embedded.Start(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

func mustOpen(tb testing.TB, srv *embedded.Server, database string) *sql.DB {
	tb.Helper()
	conn, err := mysql.NewConnector(srv.Config(database))
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(conn)
	tb.Cleanup(func() { db.Close() })
	return db
}

// mustDemo generates the demo with the given number of orders and loads it
// into a fresh embedded server.
func mustDemo(tb testing.TB, orders int) *sql.DB {
	tb.Helper()
	srv := mustServer(tb)
	if err := srv.LoadTables(context.Background(), "demo", Generate(DefaultSeed, orders).EmbeddedTables()); err != nil {
		tb.Fatal(err)
	}
	return mustOpen(tb, srv, "demo")
}

// result is a query result as text; NULL is nullText.
type result [][]string

const nullText = "\x00NULL"

func query(ctx context.Context, db *sql.DB, q string) (result, time.Duration, error) {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	var res result
	raw := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, 0, err
		}
		row := make([]string, len(cols))
		for i, b := range raw {
			if b == nil {
				row[i] = nullText
			} else {
				row[i] = string(b)
			}
		}
		res = append(res, row)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return res, time.Since(start), nil
}

// cellsEqual compares two cells, numbers with a small tolerance:
// go-mysql-server prints DECIMAL sums as floats ("2.206245659e+07") and
// averages with more digits than MariaDB.
func cellsEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return false
	}
	return math.Abs(x-y) <= 0.005+1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// sameRows compares results as multisets of rows.
func sameRows(a, b result) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	sorted := func(r result) result {
		s := slices.Clone(r)
		slices.SortFunc(s, func(x, y []string) int { return strings.Compare(strings.Join(x, "\x01"), strings.Join(y, "\x01")) })
		return s
	}
	a, b = sorted(a), sorted(b)
next:
	for _, ra := range a {
		for j, rb := range b {
			if used[j] || len(ra) != len(rb) {
				continue
			}
			eq := true
			for k := range ra {
				if !cellsEqual(ra[k], rb[k]) {
					eq = false
					break
				}
			}
			if eq {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}

func (r result) String() string {
	var sb strings.Builder
	for i, row := range r {
		if i == 5 {
			fmt.Fprintf(&sb, "… (%d rows)", len(r))
			break
		}
		fmt.Fprintf(&sb, "%q ", row)
	}
	return sb.String()
}

// goldTimeout bounds one gold query; a slower one is a finding, not a hang.
const goldTimeout = 60 * time.Second

// TestGoldsOnEmbedded runs every gold on the embedded server with the full
// demo (a fifth of it with -short) and logs each query's latency.
func TestGoldsOnEmbedded(t *testing.T) {
	orders := DefaultOrders
	if testing.Short() {
		orders = DefaultOrders / 5
	}
	db := mustDemo(t, orders)
	results := map[string]result{}
	for _, q := range mustQuestions(t) {
		t.Run(q.ID, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), goldTimeout)
			defer cancel()
			res, took, err := query(ctx, db, q.GoldSQL)
			if err != nil {
				t.Fatalf("%v\n%s", err, q.GoldSQL)
			}
			t.Logf("%6.0f ms  %d rows", took.Seconds()*1000, len(res))
			if len(res) == 0 && !slices.Contains(q.Tags, "empty-gold") {
				t.Errorf("no rows:\n%s", q.GoldSQL)
			}
			results[q.ID] = res
		})
	}
	if orders != DefaultOrders {
		return
	}
	// The demo's per-user golds are only worth asking about if the answers differ.
	for _, q := range mustQuestions(t) {
		if q.User != "ana" {
			continue
		}
		ben := strings.TrimSuffix(q.ID, "-ana") + "-ben"
		a, b := results[q.ID], results[ben]
		if a != nil && b != nil && sameRows(a, b) {
			t.Errorf("%s and %s (%q) give the same answer: %v", q.ID, ben, q.Question, a)
		}
	}
}

// TestGoldsMatchMySQL loads WriteDump into the real servers named by
// MYSQL_TEST_DSN (such as root@tcp(127.0.0.1:3306)/) and TIDB_TEST_DSN
// (root@tcp(127.0.0.1:4000)/), runs every gold there and on the embedded
// server, and compares the results.
func TestGoldsMatchMySQL(t *testing.T) {
	var servers int
	for _, env := range []string{"MYSQL_TEST_DSN", "TIDB_TEST_DSN"} {
		if dsn := os.Getenv(env); dsn != "" {
			servers++
			t.Run(env, func(t *testing.T) { testGoldsMatch(t, dsn) })
		}
	}
	if servers == 0 {
		t.Skip("MYSQL_TEST_DSN and TIDB_TEST_DSN not set")
	}
}

func testGoldsMatch(t *testing.T, dsn string) {
	ctx := context.Background()
	ds := Generate(DefaultSeed, DefaultOrders)
	real := mustMySQLDatabase(t, dsn, ds)
	srv := mustServer(t)
	if err := srv.LoadTables(ctx, "demo", ds.EmbeddedTables()); err != nil {
		t.Fatal(err)
	}
	emb := mustOpen(t, srv, "demo")
	for _, q := range mustQuestions(t) {
		t.Run(q.ID, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, goldTimeout)
			defer cancel()
			want, tookReal, err := query(ctx, real, q.GoldSQL)
			if err != nil {
				t.Fatalf("MySQL: %v\n%s", err, q.GoldSQL)
			}
			got, tookEmb, err := query(ctx, emb, q.GoldSQL)
			if err != nil {
				t.Fatalf("embedded: %v\n%s", err, q.GoldSQL)
			}
			t.Logf("MySQL %5.0f ms, embedded %5.0f ms, %d rows", tookReal.Seconds()*1000, tookEmb.Seconds()*1000, len(want))
			if !sameRows(want, got) {
				t.Errorf("results differ\nMySQL:    %v\nembedded: %v\n%s", want, got, q.GoldSQL)
			}
		})
	}
}

// mustMySQLDatabase creates a uniquely named database on the server at dsn,
// loads the dump of ds into it and drops it when the test ends.
func mustMySQLDatabase(tb testing.TB, dsn string, ds *Dataset) *sql.DB {
	tb.Helper()
	ctx := context.Background()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("test server dsn: %v", err)
	}
	cfg.DBName = ""
	admin := openConfig(tb, cfg)
	name := fmt.Sprintf("clarify_demodata_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4"); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE "+name); err != nil {
			tb.Errorf("drop %s: %v", name, err)
		}
	})
	cfg = cfg.Clone()
	cfg.DBName = name
	db := openConfig(tb, cfg)
	db.SetMaxOpenConns(1) // SET NAMES must hold for the whole load
	var dump bytes.Buffer
	if err := WriteDump(&dump, ds); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	pieces, err := sqlparser.SplitStatementToPieces(dump.String())
	if err != nil {
		tb.Fatal(err)
	}
	for i, p := range pieces {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, p); err != nil {
			tb.Fatalf("dump statement %d: %v\n%.200s", i+1, err, p)
		}
	}
	tb.Logf("loaded %.1f MB dump into %s in %v", float64(dump.Len())/1e6, name, time.Since(start).Round(time.Millisecond))
	return db
}

func openConfig(tb testing.TB, cfg *mysql.Config) *sql.DB {
	tb.Helper()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(conn)
	tb.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkGenerateAndLoadDemo measures what `bot demo` does before it can
// answer: generate the default warehouse and load it into the embedded server.
func BenchmarkGenerateAndLoadDemo(b *testing.B) {
	ctx := context.Background()
	var heap uint64
	n := 0
	for b.Loop() {
		ds := Generate(DefaultSeed, DefaultOrders)
		srv, err := embedded.Start(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := srv.LoadTables(ctx, "demo", ds.EmbeddedTables()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapAlloc)
		srv.Close()
		b.StartTimer()
		n++
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(n), "load-s")
	b.ReportMetric(float64(heap)/(1<<20), "heapMB")
}

// BenchmarkGoldQueries reports each gold's latency on the embedded server
// with the full demo (run with -benchtime=1x for one pass).
func BenchmarkGoldQueries(b *testing.B) {
	db := mustDemo(b, DefaultOrders)
	for _, q := range mustQuestions(b) {
		b.Run(q.ID, func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), goldTimeout)
				_, _, err := query(ctx, db, q.GoldSQL)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/query")
		})
	}
}
