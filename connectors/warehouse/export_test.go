package warehouse

import (
	"context"
	"database/sql"
)

// Conn hands a test one of the pool's connections, to change its session
// behind the warehouse's back.
func (w *DB) Conn(ctx context.Context) (*sql.Conn, error) { return w.db.Conn(ctx) }

// ReadingMode exposes readingMode to the tests.
var ReadingMode = readingMode

// MemoryParams exposes memoryParams to the tests.
var MemoryParams = memoryParams

// StableOrder is stableOrder on a server of flavor f.
func StableOrder(f Flavor, cols ...string) string { return (&DB{flavor: f}).stableOrder(cols...) }
