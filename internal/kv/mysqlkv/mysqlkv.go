// Package mysqlkv is kv on a MySQL-protocol server (MariaDB, MySQL, TiDB),
// so that several bot processes share one store.
//
// Every bucket of every namespace lives in one table, clarify_kv
// (ns, bucket, k, v) with primary key (ns, bucket, k): VARBINARY compares
// bytewise, so the key order is bbolt's. Bucket sequences are rows of
// clarify_kv_seq. Update is one SQL transaction whose reads lock
// (SELECT … FOR UPDATE), so two processes' read-modify-write transactions
// on the same keys run one after the other; a deadlock (1213), lock wait
// timeout (1205) or TiDB write conflict (9007, 8002, 8022, 8028) rolls the
// transaction back and runs it again. View is a consistent read-only
// transaction. Cursors read the range in ordered batches.
//
// Features relied on: transactions, locking reads, unique keys,
// INSERT … ON DUPLICATE KEY UPDATE and INSERT IGNORE. TiDB uses
// pessimistic transactions by default since v3.0.8, which behave as above;
// in optimistic mode conflicts surface at commit and are retried the same
// way.
package mysqlkv

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/internal/kv"
)

// Limits of the table's columns. InnoDB and TiDB index at most 3072 bytes
// of a key: ns (16) + bucket (32) + k (3000) fit.
const (
	MaxKeyLen       = 3000
	maxBucketLen    = 32
	maxNamespaceLen = 16
	maxLeaseNameLen = 200
)

// Options configure a Server.
type Options struct {
	Logger *slog.Logger
	// LeaseTTL is how long a Lock survives a process that died holding it
	// (default 30s); a live holder renews it every third of that.
	LeaseTTL time.Duration
	// MaxAttempts bounds how often a conflicting Update runs (default 10).
	MaxAttempts int
	// MaxOpenConns bounds the connections to the server (default 10): a
	// burst waits for a connection instead of exhausting the server's
	// max_connections, which replicas and other clients share.
	MaxOpenConns int
}

// DefaultMaxOpenConns is the default bound on a Server's connections.
const DefaultMaxOpenConns = 10

// Server is a connection pool to the store's database.
type Server struct {
	db   *sql.DB
	name string
	log  *slog.Logger
	opts Options
	// readOnlyTx is whether View opens a read-only transaction: TiDB
	// refuses START TRANSACTION READ ONLY (error 1235, "only noop
	// implementation"), so there View's snapshot is a plain transaction
	// that only reads.
	readOnlyTx bool
}

// Open connects to the database named in dsn (go-sql-driver syntax,
// user:pass@tcp(host:3306)/clarify) and creates or upgrades its tables. It
// refuses a database whose schema a newer build wrote.
func Open(ctx context.Context, dsn string, opts Options) (*Server, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("store dsn: %w", err)
	}
	return OpenConfig(ctx, cfg, opts)
}

// OpenConfig is Open with a parsed configuration.
func OpenConfig(ctx context.Context, cfg *mysql.Config, opts Options) (*Server, error) {
	if cfg.DBName == "" {
		return nil, errors.New("store dsn: name a database (…/clarify)")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = 30 * time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 10
	}
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = DefaultMaxOpenConns
	}
	cfg = cfg.Clone()
	// One round trip per statement instead of prepare, execute, close;
	// the driver escapes []byte as _binary literals.
	cfg.InterpolateParams = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	db := sql.OpenDB(conn)
	db.SetConnMaxLifetime(3 * time.Minute)
	db.SetMaxOpenConns(opts.MaxOpenConns)
	db.SetMaxIdleConns(opts.MaxOpenConns)
	s := &Server{db: db, name: cfg.DBName, log: opts.Logger, opts: opts}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: read the server's version: %w", cfg.DBName, err)
	}
	s.readOnlyTx = !strings.Contains(strings.ToLower(version), "tidb")
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	return s, nil
}

// Name is the database's name.
func (s *Server) Name() string { return s.name }

// Stats are the pool's statistics (open and in-use connections, waits).
func (s *Server) Stats() sql.DBStats { return s.db.Stats() }

// Ping checks that the server answers (for health reports).
func (s *Server) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// LeaseTTL is how long a lock outlives its holder.
func (s *Server) LeaseTTL() time.Duration { return s.opts.LeaseTTL }

