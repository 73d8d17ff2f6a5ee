package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// levelEnforcement is what one access level's account can read of what
// its rules protect: the proof bot doctor prints, bot serve logs at
// start, /healthz and the admin console show.
type levelEnforcement struct {
	Level string
	Probe access.Enforcement
	// Exposed are views and generated columns the account can reach that
	// compute from what the level hides; Sensitive those that compute
	// from its sensitive columns; Unknown views whose definition it
	// cannot read.
	Exposed, Sensitive, Unknown []access.Exposure
	Err                         error
}

// enforced reports whether the server refuses the account everything
// its level hides.
func (e levelEnforcement) enforced() bool {
	return e.Err == nil && e.Probe.Enforced() && len(e.Exposed) == 0
}

// leaks names what the account can read although its level hides it.
func (e levelEnforcement) leaks() []string {
	var out []string
	for _, n := range e.Probe.Readable {
		out = append(out, "reads "+n)
	}
	for _, x := range e.Exposed {
		out = append(out, x.String())
	}
	return out
}

// checkLevel probes one account (q runs statements on it without the
// checker) under its level's rules.
func checkLevel(ctx context.Context, level string, q access.Querier, rules access.Rules) levelEnforcement {
	e := levelEnforcement{Level: level}
	if len(rules.Hidden)+len(rules.Sensitive) == 0 {
		return e
	}
	if e.Probe, e.Err = access.Probe(ctx, q, rules); e.Err != nil {
		return e
	}
	objs, err := access.ReadObjects(ctx, q)
	if err != nil {
		e.Err = fmt.Errorf("read the views and generated columns: %w", err)
		return e
	}
	for _, x := range objs.Exposures(rules, true) {
		switch {
		case x.Unknown:
			e.Unknown = append(e.Unknown, x)
		case x.Sensitive:
			e.Sensitive = append(e.Sensitive, x)
		default:
			e.Exposed = append(e.Exposed, x)
		}
	}
	return e
}

// enforcementReport is a warehouse's levels that its privileges do not
// enforce, for /healthz (level names only) and the admin console.
type enforcementReport struct {
	Levels  []string // the levels not enforced
	Details []string // "level default: reads customers.email"
}

// checkEnforcement probes every access level's account after a start and
// keeps what the server does not enforce; a warning is logged for each
// such level.
func (s *warehouseSlot) checkEnforcement(ctx context.Context) {
	var rep enforcementReport
	for _, acct := range s.cfg.accounts() {
		db := s.levelDB(acct.Name)
		if acct.Name == access.DefaultLevel {
			s.mu.Lock()
			db = s.db
			s.mu.Unlock()
		}
		if db == nil {
			continue
		}
		e := checkLevel(ctx, acct.Name, db, acct.Rules)
		log := s.log().With("level", acct.Name)
		switch {
		case e.Err != nil:
			log.Warn("cannot tell whether the warehouse's privileges enforce the access rules; run bot doctor", "err", e.Err)
		case !e.enforced():
			why := "its account can read what the level hides"
			if s.cfg.Demo {
				why = "the demo warehouse has no accounts; only the checker enforces the rules"
			}
			log.Warn("access rules not enforced by the warehouse's privileges: "+why+"; create the accounts with bot access grants and check with bot doctor",
				"readable", strings.Join(e.leaks(), "; "))
			rep.Levels = append(rep.Levels, acct.Name)
			rep.Details = append(rep.Details, fmt.Sprintf("level %s: %s", acct.Name, strings.Join(e.leaks(), "; ")))
		}
		for _, x := range e.Sensitive {
			log.Warn("a view or generated column shows a sensitive column's values plainly; only the checker guards it", "object", x.String())
		}
	}
	s.enforced.Store(&rep)
}

// healthNote is the /healthz note about rep: level names only, never
// what is hidden.
func (r *enforcementReport) healthNote() string {
	if r == nil || len(r.Levels) == 0 {
		return ""
	}
	return "access rules not enforced by the warehouse's privileges for level " + strings.Join(r.Levels, ", ") + " (see bot doctor)"
}

// checkAccess is bot doctor's proof that the warehouse's privileges
// enforce its access rules: for each level's account, every hidden table
// and column is refused by the server (1142/1143), and no view or
// generated column it can reach computes from them. A level whose
// account can read what it hides fails the check ("not enforced").
func checkAccess(ctx context.Context, wc WarehouseConfig) []checkResult {
	var out []checkResult
	for _, acct := range wc.accounts() {
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
			lc := wc.forLevel(acct)
			lc.Name = levelComponent(wc.Name, acct.Name)
			out = append(out, checkWarehouse(ctx, lc))
		}
		wcfg := wc.forLevel(acct).warehouseConfig(nil)
		wcfg.MaxOpenConns = 2
		db, err := warehouse.Open(ctx, wcfg)
		if err != nil {
			out = append(out, checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("cannot connect with the level's account: %v", err), Short: "cannot connect"})
			continue
		}
		e := checkLevel(ctx, acct.Name, db, acct.Rules)
		db.Close()
		out = append(out, enforcementResults(what, wc.Name, acct.Rules, e)...)
	}
	return out
}

// enforcementResults words one level's enforcement for bot doctor.
func enforcementResults(what, warehouseName string, rules access.Rules, e levelEnforcement) []checkResult {
	var out []checkResult
	switch {
	case e.Err != nil:
		out = append(out, checkResult{Status: statusWarn, What: what, Detail: fmt.Sprintf("cannot tell whether the server enforces the access rules: %v", e.Err), Short: "enforcement unknown"})
	case !e.enforced():
		out = append(out, checkResult{Status: statusError, What: what,
			Detail: "NOT ENFORCED: the account can read what the level hides (" + strings.Join(e.leaks(), "; ") + "); only the checker stands between a statement and these values",
			Short:  "not enforced",
			Extra: []string{
				fmt.Sprintf("Create the level's account with column privileges: bot access grants --config FILE --warehouse %s,", warehouseName),
				"run the SQL it prints as an administrator, put the accounts in the dsns, and run bot doctor again.",
			}})
	default:
		detail := "enforced: the server refuses the account " + strings.Join(e.Probe.Refused, ", ") + " (privilege errors 1142/1143)"
		if len(rules.Hidden) == 0 {
			detail = "nothing hidden"
		}
		if len(e.Probe.Absent) > 0 {
			detail += "; the server has no " + strings.Join(e.Probe.Absent, ", ")
		}
		if len(rules.Sensitive) > 0 {
			detail += "; sensitive " + strings.Join(rules.Sensitive, ", ") + " granted, guarded by the checker"
		}
		out = append(out, checkResult{What: what, Detail: detail})
	}
	for _, x := range e.Sensitive {
		out = append(out, checkResult{Status: statusWarn, What: what, Detail: x.String() + ": its values are shown plainly and only the checker guards them; take its grant away (bot access grants does)", Short: "a view shows a sensitive column"})
	}
	for _, x := range e.Unknown {
		out = append(out, checkResult{Status: statusWarn, What: what, Detail: x.String() + "; grant SHOW VIEW on it, or take its SELECT away", Short: "a view cannot be checked"})
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
