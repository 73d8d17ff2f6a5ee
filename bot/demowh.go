package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// demoDatabase is the database name of the built-in demo warehouse.
const demoDatabase = "demo"

// demoWarehouse is the embedded server holding the generated demo data.
type demoWarehouse struct {
	srv *embedded.Server
	db  *warehouse.DB
}

// startDemoWarehouse starts the embedded server, loads the generated demo
// dataset through the engine's API and connects to it over the MySQL
// protocol like any warehouse.
func startDemoWarehouse(ctx context.Context, logger *slog.Logger, orders int, wcfg warehouse.Config) (*demoWarehouse, error) {
	// go-mysql-server logs each connection through a process-wide logrus
	// logger; keep its noise out of the bot's output.
	embedded.QuietEngineLogs(io.Discard, slog.LevelError)
	start := time.Now()
	srv, err := embedded.Start(ctx, logger)
	if err != nil {
		return nil, err
	}
	ds := demodata.Generate(demodata.DefaultSeed, orders)
	if err := srv.LoadTables(ctx, demoDatabase, ds.EmbeddedTables()); err != nil {
		srv.Close()
		return nil, fmt.Errorf("load demo data: %w", err)
	}
	wcfg.MySQL = srv.Config(demoDatabase)
	wcfg.Logger = logger
	db, err := warehouse.Open(ctx, wcfg)
	if err != nil {
		srv.Close()
		return nil, err
	}
	logger.Info("demo warehouse ready", "addr", srv.Addr(), "orders", orders, "took", time.Since(start).Round(time.Millisecond))
	return &demoWarehouse{srv: srv, db: db}, nil
}

// Close closes the connection pool, then the server.
func (d *demoWarehouse) Close() error {
	d.db.Close()
	return d.srv.Close()
}
