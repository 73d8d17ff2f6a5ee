package main

import (
	"context"
	"fmt"

	"github.com/clarify-bot/clarify/bot/internal/config"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// checkAccess is bot doctor's proof that the warehouse's privileges
// enforce its access rules: for each level's account, every hidden table
// and column is refused by the server (1142/1143), and no view or
// generated column it can reach computes from them. A level whose
// account can read what it hides fails the check ("not enforced").
func checkAccess(ctx context.Context, wc WarehouseConfig) []checkResult {
	var out []checkResult
	for _, acct := range wc.Accounts() {
		if len(acct.Rules.Hidden)+len(acct.Rules.Sensitive) == 0 {
			continue
		}
		what := fmt.Sprintf("access %s (level %s)", wc.Name, acct.Name)
		if wc.Demo {
			out = append(out, checkResult{Status: statusWarn, What: what, Detail: "the demo warehouse has no accounts: only the checker enforces the access rules", Short: "not enforced by the demo warehouse"})
			continue
		}
		if acct.Name != access.DefaultLevel {
			// The level's account must be read-only too.
			lc := wc.ForLevel(acct)
			lc.Name = config.LevelComponent(wc.Name, acct.Name)
			out = append(out, checkWarehouse(ctx, lc))
		}
		wcfg := wc.ForLevel(acct).DBConfig(nil)
		wcfg.MaxOpenConns = 2
		db, err := warehouse.Open(ctx, wcfg)
		if err != nil {
			out = append(out, checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("cannot connect with the level's account: %v", err), Short: "cannot connect"})
			continue
		}
		e := enforce.Check(ctx, acct.Name, db, acct.Rules)
		db.Close()
		out = append(out, enforce.Results(what, wc.Name, acct.Rules, e)...)
	}
	return out
}
