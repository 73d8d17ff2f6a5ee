// Package glossarycmd is `bot glossary check|load`, and the check and
// load of a team glossary the running bot uses too.
package glossarycmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/clarify-bot/clarify/adapters/console"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// actor is who a glossary load is recorded as in the audit.
var actor = ontology.Actor{ID: "glossary", Admin: true}

// Load stores g as workspace facts of warehouseName for the
// workspaces given (the glossary's own when none), replacing the previous
// load of the same glossary atomically. Callers check g first
// (Check); the shipped demo glossary is checked by its tests.
func Load(ctx context.Context, facts *ontology.Store, g *glossary.Glossary, warehouseName string, workspaces []string) (ontology.ImportStats, error) {
	if len(workspaces) == 0 {
		workspaces = g.Workspaces
	}
	if len(workspaces) == 0 {
		return ontology.ImportStats{}, fmt.Errorf("glossary %s names no workspaces: add `workspaces: [\"slack:T0123\"]` or pass --workspace", g.File)
	}
	fs, problems := glossary.Facts(g, glossary.Target{Warehouse: warehouseName, Workspaces: workspaces})
	if len(problems) > 0 {
		return ontology.ImportStats{}, fmt.Errorf("glossary %s: %w", g.File, problems)
	}
	st, err := facts.ReplaceSource(ctx, g.Source(), fs, actor)
	if err != nil {
		return st, fmt.Errorf("load glossary %s: %w", g.File, err)
	}
	return st, nil
}

// Check is the full check a glossary passes before it is loaded:
// every expression runs through q, the warehouse under its access rules,
// and no value of a column the rules protect is written in it. The error
// wraps the glossary.Problems found.
func Check(ctx context.Context, q glossary.Querier, rules access.Rules, g *glossary.Glossary) error {
	problems, err := glossary.CheckWith(ctx, q, g, glossary.CheckOptions{Withholds: rules.Withholds})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("glossary %s: %w", g.File, problems)
	}
	return nil
}

// UnderRules is db as the glossary check sees it: with the access rules
// resolved against its schema, when there are any.
func UnderRules(ctx context.Context, db *warehouse.DB, rules access.Rules) (*warehouse.DB, error) {
	if rules.Empty() {
		return db, nil
	}
	pol, err := cli.PolicyFor(ctx, db, rules)
	if err != nil {
		return nil, err
	}
	return db.WithPolicy(pol), nil
}

// demoGlossary is the shipped glossary of the demo warehouse.
func demoGlossary() (*glossary.Glossary, error) {
	return glossary.Parse(demodata.GlossaryFile, demodata.Glossary)
}

// glossaryUsage is the usage of `bot glossary`.
var glossaryUsage = []string{
	"usage: bot glossary check FILE (--config FILE [--warehouse NAME] | --demo | --dsn DSN)",
	"       bot glossary load FILE (--config FILE | --demo | --dsn DSN) [--data DIR] [--warehouse NAME] [--workspace KEY]…",
	"check compiles every expression into a SELECT and runs it through the read-only guard and the",
	"warehouse's access rules (with --config); load runs the same check, then stores the glossary as",
	"workspace facts, replacing its previous load; a glossary with a problem leaves the previous load in place.",
}

// Deps are what `bot glossary` reads the bot's configuration with.
type Deps struct {
	// Store finds the store of --config.
	Store cli.ConfigStore
	// Warehouse reads a warehouse of --config.
	Warehouse cli.ConfigWarehouse
}

// Run is `bot glossary check|load`.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, deps Deps) int {
	if len(args) == 0 {
		cli.PrintLines(stderr, glossaryUsage)
		return cli.ExitUsage
	}
	switch {
	case args[0] == "check":
		return check(ctx, args[1:], stdout, stderr, deps)
	case args[0] == "load":
		return load(ctx, args[1:], stdout, stderr, deps)
	case cli.IsHelp(args[0]):
		cli.PrintLines(stdout, glossaryUsage)
		return cli.ExitOK
	}
	fmt.Fprintf(stderr, "bot glossary: unknown subcommand %q\n", args[0])
	cli.PrintLines(stderr, glossaryUsage)
	return cli.ExitUsage
}

