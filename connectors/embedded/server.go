// Package embedded runs an in-process MySQL-protocol server (dolthub's
// go-mysql-server, in memory) on 127.0.0.1 with a free port. The bot reaches
// it through go-sql-driver exactly as it reaches a real warehouse, so the demo
// and the tests exercise the production path.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gsql "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"
)

// Server is a running embedded warehouse.
type Server struct {
	provider *memory.DbProvider
	engine   *sqle.Engine
	srv      *server.Server
	addr     string
	logger   *slog.Logger
	done     chan struct{}
	closeMu  sync.Once
	closeErr error
}

// startMu serialises building engines and servers: go-mysql-server sets
// process-wide status and system variables when it builds either, so two
// warehouses starting at once in one process (two demo warehouses, two
// replicas in a test) would race on them.
var startMu sync.Mutex

// Start listens on 127.0.0.1 with a free port and serves until Close.
func Start(ctx context.Context, logger *slog.Logger) (*Server, error) {
	startMu.Lock()
	defer startMu.Unlock()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	pro := memory.NewDBProviderWithOpts(memory.NativeIndexProvider(true)).(*memory.DbProvider)
	// Date filters compare with string literals; see foldTimeLiterals.
	a := analyzer.NewBuilder(pro).AddPostAnalyzeRule(foldTimeLiteralsID, foldTimeLiterals).Build()
	engine := sqle.New(a, nil)
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded warehouse: listen on 127.0.0.1: %w", err)
	}
	cfg := server.Config{Protocol: "tcp", Listener: ln, Address: ln.Addr().String()}
	srv, err := server.NewServer(cfg, engine, gsql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("embedded warehouse: new server: %w", err)
	}
	s := &Server{provider: pro, engine: engine, srv: srv, addr: ln.Addr().String(), logger: logger, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Start(); err != nil && !errors.Is(err, net.ErrClosed) {
			logger.Error("embedded warehouse stopped", "err", err)
		}
	}()
	logger.Debug("embedded warehouse listening", "addr", s.addr)
	return s, nil
}

// QuietEngineLogs sends go-mysql-server's log output (a process-wide
// logrus logger in that library) to w, keeping only entries at level or
// above: the engine logs every connection at info level, which would drown
// the bot's own logs. Levels above slog.LevelError keep only fatal ones.
func QuietEngineLogs(w io.Writer, level slog.Level) {
	switch {
	case level > slog.LevelError:
		logrus.SetLevel(logrus.FatalLevel)
	case level > slog.LevelWarn:
		logrus.SetLevel(logrus.ErrorLevel)
	case level > slog.LevelInfo:
		logrus.SetLevel(logrus.WarnLevel)
	case level > slog.LevelDebug:
		logrus.SetLevel(logrus.InfoLevel)
	default:
		logrus.SetLevel(logrus.DebugLevel)
	}
	logrus.SetOutput(w)
}

// Addr is host:port of the listener.
func (s *Server) Addr() string { return s.addr }

// Config returns a go-sql-driver configuration for database on this server.
func (s *Server) Config(database string) *mysql.Config {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "tcp"
	c.Addr = s.addr
	c.DBName = database
	return c
}

// DSN is Config(database) formatted as a data source name.
func (s *Server) DSN(database string) string { return s.Config(database).FormatDSN() }

// Close stops the server and waits for its accept loop to end.
func (s *Server) Close() error {
	s.closeMu.Do(func() {
		s.closeErr = s.srv.Close()
		<-s.done
	})
	return s.closeErr
}

func (s *Server) newContext(ctx context.Context, database string) *gsql.Context {
	sess := memory.NewSession(gsql.NewBaseSession(), s.provider)
	sctx := gsql.NewContext(ctx, gsql.WithSession(sess))
	if database != "" {
		sctx.SetCurrentDatabase(database)
	}
	return sctx
}

// CreateDatabase creates an empty database; it fails if it exists.
func (s *Server) CreateDatabase(ctx context.Context, name string) error {
	sctx := s.newContext(ctx, "")
	if s.provider.HasDatabase(sctx, name) {
		return fmt.Errorf("embedded warehouse: database %q already exists", name)
	}
	if err := s.provider.CreateDatabase(sctx, name); err != nil {
		return fmt.Errorf("embedded warehouse: create database %q: %w", name, err)
	}
	return nil
}

// DropDatabase removes a database and its tables.
func (s *Server) DropDatabase(ctx context.Context, name string) error {
	if err := s.provider.DropDatabase(s.newContext(ctx, ""), name); err != nil {
		return fmt.Errorf("embedded warehouse: drop database %q: %w", name, err)
	}
	return nil
}

