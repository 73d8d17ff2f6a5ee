package warehouse

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/internal/errkind"
)

// ErrorKind classifies warehouse failures so callers can branch on them and
// adapters can word them for users.
type ErrorKind int

const (
	KindUnknown       ErrorKind = iota
	KindRefused                 // the read-only guard refused the statement
	KindSyntax                  // the server could not parse it
	KindUnknownColumn           // a column does not exist
	KindUnknownTable            // a table does not exist
	KindAccessDenied            // login or privilege refused
	KindTimeout                 // the time limit stopped the query
	KindCanceled                // the caller went away
	KindUnavailable             // the server cannot be reached or the connection broke
	KindTooLarge                // a result row is larger than the byte cap
)

var kindNames = map[ErrorKind]string{
	KindUnknown: "error", KindRefused: "refused", KindSyntax: "syntax error",
	KindUnknownColumn: "unknown column", KindUnknownTable: "unknown table",
	KindAccessDenied: "access denied", KindTimeout: "timeout", KindCanceled: "canceled",
	KindUnavailable: "unavailable", KindTooLarge: "too large",
}

func (k ErrorKind) String() string { return kindNames[k] }

// ErrorKinds are the kinds a statement that reached the server can fail
// with (all but KindRefused), for metrics that start at zero.
func ErrorKinds() []ErrorKind {
	var out []ErrorKind
	for k := KindUnknown; k <= KindTooLarge; k++ {
		if k != KindRefused {
			out = append(out, k)
		}
	}
	return out
}

// Sentinels for errors.Is; an *Error matches the sentinel of its kind.
var (
	ErrRefused       = &Error{Kind: KindRefused, Msg: "statement refused"}
	ErrSyntax        = &Error{Kind: KindSyntax, Msg: "syntax error"}
	ErrUnknownColumn = &Error{Kind: KindUnknownColumn, Msg: "unknown column"}
	ErrUnknownTable  = &Error{Kind: KindUnknownTable, Msg: "unknown table"}
	ErrAccessDenied  = &Error{Kind: KindAccessDenied, Msg: "access denied"}
	ErrTimeout       = &Error{Kind: KindTimeout, Msg: "timeout"}
	ErrCanceled      = &Error{Kind: KindCanceled, Msg: "canceled"}
	ErrUnavailable   = &Error{Kind: KindUnavailable, Msg: "warehouse unavailable"}
	ErrTooLarge      = &Error{Kind: KindTooLarge, Msg: "result too large"}
)

// Error is a warehouse failure: Msg names the problem in our words, Err
// keeps the underlying cause. Error() gives both, for logs and admins;
// chat replies are worded by the dialog from Kind alone, because the
// server's message may hold account names, hosts and database names.
type Error struct {
	Kind ErrorKind
	Msg  string
	// Name is the column or table concerned, when known.
	Name string
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	cause := firstLine(e.Err.Error())
	if strings.Contains(e.Msg, cause) {
		return e.Msg
	}
	return e.Msg + " (" + cause + ")"
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of the same kind, so errors.Is(err, ErrTimeout)
// holds for every timeout whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && isSentinel(t)
}

func isSentinel(e *Error) bool {
	switch e {
	case ErrRefused, ErrSyntax, ErrUnknownColumn, ErrUnknownTable, ErrAccessDenied, ErrTimeout, ErrCanceled, ErrUnavailable, ErrTooLarge:
		return true
	}
	return false
}

// KindOfError returns the kind of a warehouse error, KindUnknown otherwise.
func KindOfError(err error) ErrorKind {
	return errkind.Of(err, func(e *Error) ErrorKind { return e.Kind }, KindUnknown)
}

var (
	// MySQL/MariaDB: Unknown column 'o.x' in 'where clause'
	reUnknownColumn = regexp.MustCompile(`(?i)unknown column '([^']+)' in '([^']+)'`)
	// go-mysql-server: column "x" could not be found in any table in scope
	reGMSColumn = regexp.MustCompile(`(?i)column "([^"]+)" could not be found`)
	// go-mysql-server: table "i" does not have column "nope"
	reGMSTableColumn = regexp.MustCompile(`(?i)table "([^"]+)" does not have column "([^"]+)"`)
	// MySQL/MariaDB: Table 'db.t' doesn't exist; go-mysql-server: table not found: t
	reUnknownTable = regexp.MustCompile(`(?i)table '([^']+)' doesn't exist|table not found: ([^\s,]+)`)
)

// classify turns a driver or network error into an *Error. limit is the
// query's time limit (for the message) and aliases maps the statement's
// table aliases to table names so an unknown column can name its table.
func classify(ctx context.Context, err error, limit time.Duration, aliases map[string]string) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return err
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return classifyServer(ctx, me, limit, aliases)
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return contextError(ctx, err, limit)
	}
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &oe):
		return &Error{Kind: KindUnavailable, Msg: fmt.Sprintf("cannot reach the warehouse at %s: %s", oe.Addr, plainNetReason(oe)), Err: err}
	case errors.As(err, &ne) && ne.Timeout():
		return &Error{Kind: KindUnavailable, Msg: "the warehouse did not answer in time (network timeout)", Err: err}
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, net.ErrClosed):
		return &Error{Kind: KindUnavailable, Msg: "the connection to the warehouse broke; try again", Err: err}
	}
	return &Error{Kind: KindUnknown, Msg: "the warehouse reported an error: " + firstLine(err.Error()), Err: err}
}

