package main

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

// glossaryActor is who a glossary load is recorded as in the audit.
var glossaryActor = ontology.Actor{ID: "glossary", Admin: true}

// loadGlossary stores g as workspace facts of warehouseName for the
// workspaces given (the glossary's own when none), replacing the previous
// load of the same glossary atomically. Callers check g first
// (checkGlossary); the shipped demo glossary is checked by its tests.
func loadGlossary(ctx context.Context, facts *ontology.Store, g *glossary.Glossary, warehouseName string, workspaces []string) (ontology.ImportStats, error) {
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
	st, err := facts.ReplaceSource(ctx, g.Source(), fs, glossaryActor)
	if err != nil {
		return st, fmt.Errorf("load glossary %s: %w", g.File, err)
	}
	return st, nil
}

// checkGlossary is the full check a glossary passes before it is loaded:
// every expression runs through q, the warehouse under its access rules,
// and no value of a column the rules protect is written in it. The error
// wraps the glossary.Problems found.
func checkGlossary(ctx context.Context, q glossary.Querier, rules access.Rules, g *glossary.Glossary) error {
	problems, err := glossary.CheckWith(ctx, q, g, glossary.CheckOptions{Withholds: rules.Withholds})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("glossary %s: %w", g.File, problems)
	}
	return nil
}

// underRules is db as the glossary check sees it: with the access rules
// resolved against its schema, when there are any.
func underRules(ctx context.Context, db *warehouse.DB, rules access.Rules) (*warehouse.DB, error) {
	if rules.Empty() {
		return db, nil
	}
	pol, err := policyFor(ctx, db, rules)
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

// runGlossary is `bot glossary check|load`.
func runGlossary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printLines(stderr, glossaryUsage)
		return exitUsage
	}
	switch {
	case args[0] == "check":
		return glossaryCheck(ctx, args[1:], stdout, stderr)
	case args[0] == "load":
		return glossaryLoad(ctx, args[1:], stdout, stderr)
	case isHelp(args[0]):
		printLines(stdout, glossaryUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "bot glossary: unknown subcommand %q\n", args[0])
	printLines(stderr, glossaryUsage)
	return exitUsage
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
func (gt *glossaryTarget) open(ctx context.Context, config, name string, logger *slog.Logger) (glossary.Querier, access.Rules, func(), error) {
	var rules access.Rules
	wcfg := warehouse.Config{Logger: logger}
	useDemo, dsn, orders := gt.demo, gt.dsn, gt.orders
	if config != "" && !useDemo && dsn == "" {
		wc, err := (asOptions{config: config, warehouse: name}).warehouseConfig()
		if err != nil {
			return nil, rules, nil, err
		}
		rules, useDemo, dsn, orders = wc.Access, wc.Demo, wc.DSN, min(wc.DemoOrders, orders)
		wcfg = wc.warehouseConfig(logger)
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
	checked, err := underRules(ctx, db, rules)
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
		return nil, exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, exitFailure
	}
	return g, exitOK
}

func glossaryCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bot glossary check", stderr, glossaryUsage[0])
	var gt glossaryTarget
	gt.flags(fs)
	config := fs.String("config", "", "the bot's configuration: check against its warehouse and access rules")
	wh := fs.String("warehouse", "", "with --config: the warehouse (default: the glossary's warehouse:, else the first)")
	pos, code, ok := parseInterspersed(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 || btoi(gt.demo)+btoi(gt.dsn != "")+btoi(*config != "") != 1 {
		fmt.Fprintln(stderr, glossaryUsage[0])
		return exitUsage
	}
	g, code := readGlossary(pos[0], stdout, stderr, "bot glossary check")
	if g == nil {
		return code
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	q, rules, closeDB, err := gt.open(ctx, *config, orDefault1(*wh, g.Warehouse), logger)
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return exitFailure
	}
	defer closeDB()
	err = checkGlossary(ctx, q, rules, g)
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		fmt.Fprintf(stdout, "%d problem%s\n", len(problems), plural(len(problems)))
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s: ok (%d measures, %d dimensions, %d filters, %d terms, %d relationships, %d verified queries)\n",
		g.File, len(g.Measures), len(g.Dimensions), len(g.Filters), len(g.Terms), len(g.Relationships), len(g.Verified))
	return exitOK
}

func glossaryLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const usage = "usage: bot glossary load FILE (--config FILE | --demo | --dsn DSN) [--data DIR | --store DSN] [--warehouse NAME] [--workspace KEY]…"
	fs := newFlagSet("bot glossary load", stderr, usage)
	sel := storeSelection()
	sel.Flags(fs)
	var gt glossaryTarget
	gt.flags(fs)
	wh := fs.String("warehouse", "", "the warehouse name the facts are for (default: the glossary's warehouse:)")
	var workspaces cli.StringList
	fs.Var(&workspaces, "workspace", "owner key of a workspace it applies to, e.g. slack:T0123 (repeatable; default: the glossary's workspaces:)")
	pos, code, ok := parseInterspersed(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 || gt.demo && gt.dsn != "" {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	g, code := readGlossary(pos[0], stdout, stderr, "bot glossary load")
	if g == nil {
		return code
	}
	name := orDefault1(*wh, g.Warehouse)
	if name == "" {
		fmt.Fprintln(stderr, "bot glossary load: the glossary names no warehouse: add `warehouse:` or pass --warehouse")
		return exitUsage
	}
	if sel.ConfigFile() == "" && !gt.demo && gt.dsn == "" {
		fmt.Fprintln(stderr, "bot glossary load: the glossary is checked against its warehouse before it is loaded: give --config (the bot's, with its access rules), --dsn or --demo")
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	q, rules, closeDB, err := gt.open(ctx, sel.ConfigFile(), name, logger)
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return exitFailure
	}
	err = checkGlossary(ctx, q, rules, g)
	closeDB()
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		fmt.Fprintf(stdout, "%d problem%s: nothing was loaded; the previous load stays\n", len(problems), plural(len(problems)))
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return exitFailure
	}
	store, code := openOntology(&sel, ontology.DefaultTimeout, true, "bot glossary load", "stop it, or let it load the file: glossary: in its configuration, re-read on SIGHUP", stderr)
	if store == nil {
		return code
	}
	defer store.Close()
	st, err := loadGlossary(ctx, store, g, name, workspaces)
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s loaded into %s for %s: %d added, %d updated, %d unchanged, %d removed\n",
		g.Source(), name, strings.Join(orDefault(workspaces, g.Workspaces), ", "), st.Added, st.Updated, st.Skipped, st.Removed)
	return exitOK
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

// glossaryRef is a configured glossary: its file, the warehouse it is
// for, and that warehouse under its access rules, to check it against.
type glossaryRef struct {
	file, warehouse string
	db              glossary.Querier
	rules           access.Rules
}

// loadConfiguredGlossary checks and loads a warehouse's configured
// glossary (if any) before its stack is built, and returns its
// relationships for the catalog. A glossary that cannot be read, fails
// the check (an expression that does not run, a hidden column, a value of
// a protected one) or cannot be loaded stops the start: the team's
// meanings would otherwise silently vanish or be wrong.
func (m *Main) loadConfiguredGlossary(ctx context.Context, wc WarehouseConfig, db *warehouse.DB) ([]warehouse.Join, error) {
	if wc.Glossary == "" {
		return nil, nil
	}
	checked, err := underRules(ctx, db, wc.Access)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	ref := glossaryRef{file: wc.Glossary, warehouse: wc.Name, db: checked, rules: wc.Access}
	g, st, err := m.checkAndLoad(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	m.logger.Info("glossary loaded", "warehouse", wc.Name, "file", wc.Glossary, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
	m.glossaryMu.Lock()
	m.glossaries = append(m.glossaries, ref)
	m.glossaryMu.Unlock()
	return g.Joins(), nil
}

// checkAndLoad reads a configured glossary, runs the full check and
// loads it; on any problem nothing is stored.
func (m *Main) checkAndLoad(ctx context.Context, ref glossaryRef) (*glossary.Glossary, ontology.ImportStats, error) {
	g, err := glossary.ReadFile(ref.file)
	if err != nil {
		return nil, ontology.ImportStats{}, err
	}
	if err := checkGlossary(ctx, ref.db, ref.rules, g); err != nil {
		return nil, ontology.ImportStats{}, err
	}
	st, err := loadGlossary(ctx, m.stores.facts, g, ref.warehouse, nil)
	return g, st, err
}

// ReloadGlossaries re-reads every configured glossary (on SIGHUP) and runs
// the same full check as at start. A glossary with a problem is logged
// and its previous load stays in force; relationships take effect at the
// next start (the catalog is built once).
func (m *Main) ReloadGlossaries(ctx context.Context) error {
	var errs []error
	m.glossaryMu.Lock()
	refs := append([]glossaryRef(nil), m.glossaries...)
	m.glossaryMu.Unlock()
	for _, ref := range refs {
		_, st, err := m.checkAndLoad(ctx, ref)
		if err == nil {
			m.logger.Info("glossary reloaded", "warehouse", ref.warehouse, "file", ref.file, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
			continue
		}
		m.logger.Error("glossary not reloaded; the previous load stays", "warehouse", ref.warehouse, "file", ref.file, "err", err)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// demoGlossaryFacts loads the shipped demo glossary for the console's
// workspace (or, with load false, removes an earlier load of it, so that
// --no-glossary really means none) and returns its relationships.
func demoGlossaryFacts(ctx context.Context, facts *ontology.Store, warehouseName string, load bool) ([]warehouse.Join, error) {
	g, err := demoGlossary()
	if err != nil {
		return nil, err
	}
	if !load {
		if _, err := facts.ReplaceSource(ctx, g.Source(), nil, glossaryActor); err != nil {
			return nil, fmt.Errorf("unload the demo glossary: %w", err)
		}
		return nil, nil
	}
	if _, err := loadGlossary(ctx, facts, g, warehouseName, []string{console.Identity("").WorkspaceKey()}); err != nil {
		return nil, err
	}
	return g.Joins(), nil
}
