package main

import (
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/connectors/access"
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
	return enforce.Accounts(w.DSN, w.Demo, w.Access)
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

// validateLevels checks the levels' accounts (enforce.ValidateLevels).
func (w WarehouseConfig) validateLevels() []error {
	return enforce.ValidateLevels(w.Name, w.DSN, w.Demo, w.Access)
}

// levelComponent names a level in logs and /healthz: "shop", "shop@hr".
func levelComponent(warehouseName, level string) string {
	if level == "" || level == access.DefaultLevel {
		return warehouseName
	}
	return warehouseName + "@" + strings.ToLower(level)
}
