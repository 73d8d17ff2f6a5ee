// Package accesscmd is `bot access grants`: the SQL that creates one
// read-only account per access level of a warehouse.
package accesscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// accessUsage is the usage of `bot access`.
var accessUsage = []string{
	"usage: bot access grants --config FILE [--warehouse NAME] [--dsn DSN] [--host HOST] [--password-from-env]",
	"grants prints the SQL an administrator runs to create one read-only account per access level of the",
	"warehouse (the dsn's user for the default level, each level's dsn's user for the others), each with",
	"SELECT on exactly what its level may read: hidden tables get no grant, tables with hidden columns get",
	"column grants, views and generated columns that compute from protected columns get none. Sensitive",
	"columns are granted (filters, grouping and counts need them); the checker keeps their values out.",
	"Passwords are CHANGE_ME placeholders, or with --password-from-env read from CLARIFY_PASSWORD_<LEVEL>",
	"(CLARIFY_PASSWORD_DEFAULT for the default level). Run `bot doctor` afterwards: it proves the result.",
}

// Run is `bot access grants`; configWarehouse reads --config's
// warehouses, getenv the passwords of --password-from-env.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, configWarehouse cli.ConfigWarehouse, getenv func(string) string) int {
	if len(args) == 0 {
		cli.PrintLines(stderr, accessUsage)
		return cli.ExitUsage
	}
	switch {
	case args[0] == "grants":
		return grants(ctx, args[1:], stdout, stderr, configWarehouse, getenv)
	case cli.IsHelp(args[0]):
		cli.PrintLines(stdout, accessUsage)
		return cli.ExitOK
	}
	fmt.Fprintf(stderr, "bot access: unknown subcommand %q\n", args[0])
	cli.PrintLines(stderr, accessUsage)
	return cli.ExitUsage
}

func grants(ctx context.Context, args []string, stdout, stderr io.Writer, configWarehouse cli.ConfigWarehouse, getenv func(string) string) int {
	fs := cli.NewFlagSet("bot access grants", stderr, accessUsage...)
	config := fs.String("config", "", "the bot's configuration (required)")
	name := fs.String("warehouse", "", "the warehouse (default: the first)")
	dsn := fs.String("dsn", "", "read the schema with this account instead of the warehouse's dsn (one that sees every table and column, e.g. an administrator's)")
	host := fs.String("host", "%", "the host part of the accounts created")
	fromEnv := fs.Bool("password-from-env", false, "read each account's password from CLARIFY_PASSWORD_<LEVEL> instead of writing CHANGE_ME")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	if *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, accessUsage[0])
		return cli.ExitUsage
	}
	wc, err := configWarehouse(*config, *name, nil)
	if err != nil {
		fmt.Fprintf(stderr, "bot access grants: %v\n", err)
		return cli.ExitUsage
	}
	out, err := grantsSQL(ctx, wc, grantsOptions{SchemaDSN: *dsn, Host: *host, FromEnv: *fromEnv, Getenv: getenv})
	if err != nil {
		fmt.Fprintf(stderr, "bot access grants: %v\n", err)
		return cli.ExitFailure
	}
	fmt.Fprint(stdout, out)
	return cli.ExitOK
}

// grantsOptions say how bot access grants reads the schema and writes
// the accounts.
type grantsOptions struct {
	// SchemaDSN reads the schema (default: the warehouse's dsn).
	SchemaDSN string
	Host      string
	// FromEnv takes the passwords from CLARIFY_PASSWORD_<LEVEL>.
	FromEnv bool
	Getenv  func(string) string
	Logger  *slog.Logger
}

// placeholderPassword is what the administrator replaces.
const placeholderPassword = "CHANGE_ME"

// passwordEnv is the variable an account's password is read from.
func passwordEnv(level string) string {
	return "CLARIFY_PASSWORD_" + strings.ToUpper(strings.ReplaceAll(level, "-", "_"))
}

