// Package warehouse connects to MySQL-protocol warehouses (MySQL, MariaDB,
// TiDB, StarRocks, Doris and the embedded demo server): it introspects their
// schema, profiles their columns, and runs statements — only read-only
// single SELECTs, through one guarded path.
package warehouse

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// Defaults for Config.
const (
	DefaultQueryTimeout   = 10 * time.Second
	DefaultMaxRows        = 1000
	DefaultMaxBytes       = 8 << 20
	DefaultConnectTimeout = 5 * time.Second
	DefaultMaxOpenConns   = 8
)

// Config says how to reach a warehouse and how to bound the work done there.
type Config struct {
	// DSN in go-sql-driver form (user:pass@tcp(host:3306)/db); ignored when MySQL is set.
	DSN string
	// MySQL is a ready driver configuration.
	MySQL *mysql.Config
	// QueryTimeout bounds every statement (server-side limit and context).
	QueryTimeout time.Duration
	// MaxRows caps the rows fetched per statement; one more is read to report truncation.
	MaxRows int
	// MaxBytes caps the bytes of a result's values (default
	// DefaultMaxBytes): rows past it are not read, as rows past MaxRows.
	MaxBytes int
	// Functions are the stored or loadable functions statements may call
	// ("name" or "database.name"); built-ins are allowed by the flavor.
	Functions []string
	// ConnectTimeout bounds dialing and the login handshake.
	ConnectTimeout time.Duration
	MaxOpenConns   int
	// Cache keeps results of repeated statements; off unless set.
	Cache  CacheOptions
	Logger *slog.Logger

	// OnQuery hears every statement refused or run (see QueryEvent), for
	// metrics; it is called on the query's goroutine and must not block.
	OnQuery func(QueryEvent)
}

func (c Config) withDefaults() Config {
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = DefaultQueryTimeout
	}
	if c.MaxRows <= 0 {
		c.MaxRows = DefaultMaxRows
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.MaxOpenConns <= 0 {
		c.MaxOpenConns = DefaultMaxOpenConns
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// DB is an open warehouse. It is safe for concurrent use.
type DB struct {
	db       *sql.DB
	cfg      Config
	flavor   Flavor
	version  string
	database string
	addr     string
	cache    *resultCache // nil when off
	logger   *slog.Logger
	policy   Policy // nil: no access rules
	guard    *sqlguard.Guard
	// sqlMode is the session sql_mode set on every connection, "" when
	// the server has none to set (StarRocks, Doris).
	sqlMode string
	// killer is a pool of its own for KILL QUERY, so that a cancelled
	// query is stopped even when the main pool is full (under load, when
	// it matters most).
	killer *killPool
}

// killPool is a small pool opened on the first KILL.
type killPool struct {
	conn interface {
		Connect(context.Context) (driver.Conn, error)
		Driver() driver.Driver
	}
	once sync.Once
	db   *sql.DB
}

func (k *killPool) get() *sql.DB {
	k.once.Do(func() {
		k.db = sql.OpenDB(k.conn)
		k.db.SetMaxOpenConns(2)
		k.db.SetMaxIdleConns(1)
		k.db.SetConnMaxIdleTime(time.Minute)
	})
	return k.db
}

func (k *killPool) close() error {
	var err error
	k.once.Do(func() {}) // no pool opened after Close
	if k.db != nil {
		err = k.db.Close()
	}
	return err
}

// Policy is a warehouse's access rules as the query path needs them:
// Check refuses a parsed statement (*ast.SelectStmt or *ast.SetOprStmt,
// and for Inspect *ast.ShowStmt or *ast.ExplainStmt) that the rules
// forbid, with an error whose message can be shown as is.
type Policy interface {
	Check(stmt ast.StmtNode) error
}

// ResultFilter is a Policy that also removes from a SHOW statement's
// result the rows that name what the rules hide (Inspect uses it).
type ResultFilter interface {
	FilterResult(stmt ast.StmtNode, res *Result) (*Result, error)
}

// WithPolicy returns a view of the same warehouse (same pool and cache)
// that checks every statement against p before it runs or is answered from
// the cache. The rules are resolved against the schema, which is known
// only once the warehouse is open, hence a view rather than a Config field.
// Close the original, not the view.
func (w *DB) WithPolicy(p Policy) *DB {
	v := *w
	v.policy = p
	return &v
}

// Open connects, checks the login and detects the server flavor. A server
// that is down or refuses the login gives a clear *Error within ConnectTimeout.
//
// Every connection's session sql_mode is set explicitly: the server's own
// mode without the flags that change how a statement is read
// (ANSI_QUOTES, NO_BACKSLASH_ESCAPES, PIPES_AS_CONCAT, IGNORE_SPACE, …),
// which is the mode the guard and the access rules parse with. A DSN that
// sets sql_mode, or a client character set other than UTF-8, is refused:
// the server would read other statements than the ones checked.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	cfg = cfg.withDefaults()
	var mc *mysql.Config
	if cfg.MySQL != nil {
		mc = cfg.MySQL.Clone()
	} else {
		if strings.TrimSpace(cfg.DSN) == "" {
			return nil, errors.New("warehouse: no DSN configured")
		}
		var err error
		mc, err = mysql.ParseDSN(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("warehouse: invalid DSN: %w", err)
		}
	}
	if mc.DBName == "" {
		return nil, errors.New("warehouse: the DSN names no database (…/dbname)")
	}
	if err := CheckSession(mc); err != nil {
		return nil, err
	}
	if mc.Timeout <= 0 {
		mc.Timeout = cfg.ConnectTimeout
	}
	// Statements are sent as text exactly as guarded; no client-side multi-statements.
	mc.MultiStatements = false
	mc.InterpolateParams = false

	pctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	version, comment, serverMode, err := probe(pctx, mc)
	if err != nil {
		return nil, fmt.Errorf("warehouse: connect to %s: %w", mc.Addr, connectError(pctx, err, mc))
	}
	flavor := detectFlavor(version, comment)
	mode := ""
	if flavor.pinsSQLMode() {
		mode = readingMode(serverMode)
		if mc.Params == nil {
			mc.Params = map[string]string{}
		}
		// The driver sends SET sql_mode = '…' on every new connection.
		mc.Params["sql_mode"] = "'" + mode + "'"
		pinCharset(mc)
	}
	guard, err := sqlguard.New(sqlguard.Options{Flavor: flavor.guardFlavor(), Functions: cfg.Functions})
	if err != nil {
		return nil, fmt.Errorf("warehouse: %w", err)
	}
	// The handshake asks for utf8mb4 too; the parameters above set it again.
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("warehouse: connector: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	w := &DB{db: db, cfg: cfg, database: mc.DBName, addr: mc.Addr, cache: newResultCache(cfg.Cache, time.Now), logger: cfg.Logger,
		version: version, flavor: flavor, guard: guard, sqlMode: mode, killer: &killPool{conn: conn}}
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("warehouse: connect to %s: %w", mc.Addr, connectError(pctx, err, mc))
	}
	w.logger.Info("warehouse connected", "addr", mc.Addr, "database", mc.DBName, "flavor", w.flavor, "version", version, "sql_mode", mode)
	return w, nil
}

