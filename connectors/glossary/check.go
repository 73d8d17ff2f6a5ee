package glossary

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Querier runs one statement through the warehouse's guarded path
// (warehouse.DB.Query): it refuses anything that is not one read-only
// SELECT.
type Querier interface {
	Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error)
}

var _ Querier = (*warehouse.DB)(nil)

// CheckOptions add what the warehouse's access rules protect to Check.
type CheckOptions struct {
	// Withholds names the columns whose values the rules protect (hidden
	// or sensitive ones). The glossary must not write their values —
	// filter values, dimension samples — which would reach the model's
	// prompts and the answers' wording.
	Withholds func(table, column string) bool
}

// Check validates every expression of g by compiling it into a SELECT
// that runs through q, and every item that becomes a fact by compiling it
// (see Facts). It returns the problems found, each at the line of the
// item; nil when there are none. A canceled ctx ends the check with
// ctx's error. When q applies the warehouse's access rules
// (warehouse.DB.WithPolicy), what they hide or protect is a problem too.
func Check(ctx context.Context, q Querier, g *Glossary) (Problems, error) {
	return CheckWith(ctx, q, g, CheckOptions{})
}

// CheckWith is Check that also refuses the values of protected columns.
func CheckWith(ctx context.Context, q Querier, g *Glossary, o CheckOptions) (Problems, error) {
	c := &checker{ctx: ctx, q: q, g: g}
	for _, m := range g.Measures {
		c.expr(m.ExprLine, "measure "+quoted(m.Name), m.Expr, "", func(from string) string {
			return fmt.Sprintf("SELECT %s FROM %s", m.Expr, from)
		})
	}
	for _, d := range g.Dimensions {
		c.expr(d.ExprLine, "dimension "+quoted(d.Name), d.Expr, "", func(from string) string {
			return fmt.Sprintf("SELECT %s FROM %s LIMIT 0", d.Expr, from)
		})
	}
	for _, f := range g.Filters {
		c.expr(f.WhereLine, "filter "+quoted(f.Name), f.Where, f.Table, func(from string) string {
			return fmt.Sprintf("SELECT 1 FROM %s WHERE %s LIMIT 0", from, f.Where)
		})
	}
	for _, r := range g.Relationships {
		ft, _, _ := strings.Cut(r.From, ".")
		tt, _, _ := strings.Cut(r.To, ".")
		if ft == "" || tt == "" {
			continue // reported by Parse
		}
		if ft == tt {
			c.addf(r.Line, "relationship %s = %s joins a table to itself; only joins between two tables can be declared", r.From, r.To)
			continue
		}
		c.run(r.Line, "relationship "+r.From+" = "+r.To, fmt.Sprintf("SELECT 1 FROM %s JOIN %s ON %s = %s LIMIT 0", ft, tt, r.From, r.To))
	}
	for _, s := range g.Synonyms {
		table, column, isColumn := strings.Cut(s.Means, ".")
		stmt := "SELECT 1 FROM " + table + " LIMIT 0"
		if isColumn {
			stmt = "SELECT " + column + " FROM " + table + " LIMIT 0"
		}
		c.run(s.Line, "synonyms of "+quoted(s.Means), stmt)
	}
	for _, v := range g.Verified {
		if v.SQL == "" {
			continue
		}
		// Run as written (one row fetched): the statement people will get.
		c.run(v.SQLLine, "verified query "+quoted(v.Question), v.SQL)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check glossary %s: %w", g.File, err)
	}
	if o.Withholds != nil {
		c.protectedValues(o.Withholds)
	}
	// What the engines cannot use is a problem too, even if it runs.
	if _, ps := Facts(g, Target{Warehouse: "check", Workspaces: []string{"check"}}); len(ps) > 0 {
		for _, p := range ps {
			if !slices.Contains(c.problems, p) {
				c.problems = append(c.problems, p)
			}
		}
	}
	slices.SortStableFunc(c.problems, func(a, b Problem) int { return a.Line - b.Line })
	if len(c.problems) == 0 {
		return nil, nil
	}
	return c.problems, nil
}

type checker struct {
	ctx      context.Context
	q        Querier
	g        *Glossary
	problems Problems
}

