// Package testwh gives tests a fresh warehouse database on every available
// server: always the embedded one, a real MySQL/MariaDB when
// MYSQL_TEST_DSN is set (e.g. root@tcp(127.0.0.1:3306)/) and a TiDB server
// when TIDB_TEST_DSN is set (e.g. root@tcp(127.0.0.1:4000)/, started by
// .ci/tidb/start.sh). Each call creates its own database and drops it when
// the test ends.
package testwh

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Target is one kind of server tests run against.
type Target struct {
	Name string
	// Real is true for a real MySQL/MariaDB or TiDB server.
	Real bool
	// TiDB is true for the TiDB server.
	TiDB bool
	dsn  string
	env  string
}

// EnvDSN is the environment variable naming a real server for tests.
const EnvDSN = "MYSQL_TEST_DSN"

// EnvTiDB is the environment variable naming a TiDB server for tests.
const EnvTiDB = "TIDB_TEST_DSN"

// Targets lists the embedded server and, when MYSQL_TEST_DSN or
// TIDB_TEST_DSN is set, the real ones.
func Targets() []Target {
	ts := []Target{{Name: "embedded"}}
	return append(ts, RealTargets()...)
}

// RealTargets lists the real servers only: MySQL/MariaDB and TiDB, those
// whose variable is set.
func RealTargets() []Target {
	var ts []Target
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		ts = append(ts, Target{Name: "mysql", Real: true, dsn: dsn, env: EnvDSN})
	}
	if dsn := os.Getenv(EnvTiDB); dsn != "" {
		ts = append(ts, Target{Name: "tidb", Real: true, TiDB: true, dsn: dsn, env: EnvTiDB})
	}
	return ts
}

// DSN is the target's server (without a database), empty for the embedded one.
func (t Target) DSN() string { return t.dsn }

var quietOnce sync.Once

// Quiet silences go-mysql-server's process-wide logger for tests.
func Quiet() {
	quietOnce.Do(func() { embedded.QuietEngineLogs(io.Discard, slog.LevelError+4) })
}

// Database is a fresh database on a target.
type Database struct {
	Name   string
	Config *mysql.Config
	// Server is set for the embedded target.
	Server *embedded.Server
}

func randomName() string { return UniqueName("clarify_test_") }

// UniqueName is prefix and 12 random hex digits: a database or an
// account of one test that no other test (or run) uses.
func UniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// NewDatabase creates an empty database on the target, loads the dump (DDL
// and INSERTs separated by semicolons) and drops it at cleanup.
func NewDatabase(tb testing.TB, t Target, dump string) *Database {
	tb.Helper()
	Quiet()
	ctx := context.Background()
	name := randomName()
	if !t.Real {
		srv, err := embedded.Start(ctx, nil)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { srv.Close() })
		if err := srv.LoadDump(ctx, name, strings.NewReader(dump)); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { srv.DropDatabase(context.Background(), name) })
		return &Database{Name: name, Config: srv.Config(name), Server: srv}
	}
	admin := mustAdmin(tb, t.env, t.dsn)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
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
	cfg, err := mysql.ParseDSN(t.dsn)
	if err != nil {
		tb.Fatalf("%s: %v", t.env, err)
	}
	cfg.DBName = name
	if strings.TrimSpace(dump) != "" {
		lc := cfg.Clone()
		lc.MultiStatements = true
		loader, err := mysql.NewConnector(lc)
		if err != nil {
			tb.Fatal(err)
		}
		ldb := sql.OpenDB(loader)
		defer ldb.Close()
		if _, err := ldb.ExecContext(ctx, dump); err != nil {
			tb.Fatalf("load dump into %s: %v", name, err)
		}
	}
	return &Database{Name: name, Config: cfg}
}

func mustAdmin(tb testing.TB, env, dsn string) *sql.DB {
	tb.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("%s: %v", env, err)
	}
	cfg.DBName = ""
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		tb.Fatalf("%s=%s: server not reachable: %v", env, dsn, err)
	}
	return db
}

// Open opens the database through the production warehouse connector.
func (d *Database) Open(tb testing.TB, cfg warehouse.Config) *warehouse.DB {
	tb.Helper()
	cfg.MySQL = d.Config
	w, err := warehouse.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

// Exec runs setup statements directly (not through the guard), for tests
// that need to inspect or change data behind the bot's back.
func (d *Database) Exec(tb testing.TB, stmt string) {
	tb.Helper()
	if err := execAs(d.Config, stmt); err != nil {
		tb.Fatalf("exec %q: %v", stmt, err)
	}
}

// ExecScript runs a script of statements (as an administrator would paste
// it: ; between them, -- comments) directly, not through the guard.
func (d *Database) ExecScript(tb testing.TB, script string) {
	tb.Helper()
	cfg := d.Config.Clone()
	cfg.MultiStatements = true
	if err := execAs(cfg, script); err != nil {
		tb.Fatalf("exec script: %v\n%s", err, script)
	}
}

// execAs runs stmt on a connection of its own.
func execAs(cfg *mysql.Config, stmt string) error {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	_, err = db.ExecContext(context.Background(), stmt)
	return err
}

// As is the database's connection settings for another account.
func (d *Database) As(user, password string) *mysql.Config {
	cfg := d.Config.Clone()
	cfg.User, cfg.Passwd = user, password
	return cfg
}

// NewUser creates an account with a unique name (prefix and random
// digits) and no privileges, dropped when the test ends; only on a real
// server.
func (d *Database) NewUser(tb testing.TB, prefix, password string) string {
	tb.Helper()
	if d.Server != nil {
		tb.Fatal("accounts need a real server")
	}
	user := UniqueName(prefix)
	d.Exec(tb, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", user, password))
	tb.Cleanup(func() {
		if err := execAs(d.Config, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)); err != nil {
			tb.Logf("drop user %s: %v", user, err)
		}
	})
	return user
}

// Count returns SELECT COUNT(*) FROM table, read directly.
func (d *Database) Count(tb testing.TB, table string) int64 {
	tb.Helper()
	conn, err := mysql.NewConnector(d.Config)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(context.Background(), fmt.Sprintf("SELECT COUNT(*) FROM `%s`", table)).Scan(&n); err != nil {
		tb.Fatalf("count %s: %v", table, err)
	}
	return n
}

// Columns are a snapshot's columns of table from name, type pairs
// ("member_id", "int", "joined_on", "date"), in that order: schemas of
// tests written without a server.
func Columns(table string, specs ...string) []warehouse.Column {
	var out []warehouse.Column
	for i := 0; i+1 < len(specs); i += 2 {
		out = append(out, warehouse.Column{Table: table, Name: specs[i], DataType: specs[i+1], Position: i/2 + 1})
	}
	return out
}
