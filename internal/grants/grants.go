// Package grants reads SHOW GRANTS output as MySQL and MariaDB print it and
// tells whether an account is read-only on a warehouse database: what
// bot doctor checks before the bot is trusted with a DSN.
package grants

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// Grant is one statement of SHOW GRANTS, reduced to what bot doctor needs:
// which privileges, on what.
type Grant struct {
	Privs []string // upper case, column lists dropped: "SELECT", "SHOW VIEW", "ALL PRIVILEGES"
	// Object: DB and Table as written without quotes; "*" for a wildcard.
	// Routine is set for ON PROCEDURE/FUNCTION/PACKAGE grants.
	DB, Table string
	Routine   bool
	// Role is set for a role grant (GRANT `r` TO …): privileges that come
	// through the role are not in this statement.
	Role string
}

// readOnlyPrivs are privileges that cannot change data or the server.
// Anything else on the warehouse database or on *.* counts as "can write".
var readOnlyPrivs = map[string]bool{
	"SELECT": true, "SHOW VIEW": true, "USAGE": true, "SHOW DATABASES": true, "PROCESS": true,
	"REPLICATION CLIENT": true, "BINLOG MONITOR": true, "SLAVE MONITOR": true, "REPLICA MONITOR": true,
	"SHOW CREATE ROUTINE": true,
}

// Parse reads one GRANT statement as MySQL and MariaDB print them:
//
//	GRANT SELECT, INSERT (a, b) ON `shop`.* TO `u`@`%` IDENTIFIED BY PASSWORD '…'
//	GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION
//	GRANT EXECUTE ON PROCEDURE `db`.`p` TO …
//	GRANT `analyst` TO `u`@`%`
func Parse(stmt string) (Grant, error) {
	s := strings.TrimSpace(stmt)
	if len(s) < 6 || !strings.EqualFold(s[:6], "GRANT ") {
		return Grant{}, fmt.Errorf("not a GRANT statement: %q", clip(s, 60))
	}
	s = strings.TrimSpace(s[6:])
	on := indexKeyword(s, "ON")
	to := indexKeyword(s, "TO")
	if to < 0 {
		return Grant{}, fmt.Errorf("GRANT without TO: %q", clip(stmt, 60))
	}
	if on < 0 || on > to {
		// GRANT role[, role] TO user
		return Grant{Role: unquoteIdent(strings.TrimSpace(s[:to]))}, nil
	}
	var g Grant
	for _, p := range splitTopLevel(s[:on], ',') {
		if i := strings.IndexByte(p, '('); i >= 0 {
			p = p[:i] // column list: the privilege still applies to the table
		}
		p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
		if p != "" {
			g.Privs = append(g.Privs, p)
		}
	}
	if len(g.Privs) == 0 {
		return Grant{}, fmt.Errorf("GRANT without privileges: %q", clip(stmt, 60))
	}
	obj := strings.TrimSpace(s[on+2 : to])
	for _, kind := range []string{"TABLE ", "PROCEDURE ", "FUNCTION ", "PACKAGE BODY ", "PACKAGE "} {
		if len(obj) > len(kind) && strings.EqualFold(obj[:len(kind)], kind) {
			g.Routine = kind != "TABLE "
			obj = strings.TrimSpace(obj[len(kind):])
			break
		}
	}
	if strings.Contains(obj, "@") {
		// GRANT PROXY ON ''@'%': about users, not data.
		g.DB, g.Table = "", ""
		return g, nil
	}
	parts := splitTopLevel(obj, '.')
	switch len(parts) {
	case 1:
		// "*" alone means the default database at GRANT time; SHOW GRANTS
		// prints it qualified, so a lone name is a table of no known db.
		g.DB, g.Table = "", unquoteIdent(parts[0])
	case 2:
		g.DB, g.Table = unquoteIdent(parts[0]), unquoteIdent(parts[1])
	default:
		return Grant{}, fmt.Errorf("GRANT on an object I cannot read: %q", clip(obj, 60))
	}
	return g, nil
}

// Findings are the reasons an account is more than read-only.
type Findings struct {
	// Write lists "INSERT, DELETE on `shop`.*" for privileges beyond
	// reading on the warehouse database, its tables or *.*.
	Write []string
	// System lists grants that read the mysql schema (password hashes,
	// grants of other accounts).
	System []string
	// Roles are granted roles, whose privileges SHOW GRANTS FOR
	// CURRENT_USER() may not show.
	Roles []string
	// Risky names the global privileges a read-only account still must not
	// have, with what each allows (PROCESS, SUPER, FILE).
	Risky []string
}

// riskyPrivs are global privileges that reach past the warehouse's data:
// reading other sessions' statements, overriding read_only and limits,
// reading and writing the server's files.
var riskyPrivs = []struct{ priv, why string }{
	{"PROCESS", "PROCESS (it reads other sessions' statements)"},
	{"SUPER", "SUPER (it overrides read_only and kills other sessions)"},
	{"FILE", "FILE (it reads and writes the server's files)"},
}

