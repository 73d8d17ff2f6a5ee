package warehouse

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TiDB differs from MySQL and MariaDB where the bot's safety settings are
// concerned:
//   - It has no read-only transactions: START TRANSACTION READ ONLY is
//     refused (error 1235, "only noop implementation") unless
//     tidb_enable_noop_functions is on, and then it is accepted and ignored.
//     Statements run outside a transaction there; writes are kept out by
//     the guard (one SELECT, nothing else) and by a SELECT-only account,
//     which bot doctor checks.
//   - max_execution_time limits SELECTs as on MySQL (error 3024).
//   - tidb_mem_quota_query caps one statement's memory (error 8175); it is
//     pinned on every connection.

// DefaultMaxMemory is the server memory one statement may use on a server
// that can cap it (TiDB's tidb_mem_quota_query), unless Config.MaxMemory
// says otherwise: TiDB's own default, pinned so that a server-wide change
// does not lift it for the bot.
const DefaultMaxMemory = 1 << 30

// stableOrder is an ORDER BY that makes a profile's samples the same rows
// on every run, on servers that return rows in no fixed order (TiDB scans
// regions in parallel), and "" elsewhere, where storage order already is
// and a sort would only cost.
func (w *DB) stableOrder(cols ...string) string {
	if w.flavor != FlavorTiDB || len(cols) == 0 {
		return ""
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = QuoteIdent(c)
	}
	return " ORDER BY " + strings.Join(q, ", ")
}

// tidbMemQuotaError is TiDB's "Your query has been cancelled due to
// exceeding the allowed memory limit for a single SQL query".
const tidbMemQuotaError = 8175

// memoryParams adds to the driver's per-connection settings the memory cap
// of each statement, on the servers that have one (TiDB). Like sql_mode,
// the driver sets it when a connection opens, and nothing the guard lets
// through can change it.
func memoryParams(f Flavor, mc *mysql.Config, maxMemory int64) {
	if f != FlavorTiDB {
		return
	}
	if maxMemory <= 0 {
		maxMemory = DefaultMaxMemory
	}
	if mc.Params == nil {
		mc.Params = map[string]string{}
	}
	mc.Params["tidb_mem_quota_query"] = strconv.FormatInt(maxMemory, 10)
}

// memoryError words a statement stopped by the server's memory cap.
func memoryError(me *mysql.MySQLError) error {
	return &Error{Kind: KindTooLarge, Msg: "the query needed more memory on the warehouse than it may use; ask for less (a narrower filter, fewer groups)", Err: me}
}

// EngineReport is what CheckEngine learned of a warehouse's server: its
// kind and version, and the settings the bot relies on that it accepted.
type EngineReport struct {
	Flavor  Flavor
	Version string
	// Checked are the settings the server accepted, in words.
	Checked []string
	// Problems are the settings it refused; the bot then relies on the
	// guard and on cancelling the query.
	Problems []string
	// Notes are what the bot does without on this server, and why.
	Notes []string
}

// String is the report on one line: "TiDB v8.5.6 (checked: …; problems: …)".
func (r EngineReport) String() string {
	var b strings.Builder
	b.WriteString(r.Version)
	if len(r.Checked) > 0 {
		b.WriteString(" (checked: " + strings.Join(r.Checked, ", "))
		if len(r.Problems) > 0 {
			b.WriteString("; problems: " + strings.Join(r.Problems, "; "))
		}
		b.WriteString(")")
	} else if len(r.Problems) > 0 {
		b.WriteString(" (problems: " + strings.Join(r.Problems, "; ") + ")")
	}
	if len(r.Notes) > 0 {
		b.WriteString("; " + strings.Join(r.Notes, "; "))
	}
	return b.String()
}

// CheckEngine reads the server's kind and version on db and tries, on a
// session of its own, the settings every statement of the bot runs under:
// the time limit, the memory cap (TiDB), a read-only transaction. It only sets session variables and reads;
// nothing is written.
func CheckEngine(ctx context.Context, db *sql.DB) (EngineReport, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return EngineReport{}, fmt.Errorf("check the warehouse's engine: %w", err)
	}
	defer conn.Close()
	var version, comment string
	if err := conn.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		return EngineReport{}, fmt.Errorf("check the warehouse's engine: read its version: %w", err)
	}
	r := EngineReport{Flavor: detectFlavor(version, comment), Version: version}
	if r.Flavor == FlavorTiDB {
		r.Version = tidbRelease(ctx, conn, version)
	}
	try := func(what, stmt string) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s refused (%v)", what, err))
			return
		}
		r.Checked = append(r.Checked, what)
	}
	limit := DefaultQueryTimeout
	switch r.Flavor {
	case FlavorMariaDB:
		try("time limit (max_statement_time)", fmt.Sprintf("SET SESSION max_statement_time = %.3f", limit.Seconds()))
	case FlavorMySQL, FlavorTiDB:
		try("time limit (max_execution_time)", fmt.Sprintf("SET SESSION max_execution_time = %d", limit.Milliseconds()))
	case FlavorStarRocks, FlavorDoris:
		try("time limit (query_timeout)", fmt.Sprintf("SET query_timeout = %d", int64(limit/time.Second)))
	}
	if r.Flavor == FlavorTiDB {
		try("memory cap (tidb_mem_quota_query)", fmt.Sprintf("SET SESSION tidb_mem_quota_query = %d", DefaultMaxMemory))
	}
	if r.Flavor == FlavorTiDB {
		r.Notes = append(r.Notes, "no read-only transactions on TiDB: the guard and a SELECT-only account keep writes out")
	}
	if r.Flavor.readOnlyTransactions() {
		if err := readOnlyTransaction(ctx, conn); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("read-only transaction refused (%v)", err))
		} else {
			r.Checked = append(r.Checked, "read-only transactions")
		}
	}
	return r, nil
}

// readOnlyTransaction opens a read-only transaction as queries do and
// reads in it. (Whether the server then refuses a write is the tests'
// business: the check writes nothing, and the variables that say "read
// only" describe the next transaction, not this one.)
func readOnlyTransaction(ctx context.Context, conn *sql.Conn) error {
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var one int
	return tx.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// tidbRelease is "TiDB v8.5.6" from tidb_version()'s "Release Version:"
// line (VERSION() is "8.0.11-TiDB-v8.5.6", the MySQL it imitates first),
// or VERSION() itself.
func tidbRelease(ctx context.Context, conn *sql.Conn, version string) string {
	var info string
	if err := conn.QueryRowContext(ctx, "SELECT tidb_version()").Scan(&info); err == nil {
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Release Version:"); ok {
				return "TiDB " + strings.TrimSpace(v)
			}
		}
	}
	if i := strings.Index(version, "TiDB-"); i >= 0 {
		return "TiDB " + version[i+len("TiDB-"):]
	}
	return version
}
