package main

import (
	"flag"
	"io"
	"os"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/cli"
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
