package access

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// The rules are enforced twice: by the warehouse's own privileges (each
// access level runs on an account that has no grant on what the level
// hides, see GrantStatements), and by the checker on every statement.
// This file reads what an account can see and proves what it cannot read.

// Querier runs one statement on an account through the guarded path
// (warehouse.DB.Query), without the checker: what the server alone lets
// the account read.
type Querier interface {
	Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error)
}

var _ Querier = (*warehouse.DB)(nil)

// Objects are the tables, views and generated columns of the account's
// database, as the account sees them.
type Objects struct {
	Tables []Object
}

// Object is one table or view.
type Object struct {
	Name string
	View bool
	// Definition is a view's SELECT as the server stores it ("" when the
	// account may not read it).
	Definition string
	Columns    []ObjectColumn
}

// ObjectColumn is one column; Generation is the expression of a
// generated column, "" for a stored one.
type ObjectColumn struct {
	Name       string
	Generation string
}

// Object finds a table or view by name, without case.
func (o *Objects) Object(name string) *Object {
	for i := range o.Tables {
		if strings.EqualFold(o.Tables[i].Name, name) {
			return &o.Tables[i]
		}
	}
	return nil
}

func (t *Object) column(name string) *ObjectColumn {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

var objectLimits = warehouse.Limits{MaxRows: 1_000_000}

// ReadObjects reads the tables, views, columns, generation expressions
// and view definitions of the current database from information_schema,
// which shows an account only what it has privileges on. A server that
// does not know generated columns or views' definitions gives none.
func ReadObjects(ctx context.Context, q Querier) (*Objects, error) {
	res, err := q.Query(ctx, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME", objectLimits)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	o := &Objects{}
	index := map[string]int{}
	for _, r := range res.Rows {
		name := fmt.Sprint(r[0])
		index[strings.ToLower(name)] = len(o.Tables)
		o.Tables = append(o.Tables, Object{Name: name, View: strings.Contains(strings.ToUpper(fmt.Sprint(r[1])), "VIEW")})
	}
	res, err = q.Query(ctx, "SELECT TABLE_NAME, COLUMN_NAME, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION", objectLimits)
	if err != nil {
		// Servers without generated columns lack the column.
		res, err = q.Query(ctx, "SELECT TABLE_NAME, COLUMN_NAME, NULL FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION", objectLimits)
	}
	if err != nil {
		return nil, fmt.Errorf("list columns: %w", err)
	}
	for _, r := range res.Rows {
		i, ok := index[strings.ToLower(fmt.Sprint(r[0]))]
		if !ok {
			continue
		}
		c := ObjectColumn{Name: fmt.Sprint(r[1])}
		if r[2] != nil {
			c.Generation = strings.TrimSpace(fmt.Sprint(r[2]))
		}
		o.Tables[i].Columns = append(o.Tables[i].Columns, c)
	}
	if res, err = q.Query(ctx, "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()", objectLimits); err == nil {
		for _, r := range res.Rows {
			if i, ok := index[strings.ToLower(fmt.Sprint(r[0]))]; ok && r[1] != nil {
				o.Tables[i].Definition = fmt.Sprint(r[1])
			}
		}
	}
	return o, nil
}

// Exposure is a view or a generated column that computes from what the
// rules hide or keep sensitive: the database serves it with its own
// privileges (a view's definer's), so a grant on it would read what the
// rules protect.
type Exposure struct {
	Table  string // the view, or the generated column's table
	Column string // the generated column; "" for a view
	// Reads names what it computes from: "customers.email", "salaries".
	Reads string
	// Sensitive is true when it reads only sensitive columns.
	Sensitive bool
	// Unknown is true for a view whose definition the account cannot read.
	Unknown bool
}

// What names the exposure for people: "view v" or "generated column t.c".
func (e Exposure) What() string {
	if e.Column == "" {
		return "view " + e.Table
	}
	return "generated column " + e.Table + "." + e.Column
}

func (e Exposure) String() string {
	switch {
	case e.Unknown:
		return e.What() + " (its definition cannot be read, so what it reads is unknown)"
	case e.Sensitive:
		return e.What() + " computes from the sensitive " + e.Reads
	}
	return e.What() + " reads the hidden " + e.Reads
}

// Exposures lists the views and generated columns that read what r
// hides or keeps sensitive, following views over views. A definition is
// read for the names it mentions: a view that mentions a hidden
// column's table and name counts as reading it, which may say too much
// but never too little. With unknown, views whose definition is not
// readable are listed too (as Unknown).
func (o *Objects) Exposures(r Rules, unknown bool) []Exposure {
	type mark struct {
		reads     string
		sensitive bool
	}
	tables := map[string]mark{}             // lower table → why it is protected whole
	columns := map[string]map[string]mark{} // lower table → lower column → why
	setCol := func(t, c string, m mark) {
		if columns[t] == nil {
			columns[t] = map[string]mark{}
		}
		if old, ok := columns[t][c]; !ok || old.sensitive && !m.sensitive {
			columns[t][c] = m
		}
	}
	for _, n := range r.Sensitive {
		t, c, _ := strings.Cut(strings.ToLower(n), ".")
		setCol(t, c, mark{reads: n, sensitive: true})
	}
	for _, n := range r.Hidden {
		t, c, hasCol := strings.Cut(strings.ToLower(n), ".")
		if !hasCol {
			tables[t] = mark{reads: n}
			continue
		}
		setCol(t, c, mark{reads: n})
	}
	var out []Exposure
	done := map[string]bool{}
	reads := func(names map[string]bool) (mark, bool) {
		found, ok := mark{}, false
		better := func(m mark) {
			if !ok || found.sensitive && !m.sensitive {
				found, ok = m, true
			}
		}
		for t := range names {
			if m, hid := tables[t]; hid {
				better(m)
			}
			for c, m := range columns[t] {
				if names[c] {
					better(m)
				}
			}
		}
		return found, ok
	}
	for changed := true; changed; {
		changed = false
		for _, t := range o.Tables {
			lt := strings.ToLower(t.Name)
			if t.View {
				if done[lt] || tables[lt].reads != "" {
					continue
				}
				if t.Definition == "" {
					continue
				}
				if m, ok := reads(identifiers(t.Definition)); ok {
					done[lt], changed = true, true
					tables[lt] = m
					out = append(out, Exposure{Table: t.Name, Reads: m.reads, Sensitive: m.sensitive})
				}
				continue
			}
			for _, c := range t.Columns {
				lc := strings.ToLower(c.Name)
				if c.Generation == "" || done[lt+"."+lc] {
					continue
				}
				if _, own := columns[lt][lc]; own {
					continue
				}
				names := identifiers(c.Generation)
				names[lt] = true // a generated column reads its own table
				if m, ok := reads(names); ok {
					done[lt+"."+lc], changed = true, true
					setCol(lt, lc, m)
					out = append(out, Exposure{Table: t.Name, Column: c.Name, Reads: m.reads, Sensitive: m.sensitive})
				}
			}
		}
	}
	if unknown {
		for _, t := range o.Tables {
			if t.View && t.Definition == "" && !done[strings.ToLower(t.Name)] && tables[strings.ToLower(t.Name)].reads == "" {
				out = append(out, Exposure{Table: t.Name, Unknown: true})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Exposure) int { return strings.Compare(a.What(), b.What()) })
	return out
}

// identifiers are the names a definition mentions, lower case: bare
// words and `quoted` names, outside strings and comments.
func identifiers(def string) map[string]bool {
	out := map[string]bool{}
	b := sqlscan.Mask(def, sqlscan.MySQL)
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '`':
			var name strings.Builder
			j := i + 1
			for ; j < len(b); j++ {
				if b[j] == '`' {
					if j+1 < len(b) && b[j+1] == '`' {
						name.WriteByte('`')
						j++
						continue
					}
					break
				}
				name.WriteByte(b[j])
			}
			out[strings.ToLower(name.String())] = true
			i = j + 1
		case wordByte(c):
			j := i
			for j < len(b) && wordByte(b[j]) {
				j++
			}
			out[strings.ToLower(string(b[i:j]))] = true
			i = j
		default:
			i++
		}
	}
	return out
}

func wordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Enforcement is what the server does when the account reads each thing
// the rules hide.
type Enforcement struct {
	// Refused are the hidden names the server refuses with its privilege
	// error (1142 for a table, 1143 for a column).
	Refused []string
	// Readable are the hidden names the account can read: the server
	// does not enforce them.
	Readable []string
	// Absent are the hidden names the server does not know (no such
	// table or column).
	Absent []string
}

// Enforced reports whether the server refuses every hidden name.
func (e Enforcement) Enforced() bool { return len(e.Readable) == 0 }

// Probe asks the server for each hidden table and column with
// `SELECT column FROM table LIMIT 0` (`SELECT 1` for a table): nothing
// is read, but the server checks the privileges. Errors other than the
// privilege and unknown-name ones end the probe.
func Probe(ctx context.Context, q Querier, r Rules) (Enforcement, error) {
	var e Enforcement
	for _, n := range r.Hidden {
		t, c, hasCol := strings.Cut(n, ".")
		stmt := "SELECT 1 FROM " + warehouse.QuoteIdent(t) + " LIMIT 0"
		if hasCol {
			stmt = "SELECT " + warehouse.QuoteIdent(c) + " FROM " + warehouse.QuoteIdent(t) + " LIMIT 0"
		}
		_, err := q.Query(ctx, stmt, warehouse.Limits{MaxRows: 1})
		switch {
		case err == nil:
			e.Readable = append(e.Readable, n)
		case IsPrivilegeError(err):
			e.Refused = append(e.Refused, n)
		case warehouse.KindOfError(err) == warehouse.KindUnknownColumn || warehouse.KindOfError(err) == warehouse.KindUnknownTable:
			e.Absent = append(e.Absent, n)
		default:
			return e, fmt.Errorf("probe %s: %w", n, err)
		}
	}
	return e, nil
}

// IsPrivilegeError reports whether err is the server refusing a table
// (1142) or a column (1143) to the account.
func IsPrivilegeError(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1142 || me.Number == 1143)
}

