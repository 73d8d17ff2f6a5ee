// Package demo runs the built-in demo warehouse: generated data in an
// embedded MySQL server, and the cached background process behind
// `bot sql --demo` (`bot demo-warehouse`).
package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Database is the database name of the built-in demo warehouse.
const Database = "demo"

// CacheOptions keep the demo's results in memory: its generated data
// never change while the bot runs, and the dialog runs the same readings
// again at each clarification and once more for the answer. 512 results of
// at most 1,000 rows stay within tens of megabytes.
func CacheOptions() warehouse.CacheOptions { return warehouse.CacheOptions{Entries: 512} }

// ProfileOptions profile the demo from a sample of its large tables:
// their few-valued columns show every value well within 25,000 rows, and
// the first start of the demo stays under two seconds.
func ProfileOptions() warehouse.ProfileOptions {
	return warehouse.ProfileOptions{SampleRows: 25_000}
}

// gcPercentDemo lets the heap grow four times past the live data between
// collections instead of once: the embedded engine allocates for every row
// it reads, and with hundreds of megabytes of tables live the default
// spent a quarter to a third of a query's CPU time collecting garbage.
const gcPercentDemo = 400

// Warehouse is the embedded server holding the generated demo data.
type Warehouse struct {
	// Srv is the embedded server; DB the pool connected to it.
	Srv *embedded.Server
	DB  *warehouse.DB
	// gcPercent is the setting to restore on Close; -2 when untouched.
	gcPercent int
}

// Start starts the embedded server, loads the generated demo
// dataset through the engine's API and connects to it over the MySQL
// protocol like any warehouse.
func Start(ctx context.Context, logger *slog.Logger, orders int, wcfg warehouse.Config) (*Warehouse, error) {
	// go-mysql-server logs each connection through a process-wide logrus
	// logger; keep its noise out of the bot's output.
	embedded.QuietEngineLogs(io.Discard, slog.LevelError)
	gcPercent := -2
	if _, set := os.LookupEnv("GOGC"); !set {
		gcPercent = debug.SetGCPercent(gcPercentDemo)
	}
	restoreGC := func() {
		if gcPercent != -2 {
			debug.SetGCPercent(gcPercent)
		}
	}
	start := time.Now()
	srv, err := embedded.Start(ctx, logger)
	if err != nil {
		restoreGC()
		return nil, err
	}
	ds := demodata.Generate(demodata.DefaultSeed, orders)
	if err := srv.LoadTables(ctx, Database, ds.EmbeddedTables()); err != nil {
		srv.Close()
		restoreGC()
		return nil, fmt.Errorf("load demo data: %w", err)
	}
	wcfg.MySQL = srv.Config(Database)
	wcfg.Logger = logger
	wcfg.Cache = CacheOptions()
	db, err := warehouse.Open(ctx, wcfg)
	if err != nil {
		srv.Close()
		restoreGC()
		return nil, err
	}
	logger.Info("demo warehouse ready", "addr", srv.Addr(), "orders", orders, "took", time.Since(start).Round(time.Millisecond))
	return &Warehouse{Srv: srv, DB: db, gcPercent: gcPercent}, nil
}

// Close closes the connection pool, then the server, and restores the
// garbage collector's setting.
func (d *Warehouse) Close() error {
	d.DB.Close()
	err := d.Srv.Close()
	if d.gcPercent != -2 {
		debug.SetGCPercent(d.gcPercent)
	}
	return err
}