// glossaryTarget is the warehouse a glossary command checks against:
// --config's (with its access rules), --dsn's or the demo.
type glossaryTarget struct {
	dsn    string
	demo   bool
	orders int
}

func (gt *glossaryTarget) flags(fs *flag.FlagSet) {
	fs.StringVar(&gt.dsn, "dsn", "", "warehouse DSN, e.g. user:pass@tcp(host:3306)/db (no access rules)")
	fs.BoolVar(&gt.demo, "demo", false, "check against the built-in demo warehouse")
	fs.IntVar(&gt.orders, "orders", 2000, "with --demo: how many orders to generate (the check needs the schema, not the volume)")
}

// open opens the warehouse to check g against and returns it under the
// access rules that apply, with a function that closes it. name is the
// configured warehouse (with --config).
func (gt *glossaryTarget) open(ctx context.Context, config, name string, logger *slog.Logger, configWarehouse cli.ConfigWarehouse) (glossary.Querier, access.Rules, func(), error) {
	var rules access.Rules
	wcfg := warehouse.Config{Logger: logger}
	useDemo, dsn, orders := gt.demo, gt.dsn, gt.orders
	if config != "" && !useDemo && dsn == "" {
		wc, err := configWarehouse(config, name, logger)
		if err != nil {
			return nil, rules, nil, err
		}
		rules, useDemo, dsn, orders = wc.Rules, wc.Demo, wc.DSN, min(wc.DemoOrders, orders)
		wcfg = wc.Config
	}
	if useDemo == (dsn != "") {
		return nil, rules, nil, errors.New("give the warehouse to check against: --config FILE (the bot's, with its access rules), --dsn DSN or --demo")
	}
	var db *warehouse.DB
	closeDB := func() {}
	if useDemo {
		dw, err := demo.Start(ctx, logger, orders, wcfg)
		if err != nil {
			return nil, rules, nil, err
		}
		db, closeDB = dw.DB, func() { dw.Close() }
	} else {
		wcfg.DSN = dsn
		var err error
		if db, err = warehouse.Open(ctx, wcfg); err != nil {
			return nil, rules, nil, err
		}
		closeDB = func() { db.Close() }
	}
	checked, err := UnderRules(ctx, db, rules)
	if err != nil {
		closeDB()
		return nil, rules, nil, err
	}
	return checked, rules, closeDB, nil
}

// readGlossary reads FILE and prints its parse problems.
func readGlossary(path string, stdout, stderr io.Writer, cmd string) (*glossary.Glossary, int) {
	g, err := glossary.ReadFile(path)
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return nil, cli.ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, cli.ExitFailure
	}
	return g, cli.ExitOK
}

func check(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	fs := cli.NewFlagSet("bot glossary check", stderr, glossaryUsage[0])
	var gt glossaryTarget
	gt.flags(fs)
	config := fs.String("config", "", "the bot's configuration: check against its warehouse and access rules")
	wh := fs.String("warehouse", "", "with --config: the warehouse (default: the glossary's warehouse:, else the first)")
	pos, code, ok := cli.ParseInterspersed(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 || cli.Btoi(gt.demo)+cli.Btoi(gt.dsn != "")+cli.Btoi(*config != "") != 1 {
		fmt.Fprintln(stderr, glossaryUsage[0])
		return cli.ExitUsage
	}
	g, code := readGlossary(pos[0], stdout, stderr, "bot glossary check")
	if g == nil {
		return code
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	q, rules, closeDB, err := gt.open(ctx, *config, orDefault1(*wh, g.Warehouse), logger, deps.Warehouse)
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return cli.ExitFailure
	}
	defer closeDB()
	err = Check(ctx, q, rules, g)
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		fmt.Fprintf(stdout, "%d problem%s\n", len(problems), cli.Plural(len(problems)))
		return cli.ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return cli.ExitFailure
	}
	fmt.Fprintf(stdout, "%s: ok (%d measures, %d dimensions, %d filters, %d terms, %d relationships, %d verified queries)\n",
		g.File, len(g.Measures), len(g.Dimensions), len(g.Filters), len(g.Terms), len(g.Relationships), len(g.Verified))
	return cli.ExitOK
}