func (c *checker) addf(line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.g.File, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// protectedValues reports the values of protected columns the glossary
// writes: a filter's values and a dimension's samples.
func (c *checker) protectedValues(withholds func(table, column string) bool) {
	for _, f := range c.g.Filters {
		table := strings.ToLower(f.Table)
		if table == "" {
			if ts := TablesOf(f.Where); len(ts) == 1 {
				table = ts[0]
			}
		}
		term, err := predicate(f, table)
		if err != nil || len(term.Values) == 0 {
			continue // reported by Facts, or no values written
		}
		if t, col, ok := strings.Cut(term.Column, "."); ok && withholds(t, col) {
			c.addf(f.WhereLine, "filter %s: it writes values of %s, which the access rules protect; they would be shown in answers and prompts", quoted(f.Name), term.Column)
		}
	}
	for _, d := range c.g.Dimensions {
		if len(d.Samples) == 0 {
			continue
		}
		for _, m := range reColumnRef.FindAllStringSubmatch(reStringLit.ReplaceAllString(d.Expr, "''"), -1) {
			if withholds(m[1], m[2]) {
				c.addf(d.Line, "dimension %s: its samples are values of %s.%s, which the access rules protect", quoted(d.Name), strings.ToLower(m[1]), strings.ToLower(m[2]))
				break
			}
		}
	}
}

// expr checks an expression over one table: table if given, else the one
// table its columns name.
func (c *checker) expr(line int, what, expr, table string, stmt func(from string) string) {
	if expr == "" {
		return // reported by Parse
	}
	if table == "" {
		tables := TablesOf(expr)
		switch len(tables) {
		case 0:
			c.addf(line, "%s: name the table of each column (table.column) in %q", what, expr)
			return
		case 1:
			table = tables[0]
		default:
			c.addf(line, "%s: ambiguous table: the expression names %s; say which table it is about with table:", what, strings.Join(tables, " and "))
			return
		}
	}
	if !isIdent(table) {
		c.addf(line, "%s: %q is not a table name", what, table)
		return
	}
	c.run(line, what, stmt(table))
}

// run sends one statement through the guarded path and words its error.
func (c *checker) run(line int, what, stmt string) {
	if c.ctx.Err() != nil {
		return
	}
	_, err := c.q.Query(c.ctx, stmt, warehouse.Limits{MaxRows: 1})
	if err == nil {
		return
	}
	c.addf(line, "%s: %s", what, plainError(err))
}

var (
	// MySQL/MariaDB: Column 'id' in field list is ambiguous.
	reAmbiguous = regexp.MustCompile(`(?i)column '([^']+)' in .* is ambiguous`)
	// go-mysql-server: ambiguous column name "id", it's present in all these tables: …
	reGMSAmbiguous = regexp.MustCompile(`(?i)ambiguous column name "([^"]+)"`)
)

// plainError words a warehouse error for the person who wrote the
// glossary: "unknown column orders.net_amt", "not a read-only expression".
func plainError(err error) string {
	var we *warehouse.Error
	if errors.As(err, &we) {
		switch we.Kind {
		case warehouse.KindUnknownColumn:
			if we.Name != "" {
				return "unknown column " + we.Name
			}
			return we.Msg
		case warehouse.KindUnknownTable:
			return we.Msg
		case warehouse.KindRefused:
			if r, ok := sqlguard.Refused(err); ok && r.Kind == sqlguard.KindAccess {
				return "the access rules refuse it: " + r.Reason
			}
			return "not a read-only expression: " + we.Msg
		case warehouse.KindSyntax:
			return "syntax error: " + we.Msg
		}
	}
	msg := err.Error()
	if m := reAmbiguous.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("column %s is ambiguous: name its table", m[1])
	}
	if m := reGMSAmbiguous.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("column %s is ambiguous: name its table", m[1])
	}
	return msg
}

// reColumnRef finds table.column references outside string literals.
var reColumnRef = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\b`)

var reStringLit = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"`)

// TablesOf lists the tables an expression's table.column references
// name, lower case, in order of first mention.
func TablesOf(expr string) []string {
	var out []string
	for _, m := range reColumnRef.FindAllStringSubmatch(reStringLit.ReplaceAllString(expr, "''"), -1) {
		t := strings.ToLower(m[1])
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
