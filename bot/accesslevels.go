package main

import (
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// A warehouse's access levels (access.levels in the configuration) each
// run on an account of their own: a question runs on the account of its
// asker's level, so that what a level hides is refused by the server's
// privileges, not only by the checker. The warehouse's own dsn and rules
// are the default level.

// levelAccount is one level of a warehouse as the bot runs it.
type levelAccount = cli.Account

// accounts lists the default level, then the configured ones.
func (w WarehouseConfig) accounts() []levelAccount {
	out := []levelAccount{{Name: access.DefaultLevel, DSN: w.DSN, Rules: w.defaultRules()}}
	for _, l := range w.Access.Levels {
		dsn := l.DSN
		if w.Demo {
			dsn = ""
		}
		out = append(out, levelAccount{Name: l.Name, Level: l, DSN: dsn, Rules: w.Access.ForLevel(l)})
	}
	return out
}

// defaultRules are the warehouse's rules without its levels: what the
// default level runs under.
func (w WarehouseConfig) defaultRules() access.Rules {
	r := w.Access
	r.Levels = nil
	return r
}

// forLevel is the warehouse as one of its levels runs it: the level's
// account and rules, the rest shared.
func (w WarehouseConfig) forLevel(a levelAccount) WarehouseConfig {
	out := w
	out.DSN, out.Access = a.DSN, a.Rules
	return out
}

// levelOf is the level a person asking here runs on.
func (w WarehouseConfig) levelOf(a access.Asker) levelAccount {
	return cli.LevelOf(w.Access, w.accounts(), a)
}

// validateLevels checks the levels' accounts: each its own user, on the
// warehouse's database. The demo warehouse has no accounts: its levels
// share it, and only the checker enforces them.
func (w WarehouseConfig) validateLevels() []error {
	var errs []error
	var baseDB, baseUser string
	if cfg, err := mysql.ParseDSN(w.DSN); err == nil && !w.Demo {
		baseDB, baseUser = cfg.DBName, cfg.User
	}
	users := map[string]string{baseUser: access.DefaultLevel}
	for _, l := range w.Access.Levels {
		at := fmt.Sprintf("warehouse %q: access.levels %q", w.Name, l.Name)
		if w.Demo {
			if l.DSN != "" {
				errs = append(errs, fmt.Errorf("%s: the demo warehouse has no accounts; leave dsn out (its levels are enforced by the checker only)", at))
			}
			continue
		}
		if l.DSN == "" {
			errs = append(errs, fmt.Errorf("%s: dsn is required: the level's own read-only account (bot access grants prints the SQL that creates it)", at))
			continue
		}
		cfg, err := mysql.ParseDSN(l.DSN)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: invalid dsn: %w", at, err))
			continue
		case baseDB != "" && cfg.DBName != baseDB:
			errs = append(errs, fmt.Errorf("%s: the dsn names the database %q, the warehouse's names %q; a level reads the same database", at, cfg.DBName, baseDB))
		case cfg.User == "":
			errs = append(errs, fmt.Errorf("%s: the dsn names no user", at))
		}
		if err := warehouse.CheckSession(cfg); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
		}
		if other, dup := users[cfg.User]; dup && cfg.User != "" {
			errs = append(errs, fmt.Errorf("%s: runs on the user %q like level %q; each level needs an account of its own, or the server cannot refuse what one hides and the other shows", at, cfg.User, other))
		}
		users[cfg.User] = l.Name
	}
	return errs
}

// levelComponent names a level in logs and /healthz: "shop", "shop@hr".
func levelComponent(warehouseName, level string) string {
	if level == "" || level == access.DefaultLevel {
		return warehouseName
	}
	return warehouseName + "@" + strings.ToLower(level)
}