// NewFor is New for a schema read by the account statements run on. An
// account made by bot access grants does not even see what it may not
// read, yet the checker must know it: the server leaves some uses of a
// column it refuses unchecked (MariaDB joins NATURAL JOIN and USING
// columns without the column privilege), and the checker's refusals of
// ambiguous names need every hidden name. A hidden name the schema lacks
// is added to the checker's copy of the schema when the server refuses
// it to the account (its privilege error); otherwise it is an error, as
// with New.
//
// NewFor also reads what New cannot know from a schema: the server's
// lower_case_table_names, which decides whether table names and aliases
// compare with case, and the views and generated columns that compute
// from what the rules hide or keep sensitive (hidden, or sensitive, in
// turn; a view whose definition the account cannot read is hidden).
func NewFor(ctx context.Context, q Querier, r Rules, s *warehouse.Schema) (*Policy, error) {
	r, err := withExposures(ctx, q, r, s)
	if err != nil {
		return nil, err
	}
	p, err := newFor(ctx, q, r, s)
	if err != nil {
		return nil, err
	}
	p.tableCase = readTableCase(ctx, q)
	return p, nil
}

// readTableCase reads lower_case_table_names: -1 when the server does not
// say (the checker then treats names differing in case as maybe alike).
func readTableCase(ctx context.Context, q Querier) int {
	res, err := q.Query(ctx, "SELECT @@lower_case_table_names", warehouse.Limits{MaxRows: 1})
	if err != nil || len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return -1
	}
	n, ok := warehouse.AsFloat(res.Rows[0][0])
	if !ok || n < 0 || n > 2 {
		return -1
	}
	if f, ok := q.(interface{ Flavor() warehouse.Flavor }); ok && n == 0 {
		switch f.Flavor() {
		case warehouse.FlavorMariaDB, warehouse.FlavorMySQL:
		default:
			// The embedded server says 0 but compares aliases without
			// case; only the servers known to mean it are believed.
			return -1
		}
	}
	return int(n)
}

