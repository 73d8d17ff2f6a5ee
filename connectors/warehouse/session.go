package warehouse

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// The session a statement runs in decides how the server reads it: the
// sql_mode (ANSI_QUOTES makes "x" a column, PIPES_AS_CONCAT makes || a
// concatenation, NO_BACKSLASH_ESCAPES ends a string at a backslash) and
// the client character set (in GBK or Big5 the second byte of a letter
// can be a quote or a backtick). The guard and the access rules read a
// statement with the default mode in UTF-8, so the warehouse sets both on
// every connection, allows only harmless session parameters in the DSN,
// and checks the session before each statement.

// SessionCharset is the client character set of every session.
const SessionCharset = "utf8mb4"

// AllowedSessionParams are the session variables a DSN may set (as
// go-sql-driver does for a parameter it does not know itself: SET
// <name> = <value> on every new connection). They change time limits,
// isolation and how values are formatted, never how a statement is read.
var AllowedSessionParams = []string{
	"time_zone", "transaction_isolation", "tx_isolation",
	"wait_timeout", "interactive_timeout", "net_read_timeout", "net_write_timeout",
	"lock_wait_timeout", "innodb_lock_wait_timeout",
	"lc_time_names", "div_precision_increment", "group_concat_max_len",
}

// paramName is how the driver's SET may name a session variable:
// name, @@name, @@session.name or @@local.name, any case.
var paramName = regexp.MustCompile(`(?i)^(@@((session|local|global)\.)?)?([a-z_][a-z0-9_]*)$`)

// paramValue is a value the driver pastes after "=": one quoted string
// with no quote or backslash inside, or one plain word or number. A
// comma would start another assignment, anything else another expression.
var paramValue = regexp.MustCompile(`^('[^'\\]*'|[A-Za-z0-9_.:+-]+)$`)

// sessionName is the variable a DSN parameter's key sets, lower case,
// without @@ and scope; global reports @@global.
func sessionName(key string) (name string, global, ok bool) {
	m := paramName.FindStringSubmatch(strings.TrimSpace(key))
	if m == nil {
		return "", false, false
	}
	return strings.ToLower(m[4]), strings.EqualFold(m[3], "global"), true
}

// CheckSession refuses connection settings under which the server would
// read a statement differently from the guard, parsed as the driver
// applies them: a session parameter must be one of AllowedSessionParams
// written plainly (sql_mode, character_set_client, names and
// collation_connection are refused, with or without @@ and in any case:
// the warehouse sets them itself), and the charset and collation must be
// UTF-8 ones (in GBK or SJIS a backslash or quote can be the second byte
// of a letter).
func CheckSession(mc *mysql.Config) error {
	keys := make([]string, 0, len(mc.Params))
	for k := range mc.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := checkSessionParam(k, mc.Params[k]); err != nil {
			return err
		}
	}
	if mc.Collation != "" && !utf8Charset(strings.SplitN(mc.Collation, "_", 2)[0]) {
		return fmt.Errorf("warehouse: the DSN's collation %s is not a UTF-8 one; use utf8mb4_… or leave it out", mc.Collation)
	}
	if i := strings.IndexByte(mc.FormatDSN(), '?'); i >= 0 {
		q, _ := url.ParseQuery(mc.FormatDSN()[i+1:])
		for _, cs := range strings.Split(q.Get("charset"), ",") {
			if cs != "" && !utf8Charset(cs) {
				return fmt.Errorf("warehouse: the DSN's charset %s is not UTF-8; use utf8mb4 or leave it out", cs)
			}
		}
	}
	return nil
}

