package dialog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/demotest"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// countingExec passes statements on and records them.
type countingExec struct {
	ex   Executor
	mu   sync.Mutex
	seen []string
}

func (c *countingExec) Query(ctx context.Context, s string, lim warehouse.Limits) (*warehouse.Result, error) {
	c.mu.Lock()
	c.seen = append(c.seen, s)
	c.mu.Unlock()
	return c.ex.Query(ctx, s, lim)
}

func (c *countingExec) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func TestPlanScans(t *testing.T) {
	t.Parallel()
	const from = " FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0"
	tests := []struct {
		name  string
		stmts []string
		// scans lists, per shared scan, the indexes of its statements.
		scans [][]int
	}{
		{"measures over the same joins share", []string{
			"SELECT stores.name" + from + " GROUP BY stores.id, stores.name ORDER BY SUM(sales.amount) DESC LIMIT 3",
			"SELECT stores.name, SUM(sales.qty) AS q" + from + " GROUP BY stores.id, stores.name ORDER BY q",
			"SELECT DISTINCT stores.name, COUNT(*)\n" + from + "\nGROUP BY stores.id, stores.name",
		}, [][]int{{0, 1, 2}}},
		{"values neither grouped nor aggregated run alone", []string{
			"SELECT stores.region, SUM(sales.amount)" + from + " GROUP BY stores.id, stores.name",
			"SELECT stores.name, COUNT(*)" + from + " GROUP BY stores.id, stores.name ORDER BY stores.region",
			"SELECT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 ORDER BY COUNT(*) DESC LIMIT 1",
			"SELECT UPPER(stores.name), MAX(sales.qty) + 1" + from + " GROUP BY stores.id, stores.name",
			"SELECT COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0",
			"SELECT stores.name, SUM(sales.qty)" + from + " GROUP BY stores.id, stores.name",
		}, [][]int{{3, 5}}},
		{"layout and keyword case do not matter", []string{
			"SELECT SUM(amount) FROM sales WHERE qty > 1",
			"select   count(*)\nfrom sales\nwhere qty>1 -- how many\n",
		}, [][]int{{0, 1}}},
		{"another filter is another scan", []string{
			"SELECT SUM(amount) FROM sales WHERE qty > 1",
			"SELECT SUM(amount) FROM sales WHERE qty > 2",
			"SELECT COUNT(*) FROM sales WHERE qty > 2",
		}, [][]int{{1, 2}}},
		{"another grouping is another scan", []string{
			"SELECT stores.name, SUM(sales.amount)" + from + " GROUP BY stores.id, stores.name",
			"SELECT stores.name, SUM(sales.qty)" + from + " GROUP BY stores.name",
		}, nil},
		{"aggregates and rows of the same filter stay apart; DISTINCT rows run alone", []string{
			"SELECT SUM(amount) FROM sales WHERE qty > 1",
			"SELECT amount FROM sales WHERE qty > 1",
			"SELECT MAX(qty) FROM sales WHERE qty > 1 ORDER BY SUM(qty)",
			"SELECT DISTINCT amount FROM sales WHERE qty > 1",
			"SELECT id FROM sales WHERE qty > 1",
			"SELECT DISTINCT qty FROM sales WHERE qty > 1",
		}, [][]int{{0, 2}, {1, 4}}},
		{"subqueries and window functions in the select list run alone", []string{
			"SELECT stores.name, (SELECT COUNT(*) FROM sales s2 WHERE s2.store_id = stores.id) FROM stores WHERE stores.id > 1",
			"SELECT stores.name, RANK() OVER (ORDER BY stores.id) FROM stores WHERE stores.id > 1",
			"SELECT stores.name FROM stores WHERE stores.id > 1 ORDER BY (SELECT MAX(amount) FROM sales)",
			"SELECT stores.name, RAND() FROM stores WHERE stores.id > 1",
			"SELECT * FROM stores WHERE stores.id > 1",
			"SELECT stores.id FROM stores WHERE stores.id > 1",
		}, nil},
		{"GROUP BY or HAVING naming an alias or a position run alone", []string{
			"SELECT YEAR(sold_on) AS y, SUM(amount) FROM sales GROUP BY y",
			"SELECT YEAR(sold_on) AS y, COUNT(*) FROM sales GROUP BY y",
			"SELECT store_id, SUM(amount) AS s FROM sales GROUP BY store_id HAVING s > 10",
			"SELECT store_id, COUNT(*) AS s FROM sales GROUP BY store_id HAVING s > 10",
			"SELECT store_id, SUM(amount) FROM sales GROUP BY 1",
			"SELECT store_id, COUNT(*) FROM sales GROUP BY 1",
			"SELECT store_id, SUM(amount) FROM sales GROUP BY store_id HAVING store_id > 1",
			"SELECT store_id, COUNT(*) FROM sales GROUP BY store_id HAVING store_id > 1",
		}, nil},
		{"HAVING an aggregate shares", []string{
			"SELECT store_id, SUM(amount) FROM sales GROUP BY store_id HAVING COUNT(*) > 1",
			"SELECT store_id, MAX(amount) AS top FROM sales GROUP BY store_id HAVING COUNT(*) > 1",
		}, [][]int{{0, 1}}},
		{"a name another candidate gives a field runs alone", []string{
			"SELECT SUM(amount) AS qty FROM sales WHERE store_id > 1",
			"SELECT MAX(qty) FROM sales WHERE store_id > 1",
			"SELECT MIN(amount) FROM sales WHERE store_id > 1",
		}, [][]int{{0, 2}}},
		{"set operations, CTEs and ORDER BY an alias inside an expression run alone", []string{
			"SELECT qty FROM sales WHERE qty > 1 UNION SELECT qty FROM sales WHERE qty > 1",
			"WITH s AS (SELECT qty FROM sales) SELECT qty FROM s WHERE qty > 1",
			"SELECT qty AS n FROM sales WHERE qty > 1 ORDER BY n + 1",
			"SELECT amount FROM sales WHERE qty > 1 ORDER BY 1",
			"SELECT amount FROM sales WHERE qty > 1 ORDER BY 'a'",
		}, nil},
		{"ORDER BY a name that two fields have runs alone", []string{
			"SELECT stores.name, sales.qty AS name" + from,
			"SELECT stores.name, sales.qty AS name" + from + " ORDER BY name",
			"SELECT sales.amount" + from,
		}, [][]int{{0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scans, alone := planScans(tt.stmts)
			index := map[string]int{}
			for i, s := range tt.stmts {
				index[s] = i
			}
			var got [][]int
			for _, sc := range scans {
				var members []int
				for _, m := range sc.members {
					members = append(members, index[m.sql])
				}
				got = append(got, members)
			}
			if !reflect.DeepEqual(got, tt.scans) {
				for _, sc := range scans {
					t.Logf("shared scan:\n%s", sc.sql)
				}
				t.Fatalf("scans = %v, want %v", got, tt.scans)
			}
			n := len(alone)
			for _, sc := range scans {
				n += len(sc.members)
			}
			if n != len(tt.stmts) {
				t.Errorf("%d statements planned, want %d", n, len(tt.stmts))
			}
		})
	}
}

// salesDump has NULL amounts and dates, tied totals and quantities,
// duplicated rows, regions differing in case only and a name that is not
// ASCII.
const salesDump = `
CREATE TABLE stores (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, region VARCHAR(10));
CREATE TABLE sales (id INT PRIMARY KEY, store_id INT NOT NULL, amount DECIMAL(10,2), qty INT NOT NULL, sold_on DATE, rate DOUBLE);
INSERT INTO stores VALUES (1,'Alder','north'),(2,'birch','North'),(3,'Cedar',NULL),(4,'Dogwood','south'),(5,'elm','south'),(6,'Fir',NULL),(7,'Zoë','north');
INSERT INTO sales VALUES
 (1,1,10.50,2,'2025-01-03',0.5),(2,1,20.00,1,'2025-02-01',0.25),(3,2,30.50,3,NULL,0.125),
 (4,2,NULL,2,'2024-12-30',1.5),(5,3,NULL,1,'2025-03-01',NULL),(6,3,NULL,4,NULL,2.0),
 (7,4,15.25,2,'2025-01-03',0.5),(8,4,15.25,2,'2025-01-03',0.5),(9,5,30.40,3,'2025-05-05',0.75),
 (10,5,0.00,0,'2025-06-01',0.0),(11,6,-5.00,1,'2023-07-07',-1.0),(12,1,0.10,2,'2025-01-03',0.1),
 (13,2,0.20,2,'2025-01-04',0.2),(14,7,1.00,1,'2025-02-02',0.3);
`

// sharedCase is a round of candidates; ties lists the statements whose
// ORDER BY ties on rows the LIMIT may cut, with the output columns holding
// their ORDER BY keys.
type sharedCase struct {
	name  string
	stmts []string
	ties  map[int][]int
	// scans is how many shared scans the round plans, ran how many
	// statements it runs.
	scans, ran int
}

var sharedCases = []sharedCase{
	{name: "per-store aggregates ordered both ways", scans: 1, ran: 2, stmts: []string{
		"SELECT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY SUM(sales.amount) DESC LIMIT 3",
		"SELECT stores.name, SUM(sales.amount) AS total FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY total ASC LIMIT 2",
		"SELECT stores.name, SUM(sales.amount) AS total FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY total DESC",
		"SELECT stores.id, MAX(sales.sold_on) AS last_sale FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY last_sale DESC, stores.id",
		"SELECT stores.id, MIN(sales.sold_on) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY 2, 1 LIMIT 4",
		"SELECT stores.name, AVG(sales.rate), COUNT(*) AS n FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name",
		// Ordered by text: the server's collation decides, so it runs alone.
		"SELECT stores.name, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY stores.name LIMIT 3",
	}},
	{name: "ties in a top-n", scans: 1, ran: 3, ties: map[int][]int{0: {1}, 1: {1}}, stmts: []string{
		// Tied rows that look different: the server's order, so they run alone.
		"SELECT stores.id, SUM(sales.qty) AS q FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY q DESC LIMIT 2",
		"SELECT stores.id, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY COUNT(*) LIMIT 3",
		"SELECT stores.id, SUM(sales.amount) FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY SUM(sales.amount) DESC LIMIT 1 OFFSET 1",
		"SELECT SUM(sales.qty) AS q FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY q DESC LIMIT 3",
	}},
	{name: "whole-table aggregates", scans: 1, ran: 1, stmts: []string{
		"SELECT SUM(amount) FROM sales WHERE sold_on >= '2025-01-01'",
		"SELECT COUNT(*), AVG(amount) AS avg_amount FROM sales WHERE sold_on >= '2025-01-01'",
		"SELECT MAX(rate), MIN(sold_on) FROM sales WHERE sold_on >= '2025-01-01'",
		"SELECT SUM(amount) FROM sales WHERE sold_on >= '2025-01-01' ORDER BY COUNT(*) DESC LIMIT 5",
	}},
	{name: "rows, DISTINCT, NULLs first and OFFSET", scans: 1, ran: 4, stmts: []string{
		"SELECT sales.id, sales.amount FROM sales WHERE sales.qty > 1 ORDER BY sales.amount DESC, sales.id LIMIT 4",
		"SELECT sales.id FROM sales WHERE sales.qty > 1 ORDER BY sales.sold_on, sales.id LIMIT 3 OFFSET 1",
		"SELECT sales.rate * 2 AS r2, sales.id FROM sales WHERE sales.qty > 1 ORDER BY r2 DESC, sales.id",
		// DISTINCT rows run alone.
		"SELECT DISTINCT sales.qty FROM sales WHERE sales.qty > 1 ORDER BY sales.qty DESC",
		"SELECT DISTINCT sales.store_id, sales.qty FROM sales WHERE sales.qty > 1",
		"SELECT DISTINCT sales.amount FROM sales WHERE sales.qty > 1 ORDER BY 1 LIMIT 3",
	}},
	{name: "DISTINCT over groups", scans: 1, ran: 2, stmts: []string{
		"SELECT DISTINCT stores.region, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region",
		"SELECT DISTINCT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region",
		"SELECT stores.name, SUM(sales.amount) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region",
		"SELECT DISTINCT COUNT(*) AS n FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region ORDER BY n DESC",
		// 'north' and 'North' may be one value to the server: it runs alone.
		"SELECT DISTINCT stores.region FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region",
	}},
	{name: "DISTINCT text that is not ASCII", scans: 1, ran: 2, stmts: []string{
		"SELECT stores.name, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.amount IS NOT NULL GROUP BY stores.id, stores.name",
		// 'Zoë' could equal another name under a collation: it runs alone.
		"SELECT DISTINCT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.amount IS NOT NULL GROUP BY stores.id, stores.name",
	}},
	{name: "nothing in common", scans: 0, ran: 6, stmts: []string{
		"SELECT SUM(amount) FROM sales WHERE qty > 2",
		"SELECT SUM(amount) FROM sales WHERE qty > 1",
		"SELECT store_id, SUM(amount) AS s FROM sales GROUP BY store_id HAVING s > 10",
		"SELECT store_id, COUNT(*) AS s FROM sales GROUP BY store_id HAVING s > 10",
		"SELECT stores.name, (SELECT COUNT(*) FROM sales WHERE sales.store_id = stores.id) AS n FROM stores WHERE stores.id > 2",
		"SELECT stores.name FROM stores WHERE stores.id > 2",
	}},
}

// TestSharedScansMatchOwnResults runs each round with shared scans and
// each statement on its own, and compares what the dialog sees.
func TestSharedScansMatchOwnResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			db := testwh.NewDatabase(t, target, salesDump)
			wh := db.Open(t, warehouse.Config{})
			for _, tc := range sharedCases {
				t.Run(tc.name, func(t *testing.T) {
					scans, _ := planScans(tc.stmts)
					if len(scans) != tc.scans {
						t.Fatalf("%d shared scans planned, want %d", len(scans), tc.scans)
					}
					lim := warehouse.Limits{MaxRows: 1000}
					ex := &countingExec{ex: wh}
					runs := executeAll(ctx, ex, tc.stmts, testOptions(lim, 10_000))
					for i, s := range tc.stmts {
						own, err := wh.Query(ctx, s, lim)
						if err != nil {
							t.Fatalf("%s: %v", s, err)
						}
						r := runs[s]
						if r.err != nil {
							t.Fatalf("%s: shared: %v", s, r.err)
						}
						compareResults(t, wh, s, r.res, own, tc.ties[i])
						if r.fp != fingerprint(own, orderedSQL(s)) && tc.ties[i] == nil {
							t.Errorf("%s: fingerprint differs", s)
						}
					}
					if ex.count() != tc.ran {
						t.Errorf("%d statements ran, want %d:\n%s", ex.count(), tc.ran, strings.Join(ex.seen, "\n--\n"))
					}
				})
			}
		})
	}
}

