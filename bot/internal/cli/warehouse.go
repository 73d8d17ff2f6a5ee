package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Warehouse is a configured warehouse as the subcommands use it.
type Warehouse struct {
	Name       string
	Demo       bool
	DemoOrders int
	DSN        string
	// Rules are its access rules, levels included.
	Rules access.Rules
	// Accounts are its access levels as the bot runs them, the default
	// level first.
	Accounts []Account
	// Config is its connection settings for warehouse.Open.
	Config warehouse.Config
}

// ConfigWarehouse reads the named (else the first) warehouse of the bot's
// configuration file at path; logger goes into its Config.
type ConfigWarehouse func(path, name string, logger *slog.Logger) (Warehouse, error)

// Account is one access level of a warehouse as the bot runs it: a
// question runs on the account of its asker's level.
type Account struct {
	// Name is the level's, access.DefaultLevel for the warehouse's own.
	Name  string
	Level access.Level // zero for the default level
	// DSN is the account's; the warehouse's for the default level and,
	// on the demo warehouse, for every level.
	DSN   string
	Rules access.Rules
}

// LevelOf is the account a person asking runs on, among accounts (the
// default level first) of a warehouse with rules.
func LevelOf(rules access.Rules, accounts []Account, a access.Asker) Account {
	l, ok := rules.LevelOf(a)
	for _, acct := range accounts {
		if ok && acct.Name == l.Name || !ok && acct.Name == access.DefaultLevel {
			return acct
		}
	}
	return accounts[0]
}

// PolicyFor resolves the rules against the warehouse's current schema
// (introspected, not profiled: a subcommand runs few statements).
func PolicyFor(ctx context.Context, db *warehouse.DB, rules access.Rules) (*access.Policy, error) {
	schema, err := db.Introspect(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema for the access rules: %w", err)
	}
	pol, err := access.NewFor(ctx, db, rules, schema)
	if err != nil {
		return nil, fmt.Errorf("access rules: %w", err)
	}
	return pol, nil
}

// Btoi counts a flag given: 1 for true.
func Btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