func checkSessionParam(key, value string) error {
	name, global, ok := sessionName(key)
	switch {
	case !ok:
		return fmt.Errorf("warehouse: the DSN parameter %q is not a session variable the bot allows; allowed: %s", key, strings.Join(AllowedSessionParams, ", "))
	case global:
		return fmt.Errorf("warehouse: the DSN sets %s, a global variable; remove it: a connection may set only its own session", key)
	case name == "sql_mode":
		return fmt.Errorf("warehouse: the DSN sets %s; remove it: the bot sets the session's sql_mode itself, so that statements are checked as the server reads them", key)
	case strings.HasPrefix(name, "character_set_") || strings.HasPrefix(name, "collation_") || name == "names" || name == "charset":
		return fmt.Errorf("warehouse: the DSN sets %s; remove it: the bot sets the session's character set to %s itself, and statements are sent as UTF-8", key, SessionCharset)
	case !slices.Contains(AllowedSessionParams, name):
		return fmt.Errorf("warehouse: the DSN sets the session variable %s, which the bot does not allow (allowed: %s)", key, strings.Join(AllowedSessionParams, ", "))
	case !paramValue.MatchString(strings.TrimSpace(value)):
		return fmt.Errorf("warehouse: the DSN's value for %s must be one word, number or 'quoted text' without quotes or backslashes inside", key)
	}
	return nil
}

func utf8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "utf8", "utf8mb4", "utf8mb3":
		return true
	}
	return false
}

// sessionCharsetVars are the variables SET NAMES sets.
var sessionCharsetVars = []string{"character_set_client", "character_set_connection", "character_set_results"}

// pinCharset makes the driver set the client character set on every new
// connection, with the sql_mode, in one SET.
func pinCharset(mc *mysql.Config) {
	for _, v := range sessionCharsetVars {
		mc.Params[v] = SessionCharset
	}
}

// session returns the connection's id, and makes sure its sql_mode and
// character set are the pinned ones: each connection sets them when it
// opens, and nothing the guard lets through can change them, so a
// difference means something else did; they are set again, and the
// statement does not run if that fails. It costs no round trip of its
// own: the connection's id is read anyway, for KILL QUERY.
func (w *DB) session(ctx context.Context, conn *sql.Conn) (int64, error) {
	var id int64
	if !w.flavor.pinsSQLMode() {
		// An empty pinned mode is a mode too; only servers with modes
		// of their own are left as they are.
		err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
		return id, err
	}
	const read = "SELECT CONNECTION_ID(), @@SESSION.sql_mode, @@SESSION.character_set_client, @@SESSION.character_set_connection"
	var mode, client, connection sql.NullString
	if err := conn.QueryRowContext(ctx, read).Scan(&id, &mode, &client, &connection); err != nil {
		return 0, err
	}
	if w.sessionPinned(mode.String, client.String, connection.String) {
		return id, nil
	}
	w.logger.Warn("warehouse: a session's sql_mode or character set changed; setting them again", "connection", id,
		"sql_mode", mode.String, "character_set_client", client.String, "want", w.sqlMode)
	set := "SET SESSION sql_mode = '" + w.sqlMode + "', NAMES " + SessionCharset
	if _, err := conn.ExecContext(ctx, set); err != nil {
		return 0, fmt.Errorf("set the session's sql_mode and character set: %w", err)
	}
	if err := conn.QueryRowContext(ctx, read).Scan(&id, &mode, &client, &connection); err != nil {
		return 0, err
	}
	if !w.sessionPinned(mode.String, client.String, connection.String) {
		return 0, &Error{Kind: KindUnavailable, Msg: fmt.Sprintf("the warehouse session's sql_mode is %q and its character set %s; they cannot be set to %q and %s", mode.String, client.String, w.sqlMode, SessionCharset)}
	}
	return id, nil
}

// sessionPinned reports whether a session reads statements as the guard:
// the pinned sql_mode and a UTF-8 client. The embedded server reports no
// character set of its own and reads UTF-8 only.
func (w *DB) sessionPinned(mode, client, connection string) bool {
	if !sameModes(mode, w.sqlMode) {
		return false
	}
	if w.flavor == FlavorEmbedded && client == "" {
		return true
	}
	return strings.EqualFold(client, SessionCharset) && (connection == "" || strings.EqualFold(connection, SessionCharset))
}

// sameModes compares two sql_mode values as sets of flags.
func sameModes(a, b string) bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, f := range strings.Split(s, ",") {
			if f = strings.ToUpper(strings.TrimSpace(f)); f != "" {
				m[f] = true
			}
		}
		return m
	}
	x, y := set(a), set(b)
	if len(x) != len(y) {
		return false
	}
	for f := range x {
		if !y[f] {
			return false
		}
	}
	return true
}