func testOptions(lim warehouse.Limits, shareRows int) execOptions {
	return execOptions{parallel: 4, lim: lim, shareRows: shareRows, ordered: orderedSQL}
}

func orderedSQL(s string) bool {
	sh, err := sqlshape.Parse(s, nil)
	return err == nil && len(sh.OrderBy) > 0 && sh.Limit != 1
}

// compareResults checks that got is what the server returned for s as
// want: same columns, rows and truncation. Where ORDER BY ties on rows a
// LIMIT cuts (keys names the output columns of the ORDER BY), the server
// may return any of the tied rows: then the keys must agree row by row and
// every row must be one the statement returns without its LIMIT.
func compareResults(t *testing.T, wh *warehouse.DB, s string, got, want *warehouse.Result, keys []int) {
	t.Helper()
	if !reflect.DeepEqual(got.Columns, want.Columns) {
		t.Errorf("%s: columns %v, want %v", s, got.Columns, want.Columns)
	}
	if got.Truncated != want.Truncated || len(got.Rows) != len(want.Rows) {
		t.Fatalf("%s: %d rows (truncated %t), want %d (truncated %t)", s, len(got.Rows), got.Truncated, len(want.Rows), want.Truncated)
	}
	if keys == nil {
		g, w := rowTexts(got.Rows), rowTexts(want.Rows)
		if !orderedSQL(s) {
			sort.Strings(g)
			sort.Strings(w)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %v\nwant %v", s, g, w)
		}
		return
	}
	for i := range got.Rows {
		for _, k := range keys {
			if fmt.Sprint(got.Rows[i][k]) != fmt.Sprint(want.Rows[i][k]) {
				t.Errorf("%s: row %d key %v, want %v", s, i, got.Rows[i][k], want.Rows[i][k])
			}
		}
	}
	unlimited := s[:strings.LastIndex(s, " LIMIT ")]
	all, err := wh.Query(context.Background(), unlimited, warehouse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	every := map[string]bool{}
	for _, r := range rowTexts(all.Rows) {
		every[r] = true
	}
	for _, r := range rowTexts(got.Rows) {
		if !every[r] {
			t.Errorf("%s: row %s is not in its result", s, r)
		}
	}
}

func rowTexts(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%#v", r)
	}
	return out
}

