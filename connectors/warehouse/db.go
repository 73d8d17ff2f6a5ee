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
)

// Defaults for Config.
const (
	DefaultQueryTimeout   = 10 * time.Second
	DefaultMaxRows        = 1000
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
// Check refuses a parsed statement (*ast.SelectStmt or *ast.SetOprStmt)
// that the rules forbid, with an error whose message can be shown as is.
type Policy interface {
	Check(stmt ast.StmtNode) error
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
	if mc.Timeout <= 0 {
		mc.Timeout = cfg.ConnectTimeout
	}
	// Statements are sent as text exactly as guarded; no client-side multi-statements.
	mc.MultiStatements = false
	mc.InterpolateParams = false
	// The driver's handshake already asks for utf8mb4 unless the DSN says otherwise.
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("warehouse: connector: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	w := &DB{db: db, cfg: cfg, database: mc.DBName, addr: mc.Addr, cache: newResultCache(cfg.Cache, time.Now), logger: cfg.Logger, killer: &killPool{conn: conn}}

	pctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	var version, comment string
	if err := db.QueryRowContext(pctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		db.Close()
		return nil, fmt.Errorf("warehouse: connect to %s: %w", mc.Addr, connectError(pctx, err, mc))
	}
	w.version = version
	w.flavor = detectFlavor(version, comment)
	w.logger.Info("warehouse connected", "addr", mc.Addr, "database", mc.DBName, "flavor", w.flavor, "version", version)
	return w, nil
}

func connectError(ctx context.Context, err error, mc *mysql.Config) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1045 {
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

// QueryTimeout is the configured per-statement limit.
func (w *DB) QueryTimeout() time.Duration { return w.cfg.QueryTimeout }
