// Package sqlcmd is `bot sql`: one statement through the guarded path
// the bot uses, under a warehouse's access rules when asked.
package sqlcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/router"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Run is `bot sql`: admins check what the bot would run, through exactly
// the guarded path the bot uses; besides SELECT it runs the read-only SHOW,
// DESCRIBE and EXPLAIN statements that describe the schema, under the same
// access rules.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, configWarehouse cli.ConfigWarehouse) int {
	fs := cli.NewFlagSet("bot sql", stderr,
		"usage: bot sql (--demo [--keep | --fresh] | --dsn DSN | --config FILE [--warehouse NAME] [--as USER --channel C]) [--timeout 10s] [--max-rows 100] \"SELECT …\"",
		"       (reads the statement from stdin when none is given; SHOW TABLES, DESCRIBE t and EXPLAIN SELECT … work too)",
	)
	dsn := fs.String("dsn", "", "warehouse DSN, e.g. user:pass@tcp(host:3306)/db")
	useDemo := fs.Bool("demo", false, "run against the built-in demo warehouse")
	timeout := fs.Duration("timeout", warehouse.DefaultQueryTimeout, "time limit of the statement")
	maxRows := fs.Int("max-rows", 100, "rows to fetch (one more is read to report truncation)")
	orders := fs.Int("orders", demodata.DefaultOrders, "with --demo: how many orders to generate")
	data := fs.String("data", cli.DefaultDataDir(), "with --demo: where the cached demo warehouse's state file lives")
	keep := fs.Bool("keep", false, "with --demo: start a cached demo warehouse in the background (it exits after 15 minutes unused) so later statements start at once")
	fresh := fs.Bool("fresh", false, "with --demo: generate a warehouse for this statement even when a cached one runs")
	verbose := fs.Bool("v", false, "log progress to stderr")
	var as asOptions
	fs.StringVar(&as.config, "config", "", "YAML configuration file: run on one of its warehouses")
	fs.StringVar(&as.warehouse, "warehouse", "", "with --config: the warehouse's name (default: the first)")
	fs.StringVar(&as.user, "as", "", "with --config: apply the warehouse's access rules as this person (platform:workspace:user), on the account of their access level")
	fs.StringVar(&as.channel, "channel", "", "with --config: apply the access rules for asking in this channel (platform:workspace:channel)")
	fs.StringVar(&as.roles, "roles", "", "with --as: the person's roles, comma separated")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	if n := cli.Btoi(*useDemo) + cli.Btoi(*dsn != "") + cli.Btoi(as.config != ""); n != 1 {
		fmt.Fprintln(stderr, "bot sql: give exactly one of --demo, --dsn or --config")
		return cli.ExitUsage
	}
	if as.config == "" && (as.warehouse != "" || as.applies()) {
		fmt.Fprintln(stderr, "bot sql: --warehouse, --as, --channel and --roles need --config (the access rules are in it)")
		return cli.ExitUsage
	}
	stmt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if stmt == "" {
		// One byte more than the guard accepts: a longer statement is
		// refused whole, never cut and run.
		b, err := io.ReadAll(io.LimitReader(stdin, sqlguard.DefaultMaxLen+1))
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: read statement: %v\n", err)
			return cli.ExitFailure
		}
		if len(b) > sqlguard.DefaultMaxLen {
			fmt.Fprintf(stderr, "refused: the statement on stdin is longer than %d bytes; nothing was run\n", sqlguard.DefaultMaxLen)
			return cli.ExitRefused
		}
		stmt = strings.TrimSpace(string(b))
	}
	if stmt == "" {
		fmt.Fprintln(stderr, "bot sql: no statement given")
		return cli.ExitUsage
	}
	// Refuse before starting anything: a refusal needs no warehouse.
	if err := warehouse.GuardInspect(stmt); err != nil {
		fmt.Fprintf(stderr, "refused: %v\n", err)
		return cli.ExitRefused
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	wcfg := warehouse.Config{QueryTimeout: *timeout, MaxRows: *maxRows, Logger: logger}

	var rules access.Rules
	if as.config != "" {
		wc, err := configWarehouse(as.config, as.warehouse, logger)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return cli.ExitUsage
		}
		*useDemo, *dsn, *orders = wc.Demo, wc.DSN, wc.DemoOrders
		if as.applies() {
			if msg := router.DeniedMessage(wc.Name, wc.Rules, as.asker()); msg != "" {
				fmt.Fprintf(stderr, "refused: %s\n", msg)
				return cli.ExitRefused
			}
			// The person's access level: its rules, on its account.
			acct := cli.LevelOf(wc.Rules, wc.Accounts, as.asker())
			rules = acct.Rules
			if !wc.Demo {
				*dsn = acct.DSN
			}
			logger.Debug("access level", "level", acct.Name)
		}
		wcfg.Functions, wcfg.MaxBytes = wc.Config.Functions, wc.Config.MaxBytes
	}

	dataGiven := false
	fs.Visit(func(f *flag.Flag) { dataGiven = dataGiven || f.Name == "data" })
	var db *warehouse.DB
	// Tests use the cache only in a data directory of their own.
	if *useDemo && !*fresh && (dataGiven || !testing.Testing()) {
		// The cached demo warehouse (bot/internal/demo), started on first use.
		// Without --keep nothing is left running: a cached warehouse
		// started earlier with --keep is used, none is started.
		cached, ok := demo.OpenCached(ctx, *data, *orders, wcfg)
		if !ok && *keep {
			if err := demo.StartCache(ctx, *data, *orders, logger); err != nil {
				logger.Debug("no cached demo warehouse; generating one for this statement", "why", err)
			} else {
				cached, ok = demo.OpenCached(ctx, *data, *orders, wcfg)
			}
		}
		if ok {
			defer cached.Close()
			db = cached
		}
	}
	if *useDemo && db == nil {
		dw, err := demo.Start(ctx, logger, *orders, wcfg)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return cli.ExitFailure
		}
		defer dw.Close()
		db = dw.DB
	} else if db == nil {
		wcfg.DSN = *dsn
		var err error
		db, err = warehouse.Open(ctx, wcfg)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return cli.ExitFailure
		}
		defer db.Close()
	}
	if !rules.Empty() {
		pol, err := cli.PolicyFor(ctx, db, rules)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return cli.ExitFailure
		}
		db = db.WithPolicy(pol)
	}
	res, err := db.Inspect(ctx, stmt, warehouse.Limits{})
	if err != nil {
		if errors.Is(err, warehouse.ErrRefused) {
			fmt.Fprintf(stderr, "refused: %v\n", err)
			return cli.ExitRefused
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		return cli.ExitFailure
	}
	printResult(stdout, res)
	return cli.ExitOK
}