// Inspector runs SHOW statements (warehouse.DB.Inspect).
type Inspector interface {
	Inspect(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error)
}

// generatedColumn is a column line of SHOW CREATE TABLE that is computed.
var generatedColumn = regexp.MustCompile("(?m)^\\s*`((?:[^`]|``)+)`[^\\n]*?GENERATED ALWAYS AS \\((.*)\\)")

// generationsFromDDL fills in the generation expressions of the tables
// r protects from SHOW CREATE TABLE, where information_schema gave none
// (the embedded server leaves GENERATION_EXPRESSION empty).
func generationsFromDDL(ctx context.Context, q Querier, objs *Objects, r Rules) {
	in, ok := q.(Inspector)
	if !ok {
		return
	}
	tables := map[string]bool{}
	for _, n := range append(slices.Clone(r.Hidden), r.Sensitive...) {
		if t, _, hasCol := strings.Cut(n, "."); hasCol {
			tables[strings.ToLower(t)] = true
		}
	}
	for i := range objs.Tables {
		t := &objs.Tables[i]
		if t.View || !tables[strings.ToLower(t.Name)] || slices.ContainsFunc(t.Columns, func(c ObjectColumn) bool { return c.Generation != "" }) {
			continue
		}
		res, err := in.Inspect(ctx, "SHOW CREATE TABLE "+warehouse.QuoteIdent(t.Name), warehouse.Limits{MaxRows: 1})
		if err != nil || len(res.Rows) != 1 || len(res.Rows[0]) < 2 {
			continue
		}
		for _, m := range generatedColumn.FindAllStringSubmatch(fmt.Sprint(res.Rows[0][1]), -1) {
			if c := t.column(strings.ReplaceAll(m[1], "``", "`")); c != nil {
				c.Generation = m[2]
			}
		}
	}
}

