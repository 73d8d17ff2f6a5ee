package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/accesscmd"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/sqlcmd"
	"github.com/clarify-bot/clarify/ontology"
)

// The subcommands' shared helpers (bot/internal/cli) under the names the
// files of this package use.

func newFlagSet(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	return cli.NewFlagSet(name, stderr, usage...)
}

func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	return cli.ParseFlags(fs, args, stdout)
}

func parseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	return cli.ParseInterspersed(fs, args, stdout)
}

func isHelp(arg string) bool                 { return cli.IsHelp(arg) }
func printLines(w io.Writer, lines []string) { cli.PrintLines(w, lines) }
func defaultDataDir() string                 { return cli.DefaultDataDir() }
func validateStoreDSN(dsn string) error      { return cli.ValidateStoreDSN(dsn) }

// File names inside the data directory.
const (
	ontologyFile      = cli.OntologyFile
	conversationsFile = cli.ConversationsFile
)

// storeSelection is how the admin commands find the store; --config reads
// the bot's configuration.
func storeSelection() cli.StoreSelection { return cli.StoreSelection{Config: configStore} }

// configStore reads the data directory and store DSN of a configuration.
func configStore(path string) (dataDir, dsn string, err error) {
	cfg, err := LoadConfig(path, os.Getenv)
	if err != nil {
		return "", "", err
	}
	return cfg.DataDir, cfg.Store.DSN, nil
}

func openOntology(sel *cli.StoreSelection, wait time.Duration, create bool, cmd, busy string, stderr io.Writer) (*ontology.Store, int) {
	return cli.OpenOntology(sel, wait, create, cmd, busy, stderr)
}

// configWarehouse is the named (or first) warehouse of the configuration
// at path.
func configWarehouse(path, name string) (WarehouseConfig, error) {
	cfg, err := LoadConfig(path, os.Getenv)
	if err != nil {
		return WarehouseConfig{}, err
	}
	if name == "" {
		return cfg.Warehouses[0], nil
	}
	for _, w := range cfg.Warehouses {
		if w.Name == name {
			return w, nil
		}
	}
	return WarehouseConfig{}, fmt.Errorf("the configuration has no warehouse called %q", name)
}

// cliWarehouse is that warehouse as the subcommands use it.
func cliWarehouse(path, name string, logger *slog.Logger) (cli.Warehouse, error) {
	wc, err := configWarehouse(path, name)
	if err != nil {
		return cli.Warehouse{}, err
	}
	return cli.Warehouse{Name: wc.Name, Demo: wc.Demo, DemoOrders: wc.DemoOrders, DSN: wc.DSN, Rules: wc.Access,
		Accounts: wc.Accounts(), Config: wc.DBConfig(logger)}, nil
}

// runSQL is `bot sql` (bot/internal/sqlcmd).
func runSQL(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return sqlcmd.Run(ctx, args, stdin, stdout, stderr, cliWarehouse)
}

// runAccess is `bot access grants` (bot/internal/accesscmd).
func runAccess(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return accesscmd.Run(ctx, args, stdin, stdout, stderr, cliWarehouse, os.Getenv)
}