func printResult(w io.Writer, res *warehouse.Result) {
	header := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		header[i] = c.Name
	}
	// The bot's one number format (internal/colfmt), from the result's
	// names and types: there is no select list to read here.
	// A column without an alias is named by its expression (YEAR(ordered_at)),
	// which says what it holds as well as a name does. Values are shown
	// exactly as the warehouse returned them: this is for checking figures.
	formats := make([]colfmt.Format, len(res.Columns))
	for j, c := range res.Columns {
		formats[j] = colfmt.Detect(colfmt.Column{Name: c.Name, Type: c.Type, Expr: c.Name})
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]string, len(r))
		for j, v := range r {
			rows[i][j] = formats[j].Exact(v)
		}
	}
	fmt.Fprint(w, tables.Render(header, rows, tables.Options{MaxCellWidth: 60}))
	note := fmt.Sprintf("(%d row%s, %s)", len(res.Rows), cli.Plural(len(res.Rows)), res.Elapsed.Round(time.Millisecond))
	if res.Truncated {
		note = fmt.Sprintf("(first %d rows shown; the result has more — raise --max-rows or add a LIMIT; %s)", len(res.Rows), res.Elapsed.Round(time.Millisecond))
	}
	fmt.Fprintln(w, note)
}

// asOptions are bot sql's flags for running as someone, under the access
// rules of a configured warehouse.
type asOptions struct {
	config, warehouse, user, channel, roles string
}

func (o asOptions) applies() bool { return o.user != "" || o.channel != "" || o.roles != "" }

func (o asOptions) asker() access.Asker {
	a := access.Asker{User: o.user, Channel: o.channel}
	if o.roles != "" {
		a.Roles = strings.Split(o.roles, ",")
	}
	return a
}