var errScanRefused = errors.New("refused")

// scanFailing fails every shared scan.
type scanFailing struct{ ex Executor }

func (f scanFailing) Query(ctx context.Context, s string, lim warehouse.Limits) (*warehouse.Result, error) {
	if strings.Contains(s, ",\n       ") {
		return nil, errScanRefused
	}
	return f.ex.Query(ctx, s, lim)
}

// TestSharedScanFallsBack: a shared scan that fails or reaches its row cap
// leaves each candidate to run on its own, with the same results.
func TestSharedScanFallsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testwh.NewDatabase(t, testwh.Targets()[0], salesDump)
	wh := db.Open(t, warehouse.Config{})
	stmts := []string{
		"SELECT sales.id, sales.amount FROM sales WHERE sales.qty > 1 ORDER BY sales.amount DESC, sales.id LIMIT 4",
		"SELECT sales.id, sales.qty FROM sales WHERE sales.qty > 1 ORDER BY sales.id",
		"SELECT sales.id FROM sales WHERE sales.qty > 1",
	}
	lim := warehouse.Limits{MaxRows: 3}
	tests := []struct {
		name      string
		ex        Executor
		shareRows int
		ran       int
	}{
		{"the shared scan fails", scanFailing{wh}, 100, 4},
		{"the shared scan reaches its row cap", wh, 5, 4},
		// The unordered statement cut at the cap keeps rows of the server's
		// choosing: it runs alone.
		{"the shared scan holds every row", wh, 100, 2},
		{"shared scans are off", wh, -1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &countingExec{ex: tt.ex}
			runs := executeAll(ctx, ex, stmts, testOptions(lim, tt.shareRows))
			if ex.count() != tt.ran {
				t.Errorf("%d statements ran, want %d", ex.count(), tt.ran)
			}
			for _, s := range stmts {
				own, err := wh.Query(ctx, s, lim)
				if err != nil {
					t.Fatal(err)
				}
				if runs[s].err != nil {
					t.Fatalf("%s: %v", s, runs[s].err)
				}
				if s == stmts[2] {
					// Unordered and cut at the cap: any three rows will do.
					if len(runs[s].res.Rows) != 3 || !runs[s].res.Truncated {
						t.Errorf("%s: %d rows (truncated %t), want 3 (truncated)", s, len(runs[s].res.Rows), runs[s].res.Truncated)
					}
					continue
				}
				compareResults(t, wh, s, runs[s].res, own, nil)
			}
		})
	}
}