// Close closes the pool.
func (s *Server) Close() error { return s.db.Close() }

// Namespace is one store's buckets (the ontology, conversations, usage…)
// on the server. Closing it does nothing; close the Server.
func (s *Server) Namespace(ns string) kv.DB {
	return &nsDB{s: s, ns: ns}
}

// OwnNamespace is Namespace for a single store that owns the server:
// closing the namespace closes the server (command-line tools).
func (s *Server) OwnNamespace(ns string) kv.DB {
	return &nsDB{s: s, ns: ns, owns: true}
}

type nsDB struct {
	s    *Server
	ns   string
	owns bool
}

var (
	_ kv.DB     = (*nsDB)(nil)
	_ kv.Locker = (*nsDB)(nil)
)

func (n *nsDB) Close() error {
	if n.owns {
		return n.s.Close()
	}
	return nil
}

func (n *nsDB) Lock(ctx context.Context, key string) (func(), error) {
	return n.s.Lock(ctx, n.ns+":"+key)
}

// Held reports whether a live process holds the namespace's lock key.
func (n *nsDB) Held(ctx context.Context, key string) (bool, error) {
	return n.s.Held(ctx, n.ns+":"+key)
}

// Claim puts value at key in bucket when the key is absent or holds a
// value that sorts (bytewise) before floor, and reports whether it did.
// Each step is one statement that the server runs atomically, outside any
// transaction and without a locking read: INSERT IGNORE, then for a key
// already there an UPDATE guarded by the floor. Two processes claiming
// one key: exactly one sees true. (The seen event ids are claimed this
// way: the value is an expiry and the floor the present time.)
func (n *nsDB) Claim(ctx context.Context, bucket, key, value, floor []byte) (bool, error) {
	switch {
	case len(key) == 0 || len(key) > MaxKeyLen:
		return false, fmt.Errorf("claim %s: %d-byte key: %w", bucket, len(key), kv.ErrKeyTooLong)
	case len(bucket) == 0 || len(bucket) > maxBucketLen:
		return false, fmt.Errorf("claim: bucket name %q: want 1 to %d bytes", bucket, maxBucketLen)
	}
	var first bool
	err := n.s.retry(ctx, func() error {
		res, err := n.s.db.ExecContext(ctx, "INSERT IGNORE INTO clarify_kv (ns, bucket, k, v) VALUES (?, ?, ?, ?)", n.ns, bucket, key, value)
		if err != nil {
			return err
		}
		if c, err := res.RowsAffected(); err != nil || c == 1 {
			first = c == 1
			return err
		}
		res, err = n.s.db.ExecContext(ctx, "UPDATE clarify_kv SET v = ? WHERE ns = ? AND bucket = ? AND k = ? AND v < ?", value, n.ns, bucket, key, floor)
		if err != nil {
			return err
		}
		c, err := res.RowsAffected()
		first = c == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claim %s/%q: %w", bucket, key, err)
	}
	return first, nil
}

// DeleteBelow removes up to limit keys of bucket whose value sorts before
// ceiling, in one statement, and returns how many.
func (n *nsDB) DeleteBelow(ctx context.Context, bucket, ceiling []byte, limit int) (int, error) {
	var c int64
	err := n.s.retry(ctx, func() error {
		res, err := n.s.db.ExecContext(ctx, fmt.Sprintf("DELETE FROM clarify_kv WHERE ns = ? AND bucket = ? AND v < ? LIMIT %d", max(limit, 1)), n.ns, bucket, ceiling)
		if err != nil {
			return err
		}
		c, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete expired %s: %w", bucket, err)
	}
	return int(c), nil
}

// retry runs one autocommit statement (or a few that are each safe to
// repeat) again after a deadlock, lock wait timeout or write conflict.
func (s *Server) retry(ctx context.Context, fn func() error) error {
	wait := 2 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !Retryable(err) || attempt == s.opts.MaxAttempts {
			return err
		}
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after a conflict: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

func (n *nsDB) View(ctx context.Context, fn func(kv.Tx) error) error {
	if len(n.ns) > maxNamespaceLen {
		return fmt.Errorf("namespace %q is longer than %d bytes", n.ns, maxNamespaceLen)
	}
	return n.s.run(ctx, n.ns, false, fn)
}

func (n *nsDB) Update(ctx context.Context, fn func(kv.Tx) error) error {
	if len(n.ns) > maxNamespaceLen {
		return fmt.Errorf("namespace %q is longer than %d bytes", n.ns, maxNamespaceLen)
	}
	wait := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := n.s.run(ctx, n.ns, true, fn)
		if err == nil || !Retryable(err) || attempt == n.s.opts.MaxAttempts {
			return err
		}
		n.s.log.Debug("store transaction conflict; running it again", "namespace", n.ns, "attempt", attempt, "err", err)
		// Jitter, so that the two sides of a deadlock do not meet again.
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after a conflict: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// Retryable reports whether err is a conflict with another transaction
// that running the transaction again resolves.
func Retryable(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1213, // deadlock
		1205, // lock wait timeout
		9007, // TiDB: write conflict
		8002, // TiDB: SELECT FOR UPDATE write conflict (optimistic)
		8022, // TiDB: transaction retry error
		8028: // TiDB: schema changed during the transaction
		return true
	}
	return false
}

// run runs fn in one transaction.
func (s *Server) run(ctx context.Context, ns string, write bool, fn func(kv.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	sqlTx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: !write && s.readOnlyTx})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	t := &tx{ctx: ctx, tx: sqlTx, ns: ns, write: write}
	ferr := fn(t)
	if t.err == nil && ferr == nil {
		if err := sqlTx.Commit(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}
	_ = sqlTx.Rollback()
	if t.err != nil {
		// The first failed statement is the cause; fn's error (if any)
		// followed from it.
		return t.err
	}
	return ferr
}

// tx is one transaction. Its first failure is sticky: later operations do
// nothing and run reports it, so a failed read cannot lead to a commit.
type tx struct {
	ctx   context.Context
	tx    *sql.Tx
	ns    string
	write bool
	err   error
}

func (t *tx) fail(err error) error {
	if t.err == nil {
		t.err = err
	}
	return t.err
}

// lock makes a read in a read-write transaction a locking read.
func (t *tx) lock() string {
	if t.write {
		return " FOR UPDATE"
	}
	return ""
}

func (t *tx) Bucket(name []byte) kv.Bucket {
	b := &bucket{t: t, name: string(name)}
	if len(name) == 0 || len(name) > maxBucketLen {
		t.fail(fmt.Errorf("bucket name %q: want 1 to %d bytes", name, maxBucketLen))
	}
	return b
}

func (t *tx) Buckets() ([][]byte, error) {
	if t.err != nil {
		return nil, t.err
	}
	rows, err := t.tx.QueryContext(t.ctx,
		"SELECT DISTINCT bucket FROM clarify_kv WHERE ns = ? UNION SELECT bucket FROM clarify_kv_seq WHERE ns = ?", t.ns, t.ns)
	if err != nil {
		return nil, t.fail(fmt.Errorf("list buckets: %w", err))
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, t.fail(fmt.Errorf("list buckets: %w", err))
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, t.fail(fmt.Errorf("list buckets: %w", err))
	}
	return out, nil
}

type bucket struct {
	t    *tx
	name string
}

func (b *bucket) Get(k []byte) []byte {
	t := b.t
	if t.err != nil {
		return nil
	}
	var v []byte
	err := t.tx.QueryRowContext(t.ctx, "SELECT v FROM clarify_kv WHERE ns = ? AND bucket = ? AND k = ?"+t.lock(), t.ns, b.name, k).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		t.fail(fmt.Errorf("get %s/%q: %w", b.name, k, err))
		return nil
	case v == nil:
		// Present but empty: callers test presence with v != nil.
		return []byte{}
	}
	return v
}

func (b *bucket) Put(k, v []byte) error {
	t := b.t
	switch {
	case t.err != nil:
		return t.err
	case !t.write:
		return kv.ErrReadOnly
	case len(k) == 0:
		return errors.New("put: empty key")
	case len(k) > MaxKeyLen:
		return fmt.Errorf("put %s: %d-byte key, the limit is %d: %w", b.name, len(k), MaxKeyLen, kv.ErrKeyTooLong)
	}
	if v == nil {
		v = []byte{}
	}
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO clarify_kv (ns, bucket, k, v) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE v = ?", t.ns, b.name, k, v, v)
	if err != nil {
		return t.fail(fmt.Errorf("put %s/%q: %w", b.name, k, err))
	}
	return nil
}

func (b *bucket) Delete(k []byte) error {
	t := b.t
	switch {
	case t.err != nil:
		return t.err
	case !t.write:
		return kv.ErrReadOnly
	}
	if _, err := t.tx.ExecContext(t.ctx, "DELETE FROM clarify_kv WHERE ns = ? AND bucket = ? AND k = ?", t.ns, b.name, k); err != nil {
		return t.fail(fmt.Errorf("delete %s/%q: %w", b.name, k, err))
	}
	return nil
}

func (b *bucket) Cursor() kv.Cursor { return &cursor{b: b} }

func (b *bucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *bucket) NextSequence() (uint64, error) {
	t := b.t
	switch {
	case t.err != nil:
		return 0, t.err
	case !t.write:
		return 0, kv.ErrReadOnly
	}
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO clarify_kv_seq (ns, bucket, seq) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE seq = seq + 1", t.ns, b.name)
	if err != nil {
		return 0, t.fail(fmt.Errorf("next sequence of %s: %w", b.name, err))
	}
	return b.Sequence(), t.err
}

func (b *bucket) Sequence() uint64 {
	t := b.t
	if t.err != nil {
		return 0
	}
	var seq uint64
	err := t.tx.QueryRowContext(t.ctx, "SELECT seq FROM clarify_kv_seq WHERE ns = ? AND bucket = ?"+t.lock(), t.ns, b.name).Scan(&seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.fail(fmt.Errorf("sequence of %s: %w", b.name, err))
	}
	return seq
}

func (b *bucket) SetSequence(v uint64) error {
	t := b.t
	switch {
	case t.err != nil:
		return t.err
	case !t.write:
		return kv.ErrReadOnly
	}
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO clarify_kv_seq (ns, bucket, seq) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE seq = ?", t.ns, b.name, v, v)
	if err != nil {
		return t.fail(fmt.Errorf("set sequence of %s: %w", b.name, err))
	}
	return nil
}

type pair struct{ k, v []byte }

// cursor holds one batch of rows read in one direction. Batches start
// small (a prefix scan usually wants a few rows, and in a read-write
// transaction every row read is locked) and grow.
type cursor struct {
	b     *bucket
	rows  []pair
	i     int
	asc   bool
	more  bool // the last batch was full: more rows may follow
	batch int
}

const (
	firstBatch = 16
	maxBatch   = 1024
)

func (c *cursor) at() ([]byte, []byte) {
	if c.i < 0 || c.i >= len(c.rows) {
		return nil, nil
	}
	return c.rows[c.i].k, c.rows[c.i].v
}

// fetch reads a batch from bound (nil: the bucket's end) in a direction.
func (c *cursor) fetch(asc bool, bound []byte, inclusive bool, batch int) ([]byte, []byte) {
	c.rows, c.i, c.asc, c.more, c.batch = c.rows[:0], 0, asc, false, batch
	t := c.b.t
	if t.err != nil {
		return nil, nil
	}
	var q strings.Builder
	q.WriteString("SELECT k, v FROM clarify_kv WHERE ns = ? AND bucket = ?")
	args := []any{t.ns, c.b.name}
	if bound != nil {
		op := map[[2]bool]string{{true, true}: ">=", {true, false}: ">", {false, true}: "<=", {false, false}: "<"}[[2]bool{asc, inclusive}]
		q.WriteString(" AND k " + op + " ?")
		args = append(args, bound)
	}
	if asc {
		q.WriteString(" ORDER BY k")
	} else {
		q.WriteString(" ORDER BY k DESC")
	}
	fmt.Fprintf(&q, " LIMIT %d%s", batch, t.lock())
	rows, err := t.tx.QueryContext(t.ctx, q.String(), args...)
	if err != nil {
		t.fail(fmt.Errorf("scan %s: %w", c.b.name, err))
		return nil, nil
	}
	defer rows.Close()
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.k, &p.v); err != nil {
			t.fail(fmt.Errorf("scan %s: %w", c.b.name, err))
			return nil, nil
		}
		if p.v == nil {
			p.v = []byte{}
		}
		c.rows = append(c.rows, p)
	}
	if err := rows.Err(); err != nil {
		t.fail(fmt.Errorf("scan %s: %w", c.b.name, err))
		c.rows = c.rows[:0]
		return nil, nil
	}
	c.more = len(c.rows) == batch
	return c.at()
}

