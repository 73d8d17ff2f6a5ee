package warehouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// limitsOr fills the zero fields of l with the configured values.
func limitsOr(l Limits, cfg Config) Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = cfg.MaxRows
	}
	if l.Timeout <= 0 {
		l.Timeout = cfg.QueryTimeout
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = cfg.MaxBytes
	}
	return l
}

// Guard checks a statement without running it: nil when it is a single
// read-only SELECT, otherwise an *Error of kind KindRefused or KindSyntax.
// It accepts the built-in functions of every flavor; DB.Query checks again
// with the warehouse's own.
func Guard(statement string) error {
	_, err := asError(sqlguard.Check(statement))
	return err
}

// GuardInspect is Guard for Inspect: SELECT, or a SHOW, DESCRIBE or
// EXPLAIN that only describes.
func GuardInspect(statement string) error {
	_, err := asError(sqlguard.CheckInspect(statement))
	return err
}

func (w *DB) guardStatement(statement string) (*sqlguard.Statement, error) {
	return asError(w.guard.Check(statement))
}

func asError(st *sqlguard.Statement, err error) (*sqlguard.Statement, error) {
	if err == nil {
		return st, nil
	}
	kind := KindRefused
	if r, ok := sqlguard.Refused(err); ok && r.Kind == sqlguard.KindSyntax {
		kind = KindSyntax
	}
	return nil, &Error{Kind: kind, Msg: err.Error(), Err: err}
}

// Query is the only way a statement reaches the warehouse. It accepts exactly
// one read-only SELECT (checked by the guard), runs it inside a read-only
// transaction with a server-side time limit backed by context cancellation
// that kills the query, and fetches at most MaxRows rows, reading one more to
// report truncation. With a cache (Config.Cache), a statement already run
// is answered from memory. With access rules (WithPolicy), a statement they
// forbid is refused before either.
func (w *DB) Query(ctx context.Context, statement string, lim Limits) (*Result, error) {
	lim = limitsOr(lim, w.cfg)
	st, err := w.guardStatement(statement)
	if err != nil {
		w.observe(QueryEvent{Err: err})
		return nil, err
	}
	return w.checked(ctx, st, lim)
}

// Inspect runs one read-only statement that describes the schema: what
// Query runs, or SHOW TABLES, SHOW [FULL] COLUMNS (DESCRIBE), SHOW CREATE
// TABLE, SHOW INDEX, SHOW TABLE STATUS, SHOW DATABASES, or EXPLAIN of a
// SELECT. With access rules, a statement about what they hide is refused
// and the rows that would name a hidden table or column are removed.
func (w *DB) Inspect(ctx context.Context, statement string, lim Limits) (*Result, error) {
	lim = limitsOr(lim, w.cfg)
	st, err := asError(w.guard.CheckInspect(statement))
	if err != nil {
		w.observe(QueryEvent{Err: err})
		return nil, err
	}
	switch st.Node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return w.checked(ctx, st, lim)
	}
	if err := w.checkPolicy(st); err != nil {
		return nil, err
	}
	res, err := w.query(ctx, st, lim)
	if err != nil {
		return nil, err
	}
	if f, ok := w.policy.(ResultFilter); ok {
		if res, err = f.FilterResult(st.Node, res); err != nil {
			werr := &Error{Kind: KindRefused, Msg: err.Error(), Err: err}
			w.observe(QueryEvent{Err: werr})
			return nil, werr
		}
	}
	return res, nil
}

func (w *DB) checkPolicy(st *sqlguard.Statement) error {
	if w.policy == nil {
		return nil
	}
	if err := w.policy.Check(st.Node); err != nil {
		werr := &Error{Kind: KindRefused, Msg: err.Error(), Err: err}
		w.observe(QueryEvent{Err: werr})
		return werr
	}
	return nil
}