// exec runs one statement through the engine and drains its rows.
func (s *Server) exec(sctx *gsql.Context, stmt string) error {
	_, iter, _, err := s.engine.Query(sctx, stmt)
	if err != nil {
		return err
	}
	for {
		if _, err := iter.Next(sctx); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			iter.Close(sctx)
			return err
		}
	}
	return iter.Close(sctx)
}

// LoadDump runs a .sql dump (DDL and INSERT statements, no CREATE DATABASE
// or USE) into database, creating the database if needed. Errors name the
// statement's position in the dump.
func (s *Server) LoadDump(ctx context.Context, database string, dump io.Reader) error {
	raw, err := io.ReadAll(dump)
	if err != nil {
		return fmt.Errorf("embedded warehouse: read dump: %w", err)
	}
	pieces, err := sqlparser.SplitStatementToPieces(string(raw))
	if err != nil {
		return fmt.Errorf("embedded warehouse: split dump: %w", err)
	}
	sctx := s.newContext(ctx, "")
	if !s.provider.HasDatabase(sctx, database) {
		if err := s.CreateDatabase(ctx, database); err != nil {
			return err
		}
	}
	sctx = s.newContext(ctx, database)
	for i, p := range pieces {
		stmt := strings.TrimSpace(stripLeadingComments(p))
		if stmt == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("embedded warehouse: load dump: %w", err)
		}
		if err := s.exec(sctx, stmt); err != nil {
			return fmt.Errorf("embedded warehouse: dump statement %d (%s): %w", i+1, abbreviate(stmt, 80), err)
		}
	}
	return s.stripLargeTables(sctx, database)
}

// stripLargeTables drops keys and indexes of the loaded tables above
// keyedLoadLimit rows, so that joins over them run as hash joins.
func (s *Server) stripLargeTables(sctx *gsql.Context, database string) error {
	db, err := s.provider.Database(sctx, database)
	if err != nil {
		return fmt.Errorf("embedded warehouse: open database %q: %w", database, err)
	}
	names, err := db.GetTableNames(sctx)
	if err != nil {
		return fmt.Errorf("embedded warehouse: list tables of %q: %w", database, err)
	}
	if err := s.exec(sctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		return fmt.Errorf("embedded warehouse: %w", err)
	}
	for _, name := range names {
		tbl, ok, err := db.GetTableInsensitive(sctx, name)
		if err != nil || !ok {
			continue
		}
		st, ok := tbl.(gsql.StatisticsTable)
		if !ok {
			continue
		}
		n, _, err := st.RowCount(sctx)
		if err != nil || n <= keyedLoadLimit {
			continue
		}
		if err := s.stripKeys(sctx, db, name); err != nil {
			return err
		}
	}
	return nil
}

// stripLeadingComments drops "-- " and "/* */" comment lines before a statement.
func stripLeadingComments(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(t, "--") || strings.HasPrefix(t, "#"):
			nl := strings.IndexByte(t, '\n')
			if nl < 0 {
				return ""
			}
			s = t[nl+1:]
		case strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "/*!"):
			end := strings.Index(t, "*/")
			if end < 0 {
				return ""
			}
			s = t[end+2:]
		default:
			return t
		}
	}
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Table is a table to create from DDL and fill directly, which is far
// faster than INSERT statements for large generated data.
type Table struct {
	Name      string
	CreateSQL string
	// Rows hold Go values convertible to the column types: nil, integers,
	// floats, strings (also for DECIMAL and DATE columns), time.Time.
	Rows [][]any
}

// keyedLoadLimit is the row count above which a table loaded from a dump
// (LoadDump) is stored without keys, indexes and foreign keys; tables
// loaded with LoadTables keep theirs (see staticTable). Two costs of
// go-mysql-server's in-memory tables force this: a keyed insert compares each new row with every stored
// row (a 100k-row load takes hours), and an index lookup scans the index, so
// the optimizer's lookup joins over indexed columns take minutes where a hash
// join over unindexed tables takes milliseconds. Small tables keep their keys
// and declared foreign keys; the bot infers the joins of the large ones, as
// it must on real warehouses that declare none.
const keyedLoadLimit = 1000

