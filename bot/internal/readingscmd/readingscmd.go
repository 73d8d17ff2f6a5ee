// Package readingscmd is `bot readings`: what the offline engine made of
// a question, stage by stage, for the person looking for the stage to
// change when a reading is wrong.
package readingscmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
)

// Run is `bot readings`.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("bot readings", stderr,
		"usage: bot readings (--demo | --dsn DSN | --schema FILE) [--top 5] [--feedback TEXT] \"question\"",
		"       prints what each stage of the offline engine made of the question: the words,",
		"       what they were linked to (dialog/offline/read), the plans built (dialog/offline/plan)",
		"       and the readings proposed, with their SQL, weight and the words each leaves unused",
	)
	dsn := fs.String("dsn", "", "warehouse DSN, e.g. user:pass@tcp(host:3306)/db")
	useDemo := fs.Bool("demo", false, "read against the built-in demo warehouse")
	schemaFile := fs.String("schema", "", "a SQL dump (CREATE TABLE, INSERT) to load into the embedded server and read against")
	orders := fs.Int("orders", demodata.DefaultOrders, "with --demo: how many orders to generate")
	top := fs.Int("top", 5, "readings to show")
	feedback := fs.String("feedback", "", "feedback given after the question, read with it (\"only 2024\", \"show their city too\")")
	verbose := fs.Bool("v", false, "log progress to stderr")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	if cli.Btoi(*useDemo)+cli.Btoi(*dsn != "")+cli.Btoi(*schemaFile != "") != 1 {
		fmt.Fprintln(stderr, "bot readings: give exactly one of --demo, --dsn or --schema")
		return cli.ExitUsage
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		fmt.Fprintln(stderr, "bot readings: no question given")
		return cli.ExitUsage
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	db, closeDB, err := open(ctx, logger, *useDemo, *dsn, *schemaFile, *orders)
	if err != nil {
		fmt.Fprintf(stderr, "bot readings: %v\n", err)
		return cli.ExitFailure
	}
	defer closeDB()
	snap, err := db.TakeSnapshot(ctx, warehouse.ProfileOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "bot readings: read the schema: %v\n", err)
		return cli.ExitFailure
	}
	opts := offline.Options{Logger: logger}
	if lex, err := lexicon.Default(); err == nil {
		opts.Words = lex
	} else {
		logger.Warn("no English lexicon; ordinary words that match stored names are read as filters", "err", err)
	}
	x, err := offline.New(catalog.New(snap, catalog.Options{}), opts).Explain(ctx, request(question, *feedback))
	if err != nil {
		fmt.Fprintf(stderr, "bot readings: %v\n", err)
		return cli.ExitFailure
	}
	Print(stdout, x, *top)
	return cli.ExitOK
}

// request is the question with its feedback, if any.
func request(question, feedback string) dialog.Request {
	req := dialog.Request{Question: question}
	if feedback = strings.TrimSpace(feedback); feedback != "" {
		req.Feedback = []dialog.Feedback{{Kind: dialog.FeedbackAdd, Text: feedback}}
	}
	return req
}

// open starts or opens the warehouse to read against: the demo, a
// server, or a dump loaded into the embedded server.
func open(ctx context.Context, logger *slog.Logger, useDemo bool, dsn, schemaFile string, orders int) (*warehouse.DB, func(), error) {
	wcfg := warehouse.Config{Logger: logger}
	switch {
	case useDemo:
		dw, err := demo.Start(ctx, logger, orders, wcfg)
		if err != nil {
			return nil, nil, err
		}
		return dw.DB, func() { dw.Close() }, nil
	case schemaFile != "":
		dump, err := os.ReadFile(schemaFile)
		if err != nil {
			return nil, nil, fmt.Errorf("read the schema: %w", err)
		}
		if logger.Enabled(ctx, slog.LevelDebug) {
			embedded.QuietEngineLogs(os.Stderr, slog.LevelDebug)
		} else {
			embedded.QuietEngineLogs(io.Discard, slog.LevelError)
		}
		srv, err := embedded.Start(ctx, logger)
		if err != nil {
			return nil, nil, err
		}
		if err := srv.LoadDump(ctx, "readings", bytes.NewReader(dump)); err != nil {
			srv.Close()
			return nil, nil, fmt.Errorf("load %s: %w", schemaFile, err)
		}
		wcfg.MySQL = srv.Config("readings")
		db, err := warehouse.Open(ctx, wcfg)
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		return db, func() { db.Close(); srv.Close() }, nil
	}
	wcfg.DSN = dsn
	db, err := warehouse.Open(ctx, wcfg)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// Print writes the explanation, stage by stage, with at most top readings.
func Print(w io.Writer, x *offline.Explanation, top int) {
	fmt.Fprintf(w, "Words (token):  %s\n\n", strings.Join(x.Words, " · "))
	fmt.Fprintln(w, "Linked and read (links, read):")
	if len(x.Mentions) == 0 {
		fmt.Fprintln(w, "  nothing linked")
	}
	for _, m := range x.Mentions {
		fmt.Fprintf(w, "  %s\n", m)
	}
	fmt.Fprintf(w, "\nPlans (plan):   %d\n\n", x.Plans)
	fmt.Fprintf(w, "Readings (offline): %d\n", len(x.Candidates))
	for i, c := range x.Candidates {
		if i == top {
			fmt.Fprintf(w, "  … %d more (--top)\n", len(x.Candidates)-top)
			break
		}
		fmt.Fprintf(w, "\n  %d. weight %.3f", i+1, c.Prior)
		if len(c.Unused) > 0 {
			fmt.Fprintf(w, " · leaves unused: %s", strings.Join(c.Unused, ", "))
		}
		fmt.Fprintln(w)
		for _, line := range strings.Split(c.SQL, "\n") {
			fmt.Fprintf(w, "     %s\n", line)
		}
	}
}
