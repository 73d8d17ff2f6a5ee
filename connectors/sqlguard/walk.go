package sqlguard

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// systemSchemas hold credentials, other sessions' SQL text or audit logs.
// information_schema is handled apart: the bot needs a few of its tables.
var systemSchemas = map[string]bool{
	"mysql":              true,
	"performance_schema": true,
	"sys":                true,
	"__internal_schema":  true, // Doris: audit log
	"metrics_schema":     true, // TiDB: cluster metrics
}

// informationSchemaTables are the information_schema tables a statement
// may read: the schema's description, which the bot reads itself. The
// rest tell about other sessions (PROCESSLIST), accounts (USER_PRIVILEGES),
// the server's state or plugins, none of which answers a question about data.
var informationSchemaTables = set(
	"tables", "columns", "key_column_usage", "referential_constraints", "table_constraints",
	"statistics", "schemata", "views",
)

// guardVisitor stops at the first refusal: Enter skips the children of the
// offending node and Leave reports failure, which aborts Accept.
type guardVisitor struct {
	g       *Guard
	refusal *Refusal
}

var _ ast.Visitor = (*guardVisitor)(nil)

func (g *Guard) walk(stmt ast.StmtNode) *Refusal {
	v := &guardVisitor{g: g}
	stmt.Accept(v)
	return v.refusal
}

func (v *guardVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if v.refusal == nil {
		v.refusal = v.g.node(n)
	}
	return n, v.refusal != nil
}

func (v *guardVisitor) Leave(n ast.Node) (ast.Node, bool) {
	return n, v.refusal == nil
}

// node inspects one node. Fields that ast's Accept does not visit
// (SelectIntoOpt, LockInfo.LockType) are read here on their parent.
func (g *Guard) node(n ast.Node) *Refusal {
	switch n := n.(type) {
	case *ast.SelectStmt:
		switch n.Kind {
		case ast.SelectStmtKindTable:
			return refuse(KindNotSelect, "only SELECT statements are allowed; this is a TABLE statement (write SELECT * FROM … instead)")
		case ast.SelectStmtKindValues:
			return refuse(KindNotSelect, "only SELECT statements are allowed; this is a VALUES statement")
		}
		if n.SelectIntoOpt != nil {
			return intoRefusal(n.SelectIntoOpt.Tp)
		}
		if n.LockInfo != nil {
			switch n.LockInfo.LockType {
			case ast.SelectLockNone:
			case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
				return refuse(KindLocking, "FOR SHARE and LOCK IN SHARE MODE take locks and are not allowed")
			default:
				return refuse(KindLocking, "FOR UPDATE takes locks and is not allowed")
			}
		}
	case *ast.FuncCallExpr:
		return g.function(n)
	case *ast.VariableExpr:
		if n.Value != nil {
			return refuse(KindAssignment, "assigning variables (@%s := …) is not allowed in a query", fragment(n.Name))
		}
	case *ast.TableName:
		if systemSchemas[n.Schema.L] {
			return refuse(KindSystemTable, "reading the system table %s is not allowed", fragment(n.Schema.O+"."+n.Name.O))
		}
		if n.Schema.L == "information_schema" && !informationSchemaTables[n.Name.L] {
			return refuse(KindSystemTable, "reading information_schema.%s is not allowed; only the tables that describe the schema (TABLES, COLUMNS, KEY_COLUMN_USAGE, …) are", fragment(n.Name.O))
		}
	case *ast.TableOptimizerHint:
		// scanComments refuses every /*+ already; this keeps the guard
		// closed if the parser ever accepts hints in another form.
		return refuse(KindHint, "optimizer hints such as %s are not allowed", fragment(upper(n.HintName.O)))
	}
	return nil
}

// function allows a built-in of the guard's flavor, or a stored or
// loadable function the configuration names.
func (g *Guard) function(n *ast.FuncCallExpr) *Refusal {
	name := n.FnName.L
	if n.Schema.L != "" {
		if g.stored[n.Schema.L+"."+name] {
			return nil
		}
		// A qualified name is always a stored function, never a built-in,
		// and stored functions may change data or take locks.
		return refuse(KindFunction, "the stored function %s is not allowed (it may write or lock); an admin can allow it",
			fragment(n.Schema.O+"."+n.FnName.O))
	}
	switch name {
	case ast.DateLiteral, ast.TimeLiteral, ast.TimestampLiteral:
		// DATE '2020-01-01' and {d '2020-01-01'}: literals the parser
		// spells as calls of an internal name.
		return nil
	}
	if !plainName(n.FnName.O) {
		// No built-in needs quoting, and the parser restores quoted
		// names unquoted (`` () as "()", `0`() as "0()"), so such a
		// call could not even be round-tripped.
		return refuse(KindFunction, "the function name `%s` is not allowed; built-in functions have plain names", fragment(n.FnName.O))
	}
	switch {
	case deniedFunctions[name]:
		return refuse(KindFunction, "the function %s is not allowed", fragment(upper(n.FnName.O)))
	case g.allowed[name] || g.stored[name]:
		return nil
	}
	return refuse(KindFunction, "the function %s is not a built-in allowed on %s; an admin can allow a stored one",
		fragment(upper(n.FnName.O)), g.flavor.label())
}

