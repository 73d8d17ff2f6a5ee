package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/tables"
)

// runSQL is `bot sql`: admins check what the bot would run, through exactly
// the guarded path the bot uses.
func runSQL(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bot sql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("dsn", "", "warehouse DSN, e.g. user:pass@tcp(host:3306)/db")
	demo := fs.Bool("demo", false, "run against the built-in demo warehouse")
	timeout := fs.Duration("timeout", warehouse.DefaultQueryTimeout, "time limit of the statement")
	maxRows := fs.Int("max-rows", 100, "rows to fetch (one more is read to report truncation)")
	orders := fs.Int("orders", demodata.DefaultOrders, "with --demo: how many orders to generate")
	verbose := fs.Bool("v", false, "log progress to stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot sql (--demo | --dsn DSN) [--timeout 10s] [--max-rows 100] \"SELECT …\"")
		fmt.Fprintln(stderr, "       (reads the statement from stdin when none is given)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *demo == (*dsn != "") {
		fmt.Fprintln(stderr, "bot sql: give exactly one of --demo or --dsn")
		return exitUsage
	}
	stmt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if stmt == "" {
		b, err := io.ReadAll(io.LimitReader(stdin, 1<<20+1))
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: read statement: %v\n", err)
			return exitFailure
		}
		stmt = strings.TrimSpace(string(b))
	}
	if stmt == "" {
		fmt.Fprintln(stderr, "bot sql: no statement given")
		return exitUsage
	}
	// Refuse before starting anything: a refusal needs no warehouse.
	if err := warehouse.Guard(stmt); err != nil {
		fmt.Fprintf(stderr, "refused: %v\n", err)
		return exitRefused
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	wcfg := warehouse.Config{QueryTimeout: *timeout, MaxRows: *maxRows, Logger: logger}

	var db *warehouse.DB
	if *demo {
		dw, err := startDemoWarehouse(ctx, logger, *orders, wcfg)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return exitFailure
		}
		defer dw.Close()
		db = dw.db
	} else {
		wcfg.DSN = *dsn
		var err error
		db, err = warehouse.Open(ctx, wcfg)
		if err != nil {
			fmt.Fprintf(stderr, "bot sql: %v\n", err)
			return exitFailure
		}
		defer db.Close()
	}
	res, err := db.Query(ctx, stmt, warehouse.Limits{})
	if err != nil {
		if errors.Is(err, warehouse.ErrRefused) {
			fmt.Fprintf(stderr, "refused: %v\n", err)
			return exitRefused
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailure
	}
	printResult(stdout, res)
	return exitOK
}

func printResult(w io.Writer, res *warehouse.Result) {
	header := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		header[i] = c.Name
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]string, len(r))
		for j, v := range r {
			rows[i][j] = tables.Format(v, res.Columns[j].Name)
		}
	}
	fmt.Fprint(w, tables.Render(header, rows, tables.Options{MaxCellWidth: 60}))
	note := fmt.Sprintf("(%d row%s, %s)", len(res.Rows), plural(len(res.Rows)), res.Elapsed.Round(time.Millisecond))
	if res.Truncated {
		note = fmt.Sprintf("(first %d rows shown; the result has more — raise --max-rows or add a LIMIT; %s)", len(res.Rows), res.Elapsed.Round(time.Millisecond))
	}
	fmt.Fprintln(w, note)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
