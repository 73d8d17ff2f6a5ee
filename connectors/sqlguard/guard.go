// Package sqlguard is the read-only gate every statement passes before it
// reaches a warehouse: only a single, side-effect-free SELECT (or a set
// operation of SELECTs) is accepted. Everything else is refused with a
// *Refusal whose Reason can be shown to the user as is.
//
// The guard is deliberately conservative: when the parser's view of a
// statement might differ from the warehouse's (executable comments,
// optimizer hints), the statement is refused rather than trusted. The
// warehouse account should still be read-only; this is the first line of
// defence, not the only one.
package sqlguard

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	// The parser needs a driver for literal values; test_driver is the
	// lightweight one that does not pull in TiDB's execution types.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// DefaultMaxLen bounds the input before it is parsed, so that a
// pathological statement cannot make the gate itself expensive: parsing
// and checking cost memory in proportion to the text (a 1 MiB "SELECT
// 1+1+…" took 400 MB). Generated queries are a few kilobytes.
const DefaultMaxLen = 64 << 10

// ErrRefused is matched by errors.Is for every refusal.
var ErrRefused = errors.New("statement refused")

// RefusalKind says why a statement was refused, for callers that branch on
// it (for example to ask the model to repair a syntax error but not a write).
type RefusalKind int

// Refusal kinds. The zero value is not used so that an uninitialised
// Refusal is recognisable.
const (
	KindEmpty              RefusalKind = iota + 1 // no statement at all
	KindTooLong                                   // input larger than the guard accepts
	KindSyntax                                    // the MySQL-dialect parser rejected it
	KindNotSelect                                 // INSERT, DDL, SET, SHOW, TABLE, …
	KindMultipleStatements                        // more than one statement
	KindInto                                      // SELECT … INTO OUTFILE/DUMPFILE/@var
	KindLocking                                   // FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE
	KindFunction                                  // a denied or stored function call
	KindAssignment                                // @var := … inside the query
	KindSystemTable                               // mysql.*, performance_schema.*, sys.*, …
	KindExecutableComment                         // /*! … */, /*M! … */, /*T! … */
	KindHint                                      // /*+ … */ optimizer hints
	KindAmbiguousEscape                           // backslash makes the statement depend on sql_mode
	KindAccess                                    // the warehouse's access rules hide or protect what it reads
	KindSpacedCall                                // COUNT (x): a stored function on the server, the built-in here
)

var kindNames = map[RefusalKind]string{
	KindEmpty:              "empty",
	KindTooLong:            "too long",
	KindSyntax:             "syntax error",
	KindNotSelect:          "not a select",
	KindMultipleStatements: "multiple statements",
	KindInto:               "select into",
	KindLocking:            "locking read",
	KindFunction:           "denied function",
	KindAssignment:         "variable assignment",
	KindSystemTable:        "system table",
	KindExecutableComment:  "executable comment",
	KindHint:               "optimizer hint",
	KindAmbiguousEscape:    "ambiguous escape",
	KindAccess:             "access rule",
	KindSpacedCall:         "spaced function call",
}

// String returns a short lowercase name, for logs and metrics.
func (k RefusalKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("RefusalKind(%d)", int(k))
}

// Refusal is the error for a refused statement.
type Refusal struct {
	Kind RefusalKind
	// Reason is a plain, user-facing sentence. It never quotes more than a
	// short fragment of the statement.
	Reason string

	// cause is the parser error behind a syntax refusal; it is for logs
	// only and is reachable through errors.Unwrap.
	cause error
}

// Error returns the user-facing Reason.
func (r *Refusal) Error() string { return r.Reason }

// Is makes errors.Is(err, ErrRefused) true for every refusal.
func (r *Refusal) Is(target error) bool { return target == ErrRefused }

// Unwrap exposes the parser error behind a syntax refusal, if any.
func (r *Refusal) Unwrap() error { return r.cause }