// readStatements reads a file of statements, each ending with ";" at the
// end of a line; lines starting with "--" are comments.
func readStatements(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var stmts []string
	var cur []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "--") || strings.TrimSpace(line) == "" && len(cur) == 0 {
			continue
		}
		if strings.HasSuffix(line, ";") {
			cur = append(cur, strings.TrimSuffix(line, ";"))
			stmts = append(stmts, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	return stmts
}

// TestSharedScansOnDemo: the readings of "top 5 customers by revenue in
// 2025" on a small demo warehouse, shared and on their own.
func TestSharedScansOnDemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	demo := demotest.Start(t, 4000)
	stmts := readStatements(t, "testdata/top5-customers-2025.sql")
	if len(stmts) != 27 {
		t.Fatalf("%d statements, want 27", len(stmts))
	}
	lim := warehouse.Limits{MaxRows: 1000}
	ex := &countingExec{ex: demo.DB}
	runs := executeAll(ctx, ex, stmts, testOptions(lim, 10_000))
	if ex.count() != 12 {
		t.Errorf("%d statements ran, want 12", ex.count())
	}
	for _, s := range stmts {
		own, err := demo.DB.Query(ctx, s, lim)
		if err != nil {
			t.Fatal(err)
		}
		if runs[s].err != nil {
			t.Fatalf("%s: %v", s, runs[s].err)
		}
		compareResults(t, demo.DB, s, runs[s].res, own, nil)
		if runs[s].fp != fingerprint(own, orderedSQL(s)) {
			t.Errorf("%s: fingerprint differs", s)
		}
	}
}

