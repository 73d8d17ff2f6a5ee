package access

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Account is the database account an access level runs on.
type Account struct {
	// Level is the level's name (DefaultLevel for the warehouse's own).
	Level string
	User  string
	// Host is the account's host part ('%' when empty).
	Host string
	// Rules are the level's (Rules.ForLevel).
	Rules Rules
}

// Grant is the SQL that makes one account: its statements, and the
// comments that say what it leaves out and why.
type Grant struct {
	Account    Account
	Statements []string
	// Withheld says what gets no grant: hidden tables, views and
	// generated columns that compute from protected columns.
	Withheld []string
}

// GrantStatements is the SQL that creates the account read-only, with a
// SELECT grant on exactly what its level may read in database db:
//
//   - a table with nothing hidden gets SELECT on the table;
//   - a table with hidden columns gets SELECT on its other columns, so
//     that the server refuses the hidden ones in every clause;
//   - a hidden table gets nothing;
//   - sensitive columns are granted: filters, grouping, ordering and
//     counts over them need the server to read them, and the checker is
//     what keeps their values out of results;
//   - a view or generated column that computes from a hidden or
//     sensitive column gets nothing (the server would read it with the
//     view's definer's rights); a view gets SHOW VIEW with its SELECT,
//     so that bot doctor can read what it reads.
//
// Earlier grants are revoked first, so that running it again after the
// rules changed takes away what became hidden. password is written as
// given (a placeholder for the administrator to replace, or one read
// from the environment). Names the rules give that objects lacks are an
// error: the schema was read by an account that does not see them.
func GrantStatements(db string, objects *Objects, acct Account, password string) (Grant, error) {
	g := Grant{Account: acct}
	if err := checkNames(objects, acct.Rules); err != nil {
		return g, err
	}
	host := acct.Host
	if host == "" {
		host = "%"
	}
	user, err := quoteAccount(acct.User, host)
	if err != nil {
		return g, err
	}
	pw, err := quoteString(password)
	if err != nil {
		return g, fmt.Errorf("password of %s: %w", acct.User, err)
	}
	g.Statements = append(g.Statements,
		fmt.Sprintf("CREATE USER IF NOT EXISTS %s IDENTIFIED BY %s;", user, pw),
		fmt.Sprintf("REVOKE ALL PRIVILEGES, GRANT OPTION FROM %s;", user))
	exposed := map[string]Exposure{}
	for _, e := range objects.Exposures(acct.Rules, false) {
		exposed[strings.ToLower(e.Table+"."+e.Column)] = e
	}
	r := acct.Rules
	qdb := warehouse.QuoteIdent(db)
	for _, t := range objects.Tables {
		lt := strings.ToLower(t.Name)
		on := qdb + "." + warehouse.QuoteIdent(t.Name)
		if r.hidesTable(t.Name) {
			g.Withheld = append(g.Withheld, fmt.Sprintf("%s: hidden", t.Name))
			continue
		}
		if e, ok := exposed[lt+"."]; ok {
			g.Withheld = append(g.Withheld, e.String())
			continue
		}
		var cols []string
		all := true
		for _, c := range t.Columns {
			lc := strings.ToLower(c.Name)
			if e, ok := exposed[lt+"."+lc]; ok {
				g.Withheld = append(g.Withheld, e.String())
				all = false
				continue
			}
			if r.hidesColumn(t.Name, c.Name) {
				all = false
				continue
			}
			cols = append(cols, warehouse.QuoteIdent(c.Name))
		}
		privs := "SELECT"
		if t.View {
			if t.Definition == "" {
				g.Withheld = append(g.Withheld, fmt.Sprintf("view %s: its definition cannot be read by the account that read the schema, so what it reads is unknown", t.Name))
				continue
			}
			privs = "SELECT, SHOW VIEW"
		}
		switch {
		case len(cols) == 0:
			g.Withheld = append(g.Withheld, fmt.Sprintf("%s: every column hidden", t.Name))
		case all:
			g.Statements = append(g.Statements, fmt.Sprintf("GRANT %s ON %s TO %s;", privs, on, user))
		default:
			g.Statements = append(g.Statements, fmt.Sprintf("GRANT SELECT (%s) ON %s TO %s;", strings.Join(cols, ", "), on, user))
		}
	}
	return g, nil
}

// checkNames reports the hidden and sensitive names objects lacks.
func checkNames(o *Objects, r Rules) error {
	var errs []error
	for _, list := range []struct {
		key   string
		names []string
	}{{"hidden", r.Hidden}, {"sensitive", r.Sensitive}} {
		for _, n := range list.names {
			tn, cn, hasCol := strings.Cut(n, ".")
			t := o.Object(tn)
			switch {
			case t == nil:
				errs = append(errs, fmt.Errorf("%s: the schema as read has no table %q", list.key, tn))
			case hasCol && t.column(cn) == nil:
				errs = append(errs, fmt.Errorf("%s: table %s as read has no column %q", list.key, t.Name, cn))
			}
		}
	}
	return errors.Join(errs...)
}

func (r Rules) hidesTable(t string) bool {
	for _, n := range r.Hidden {
		if !strings.Contains(n, ".") && strings.EqualFold(n, t) {
			return true
		}
	}
	return false
}

func (r Rules) hidesColumn(t, c string) bool {
	for _, n := range r.Hidden {
		if tn, cn, ok := strings.Cut(n, "."); ok && strings.EqualFold(tn, t) && strings.EqualFold(cn, c) {
			return true
		}
	}
	return false
}

// quoteAccount writes 'user'@'host'.
func quoteAccount(user, host string) (string, error) {
	if user == "" {
		return "", errors.New("the account has no user name")
	}
	u, err := quoteString(user)
	if err != nil {
		return "", fmt.Errorf("user %s: %w", user, err)
	}
	h, err := quoteString(host)
	if err != nil {
		return "", fmt.Errorf("host %s: %w", host, err)
	}
	return u + "@" + h, nil
}

// quoteString is a string literal read the same with and without
// NO_BACKSLASH_ESCAPES: quotes doubled, backslashes and NUL refused.
func quoteString(s string) (string, error) {
	if strings.ContainsAny(s, "\\\x00") {
		return "", errors.New("contains a backslash or NUL, which servers read differently depending on sql_mode; choose another")
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
}