// checked runs a guarded SELECT under the access rules, through the cache.
func (w *DB) checked(ctx context.Context, st *sqlguard.Statement, lim Limits) (*Result, error) {
	if w.policy != nil {
		if err := w.policy.Check(st.Node); err != nil {
			werr := &Error{Kind: KindRefused, Msg: err.Error(), Err: err}
			w.observe(QueryEvent{Err: werr})
			return nil, werr
		}
	}
	if w.cache != nil {
		return w.cache.query(ctx, st.Text, lim, func() (*Result, error) { return w.query(ctx, st, lim) })
	}
	return w.query(ctx, st, lim)
}

// query runs a guarded statement on the server and reports it.
func (w *DB) query(ctx context.Context, st *sqlguard.Statement, lim Limits) (*Result, error) {
	start := time.Now()
	res, err := w.serverQuery(ctx, st, lim)
	ev := QueryEvent{Elapsed: time.Since(start), Err: err}
	if res != nil {
		ev.Rows = len(res.Rows)
	}
	w.observe(ev)
	return res, err
}

// serverQuery runs a guarded statement on the server.
func (w *DB) serverQuery(ctx context.Context, st *sqlguard.Statement, lim Limits) (*Result, error) {
	text := st.Text
	ownLimit := hasTopLevelLimit(st.Node)
	if _, query := st.Node.(ast.ResultSetNode); !query {
		// SHOW and EXPLAIN: a handful of rows, and no LIMIT to add.
		ownLimit = true
	}
	if !ownLimit {
		// Let the server stop early instead of streaming rows we would drop.
		// The newline ends a trailing "-- comment".
		text += "\nLIMIT " + strconv.Itoa(lim.MaxRows+1)
		// What reaches the server is what was guarded.
		if _, err := w.guardStatement(text); err != nil {
			return nil, err
		}
	}
	aliases := tableAliases(st.Node)

	conn, err := w.db.Conn(ctx)
	if err != nil {
		return nil, classify(ctx, err, lim.Timeout, aliases)
	}
	defer conn.Close()

	connID, err := w.session(ctx, conn)
	if err != nil {
		return nil, classify(ctx, err, lim.Timeout, aliases)
	}
	serverLimit := w.setTimeLimit(ctx, conn, lim.Timeout)
	grace := time.Duration(0)
	if serverLimit {
		// The server's own limit gives the cleaner error; the context is the backstop.
		grace = time.Second
	}
	qctx, cancel := context.WithTimeout(ctx, lim.Timeout+grace)
	defer cancel()
	stopKiller := w.killOnCancel(qctx, connID)
	defer stopKiller()

	res, err := w.run(qctx, cancel, conn, text, lim, ownLimit)
	if err != nil {
		err = classify(qctx, err, lim.Timeout, aliases)
		w.logger.Debug("warehouse query failed", "err", err, "cause", errors.Unwrap(err))
		return nil, err
	}
	return res, nil
}

func (w *DB) run(ctx context.Context, cancel context.CancelFunc, conn *sql.Conn, text string, lim Limits, ownLimit bool) (*Result, error) {
	start := time.Now()
	type querier interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}
	var q querier = conn
	var tx *sql.Tx
	if w.flavor.readOnlyTransactions() {
		var err error
		tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("start read-only transaction: %w", err)
		}
		// Nothing was written (the guard and the transaction saw to it), so
		// rolling back is just releasing the snapshot.
		defer tx.Rollback()
		q = tx
	}
	rows, err := q.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, fmt.Errorf("read result columns: %w", err)
	}
	res := &Result{Columns: make([]ResultColumn, len(cts))}
	for i, ct := range cts {
		res.Columns[i] = ResultColumn{Name: ct.Name(), Type: ct.DatabaseTypeName()}
	}
	dest := make([]any, len(cts))
	ptrs := make([]any, len(cts))
	for i := range dest {
		ptrs[i] = &dest[i]
	}
	size := 0
	for rows.Next() {
		if len(res.Rows) == lim.MaxRows {
			res.Truncated = true
			if ownLimit {
				// The statement's own LIMIT is larger than the cap: stop the
				// server rather than drain the rest.
				cancel()
			}
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read row %d: %w", len(res.Rows)+1, err)
		}
		row := make([]any, len(dest))
		rowSize := 0
		for i, v := range dest {
			row[i] = normalizeValue(v)
			rowSize += valueSize(row[i])
		}
		if size+rowSize > lim.MaxBytes {
			// The bytes are capped as the rows are: what was read is the
			// answer, and the server stops sending the rest.
			cancel()
			if len(res.Rows) == 0 {
				return nil, &Error{Kind: KindTooLarge, Msg: fmt.Sprintf("a single row of the result is larger than the %s limit", humanBytes(lim.MaxBytes))}
			}
			res.Truncated = true
			break
		}
		size += rowSize
		res.Rows = append(res.Rows, row)
	}
	if !res.Truncated {
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// valueSize is what a value costs in a result: its text, or a word.
func valueSize(v any) int {
	if s, ok := v.(string); ok {
		return len(s) + 16
	}
	return 16
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case nil, int64, uint64, float64, string:
		return x
	case []byte:
		return string(x)
	case float32:
		return float64(x)
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case time.Time:
		return x.Format("2006-01-02 15:04:05")
	}
	return fmt.Sprint(v)
}