// probe reads the server's version and the sql_mode a new session gets
// (the server's default, or what init_connect set), on a connection of
// its own so that the pool's connections all start with the pinned mode.
func probe(ctx context.Context, mc *mysql.Config) (version, comment, mode string, err error) {
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return "", "", "", err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		return "", "", "", err
	}
	var m sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&m); err != nil {
		// StarRocks and Doris may have no such variable; their flavor
		// pins nothing.
		return version, comment, "", nil
	}
	return version, comment, m.String, nil
}

// readingModes are the sql_mode flags kept from the server's mode: they
// change what statements do (strict dates, full GROUP BY), not how they
// are read. Every other flag is dropped, those that change the reading
// first among them: ANSI_QUOTES, NO_BACKSLASH_ESCAPES, PIPES_AS_CONCAT,
// IGNORE_SPACE, HIGH_NOT_PRECEDENCE, EMPTY_STRING_IS_NULL and the
// combinations (ANSI, ORACLE, MSSQL, …) that include them.
var readingModes = map[string]bool{
	"STRICT_TRANS_TABLES": true, "STRICT_ALL_TABLES": true, "ONLY_FULL_GROUP_BY": true,
	"NO_ZERO_DATE": true, "NO_ZERO_IN_DATE": true, "ERROR_FOR_DIVISION_BY_ZERO": true,
	"NO_ENGINE_SUBSTITUTION": true, "NO_AUTO_CREATE_USER": true, "NO_AUTO_VALUE_ON_ZERO": true,
	"NO_DIR_IN_CREATE": true, "NO_UNSIGNED_SUBTRACTION": true, "PAD_CHAR_TO_FULL_LENGTH": true,
	"TIME_TRUNCATE_FRACTIONAL": true, "ALLOW_INVALID_DATES": true, "REAL_AS_FLOAT": true,
	"NO_FIELD_OPTIONS": true, "NO_KEY_OPTIONS": true, "NO_TABLE_OPTIONS": true,
}

// readingMode is the session mode the warehouse pins: the server's mode
// reduced to readingModes, in its order.
func readingMode(server string) string {
	var keep []string
	for _, f := range strings.Split(server, ",") {
		f = strings.ToUpper(strings.TrimSpace(f))
		if readingModes[f] {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, ",")
}

func connectError(ctx context.Context, err error, mc *mysql.Config) error {
	var me *mysql.MySQLError
	// 1698 is the same refusal from a server whose account uses another
	// authentication plugin (MariaDB's unix_socket for a missing user).
	if errors.As(err, &me) && (me.Number == 1045 || me.Number == 1698) {
		return &Error{Kind: KindAccessDenied, Msg: fmt.Sprintf("the warehouse at %s refused the login for user %q (check the user name and password)", mc.Addr, mc.User), Err: err}
	}
	if ctx.Err() != nil {
		return &Error{Kind: KindUnavailable, Msg: fmt.Sprintf("the warehouse at %s did not answer within %s", mc.Addr, humanDuration(mc.Timeout)), Err: err}
	}
	return classify(ctx, err, 0, nil)
}

// Close releases the connection pools.
func (w *DB) Close() error { return errors.Join(w.db.Close(), w.killer.close()) }

// Flavor is the detected server kind.
func (w *DB) Flavor() Flavor { return w.flavor }

// Version is the server's VERSION().
func (w *DB) Version() string { return w.version }

// Database is the schema this DB works in.
func (w *DB) Database() string { return w.database }

// MaxRows is the configured row cap.
func (w *DB) MaxRows() int { return w.cfg.MaxRows }

// SQLMode is the sql_mode every session of the pool runs with ("" when
// the server has none to set).
func (w *DB) SQLMode() string { return w.sqlMode }

// QueryTimeout is the configured per-statement limit.
func (w *DB) QueryTimeout() time.Duration { return w.cfg.QueryTimeout }