func load(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	const usage = "usage: bot glossary load FILE (--config FILE | --demo | --dsn DSN) [--data DIR | --store DSN] [--warehouse NAME] [--workspace KEY]…"
	fs := cli.NewFlagSet("bot glossary load", stderr, usage)
	sel := cli.StoreSelection{Config: deps.Store}
	sel.Flags(fs)
	var gt glossaryTarget
	gt.flags(fs)
	wh := fs.String("warehouse", "", "the warehouse name the facts are for (default: the glossary's warehouse:)")
	var workspaces cli.StringList
	fs.Var(&workspaces, "workspace", "owner key of a workspace it applies to, e.g. slack:T0123 (repeatable; default: the glossary's workspaces:)")
	pos, code, ok := cli.ParseInterspersed(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 || gt.demo && gt.dsn != "" {
		fmt.Fprintln(stderr, usage)
		return cli.ExitUsage
	}
	g, code := readGlossary(pos[0], stdout, stderr, "bot glossary load")
	if g == nil {
		return code
	}
	name := orDefault1(*wh, g.Warehouse)
	if name == "" {
		fmt.Fprintln(stderr, "bot glossary load: the glossary names no warehouse: add `warehouse:` or pass --warehouse")
		return cli.ExitUsage
	}
	if sel.ConfigFile() == "" && !gt.demo && gt.dsn == "" {
		fmt.Fprintln(stderr, "bot glossary load: the glossary is checked against its warehouse before it is loaded: give --config (the bot's, with its access rules), --dsn or --demo")
		fmt.Fprintln(stderr, usage)
		return cli.ExitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	q, rules, closeDB, err := gt.open(ctx, sel.ConfigFile(), name, logger, deps.Warehouse)
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return cli.ExitFailure
	}
	err = Check(ctx, q, rules, g)
	closeDB()
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		fmt.Fprintf(stdout, "%d problem%s: nothing was loaded; the previous load stays\n", len(problems), cli.Plural(len(problems)))
		return cli.ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return cli.ExitFailure
	}
	store, code := cli.OpenOntology(&sel, ontology.DefaultTimeout, true, "bot glossary load", "stop it, or let it load the file: glossary: in its configuration, re-read on SIGHUP", stderr)
	if store == nil {
		return code
	}
	defer store.Close()
	st, err := Load(ctx, store, g, name, workspaces)
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return cli.ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return cli.ExitFailure
	}
	fmt.Fprintf(stdout, "%s loaded into %s for %s: %d added, %d updated, %d unchanged, %d removed\n",
		g.Source(), name, strings.Join(orDefault(workspaces, g.Workspaces), ", "), st.Added, st.Updated, st.Skipped, st.Removed)
	return cli.ExitOK
}

func orDefault1(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func orDefault(a, b []string) []string {
	if len(a) > 0 {
		return a
	}
	return b
}

// DemoFacts loads the shipped demo glossary for the console's
// workspace (or, with load false, removes an earlier load of it, so that
// --no-glossary really means none) and returns its relationships.
func DemoFacts(ctx context.Context, facts *ontology.Store, warehouseName string, load bool) ([]warehouse.Join, error) {
	g, err := demoGlossary()
	if err != nil {
		return nil, err
	}
	if !load {
		if _, err := facts.ReplaceSource(ctx, g.Source(), nil, actor); err != nil {
			return nil, fmt.Errorf("unload the demo glossary: %w", err)
		}
		return nil, nil
	}
	if _, err := Load(ctx, facts, g, warehouseName, []string{console.Identity("").WorkspaceKey()}); err != nil {
		return nil, err
	}
	return g.Joins(), nil
}