// TestDerive cuts candidates' results from a made-up shared result: what
// the server would return, or nothing where that is not certain.
func TestDerive(t *testing.T) {
	t.Parallel()
	shared := &warehouse.Result{
		Columns: []warehouse.ResultColumn{
			{Name: "name", Type: "VARCHAR"}, {Name: "total", Type: "DECIMAL"}, {Name: "n", Type: "BIGINT"},
			{Name: "day", Type: "DATE"}, {Name: "at", Type: "TIMESTAMP"}, {Name: "doc", Type: "JSON"},
		},
		Rows: [][]any{
			{"Ann", "10.50", int64(2), "2025-01-02", "2025-01-02 10:00:00", `{"a":1}`},
			{"bob", nil, int64(1), nil, "2025-01-02 11:00:00", `{"a":1}`},
			{"Cy", "9.5", int64(2), "2024-12-31", "2025-01-01 09:00:00", `{"b":2}`},
			{"ann", "10.50", int64(3), "2025-01-02", "2025-01-02 10:00:00", `{"a": 1}`},
			{"Dee", "-1", int64(1), "2025-01-02", "2025-01-02 12:00:00", `{"c":3}`},
		},
	}
	tests := []struct {
		name    string
		m       scanMember
		maxRows int
		want    string // rows, or "" when not derivable
	}{
		{"own columns in own order", scanMember{cols: []int{2, 0}, count: -1}, 10,
			"[[2 Ann] [1 bob] [2 Cy] [3 ann] [1 Dee]]"},
		{"DESC puts NULL last", scanMember{cols: []int{1}, order: []orderKey{{col: 1, desc: true}}, count: -1}, 10,
			"[[10.50] [10.50] [9.5] [-1] [<nil>]]"},
		{"ASC puts NULL first", scanMember{cols: []int{1}, order: []orderKey{{col: 1}}, count: 3}, 10,
			"[[<nil>] [-1] [9.5]]"},
		{"a LIMIT through a tie of rows that look alike", scanMember{cols: []int{1}, order: []orderKey{{col: 1, desc: true}}, count: 1}, 10,
			"[[10.50]]"},
		{"exact decimals, then a second key", scanMember{cols: []int{1, 2}, order: []orderKey{{col: 1, desc: true}, {col: 2}}, count: 2}, 10,
			"[[10.50 2] [10.50 3]]"},
		{"dates with an offset", scanMember{cols: []int{3, 2}, order: []orderKey{{col: 3, desc: true}, {col: 2}}, offset: 1, count: 2}, 10,
			"[[2025-01-02 2] [2025-01-02 3]]"},
		{"an offset past the end", scanMember{cols: []int{2}, order: []orderKey{{col: 2}}, offset: 9, count: 1}, 10, "[]"},
		{"ordered rows past the row cap", scanMember{cols: []int{1}, order: []orderKey{{col: 1}}, count: -1}, 2,
			"[[<nil>] [-1] [9.5] [10.50] [10.50]]"},
		{"DISTINCT numbers", scanMember{cols: []int{2}, distinct: true, order: []orderKey{{col: 2}}, count: -1}, 10,
			"[[1] [2] [3]]"},
		{"DISTINCT text unlike under any collation", scanMember{cols: []int{0, 2}, distinct: true, count: -1}, 10,
			"[[Ann 2] [bob 1] [Cy 2] [ann 3] [Dee 1]]"},
		// The server orders tied rows, and picks which of them a LIMIT keeps.
		{"a tie of rows that look different", scanMember{cols: []int{0}, order: []orderKey{{col: 1, desc: true}}, count: -1}, 10, ""},
		{"a LIMIT through a tie of rows that look different", scanMember{cols: []int{2}, order: []orderKey{{col: 3, desc: true}}, count: 2}, 10, ""},
		// Without ORDER BY, which rows are kept is the server's choice.
		{"unordered rows cut by a LIMIT", scanMember{cols: []int{2}, count: 2}, 10, ""},
		{"unordered rows cut by an OFFSET", scanMember{cols: []int{2}, offset: 1, count: -1}, 10, ""},
		{"unordered rows cut by the row cap", scanMember{cols: []int{2}, count: -1}, 3, ""},
		{"DISTINCT text alike under a collation", scanMember{cols: []int{0}, distinct: true, count: -1}, 10, ""},
		{"DISTINCT JSON", scanMember{cols: []int{5}, distinct: true, count: -1}, 10, ""},
		{"ORDER BY text", scanMember{cols: []int{2}, order: []orderKey{{col: 0}}, count: -1}, 10, ""},
		{"ORDER BY a timestamp", scanMember{cols: []int{2}, order: []orderKey{{col: 4}}, count: -1}, 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok := tt.m.derive(shared, tt.maxRows)
			if tt.want == "" {
				if ok {
					t.Fatalf("derived %v, want no result", res.Rows)
				}
				return
			}
			if !ok {
				t.Fatal("not derived")
			}
			if got := fmt.Sprint(res.Rows); got != tt.want {
				t.Fatalf("rows %s, want %s", got, tt.want)
			}
			for j, c := range tt.m.cols {
				if res.Columns[j] != shared.Columns[c] {
					t.Errorf("column %d is %v, want %v", j, res.Columns[j], shared.Columns[c])
				}
			}
		})
	}
}