// setTimeLimit sets the server-side statement time limit on this session and
// reports whether the server enforces one.
func (w *DB) setTimeLimit(ctx context.Context, conn *sql.Conn, d time.Duration) bool {
	var stmt string
	switch w.flavor {
	case FlavorMariaDB:
		stmt = fmt.Sprintf("SET SESSION max_statement_time = %.3f", d.Seconds())
	case FlavorMySQL, FlavorTiDB:
		stmt = fmt.Sprintf("SET SESSION max_execution_time = %d", d.Milliseconds())
	case FlavorStarRocks, FlavorDoris:
		secs := int64(d.Seconds())
		if secs < 1 {
			secs = 1
		}
		stmt = fmt.Sprintf("SET query_timeout = %d", secs)
	default:
		// go-mysql-server accepts max_execution_time but does not enforce it.
		return false
	}
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		w.logger.Warn("warehouse: cannot set the server-side time limit; relying on cancellation", "flavor", w.flavor, "err", err)
		return false
	}
	return true
}

func (f Flavor) readOnlyTransactions() bool {
	switch f {
	case FlavorStarRocks, FlavorDoris:
		return false
	}
	return true
}

// killOnCancel kills the running statement of connection id when ctx ends
// before the returned stop function is called: cancelling a go-sql-driver
// query only drops the client connection, and the server would go on working.
func (w *DB) killOnCancel(ctx context.Context, id int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		defer cancel()
		db := w.db
		if w.killer != nil {
			db = w.killer.get()
		}
		if _, err := db.ExecContext(kctx, fmt.Sprintf("KILL QUERY %d", id)); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1094 {
				// Unknown thread id: the query ended (and its connection
				// was closed) before the kill arrived; nothing to stop.
				w.logger.Debug("warehouse: a cancelled query had already ended", "connection", id)
				return
			}
			w.logger.Warn("warehouse: could not kill a cancelled query", "connection", id, "err", err)
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func hasTopLevelLimit(n ast.StmtNode) bool {
	switch s := n.(type) {
	case *ast.SelectStmt:
		return s.Limit != nil
	case *ast.SetOprStmt:
		return s.Limit != nil
	}
	return false
}

// tableAliases maps lower-cased aliases (and names) to table names so that
// an error about `o.x` can say "in table `orders`".
func tableAliases(n ast.StmtNode) map[string]string {
	v := &aliasVisitor{m: map[string]string{}}
	n.Accept(v)
	return v.m
}

type aliasVisitor struct{ m map[string]string }

func (v *aliasVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if ts, ok := n.(*ast.TableSource); ok {
		if tn, ok := ts.Source.(*ast.TableName); ok {
			v.m[strings.ToLower(tn.Name.O)] = tn.Name.O
			if ts.AsName.O != "" {
				v.m[strings.ToLower(ts.AsName.O)] = tn.Name.O
			}
		}
	}
	return n, false
}

func (v *aliasVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
