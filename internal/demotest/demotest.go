// Package demotest builds the demo warehouse for tests: embedded server,
// generated data (a small order count keeps tests quick), snapshot and
// catalog, all cleaned up with the test.
package demotest

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// Demo is a running demo warehouse.
type Demo struct {
	Server   *embedded.Server
	DB       *warehouse.DB
	Snapshot *warehouse.Snapshot
	Catalog  *catalog.Catalog
}

// Start loads the demo dataset with the given number of orders.
func Start(tb testing.TB, orders int) *Demo {
	tb.Helper()
	testwh.Quiet()
	ctx := context.Background()
	srv, err := embedded.Start(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	if err := srv.LoadTables(ctx, "demo", demodata.Generate(demodata.DefaultSeed, orders).EmbeddedTables()); err != nil {
		tb.Fatal(err)
	}
	db, err := warehouse.Open(ctx, warehouse.Config{MySQL: srv.Config("demo")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	snap, err := db.TakeSnapshot(ctx, warehouse.ProfileOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return &Demo{Server: srv, DB: db, Snapshot: snap, Catalog: catalog.New(snap, catalog.Options{})}
}