// grantsSQL reads the warehouse's schema and writes the SQL of every
// access level's account.
func grantsSQL(ctx context.Context, wc cli.Warehouse, o grantsOptions) (string, error) {
	if wc.Demo {
		return "", errors.New("the demo warehouse has no accounts; its access rules are enforced by the checker only")
	}
	base, err := mysql.ParseDSN(wc.DSN)
	if err != nil {
		return "", fmt.Errorf("warehouse %q: invalid dsn: %w", wc.Name, err)
	}
	// The accounts first: a mistake there needs no connection.
	plan, err := planAccounts(wc, o)
	if err != nil {
		return "", err
	}
	objs, err := readGrantSchema(ctx, base, o)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- Read-only accounts of the warehouse %q (database %s), one per access level.\n", wc.Name, warehouse.QuoteIdent(base.DBName))
	fmt.Fprintln(&b, "-- Run as an administrator of the server; then run `bot doctor`, which proves that each")
	fmt.Fprintln(&b, "-- account is refused what its level hides. Run it again whenever the rules or the schema change:")
	fmt.Fprintln(&b, "-- each account's earlier grants are revoked first.")
	if !o.FromEnv {
		fmt.Fprintf(&b, "-- Replace every %s with the password of the account's dsn.\n", placeholderPassword)
	}
	var errs []error
	for _, p := range plan {
		g, err := access.GrantStatements(base.DBName, objs, access.Account{Level: p.acct.Name, User: p.user, Host: o.Host, Rules: p.acct.Rules}, p.password)
		if err != nil {
			errs = append(errs, fmt.Errorf("level %s: %w (read the schema with --dsn of an account that sees every table and column)", p.acct.Name, err))
			continue
		}
		writeGrant(&b, g)
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return b.String(), nil
}

// plannedAccount is one level's account as bot access grants writes it.
type plannedAccount struct {
	acct           cli.Account
	user, password string
}

// planAccounts reads each level's user from its dsn and its password
// from the environment (or the placeholder).
func planAccounts(wc cli.Warehouse, o grantsOptions) ([]plannedAccount, error) {
	var plan []plannedAccount
	var errs []error
	for _, acct := range wc.Accounts {
		cfg, err := mysql.ParseDSN(acct.DSN)
		if err != nil {
			errs = append(errs, fmt.Errorf("level %s: invalid dsn: %w", acct.Name, err))
			continue
		}
		if strings.EqualFold(cfg.User, "root") {
			errs = append(errs, fmt.Errorf("level %s: the dsn's user is root; give the level an account of its own (the SQL would take root's privileges away)", acct.Name))
			continue
		}
		pw := placeholderPassword
		if o.FromEnv {
			v := passwordEnv(acct.Name)
			if pw = o.Getenv(v); pw == "" {
				errs = append(errs, fmt.Errorf("level %s: --password-from-env: %s is not set", acct.Name, v))
				continue
			}
		}
		plan = append(plan, plannedAccount{acct: acct, user: cfg.User, password: pw})
	}
	return plan, errors.Join(errs...)
}

// readGrantSchema reads the tables, views and generated columns of the
// warehouse's database as --dsn's account (or the warehouse's) sees them.
func readGrantSchema(ctx context.Context, base *mysql.Config, o grantsOptions) (*access.Objects, error) {
	cfg := base
	if o.SchemaDSN != "" {
		var err error
		if cfg, err = mysql.ParseDSN(o.SchemaDSN); err != nil {
			return nil, fmt.Errorf("--dsn: %w", err)
		}
		switch cfg.DBName {
		case "":
			cfg.DBName = base.DBName
		case base.DBName:
		default:
			return nil, fmt.Errorf("--dsn names the database %q, the warehouse's dsn %q", cfg.DBName, base.DBName)
		}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	db, err := warehouse.Open(ctx, warehouse.Config{MySQL: cfg, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	defer db.Close()
	objs, err := access.ReadObjects(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("read the schema of %s: %w", base.DBName, err)
	}
	return objs, nil
}

// writeGrant writes one account's SQL with comments that say what its
// level hides and what gets no grant.
func writeGrant(b *strings.Builder, g access.Grant) {
	r := g.Account.Rules
	fmt.Fprintf(b, "\n-- Level %s: account %s.\n", g.Account.Level, g.Account.User)
	if len(r.Hidden) > 0 {
		fmt.Fprintf(b, "-- Hidden (no grant: the server refuses them): %s.\n", strings.Join(r.Hidden, ", "))
	} else {
		fmt.Fprintln(b, "-- Hides nothing.")
	}
	if len(r.Sensitive) > 0 {
		fmt.Fprintf(b, "-- Sensitive (granted, for filters, grouping and counts; the checker keeps their values out of results): %s.\n", strings.Join(r.Sensitive, ", "))
	}
	for _, w := range g.Withheld {
		fmt.Fprintf(b, "-- Not granted: %s.\n", w)
	}
	for _, s := range g.Statements {
		fmt.Fprintln(b, s)
	}
}