func plainNetReason(oe *net.OpError) string {
	msg := oe.Err.Error()
	switch {
	case strings.Contains(msg, "refused"):
		return "connection refused (is the server running?)"
	case strings.Contains(msg, "no such host"):
		return "unknown host"
	case strings.Contains(msg, "timeout"):
		return "connection timed out"
	}
	return msg
}

func contextError(ctx context.Context, err error, limit time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled) && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Kind: KindCanceled, Msg: "the query was canceled", Err: err}
	}
	return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the query took longer than the %s time limit and was stopped", humanDuration(limit)), Err: err}
}

func classifyServer(ctx context.Context, me *mysql.MySQLError, limit time.Duration, aliases map[string]string) error {
	msg := firstLine(me.Message)
	switch me.Number {
	case 1054: // ER_BAD_FIELD_ERROR
		if m := reUnknownColumn.FindStringSubmatch(me.Message); m != nil {
			return unknownColumn(m[1], m[2], aliases, me)
		}
	case 1146: // ER_NO_SUCH_TABLE
		return unknownTable(me)
	case 1045, 1698, 1044, 1142, 1143, 1227, 1370: // login, database, table, column, privilege
		return &Error{Kind: KindAccessDenied, Msg: "the warehouse refused access: " + msg, Err: me}
	case 1049: // ER_BAD_DB_ERROR
		return &Error{Kind: KindUnavailable, Msg: "the warehouse has no such database: " + msg, Err: me}
	case 3024, 1969, 1028: // MySQL max_execution_time, MariaDB max_statement_time, sort aborted
		return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the query took longer than the %s time limit and was stopped", humanDuration(limit)), Err: me}
	case 1317: // ER_QUERY_INTERRUPTED: our own KILL QUERY
		return contextError(ctx, me, limit)
	case 1064, 1149: // syntax
		return &Error{Kind: KindSyntax, Msg: "the warehouse could not parse the query: " + msg, Err: me}
	case 1040, 1203, 1226: // too many connections / user connections / resource limit
		return &Error{Kind: KindUnavailable, Msg: "the warehouse has no free connections right now: " + msg, Err: me}
	}
	// go-mysql-server reports most errors with the generic code 1105.
	if m := reGMSTableColumn.FindStringSubmatch(me.Message); m != nil {
		return unknownColumn(m[1]+"."+m[2], "", aliases, me)
	}
	if m := reGMSColumn.FindStringSubmatch(me.Message); m != nil {
		return unknownColumn(m[1], "", aliases, me)
	}
	if reUnknownTable.MatchString(me.Message) {
		return unknownTable(me)
	}
	if strings.Contains(strings.ToLower(me.Message), "syntax error") {
		return &Error{Kind: KindSyntax, Msg: "the warehouse could not parse the query: " + msg, Err: me}
	}
	if ctx.Err() != nil {
		return contextError(ctx, me, limit)
	}
	return &Error{Kind: KindUnknown, Msg: fmt.Sprintf("the warehouse reported an error: %s", msg), Err: me}
}

var clauseNames = map[string]string{
	"field list": "the selected columns", "where clause": "the filter", "order clause": "the ordering",
	"group statement": "the grouping", "having clause": "the HAVING filter", "on clause": "a join condition",
}

func unknownColumn(ref, clause string, aliases map[string]string, cause error) error {
	col, table := ref, ""
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		table, col = ref[:i], ref[i+1:]
		if t, ok := aliases[strings.ToLower(table)]; ok {
			table = t
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "unknown column `%s`", col)
	if table != "" {
		fmt.Fprintf(&b, " in table `%s`", table)
	}
	if where, ok := clauseNames[strings.ToLower(clause)]; ok {
		fmt.Fprintf(&b, " (in %s)", where)
	}
	return &Error{Kind: KindUnknownColumn, Msg: b.String(), Name: ref, Err: cause}
}

func unknownTable(me *mysql.MySQLError) error {
	name := ""
	if m := reUnknownTable.FindStringSubmatch(me.Message); m != nil {
		name = m[1]
		if name == "" {
			name = m[2]
		}
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
	}
	msg := "unknown table"
	if name != "" {
		msg = fmt.Sprintf("unknown table `%s`", name)
	}
	return &Error{Kind: KindUnknownTable, Msg: msg, Name: name, Err: me}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// humanDuration prints 10s as "10 s" and 1500ms as "1.5 s".
func humanDuration(d time.Duration) string {
	if d <= 0 {
		return "configured"
	}
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%d s", int64(s))
	}
	return fmt.Sprintf("%.1f s", s)
}