// Analyze reads SHOW GRANTS output for the warehouse database db.
// Statements it cannot parse are returned as an error alongside what it
// could read.
func Analyze(stmts []string, db string) (Findings, error) {
	var f Findings
	var errs []error
	for _, stmt := range stmts {
		g, err := Parse(stmt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if g.Role != "" {
			f.Roles = append(f.Roles, g.Role)
			continue
		}
		if g.DB == "" && g.Table == "" {
			continue // PROXY: about users, not data
		}
		if g.Routine {
			// EXECUTE runs what the routine's definer allows; changing
			// the routine (ALTER ROUTINE, GRANT OPTION) is a write.
			w := slices.DeleteFunc(writePrivs(g.Privs), func(p string) bool { return p == "EXECUTE" })
			if len(w) > 0 && appliesTo(g.DB, db) {
				f.Write = append(f.Write, describeGrant(g, w))
			}
			continue
		}
		global := g.DB == "*"
		if global {
			for _, r := range riskyPrivs {
				if slices.Contains(g.Privs, r.priv) || slices.Contains(g.Privs, "ALL PRIVILEGES") || slices.Contains(g.Privs, "ALL") {
					if !slices.Contains(f.Risky, r.why) {
						f.Risky = append(f.Risky, r.why)
					}
				}
			}
		}
		if global || appliesTo(g.DB, db) {
			if w := writePrivs(g.Privs); len(w) > 0 {
				f.Write = append(f.Write, describeGrant(g, w))
			}
		}
		if (global || strings.EqualFold(g.DB, "mysql")) && slices.ContainsFunc(g.Privs, readsData) {
			f.System = append(f.System, describeGrant(g, slices.DeleteFunc(slices.Clone(g.Privs), func(p string) bool { return !readsData(p) })))
		}
	}
	return f, errors.Join(errs...)
}

func readsData(p string) bool { return p == "SELECT" || p == "ALL" || p == "ALL PRIVILEGES" }

func writePrivs(privs []string) []string {
	var out []string
	for _, p := range privs {
		if !readOnlyPrivs[p] {
			out = append(out, p)
		}
	}
	return out
}

func describeGrant(g Grant, privs []string) string {
	obj := quoteGrantIdent(g.DB) + "." + quoteGrantIdent(g.Table)
	return strings.Join(privs, ", ") + " on " + obj
}

func quoteGrantIdent(s string) string {
	if s == "*" {
		return s
	}
	return "`" + s + "`"
}

// appliesTo reports whether a grant's database pattern covers db. Grants
// may name databases with the LIKE wildcards % and _ (escaped as \_ when
// literal).
func appliesTo(pattern, db string) bool {
	if pattern == "*" {
		return true
	}
	return likeMatch(pattern, db)
}

// likeMatch is SQL LIKE, case-insensitive: % any run, _ one character,
// \ escapes the next.
func likeMatch(pattern, s string) bool {
	p, t := []rune(pattern), []rune(strings.ToLower(s))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch c := p[i]; {
			case c == '%':
				for k := j; k <= len(t); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case c == '_':
				if j >= len(t) {
					return false
				}
			case c == '\\' && i+1 < len(p):
				i++
				if j >= len(t) || t[j] != unicode.ToLower(p[i]) {
					return false
				}
			default:
				if j >= len(t) || t[j] != unicode.ToLower(c) {
					return false
				}
			}
			i++
			j++
		}
		return j == len(t)
	}
	return match(0, 0)
}

// indexKeyword finds the keyword as a whole word outside quotes and
// parentheses, or -1.
func indexKeyword(s, kw string) int {
	for t := range sqlscan.Tokens(s, grantMode) {
		i := t.Start
		if t.Kind == sqlscan.Code && t.Depth == 0 && (i == 0 || s[i-1] == ' ') && len(s)-i > len(kw) && strings.EqualFold(s[i:i+len(kw)], kw) && s[i+len(kw)] == ' ' {
			return i
		}
	}
	return -1
}

// grantMode reads SHOW GRANTS output: names and strings are quoted, and a
// string may hold a backslash-escaped quote ('o\'brien').
const grantMode = sqlscan.Quotes | sqlscan.Backslash

// splitTopLevel splits on sep outside quotes and parentheses.
func splitTopLevel(s string, sep byte) []string {
	out := sqlscan.Split(s, sep, grantMode)
	for i, p := range out {
		out[i] = strings.TrimSpace(p)
	}
	return out
}

// unquoteIdent strips backticks or quotes from a name; a role may carry a
// host part ('r'@'%'), which is kept as written.
func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '`' || s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && !strings.Contains(s[1:len(s)-1], string(s[0])) {
		return s[1 : len(s)-1]
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ReadOnlySetup is the SQL an administrator runs to give the bot a
// read-only account on db.
func ReadOnlySetup(db string) []string {
	q := "`" + strings.ReplaceAll(db, "`", "``") + "`"
	return []string{
		"CREATE USER 'clarify'@'%' IDENTIFIED BY '…';",
		"GRANT SELECT, SHOW VIEW ON " + q + ".* TO 'clarify'@'%';",
	}
}

// RiskyNames lists the privileges of Findings.Risky: "PROCESS, FILE".
func RiskyNames(risky []string) string {
	var out []string
	for _, r := range riskyPrivs {
		if slices.Contains(risky, r.why) {
			out = append(out, r.priv)
		}
	}
	return strings.Join(out, ", ")
}

// Show reads the grants of the connected account. It sends only SHOW
// GRANTS: nothing that can write.
func Show(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS FOR CURRENT_USER()")
	if err != nil {
		return nil, fmt.Errorf("show grants: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("show grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("show grants: %w", err)
	}
	return out, nil
}
