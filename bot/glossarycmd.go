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
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// glossaryActor is who a glossary load is recorded as in the audit.
var glossaryActor = ontology.Actor{ID: "glossary", Admin: true}

// consoleWorkspace is the owner key of the console's (the demo's) workspace.
const consoleWorkspace = console.Platform + ":" + console.Workspace

// loadGlossary stores g as workspace facts of warehouseName for the
// workspaces given (the glossary's own when none), replacing the previous
// load of the same glossary atomically.
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

// demoGlossary is the shipped glossary of the demo warehouse.
func demoGlossary() (*glossary.Glossary, error) {
	return glossary.Parse(demodata.GlossaryFile, demodata.Glossary)
}

// runGlossary is `bot glossary check|load`.
func runGlossary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintln(stderr, "usage: bot glossary check FILE (--demo | --dsn DSN)")
		fmt.Fprintln(stderr, "       bot glossary load FILE [--data DIR] [--warehouse NAME] [--workspace KEY]…")
		fmt.Fprintln(stderr, "check compiles every expression into a SELECT and runs it through the read-only guard;")
		fmt.Fprintln(stderr, "load stores the glossary as workspace facts, replacing its previous load (bot stopped).")
	}
	if len(args) == 0 {
		usage()
		return exitUsage
	}
	switch args[0] {
	case "check":
		return glossaryCheck(ctx, args[1:], stdout, stderr)
	case "load":
		return glossaryLoad(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		usage()
		return exitOK
	}
	fmt.Fprintf(stderr, "bot glossary: unknown subcommand %q\n", args[0])
	usage()
	return exitUsage
}

// parseInterspersed parses flags that may come before or after the
// positional arguments ("check FILE --demo").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func glossaryCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bot glossary check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("dsn", "", "warehouse DSN, e.g. user:pass@tcp(host:3306)/db")
	demo := fs.Bool("demo", false, "check against the built-in demo warehouse")
	orders := fs.Int("orders", 2000, "with --demo: how many orders to generate (the check needs the schema, not the volume)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 || *demo == (*dsn != "") {
		fmt.Fprintln(stderr, "usage: bot glossary check FILE (--demo | --dsn DSN)")
		return exitUsage
	}
	g, err := glossary.ReadFile(pos[0])
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return exitFailure
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var db *warehouse.DB
	if *demo {
		dw, err := startDemoWarehouse(ctx, logger, *orders, warehouse.Config{})
		if err != nil {
			fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
			return exitFailure
		}
		defer dw.Close()
		db = dw.db
	} else {
		db, err = warehouse.Open(ctx, warehouse.Config{DSN: *dsn, Logger: logger})
		if err != nil {
			fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
			return exitFailure
		}
		defer db.Close()
	}
	problems, err = glossary.Check(ctx, db, g)
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary check: %v\n", err)
		return exitFailure
	}
	if len(problems) > 0 {
		fmt.Fprintln(stdout, problems.Error())
		fmt.Fprintf(stdout, "%d problem%s\n", len(problems), plural(len(problems)))
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s: ok (%d measures, %d dimensions, %d filters, %d terms, %d relationships, %d verified queries)\n",
		g.File, len(g.Measures), len(g.Dimensions), len(g.Filters), len(g.Terms), len(g.Relationships), len(g.Verified))
	return exitOK
}

func glossaryLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bot glossary load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sel storeSelection
	sel.flags(fs)
	wh := fs.String("warehouse", "", "the warehouse name the facts are for (default: the glossary's warehouse:)")
	var workspaces stringList
	fs.Var(&workspaces, "workspace", "owner key of a workspace it applies to, e.g. slack:T0123 (repeatable; default: the glossary's workspaces:)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: bot glossary load FILE [--data DIR | --store DSN | --config FILE] [--warehouse NAME] [--workspace KEY]…")
		return exitUsage
	}
	g, err := glossary.ReadFile(pos[0])
	var problems glossary.Problems
	if errors.As(err, &problems) {
		fmt.Fprintln(stdout, problems.Error())
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot glossary load: %v\n", err)
		return exitFailure
	}
	name := *wh
	if name == "" {
		name = g.Warehouse
	}
	if name == "" {
		fmt.Fprintln(stderr, "bot glossary load: the glossary names no warehouse: add `warehouse:` or pass --warehouse")
		return exitUsage
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

func orDefault(a, b []string) []string {
	if len(a) > 0 {
		return a
	}
	return b
}

// glossaryRef is a configured glossary: its file and the warehouse it is for.
type glossaryRef struct {
	file, warehouse string
}

// loadConfiguredGlossary reads and loads a warehouse's configured
// glossary (if any) before its stack is built, and returns its
// relationships for the catalog. A glossary that cannot be read or loaded
// stops the start: the team's meanings would otherwise silently vanish.
func (m *Main) loadConfiguredGlossary(ctx context.Context, wc WarehouseConfig) ([]warehouse.Join, error) {
	if wc.Glossary == "" {
		return nil, nil
	}
	g, err := glossary.ReadFile(wc.Glossary)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	st, err := loadGlossary(ctx, m.stores.facts, g, wc.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", wc.Name, err)
	}
	m.logger.Info("glossary loaded", "warehouse", wc.Name, "file", wc.Glossary, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
	m.glossaries = append(m.glossaries, glossaryRef{file: wc.Glossary, warehouse: wc.Name})
	return g.Joins(), nil
}

// ReloadGlossaries re-reads every configured glossary (on SIGHUP). A
// glossary with problems is logged and its previous load stays in force;
// relationships take effect at the next start (the catalog is built once).
func (m *Main) ReloadGlossaries(ctx context.Context) error {
	var errs []error
	for _, ref := range m.glossaries {
		g, err := glossary.ReadFile(ref.file)
		if err == nil {
			var st ontology.ImportStats
			st, err = loadGlossary(ctx, m.stores.facts, g, ref.warehouse, nil)
			if err == nil {
				m.logger.Info("glossary reloaded", "warehouse", ref.warehouse, "file", ref.file, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed)
				continue
			}
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
	if _, err := loadGlossary(ctx, facts, g, warehouseName, []string{consoleWorkspace}); err != nil {
		return nil, err
	}
	return g.Joins(), nil
}

// verify is `bot prefs verify`: an answer a person marked correct (a
// query fact of theirs, listed by `bot prefs list`) becomes a verified
// query of their workspace (or --owner's), answered directly from then on.
func (p *prefsCmd) verify(ctx context.Context, args []string) int {
	fs := p.flagSet("verify")
	by := fs.String("by", "", "who verified it, shown with every answer it gives (required)")
	owner := fs.String("owner", "", "the workspace key, e.g. slack:T1 (default: the workspace of the person who confirmed it)")
	pos, code, ok := p.parseArgs(fs, "verify", args, 1, "the ID of the confirmed answer")
	if !ok {
		return code
	}
	if strings.TrimSpace(*by) == "" {
		fmt.Fprintln(p.stderr, "bot prefs verify: give --by NAME")
		fs.Usage()
		return exitUsage
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	ws := *owner
	if ws == "" {
		// The asker's workspace: of a confirmed answer (bot prefs
		// candidates), or of an older store's query fact.
		owner, scope := "", ontology.ScopeUser
		if c, err := s.ConfirmedAnswer(ctx, id); err == nil {
			owner = c.Owner
		} else {
			f, err := s.Get(ctx, id)
			if err != nil {
				return p.fail("verify", id, err)
			}
			owner, scope = f.Owner, f.Scope
		}
		// A user key is platform:workspace:user.
		if i := strings.LastIndexByte(owner, ':'); scope == ontology.ScopeUser && i > 0 {
			ws = owner[:i]
		}
	}
	f, err := s.Verify(ctx, id, ws, *by, p.actor())
	if err != nil {
		return p.fail("verify", id, err)
	}
	fmt.Fprintf(p.stdout, "verified %s for %s as %s: %q → %s (verified by %s)\n", id, f.Owner, f.ID, f.Question, f.Target.Choice.Expr, f.VerifiedBy)
	return exitOK
}