// Refused reports whether err is (or wraps) a refusal and returns it.
func Refused(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

func refuse(kind RefusalKind, format string, args ...any) *Refusal {
	return &Refusal{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

// Statement is an accepted statement.
type Statement struct {
	// Text is the statement as given, trimmed, without a trailing semicolon.
	// Comments inside it are kept; a trailing "-- comment" may end it, so
	// code that wraps Text in a larger statement should put a newline after
	// it.
	Text string
	// Node is the parsed form: *ast.SelectStmt or *ast.SetOprStmt.
	Node ast.StmtNode
}

// parsers are pooled because parser.Parser is not safe for concurrent use
// and allocating one per call costs more than the parse of a small query.
// Every parse sets its SQL mode explicitly, so a pooled parser carries no
// state from one call to the next.
var parsers = sync.Pool{New: func() any { return parser.New() }}

// baseMode is MySQL's default sql_mode: double-quoted text is a string and
// backslash escapes work, as on a stock MySQL, MariaDB or TiDB server.
var baseMode = func() mysql.SQLMode {
	m, err := mysql.GetSQLMode(mysql.DefaultSQLMode)
	if err != nil {
		panic(fmt.Sprintf("sqlguard: default SQL mode: %v", err))
	}
	return m
}()

// escapeModes change how a quoted literal containing a backslash ends. A
// statement with a backslash must be safe under each of them too, or a
// server configured that way could read a different statement than the
// one checked: 'a\', SLEEP(9) -- ' is one string by default but a string
// and a SLEEP under NO_BACKSLASH_ESCAPES.
var escapeModes = []mysql.SQLMode{
	mysql.ModeNoBackslashEscapes,
	mysql.ModeANSIQuotes,
	mysql.ModeNoBackslashEscapes | mysql.ModeANSIQuotes,
}

// Options configure a Guard.
type Options struct {
	// Flavor chooses the built-in functions statements may call.
	Flavor Flavor
	// Functions are stored or loadable functions the warehouse's
	// configuration allows: "name" or "database.name", any case.
	Functions []string
	// MaxLen caps the statement's size in bytes before it is parsed
	// (default DefaultMaxLen).
	MaxLen int
}

// Guard checks statements for one kind of server. It is safe for
// concurrent use.
type Guard struct {
	flavor  Flavor
	allowed map[string]bool // built-ins of the flavor
	stored  map[string]bool // configured: "name" or "db.name", lower case
	maxLen  int
}

// New builds a guard; a configured function that is malformed or denied
// is an error.
func New(o Options) (*Guard, error) {
	stored, err := parseFunctionNames(o.Functions)
	if err != nil {
		return nil, err
	}
	if o.MaxLen <= 0 {
		o.MaxLen = DefaultMaxLen
	}
	return &Guard{flavor: o.Flavor, allowed: allowedFunctions(o.Flavor), stored: stored, maxLen: o.MaxLen}, nil
}

// anyGuard is the guard of Check: every flavor's built-ins, no stored
// functions. It is never changed after init.
var anyGuard = func() *Guard {
	g, err := New(Options{})
	if err != nil {
		panic(err)
	}
	return g
}()

// Check parses sql with the MySQL dialect (default SQL mode, so
// double-quoted text is a string) and accepts exactly one read-only SELECT:
// WITH (including RECURSIVE), set operations, subqueries and derived tables
// are allowed. Every other input is refused with a *Refusal. Functions are
// those of any flavor; a warehouse checks again with its own Guard.
// Check is safe for concurrent use.
func Check(sql string) (*Statement, error) { return anyGuard.Check(sql) }

// CheckInspect is Check that also accepts the read-only statements that
// describe the schema (see Guard.CheckInspect).
func CheckInspect(sql string) (*Statement, error) { return anyGuard.CheckInspect(sql) }

// Check accepts exactly one read-only SELECT (see the package-level Check).
func (g *Guard) Check(sql string) (*Statement, error) { return g.check(sql, false) }

// CheckInspect accepts what Check accepts, and the statements an admin
// uses to look at the schema: SHOW TABLES, SHOW [FULL] COLUMNS (DESCRIBE
// t), SHOW CREATE TABLE, SHOW INDEX, SHOW TABLE STATUS, SHOW DATABASES,
// and EXPLAIN of a statement Check accepts. SHOW … WHERE, EXPLAIN ANALYZE
// (which runs the statement) and EXPLAIN FOR CONNECTION are refused.
func (g *Guard) CheckInspect(sql string) (*Statement, error) { return g.check(sql, true) }

func (g *Guard) check(sql string, inspect bool) (_ *Statement, err error) {
	if strings.TrimSpace(sql) == "" {
		return nil, refuse(KindEmpty, "the statement is empty")
	}
	if len(sql) > g.maxLen {
		return nil, refuse(KindTooLong, "the statement is too long (%d bytes; the limit is %d)", len(sql), g.maxLen)
	}
	if r := checkBytes(sql); r != nil {
		return nil, r
	}

	p := parsers.Get().(*parser.Parser)
	defer func() {
		if v := recover(); v != nil {
			// The parser panics on some inputs (test_driver on a decimal
			// literal with more than 81 digits). Fail closed, and drop the
			// parser since its state is unknown.
			err = &Refusal{
				Kind:   KindSyntax,
				Reason: "the statement could not be parsed (a number may have too many digits)",
				cause:  fmt.Errorf("parser panic: %v", v),
			}
			return
		}
		parsers.Put(p)
	}()

	stmt, r := g.inspect(p, sql, baseMode, inspect)
	if r != nil {
		return nil, r
	}
	text := strings.TrimSpace(stmt.OriginalText())
	text = strings.TrimSpace(strings.TrimSuffix(text, ";"))

	if strings.IndexByte(sql, '\\') >= 0 {
		// The warehouse pins its session's sql_mode, but a server that
		// ignored the pin must still not read another statement: under
		// every escape mode the statement must pass, and without backslash
		// escapes it must keep its shape (a string must not end early).
		shape := shapeOf(stmt)
		for _, m := range escapeModes {
			alt, r := g.inspect(p, sql, baseMode|m, inspect)
			if r == nil && m == mysql.ModeNoBackslashEscapes && shapeOf(alt) != shape {
				r = &Refusal{Kind: KindSyntax}
			}
			if r != nil {
				if r.Kind == KindSyntax {
					return nil, &Refusal{
						Kind:   KindAmbiguousEscape,
						Reason: "a backslash in a quoted string changes the statement on servers using NO_BACKSLASH_ESCAPES or ANSI_QUOTES; write '' for a quote inside a string",
						cause:  r.cause,
					}
				}
				return nil, r
			}
		}
	}

	return &Statement{Text: text, Node: stmt}, nil
}

// shapeOf is a statement's structure without its literals' values: the
// kinds of its nodes and the names it uses, in order.
func shapeOf(stmt ast.StmtNode) string {
	v := &shapeVisitor{}
	stmt.Accept(v)
	return v.b.String()
}

type shapeVisitor struct{ b strings.Builder }

func (v *shapeVisitor) Enter(n ast.Node) (ast.Node, bool) {
	fmt.Fprintf(&v.b, "%T", n)
	switch x := n.(type) {
	case *ast.ColumnName:
		v.b.WriteString(x.Schema.L + "." + x.Table.L + "." + x.Name.L)
	case *ast.TableName:
		v.b.WriteString(x.Schema.L + "." + x.Name.L)
	case *ast.FuncCallExpr:
		v.b.WriteString(x.Schema.L + "." + x.FnName.L)
	}
	v.b.WriteByte(';')
	return n, false
}

func (v *shapeVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.b.WriteByte(')')
	return n, true
}

// checkBytes refuses bytes on which lexers disagree. MySQL starts a comment
// at "--" followed by any control character, the parser only at "--" and
// white space; invalid UTF-8 bytes such as 0x85 count as space to the
// parser but not to MySQL. Generated SQL never needs either.
func checkBytes(sql string) *Refusal {
	if !utf8.ValidString(sql) {
		return refuse(KindSyntax, "the statement is not valid UTF-8 text")
	}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return refuse(KindSyntax, "the statement contains a control character (byte 0x%02X at offset %d)", c, i)
		}
	}
	return nil
}

// inspect parses sql under mode and applies every rule to the result.
func (g *Guard) inspect(p *parser.Parser, sql string, mode mysql.SQLMode, inspect bool) (ast.StmtNode, *Refusal) {
	p.SetSQLMode(mode)
	stmts, _, err := p.ParseSQL(sql)
	if err != nil {
		// A hidden construct is a better explanation than the syntax error
		// it caused, and the refusal must not depend on which one we pick.
		if r := scanComments(sql); r != nil {
			return nil, r
		}
		return nil, syntaxRefusal(sql, err)
	}
	switch n := len(stmts); {
	case n == 0:
		return nil, refuse(KindEmpty, "the statement is empty (only comments or semicolons)")
	case n > 1:
		return nil, refuse(KindMultipleStatements, "only one statement is allowed; found %d", n)
	}
	// The parser reuses its result slice on the next call; the node itself
	// is freshly allocated and safe to keep.
	stmt := stmts[0]
	switch s := stmt.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	case *ast.ShowStmt:
		if !inspect {
			return nil, refuse(KindNotSelect, "only SELECT statements are allowed; this is %s", describe(stmt))
		}
		if r := checkShow(s); r != nil {
			return nil, r
		}
	case *ast.ExplainStmt:
		if !inspect {
			return nil, refuse(KindNotSelect, "only SELECT statements are allowed; this is %s", describe(stmt))
		}
		if r := checkExplain(s); r != nil {
			return nil, r
		}
	default:
		if inspect {
			return nil, refuse(KindNotSelect, "only SELECT, SHOW, DESCRIBE and EXPLAIN statements are allowed; this is %s", describe(stmt))
		}
		return nil, refuse(KindNotSelect, "only SELECT statements are allowed; this is %s", describe(stmt))
	}
	// The comment scan works on the raw text because these comments are
	// exactly where the parser and the warehouse may disagree.
	if r := scanComments(sql); r != nil {
		return nil, r
	}
	if r := scanSpacedCalls(sql); r != nil {
		return nil, r
	}
	if r := g.walk(stmt); r != nil {
		return nil, r
	}
	return stmt, nil
}

// scanComments refuses executable comments and optimizer hints anywhere in
// the raw text, string literals included. MySQL runs /*! … */ only up to its
// version, MariaDB runs /*M! … */ which the parser ignores, TiDB runs
// /*T! … */, and StarRocks/Doris honour /*+ SET_VAR(query_timeout=…) */:
// what the parser checks could differ from what runs. A false refusal of a
// literal containing "/*!" is the accepted price of having no lexer of our
// own that could disagree with the server's.
func scanComments(sql string) *Refusal {
	for rest := sql; ; {
		i := strings.Index(rest, "/*")
		if i < 0 {
			return nil
		}
		rest = rest[i+2:]
		switch {
		case strings.HasPrefix(rest, "!"):
			return refuse(KindExecutableComment, "executable comments (/*! … */) are not allowed, because servers run them differently")
		case len(rest) >= 2 && rest[1] == '!' && strings.ContainsRune("MmTt", rune(rest[0])):
			return refuse(KindExecutableComment, "executable comments (/*%s … */) are not allowed, because servers run them differently", rest[:2])
		case strings.HasPrefix(rest, "+"):
			return refuse(KindHint, "optimizer hints (/*+ … */) are not allowed, because they can change time limits and session settings")
		}
	}
}
