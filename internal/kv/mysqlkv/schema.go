package mysqlkv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clarify-bot/clarify/internal/kv"
)

// migrations[i] takes the tables from version i to i+1. Every statement is
// idempotent (IF NOT EXISTS…), because two processes starting together may
// both run a step: DDL commits implicitly in MySQL, so a step cannot be
// one transaction.
var migrations = [][]string{
	{
		`CREATE TABLE IF NOT EXISTS clarify_kv (
			ns VARBINARY(16) NOT NULL,
			bucket VARBINARY(32) NOT NULL,
			k VARBINARY(3000) NOT NULL,
			v LONGBLOB NOT NULL,
			PRIMARY KEY (ns, bucket, k)
		) ENGINE=InnoDB`,
		`CREATE TABLE IF NOT EXISTS clarify_kv_seq (
			ns VARBINARY(16) NOT NULL,
			bucket VARBINARY(32) NOT NULL,
			seq BIGINT UNSIGNED NOT NULL,
			PRIMARY KEY (ns, bucket)
		) ENGINE=InnoDB`,
		`CREATE TABLE IF NOT EXISTS clarify_lease (
			name VARBINARY(200) NOT NULL PRIMARY KEY,
			owner VARBINARY(32) NOT NULL,
			expires DATETIME(6) NOT NULL
		) ENGINE=InnoDB`,
	},
}

// SchemaVersion is the version of the tables this build writes.
var SchemaVersion = len(migrations)

// migrate creates clarify_schema and brings the tables up to
// SchemaVersion, refusing a newer version.
func (s *Server) migrate(ctx context.Context) error {
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS clarify_schema (id TINYINT NOT NULL PRIMARY KEY, version INT NOT NULL) ENGINE=InnoDB",
		"INSERT IGNORE INTO clarify_schema (id, version) VALUES (1, 0)",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create clarify_schema: %w", err)
		}
	}
	have, err := s.version(ctx)
	if err != nil {
		return err
	}
	if have > SchemaVersion {
		return fmt.Errorf("tables have schema version %d, this build knows %d: %w", have, SchemaVersion, kv.ErrSchemaNewer)
	}
	for v := have; v < SchemaVersion; v++ {
		for _, q := range migrations[v] {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("migrate tables %d → %d: %w", v, v+1, err)
			}
		}
		if _, err := s.db.ExecContext(ctx, "UPDATE clarify_schema SET version = ? WHERE id = 1 AND version < ?", v+1, v+1); err != nil {
			return fmt.Errorf("migrate tables %d → %d: %w", v, v+1, err)
		}
		s.log.Info("store tables migrated", "database", s.name, "version", v+1)
	}
	return nil
}

func (s *Server) version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "SELECT version FROM clarify_schema WHERE id = 1").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read clarify_schema: %w", err)
	}
	return v, nil
}
