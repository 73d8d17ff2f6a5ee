package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/config"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// checkEnforcement probes every access level's account after a start and
// keeps what the server does not enforce; a warning is logged for each
// such level.
func (s *warehouseSlot) checkEnforcement(ctx context.Context) {
	var rep enforce.Report
	for _, acct := range s.cfg.Accounts() {
		db := s.levelDB(acct.Name)
		if acct.Name == access.DefaultLevel {
			s.mu.Lock()
			db = s.db
			s.mu.Unlock()
		}
		if db == nil {
			continue
		}
		e := enforce.Check(ctx, acct.Name, db, acct.Rules)
		log := s.log().With("level", acct.Name)
		switch {
		case e.Err != nil:
			log.Warn("cannot tell whether the warehouse's privileges enforce the access rules; run bot doctor", "err", e.Err)
		case !e.Enforced():
			why := "its account can read what the level hides"
			if s.cfg.Demo {
				why = "the demo warehouse has no accounts; only the checker enforces the rules"
			}
			log.Warn("access rules not enforced by the warehouse's privileges: "+why+"; create the accounts with bot access grants and check with bot doctor",
				"readable", strings.Join(e.Leaks(), "; "))
			rep.Levels = append(rep.Levels, acct.Name)
			rep.Details = append(rep.Details, fmt.Sprintf("level %s: %s", acct.Name, strings.Join(e.Leaks(), "; ")))
		}
		for _, x := range e.Sensitive {
			log.Warn("a view or generated column shows a sensitive column's values plainly; only the checker guards it", "object", x.String())
		}
	}
	s.enforced.Store(&rep)
}

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

// enforcementWarnings are the admin console's banners: each warehouse
// whose privileges do not enforce its access rules, with what each level
// can read (admins may see the names).
func enforcementWarnings(slots []*warehouseSlot) []string {
	var out []string
	for _, sl := range slots {
		rep := sl.enforced.Load()
		if rep == nil || len(rep.Levels) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("The warehouse %q does not enforce its access rules with its own privileges (%s): only the bot's checker keeps these values out. Create the accounts with `bot access grants`, then check with `bot doctor`.",
			sl.name(), strings.Join(rep.Details, "; ")))
	}
	return out
}