func (c *cursor) First() ([]byte, []byte)        { return c.fetch(true, nil, false, firstBatch) }
func (c *cursor) Last() ([]byte, []byte)         { return c.fetch(false, nil, false, firstBatch) }
func (c *cursor) Seek(s []byte) ([]byte, []byte) { return c.fetch(true, s, true, firstBatch) }
func (c *cursor) Next() ([]byte, []byte)         { return c.step(true) }
func (c *cursor) Prev() ([]byte, []byte)         { return c.step(false) }

func (c *cursor) step(asc bool) ([]byte, []byte) {
	if c.i < 0 || c.i >= len(c.rows) {
		return nil, nil
	}
	if c.asc == asc {
		if c.i+1 < len(c.rows) {
			c.i++
			return c.at()
		}
		if !c.more {
			c.i = len(c.rows)
			return nil, nil
		}
		return c.fetch(asc, c.rows[c.i].k, false, min(2*c.batch, maxBatch))
	}
	// Turning round: read from the current key the other way.
	return c.fetch(asc, c.rows[c.i].k, false, firstBatch)
}

// Lock holds key against every process using the server until unlock is
// called, with a lease row in clarify_lease: an expired lease (its holder
// died) is taken over; a live holder renews it every third of LeaseTTL.
// Only INSERT IGNORE, DELETE and UPDATE with the server's clock are used,
// which MariaDB, MySQL and TiDB all run the same way.
func (s *Server) Lock(ctx context.Context, key string) (func(), error) {
	name := leaseName(key)
	tok := make([]byte, 12)
	_, _ = crand.Read(tok)
	owner := hex.EncodeToString(tok)
	ttl := s.opts.LeaseTTL.Microseconds()
	wait := 2 * time.Millisecond
	for {
		// Both statements are safe to repeat: two processes taking over
		// one expired lease can meet in a deadlock or write conflict.
		var took bool
		err := s.retry(ctx, func() error {
			if _, err := s.db.ExecContext(ctx, "DELETE FROM clarify_lease WHERE name = ? AND expires < NOW(6)", name); err != nil {
				return err
			}
			res, err := s.db.ExecContext(ctx, "INSERT IGNORE INTO clarify_lease (name, owner, expires) VALUES (?, ?, NOW(6) + INTERVAL ? MICROSECOND)", name, owner, ttl)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			took = err == nil && n == 1
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", key, err)
		}
		if took {
			break
		}
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %s: %w", key, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go s.renew(name, owner, stop, &wg)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			// The caller's context may be over; the lease must go anyway.
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := s.db.ExecContext(cctx, "DELETE FROM clarify_lease WHERE name = ? AND owner = ?", name, owner); err != nil {
				s.log.Warn("cannot release a lock; it expires by itself", "name", name, "err", err)
			}
		})
	}, nil
}

// leaseName is the lease row's name for key (long keys end in a hash).
func leaseName(key string) string {
	if len(key) <= maxLeaseNameLen {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return key[:maxLeaseNameLen-65] + "#" + hex.EncodeToString(sum[:])
}

// Held reports whether a live process holds key (its lease has not
// expired): a replica's liveness, for another to take over its work.
func (s *Server) Held(ctx context.Context, key string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM clarify_lease WHERE name = ? AND expires >= NOW(6)", leaseName(key)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", key, err)
	}
	return n > 0, nil
}

func (s *Server) renew(name, owner string, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(s.opts.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.LeaseTTL/3)
		res, err := s.db.ExecContext(ctx, "UPDATE clarify_lease SET expires = NOW(6) + INTERVAL ? MICROSECOND WHERE name = ? AND owner = ?", s.opts.LeaseTTL.Microseconds(), name, owner)
		cancel()
		if err != nil {
			s.log.Warn("cannot renew a lock", "name", name, "err", err)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			s.log.Warn("a lock expired while held; another process may have taken it", "name", name)
		}
	}
}
