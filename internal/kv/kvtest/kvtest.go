// Package kvtest gives tests kv stores on both implementations: a bbolt
// file in a temp dir always, and a fresh database on a real MySQL/MariaDB
// server when MYSQL_TEST_DSN is set (e.g. root@tcp(127.0.0.1:3306)/) and on
// a TiDB server when TIDB_TEST_DSN is set (e.g. root@tcp(127.0.0.1:4000)/,
// started by .ci/tidb/start.sh). Each server store is its own database,
// dropped when the test ends.
package kvtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
)

// EnvDSN names a real server for tests.
const EnvDSN = "MYSQL_TEST_DSN"

// EnvTiDB names a TiDB server for tests.
const EnvTiDB = "TIDB_TEST_DSN"

// tidbRun is the subtest RunOnServer runs the suite on TiDB in.
const tidbRun = "tidb"

// Target is an implementation the store suites run against.
type Target struct {
	Name string
	// Open returns a fresh, empty store for a test; it is closed at cleanup.
	Open func(tb testing.TB) kv.DB
}

// Targets lists bbolt and, when MYSQL_TEST_DSN or TIDB_TEST_DSN is set,
// MySQL and TiDB (twice: in its default pessimistic transaction mode, and
// optimistic).
func Targets() []Target {
	ts := []Target{{Name: "bbolt", Open: MustBolt}}
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		ts = append(ts, Target{Name: "mysql", Open: func(tb testing.TB) kv.DB {
			return MustServerOn(tb, MustDatabaseOn(tb, EnvDSN, dsn)).Namespace("test")
		}})
	}
	if dsn := os.Getenv(EnvTiDB); dsn != "" {
		ts = append(ts, Target{Name: "tidb", Open: func(tb testing.TB) kv.DB {
			return MustServerOn(tb, MustDatabaseOn(tb, EnvTiDB, dsn)).Namespace("test")
		}}, Target{Name: "tidb-optimistic", Open: func(tb testing.TB) kv.DB {
			return MustServerOn(tb, Optimistic(tb, MustDatabaseOn(tb, EnvTiDB, dsn))).Namespace("test")
		}})
	}
	return ts
}

// Optimistic returns dsn with TiDB's optimistic transactions for its
// sessions (tidb_txn_mode): conflicts then surface at commit as write
// conflicts (9007) instead of waiting on locks, which the store retries.
func Optimistic(tb testing.TB, dsn string) string {
	tb.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	cfg = cfg.Clone()
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["tidb_txn_mode"] = "'optimistic'"
	return cfg.FormatDSN()
}

// MustBolt opens a bbolt store in a temp dir.
func MustBolt(tb testing.TB) kv.DB {
	tb.Helper()
	db, err := boltkv.Open(filepath.Join(tb.TempDir(), "kv.db"), boltkv.Options{Timeout: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// SkipWithoutServer skips the test unless MYSQL_TEST_DSN or TIDB_TEST_DSN
// is set.
func SkipWithoutServer(tb testing.TB) {
	tb.Helper()
	if os.Getenv(EnvDSN) == "" && os.Getenv(EnvTiDB) == "" {
		tb.Skip(EnvDSN + " and " + EnvTiDB + " not set")
	}
}

// serverEnv is the server a test's store goes to: TiDB under RunOnServer's
// tidb subtest, else MYSQL_TEST_DSN when set, else TIDB_TEST_DSN (so a run
// with only TIDB_TEST_DSN puts every server test on TiDB).
func serverEnv(tb testing.TB) (env, dsn string) {
	if strings.HasPrefix(tb.Name(), "TestOnMySQL/"+tidbRun+"/") || os.Getenv(EnvDSN) == "" {
		return EnvTiDB, os.Getenv(EnvTiDB)
	}
	return EnvDSN, os.Getenv(EnvDSN)
}

// OnTiDB reports whether tb's server store is on TiDB.
func OnTiDB(tb testing.TB) bool {
	env, dsn := serverEnv(tb)
	return env == EnvTiDB && dsn != ""
}

// Test is one test of a store's suite, by name.
type Test struct {
	Name string
	Run  func(*testing.T)
}

// RunOnServer runs a store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN), and on TiDB (TIDB_TEST_DSN) in a subtest named tidb;
// skipped without either. Call it from a test named TestOnMySQL: OnServer
// tells the suite's helpers, by that name, to open their store on the
// server.
func RunOnServer(t *testing.T, tests []Test) {
	SkipWithoutServer(t)
	if os.Getenv(EnvDSN) != "" {
		for _, tc := range tests {
			t.Run(tc.Name, tc.Run)
		}
	}
	if os.Getenv(EnvTiDB) != "" {
		t.Run(tidbRun, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.Name, tc.Run)
			}
		})
	}
}

// OnServer reports whether tb runs under TestOnMySQL (see RunOnServer).
func OnServer(tb testing.TB) bool { return strings.HasPrefix(tb.Name(), "TestOnMySQL/") }

// MustServer opens a store on a fresh database (skipping the test without
// a server).
func MustServer(tb testing.TB) *mysqlkv.Server {
	tb.Helper()
	return MustServerOn(tb, MustDatabase(tb))
}

// MustServerOn opens another connection pool on a database, as a second
// process would.
func MustServerOn(tb testing.TB, dsn string) *mysqlkv.Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// MustDatabase creates an empty database and returns its DSN; it is
// dropped when the test ends.
func MustDatabase(tb testing.TB) string {
	tb.Helper()
	SkipWithoutServer(tb)
	env, dsn := serverEnv(tb)
	return MustDatabaseOn(tb, env, dsn)
}

// MustDatabaseOn is MustDatabase on the server of dsn (named by env in
// errors).
func MustDatabaseOn(tb testing.TB, env, dsn string) string {
	tb.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("%s: %v", env, err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "clarify_store_test_" + hex.EncodeToString(b)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	admin := sql.OpenDB(conn)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		admin.Close()
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(cctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			tb.Logf("drop test database %s: %v", name, err)
		}
		admin.Close()
	})
	cfg = cfg.Clone()
	cfg.DBName = name
	return cfg.FormatDSN()
}

// Exec runs a statement on the database of dsn.
func Exec(tb testing.TB, dsn, query string, args ...any) {
	tb.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}