// allowedShows are the SHOW statements that describe the schema.
var allowedShows = map[ast.ShowStmtType]string{
	ast.ShowTables: "TABLES", ast.ShowColumns: "COLUMNS", ast.ShowCreateTable: "CREATE TABLE",
	ast.ShowIndex: "INDEX", ast.ShowTableStatus: "TABLE STATUS", ast.ShowDatabases: "DATABASES",
}

// checkShow accepts the SHOW statements that describe the schema. A WHERE
// clause is refused: it may hold any expression, subqueries included,
// evaluated over the SHOW's rows; LIKE 'pattern' is enough to narrow them.
func checkShow(s *ast.ShowStmt) *Refusal {
	if _, ok := allowedShows[s.Tp]; !ok || s.Extended {
		return refuse(KindNotSelect, "this SHOW statement is not allowed; the allowed ones are SHOW TABLES, SHOW COLUMNS (DESCRIBE), SHOW CREATE TABLE, SHOW INDEX, SHOW TABLE STATUS and SHOW DATABASES")
	}
	if s.Where != nil {
		return refuse(KindNotSelect, "SHOW … WHERE is not allowed; narrow the list with LIKE 'pattern'")
	}
	if systemSchemas[strings.ToLower(s.DBName)] {
		return refuse(KindSystemTable, "listing the system database %s is not allowed", fragment(s.DBName))
	}
	return nil
}

// checkExplain accepts EXPLAIN of a SELECT (or DESCRIBE of a table): it
// shows the plan without running the statement. EXPLAIN ANALYZE runs it,
// EXPLAIN FOR CONNECTION shows another session's statement.
func checkExplain(s *ast.ExplainStmt) *Refusal {
	if s.Analyze || s.Explore || s.PlanDigest != "" || s.SQLDigest != "" {
		return refuse(KindNotSelect, "EXPLAIN ANALYZE runs the statement and is not allowed; use EXPLAIN")
	}
	switch in := s.Stmt.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return nil
	case *ast.ShowStmt:
		return checkShow(in)
	case nil:
		return refuse(KindNotSelect, "only EXPLAIN of a SELECT statement is allowed")
	}
	return refuse(KindNotSelect, "only EXPLAIN of a SELECT statement is allowed; this explains %s", describe(s.Stmt))
}

// scanSpacedCalls refuses calls that MySQL and MariaDB resolve to a stored
// function rather than the built-in the parser reads (see spacedNames):
// a name of spacedNames followed by "(" after a space or comment, or
// quoted with backticks, in the text with its literals and comments
// blanked: COUNT (x), SUM/**/(x), `count`(x).
func scanSpacedCalls(sql string) *Refusal {
	b := maskForCalls(sql)
	isIdent := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	var name [32]byte
	for i := 0; i < len(b); {
		c := b[i]
		if !isIdent(c) && c != '`' {
			i++
			continue
		}
		// One identifier, plain or backquoted; what precedes it must not
		// make it a qualified name (db.f is refused elsewhere).
		quoted := c == '`'
		start := i
		if quoted {
			i++
		}
		j := i
		for j < len(b) && isIdent(b[j]) {
			j++
		}
		word := b[i:j]
		if quoted {
			if j >= len(b) || b[j] != '`' {
				i = j + 1
				continue
			}
			j++
		}
		k := j
		for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
			k++
		}
		spaced := k > j
		i = j
		if k >= len(b) || b[k] != '(' || !(spaced || quoted) || len(word) > len(name) || start > 0 && b[start-1] == '.' {
			continue
		}
		n := name[:len(word)]
		for x, ch := range word {
			if ch >= 'A' && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			n[x] = ch
		}
		if spacedNames[string(n)] {
			return refuse(KindSpacedCall, "write %s( with no space or quotes before the parenthesis: the server reads %s as a call to a stored function of that name",
				upper(string(n)), fragment(string(b[start:k+1])))
		}
	}
	return nil
}

// maskForCalls blanks string literals and comments the way the server's
// lexer ends them under the session's SQL mode (backslash escapes, doubled
// quotes, "--" only before a blank or control character) and keeps
// backquoted identifiers, so that scanSpacedCalls sees every call.
func maskForCalls(sql string) []byte { return sqlscan.Mask(sql, sqlscan.MySQL) }

func intoRefusal(tp ast.SelectIntoType) *Refusal {
	switch tp {
	case ast.SelectIntoOutfile:
		return refuse(KindInto, "SELECT … INTO OUTFILE writes to the server and is not allowed")
	case ast.SelectIntoDumpfile:
		return refuse(KindInto, "SELECT … INTO DUMPFILE writes to the server and is not allowed")
	default:
		return refuse(KindInto, "SELECT … INTO @variable sets variables and is not allowed")
	}
}

// plainName reports whether s is an identifier that needs no quoting:
// ASCII letters, digits and underscores, not starting with a digit.
func plainName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}
