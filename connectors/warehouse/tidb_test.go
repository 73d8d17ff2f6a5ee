package warehouse_test

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

func TestEngineReportString(t *testing.T) {
	cases := []struct {
		r    warehouse.EngineReport
		want string
	}{
		{warehouse.EngineReport{Version: "TiDB v8.5.6", Checked: []string{"a", "b"}}, "TiDB v8.5.6 (checked: a, b)"},
		{warehouse.EngineReport{Version: "10.11", Checked: []string{"a"}, Problems: []string{"x", "y"}}, "10.11 (checked: a; problems: x; y)"},
		{warehouse.EngineReport{Version: "3.3", Problems: []string{"x"}}, "3.3 (problems: x)"},
		{warehouse.EngineReport{Version: "8.0.36"}, "8.0.36"},
	}
	for _, tc := range cases {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestMemoryParams(t *testing.T) {
	cases := []struct {
		flavor warehouse.Flavor
		max    int64
		want   string
	}{
		{warehouse.FlavorTiDB, 0, "1073741824"},
		{warehouse.FlavorTiDB, 64 << 20, "67108864"},
		{warehouse.FlavorMariaDB, 64 << 20, ""},
		{warehouse.FlavorMySQL, 0, ""},
	}
	for _, tc := range cases {
		mc := mysql.NewConfig()
		warehouse.MemoryParams(tc.flavor, mc, tc.max)
		if got := mc.Params["tidb_mem_quota_query"]; got != tc.want {
			t.Errorf("%s, %d: tidb_mem_quota_query %q, want %q", tc.flavor, tc.max, got, tc.want)
		}
	}
}

func openRaw(t *testing.T, cfg *mysql.Config) *sql.DB {
	t.Helper()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestCheckEngine: on every real server, the report names the engine and
// every setting the bot relies on is accepted.
func TestCheckEngine(t *testing.T) {
	targets := testwh.RealTargets()
	if len(targets) == 0 {
		t.Skip("needs a real server (" + testwh.EnvDSN + " or " + testwh.EnvTiDB + ")")
	}
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, tg, "")
			r, err := warehouse.CheckEngine(context.Background(), openRaw(t, d.Config))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"time limit (max_statement_time)", "read-only transactions"}
			if tg.TiDB {
				want = []string{"time limit (max_execution_time)", "memory cap (tidb_mem_quota_query)"}
				if r.Flavor != warehouse.FlavorTiDB || !strings.HasPrefix(r.Version, "TiDB v") {
					t.Errorf("flavor %s, version %q: want tidb, TiDB v…", r.Flavor, r.Version)
				}
			}
			if strings.Join(r.Checked, "|") != strings.Join(want, "|") || len(r.Problems) > 0 {
				t.Errorf("report %s: want checked %q and no problems", r, want)
			}
		})
	}
}

// TestReadOnlyTransactionRefusesWrites: the transaction every statement
// runs in is one the server itself keeps from writing, on MySQL and
// MariaDB (the guard, which lets only single SELECTs through, is the first
// line; this is the second). TiDB refuses to start one.
func TestReadOnlyTransactionRefusesWrites(t *testing.T) {
	targets := testwh.RealTargets()
	if len(targets) == 0 {
		t.Skip("needs a real server (" + testwh.EnvDSN + " or " + testwh.EnvTiDB + ")")
	}
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, tg, "CREATE TABLE loans (id INT PRIMARY KEY, title VARCHAR(40));")
			ctx := context.Background()
			conn, err := openRaw(t, d.Config).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if tg.TiDB {
				// TiDB has none: statements run without, and this
				// fails when that changes.
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number != 1235 {
					t.Fatalf("START TRANSACTION READ ONLY on TiDB: %v, want error 1235; if TiDB now refuses writes in it, use it (Flavor.readOnlyTransactions)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, werr := tx.ExecContext(ctx, "INSERT INTO loans VALUES (1, 'atlas')")
			cerr := tx.Commit()
			if werr == nil && cerr == nil {
				t.Error("a write in a read-only transaction was accepted")
			}
			if n := d.Count(t, "loans"); n != 0 {
				t.Errorf("%d rows written in a read-only transaction", n)
			}
		})
	}
}

// TestTiDBSessionLimits: on TiDB every pooled connection carries the
// configured memory cap, and a statement over it is stopped with an error
// that says so.
func TestTiDBSessionLimits(t *testing.T) {
	var tidb *testwh.Target
	for _, tg := range testwh.RealTargets() {
		if tg.TiDB {
			tidb = &tg
		}
	}
	if tidb == nil {
		t.Skip("needs TiDB (" + testwh.EnvTiDB + ")")
	}
	d := testwh.NewDatabase(t, *tidb, "CREATE TABLE readings (id INT PRIMARY KEY, station VARCHAR(20), note VARCHAR(200));")
	d.ExecScript(t, tidbReadings)
	const quota = 4 << 20
	w := d.Open(t, warehouse.Config{MaxMemory: quota})
	if w.Flavor() != warehouse.FlavorTiDB {
		t.Fatalf("flavor %s, want tidb", w.Flavor())
	}
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	if err := conn.QueryRowContext(ctx, "SELECT @@SESSION.tidb_mem_quota_query").Scan(&got); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if got != quota {
		t.Fatalf("tidb_mem_quota_query %d, want %d", got, quota)
	}
	// A cross join of 64 × 64 × 64 rows of 200-byte notes, sorted by a
	// computed key: far more than 4 MB in memory at once.
	_, err = w.Query(ctx, `SELECT a.note, b.note, c.note FROM readings a, readings b, readings c
ORDER BY CONCAT(a.note, b.note, c.note) DESC`, warehouse.Limits{})
	var we *warehouse.Error
	if !errors.As(err, &we) || we.Kind != warehouse.KindTooLarge {
		t.Fatalf("err %v, want the memory cap's KindTooLarge", err)
	}
}

// tidbReadings is 64 rows with 200-byte notes.
var tidbReadings = func() string {
	var b strings.Builder
	b.WriteString("INSERT INTO readings VALUES ")
	for i := range 64 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("(" + strconv.Itoa(i+1) + ", 'st" + strconv.Itoa(i%7) + "', REPEAT('" + string(rune('a'+i%26)) + "', 200))")
	}
	return b.String() + ";"
}()

// TestStableOrder: profile samples are ordered on TiDB only, by the
// primary key (none: no order to give).
func TestStableOrder(t *testing.T) {
	cases := []struct {
		flavor warehouse.Flavor
		cols   []string
		want   string
	}{
		{warehouse.FlavorTiDB, []string{"branch", "loan id"}, " ORDER BY `branch`, `loan id`"},
		{warehouse.FlavorTiDB, nil, ""},
		{warehouse.FlavorMariaDB, []string{"id"}, ""},
		{warehouse.FlavorEmbedded, []string{"id"}, ""},
	}
	for _, tc := range cases {
		if got := warehouse.StableOrder(tc.flavor, tc.cols...); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.flavor, tc.cols, got, tc.want)
		}
	}
}