// stripKeys drops the foreign keys, secondary indexes and primary key of a
// table, which must still be small (empty, or about to be filled).
func (s *Server) stripKeys(sctx *gsql.Context, db gsql.Database, name string) error {
	tbl, ok, err := db.GetTableInsensitive(sctx, name)
	if err != nil || !ok {
		return fmt.Errorf("embedded warehouse: table %s not found (%v)", name, err)
	}
	q := quoteIdent(name)
	if fkt, ok := tbl.(gsql.ForeignKeyTable); ok {
		fks, err := fkt.GetDeclaredForeignKeys(sctx)
		if err != nil {
			return fmt.Errorf("embedded warehouse: table %s: foreign keys: %w", name, err)
		}
		for _, fk := range fks {
			if err := s.exec(sctx, "ALTER TABLE "+q+" DROP FOREIGN KEY "+quoteIdent(fk.Name)); err != nil {
				return fmt.Errorf("embedded warehouse: table %s: drop foreign key %s: %w", name, fk.Name, err)
			}
		}
	}
	if it, ok := tbl.(gsql.IndexAddressableTable); ok {
		idxs, err := it.GetIndexes(sctx)
		if err != nil {
			return fmt.Errorf("embedded warehouse: table %s: indexes: %w", name, err)
		}
		for _, idx := range idxs {
			if strings.EqualFold(idx.ID(), "PRIMARY") {
				continue
			}
			if err := s.exec(sctx, "ALTER TABLE "+q+" DROP INDEX "+quoteIdent(idx.ID())); err != nil {
				return fmt.Errorf("embedded warehouse: table %s: drop index %s: %w", name, idx.ID(), err)
			}
		}
	}
	for _, c := range tbl.Schema() {
		if c.PrimaryKey {
			if err := s.exec(sctx, "ALTER TABLE "+q+" DROP PRIMARY KEY"); err != nil {
				return fmt.Errorf("embedded warehouse: table %s: drop primary key: %w", name, err)
			}
			break
		}
	}
	return nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// LoadTables creates each table with its DDL and holds its rows as a
// read-only table with working indexes (see staticTable), creating the
// database if needed. Keys, indexes and foreign keys stay as declared,
// whatever the table's size; the tables cannot be written afterwards.
func (s *Server) LoadTables(ctx context.Context, database string, tables []Table) error {
	sctx := s.newContext(ctx, "")
	if !s.provider.HasDatabase(sctx, database) {
		if err := s.CreateDatabase(ctx, database); err != nil {
			return err
		}
	}
	sctx = s.newContext(ctx, database)
	db, err := s.provider.Database(sctx, database)
	if err != nil {
		return fmt.Errorf("embedded warehouse: open database %q: %w", database, err)
	}
	mdb, ok := db.(interface{ AddTable(string, memory.MemTable) })
	if !ok {
		return fmt.Errorf("embedded warehouse: database %q is %T, not an in-memory database", database, db)
	}
	// Tables may be given in any order; their foreign keys are metadata.
	if err := s.exec(sctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		return fmt.Errorf("embedded warehouse: %w", err)
	}
	var loaded []*staticTable
	var fks []gsql.ForeignKeyConstraint
	for _, t := range tables {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("embedded warehouse: load %s: %w", t.Name, err)
		}
		if err := s.exec(sctx, t.CreateSQL); err != nil {
			return fmt.Errorf("embedded warehouse: create table %s: %w", t.Name, err)
		}
		tbl, ok, err := db.GetTableInsensitive(sctx, t.Name)
		if err != nil || !ok {
			return fmt.Errorf("embedded warehouse: table %s not found after CREATE (%v)", t.Name, err)
		}
		mt, ok := tbl.(*memory.Table)
		if !ok {
			return fmt.Errorf("embedded warehouse: table %s is %T, not an in-memory table", t.Name, tbl)
		}
		schema := mt.Schema()
		rows := make([]gsql.Row, len(t.Rows))
		for ri, r := range t.Rows {
			if len(r) != len(schema) {
				return fmt.Errorf("embedded warehouse: table %s row %d has %d values, the table has %d columns", t.Name, ri+1, len(r), len(schema))
			}
			if rows[ri], err = convertRow(sctx, schema, r); err != nil {
				return fmt.Errorf("embedded warehouse: table %s row %d: %w", t.Name, ri+1, err)
			}
		}
		st, err := newStaticTable(sctx, mt, rows)
		if err != nil {
			return fmt.Errorf("embedded warehouse: %w", err)
		}
		declared, err := mt.GetDeclaredForeignKeys(sctx)
		if err != nil {
			return fmt.Errorf("embedded warehouse: table %s: foreign keys: %w", t.Name, err)
		}
		fks = append(fks, declared...)
		mdb.AddTable(mt.Name(), st)
		loaded = append(loaded, st)
	}
	for _, st := range loaded {
		for _, fk := range fks {
			if strings.EqualFold(fk.Table, st.name) {
				st.declared = append(st.declared, fk)
			}
			if strings.EqualFold(fk.ParentTable, st.name) {
				st.referenced = append(st.referenced, fk)
			}
		}
	}
	return nil
}
