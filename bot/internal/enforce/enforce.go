// Package enforce tells whether a warehouse's privileges enforce its
// access rules: what each access level's account can read of what its
// rules protect, as bot doctor, bot serve's log, /healthz and the admin
// console report it.
package enforce

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/doctor"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Level is what one access level's account can read of what
// its rules protect: the proof bot doctor prints, bot serve logs at
// start, /healthz and the admin console show.
type Level struct {
	Level string
	Probe access.Enforcement
	// Exposed are views and generated columns the account can reach that
	// compute from what the level hides; Sensitive those that compute
	// from its sensitive columns; Unknown views whose definition it
	// cannot read.
	Exposed, Sensitive, Unknown []access.Exposure
	Err                         error
}

// Enforced reports whether the server refuses the account everything
// its level hides.
func (e Level) Enforced() bool {
	return e.Err == nil && e.Probe.Enforced() && len(e.Exposed) == 0
}

// Leaks names what the account can read although its level hides it.
func (e Level) Leaks() []string {
	var out []string
	for _, n := range e.Probe.Readable {
		out = append(out, "reads "+n)
	}
	for _, x := range e.Exposed {
		out = append(out, x.String())
	}
	return out
}

// Check probes one account (q runs statements on it without the
// checker) under its level's rules.
func Check(ctx context.Context, level string, q access.Querier, rules access.Rules) Level {
	e := Level{Level: level}
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

// Report is a warehouse's levels that its privileges do not
// enforce, for /healthz (level names only) and the admin console.
type Report struct {
	Levels  []string // the levels not enforced
	Details []string // "level default: reads customers.email"
}

// HealthNote is the /healthz note about rep: level names only, never
// what is hidden.
func (r *Report) HealthNote() string {
	if r == nil || len(r.Levels) == 0 {
		return ""
	}
	return "access rules not enforced by the warehouse's privileges for level " + strings.Join(r.Levels, ", ") + " (see bot doctor)"
}

// Results words one level's enforcement for bot doctor.
func Results(what, warehouseName string, rules access.Rules, e Level) []doctor.Result {
	var out []doctor.Result
	switch {
	case e.Err != nil:
		out = append(out, doctor.Result{Status: doctor.StatusWarn, What: what, Detail: fmt.Sprintf("cannot tell whether the server enforces the access rules: %v", e.Err), Short: "enforcement unknown"})
	case !e.Enforced():
		out = append(out, doctor.Result{Status: doctor.StatusError, What: what,
			Detail: "NOT ENFORCED: the account can read what the level hides (" + strings.Join(e.Leaks(), "; ") + "); only the checker stands between a statement and these values",
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
		out = append(out, doctor.Result{What: what, Detail: detail})
	}
	for _, x := range e.Sensitive {
		out = append(out, doctor.Result{Status: doctor.StatusWarn, What: what, Detail: x.String() + ": its values are shown plainly and only the checker guards them; take its grant away (bot access grants does)", Short: "a view shows a sensitive column"})
	}
	for _, x := range e.Unknown {
		out = append(out, doctor.Result{Status: doctor.StatusWarn, What: what, Detail: x.String() + "; grant SHOW VIEW on it, or take its SELECT away", Short: "a view cannot be checked"})
	}
	return out
}

// Accounts lists the accounts of a warehouse's access levels, the
// default level first: the warehouse's dsn under its rules without their
// levels, then each level's (none on the demo warehouse, whose levels
// share it).
func Accounts(dsn string, demo bool, rules access.Rules) []cli.Account {
	def := rules
	def.Levels = nil
	out := []cli.Account{{Name: access.DefaultLevel, DSN: dsn, Rules: def}}
	for _, l := range rules.Levels {
		ldsn := l.DSN
		if demo {
			ldsn = ""
		}
		out = append(out, cli.Account{Name: l.Name, Level: l, DSN: ldsn, Rules: rules.ForLevel(l)})
	}
	return out
}

// ValidateLevels checks the accounts of the access levels of the
// warehouse name (dsn, demo, rules): each its own user, on the
// warehouse's database. The demo warehouse has no accounts: its levels
// share it, and only the checker enforces them.
func ValidateLevels(name, dsn string, demo bool, rules access.Rules) []error {
	var errs []error
	var baseDB, baseUser string
	if cfg, err := mysql.ParseDSN(dsn); err == nil && !demo {
		baseDB, baseUser = cfg.DBName, cfg.User
	}
	users := map[string]string{baseUser: access.DefaultLevel}
	for _, l := range rules.Levels {
		at := fmt.Sprintf("warehouse %q: access.levels %q", name, l.Name)
		if demo {
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