// withExposures adds to r the views and generated columns of the account's
// database that compute from what r hides or keeps sensitive. Those the
// schema lacks are left out: the checker refuses a table it does not know.
func withExposures(ctx context.Context, q Querier, r Rules, s *warehouse.Schema) (Rules, error) {
	if len(r.Hidden)+len(r.Sensitive) == 0 {
		return r, nil
	}
	objs, err := ReadObjects(ctx, q)
	if err != nil {
		return r, fmt.Errorf("read the views and generated columns: %w", err)
	}
	generationsFromDDL(ctx, q, objs, r)
	out := r
	out.Hidden = slices.Clone(r.Hidden)
	out.Sensitive = slices.Clone(r.Sensitive)
	for _, e := range objs.Exposures(r, true) {
		t := s.Table(e.Table)
		switch {
		case t == nil || e.Column != "" && t.Column(e.Column) == nil:
		case e.Column == "":
			out.Hidden = append(out.Hidden, e.Table)
		case e.Sensitive:
			out.Sensitive = append(out.Sensitive, e.Table+"."+e.Column)
		default:
			out.Hidden = append(out.Hidden, e.Table+"."+e.Column)
		}
	}
	return out, nil
}

func newFor(ctx context.Context, q Querier, r Rules, s *warehouse.Schema) (*Policy, error) {
	withHidden := *s
	withHidden.Tables = slices.Clone(s.Tables)
	for _, n := range r.Hidden {
		tn, cn, hasCol := strings.Cut(n, ".")
		t := withHidden.Table(tn)
		if t != nil && (!hasCol || t.Column(cn) != nil) {
			continue
		}
		e, err := Probe(ctx, q, Rules{Hidden: []string{n}})
		if err != nil {
			return nil, err
		}
		if len(e.Refused) == 0 {
			continue // New reports it
		}
		if t == nil {
			withHidden.Tables = append(withHidden.Tables, warehouse.Table{Name: tn})
			t = &withHidden.Tables[len(withHidden.Tables)-1]
		}
		if hasCol {
			t.Columns = append(slices.Clone(t.Columns), warehouse.Column{Table: t.Name, Name: cn, Position: len(t.Columns) + 1})
		}
	}
	return New(r, &withHidden)
}
