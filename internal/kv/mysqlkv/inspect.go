package mysqlkv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Inspection is what Inspect found on a store's server.
type Inspection struct {
	// ServerVersion is what SELECT VERSION() says.
	ServerVersion string
	// Schema is the tables' schema version (0: no tables yet) and Known
	// the version this build writes.
	Schema, Known int
	// Writable reports that a write to the store's tables succeeded (and
	// was rolled back); false when there are no tables yet to try.
	Writable bool
}

// Inspect connects to the store's database without creating or changing
// anything: it reads the server version and the tables' schema version,
// and proves the account can write by inserting a lease row inside a
// transaction it rolls back. It is for `bot doctor`.
func Inspect(ctx context.Context, dsn string) (Inspection, error) {
	var in Inspection
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return in, fmt.Errorf("store dsn: %w", err)
	}
	if cfg.DBName == "" {
		return in, errors.New("store dsn: name a database (…/clarify)")
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return in, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	in.Known = SchemaVersion
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&in.ServerVersion); err != nil {
		return in, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	err = db.QueryRowContext(ctx, "SELECT version FROM clarify_schema WHERE id = 1").Scan(&in.Schema)
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == 1146, errors.Is(err, sql.ErrNoRows): // no such table: a new store
		return in, nil
	case err != nil:
		return in, fmt.Errorf("store %s: read the schema version: %w", cfg.DBName, err)
	}
	if in.Schema == 0 {
		return in, nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return in, fmt.Errorf("store %s: %w", cfg.DBName, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "INSERT INTO clarify_lease (name, owner, expires) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE owner = owner",
		"doctor-write-probe", "doctor", time.Now().UTC())
	if err != nil {
		return in, fmt.Errorf("store %s: the account cannot write the store's tables: %w", cfg.DBName, err)
	}
	in.Writable = true
	return in, nil
}
