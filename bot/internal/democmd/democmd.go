// Package democmd is `bot demo`: the embedded demo warehouse, its team
// glossary and a chat on the terminal, with the admin console on request.
package democmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/adapters/console"
	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// demoExamples are questions the demo data answers, each ambiguous in its own way.
var demoExamples = []string{
	"what was revenue in 2024?",
	"how many orders from Texas in 2024?",
	"list customers in Ohio",
	"who is our best customer?",
	"which region had the highest revenue in 2025?",
}

// Run is `bot demo`: the embedded demo warehouse and a console chat.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("bot demo", stderr,
		"usage: bot demo [--user NAME] [--data DIR] [--orders N] [--admin] [--admin-web [--admin-addr HOST:PORT]] [--locale TAG] [--no-glossary] [-v]",
		"Starts the embedded demo warehouse and a chat on this terminal; pipe questions in to script it.",
	)
	who := fs.String("user", defaultUserName(), "who is asking (each person has their own preferences)")
	data := fs.String("data", cli.DefaultDataDir(), "where preferences and conversations are kept")
	orders := fs.Int("orders", demodata.DefaultOrders, "how many orders the generated demo warehouse holds")
	admin := fs.Bool("admin", false, "act as an admin (review other people's preferences)")
	locale := fs.String("locale", "", "write numbers for this locale, e.g. de-DE (default en-US)")
	refresh := fs.Bool("refresh", false, "profile the warehouse again instead of using the cached snapshot")
	verbose := fs.Bool("v", false, "log to stderr")
	noGlossary := fs.Bool("no-glossary", false, "do not load the demo's team glossary (connectors/demodata/glossary.yml)")
	adminWeb := fs.Bool("admin-web", false, "also serve the admin console and print a sign-in link (implies --admin)")
	adminAddr := fs.String("admin-addr", "127.0.0.1:0", "with --admin-web: the address the admin console listens on")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	logger, closeLog, err := demoLogger(*data, *verbose, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}
	defer closeLog()

	fmt.Fprintln(stdout, "Starting the demo warehouse (a small company: customers, orders, products, shipments)…")
	dw, err := demo.Start(ctx, logger, *orders, warehouse.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}
	defer dw.Close()
	stores, err := stack.OpenStores(*data, logger)
	if err != nil {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}
	defer stores.Close()
	whName := fmt.Sprintf("demo-%d", *orders)
	joins, err := glossarycmd.DemoFacts(ctx, stores.Facts, whName, !*noGlossary)
	if err != nil {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}
	st, err := stack.New(ctx, dw.DB, stores, stack.Options{WarehouseName: whName, DataDir: *data, RefreshProfile: *refresh, Profile: demo.ProfileOptions(), Joins: joins, Logger: logger, Audit: true})
	if err != nil {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}

	var adminLink func(ctx context.Context) (string, error)
	if *adminWeb {
		*admin = true
		link, stop, err := adminweb.StartDemo(ctx, *adminAddr, *data, stores.Facts, st.AdminWarehouse(), *who, logger)
		if err != nil {
			fmt.Fprintf(stderr, "bot demo: %v\n", err)
			return cli.ExitFailure
		}
		defer stop()
		adminLink = link
		first, err := link(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "bot demo: %v\n", err)
			return cli.ExitFailure
		}
		fmt.Fprintf(stdout, "Admin console: %s\n(the link works once, for 10 minutes; type 'admin' for a new one)\n", first)
	}

	in, interactive := stdin, false
	if f, ok := stdin.(*os.File); ok {
		interactive = console.IsTerminal(f)
	}
	c := console.New(st.Manager, in, stdout, console.Options{
		User: *who, Admin: *admin, Interactive: interactive, Examples: demoExamples, Logger: logger,
		Session:   strconv.FormatInt(time.Now().UnixNano(), 36),
		ChartDir:  filepath.Join(*data, "charts"),
		FileDir:   filepath.Join(*data, "exports"),
		Locale:    *locale,
		Banner:    "Clarify demo — embedded warehouse, offline engine (no model, no network).",
		AdminLink: adminLink,
		AdminOff:  "The admin console is not started. Start the demo with --admin-web (go run ./bot demo --admin-web), then type 'admin' for a sign-in link.",
		// An open question survives a restart, as in chat.
		Store: console.FileSession(filepath.Join(*data, "console-"+fileSafe(*who)+".json")),
	})
	if err := c.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "bot demo: %v\n", err)
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// fileSafe makes a person's name usable in a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

func defaultUserName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return strings.ToLower(u.Username)
	}
	return "you"
}

// demoLogger writes to <data>/clarify.log, or to stderr with -v, so logs do
// not interleave with the chat.
func demoLogger(dataDir string, verbose bool, stderr io.Writer) (*slog.Logger, func(), error) {
	if verbose {
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug})), func() {}, nil
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("data directory %s: %w", dataDir, err)
	}
	f, err := os.OpenFile(filepath.Join(dataDir, "clarify.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})), func() { f.Close() }, nil
}
