package sqlguard

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// maxFragment caps any piece of the statement quoted in a Reason, so a huge
// statement never ends up in a chat message.
const maxFragment = 60

// fragment makes s safe to quote in a Reason: one line, valid UTF-8, at
// most maxFragment runes.
func fragment(s string) string {
	s = strings.ToValidUTF8(s, "�")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxFragment {
		return s
	}
	r := []rune(s)
	return string(r[:maxFragment]) + "…"
}

func upper(s string) string { return strings.ToUpper(s) }

// describe names a parsed non-SELECT statement in the words a user would
// type, e.g. "an UPDATE statement".
func describe(stmt ast.StmtNode) string {
	return withArticle(statementName(stmt)) + " statement"
}

func statementName(stmt ast.StmtNode) string {
	switch s := stmt.(type) {
	case *ast.InsertStmt:
		if s.IsReplace {
			return "REPLACE"
		}
		return "INSERT"
	case *ast.UpdateStmt:
		return "UPDATE"
	case *ast.DeleteStmt:
		return "DELETE"
	case *ast.LoadDataStmt:
		return "LOAD DATA"
	case *ast.DropTableStmt:
		if s.IsView {
			return "DROP VIEW"
		}
		return "DROP TABLE"
	case *ast.TruncateTableStmt:
		return "TRUNCATE TABLE"
	case *ast.BeginStmt:
		return "START TRANSACTION"
	case *ast.DeallocateStmt:
		return "DEALLOCATE PREPARE"
	case *ast.ExplainStmt:
		// DESCRIBE t, DESC t and EXPLAIN … all parse to ExplainStmt; name
		// it the way the user wrote it.
		if w := leadingWord(stmt.OriginalText()); w == "DESC" || w == "DESCRIBE" {
			return "DESCRIBE"
		}
		return "EXPLAIN"
	case *ast.ExplainForStmt:
		return "EXPLAIN"
	case *ast.SetStmt, *ast.SetPwdStmt, *ast.SetRoleStmt, *ast.SetDefaultRoleStmt,
		*ast.SetConfigStmt, *ast.SetResourceGroupStmt, *ast.SetSessionStatesStmt:
		return "SET"
	}
	// The rest follow the type name: CreateTableStmt -> "CREATE TABLE".
	return typeWords(reflect.TypeOf(stmt))
}

// typeWords turns *ast.LockTablesStmt into "LOCK TABLES".
func typeWords(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := strings.TrimSuffix(t.Name(), "Stmt")
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	if b.Len() == 0 {
		return "non-SELECT"
	}
	return b.String()
}

// withArticle picks "a" or "an" for an upper-case SQL keyword by sound.
func withArticle(name string) string {
	if name == "" {
		return "a"
	}
	switch {
	case strings.HasPrefix(name, "USE"):
		return "a " + name
	case strings.ContainsRune("AEIOUX", rune(name[0])):
		return "an " + name
	}
	return "a " + name
}

// nonSelectKeywords start statements the parser may not know (HANDLER,
// XA, …); a syntax error in one of them is better reported as what it is.
var nonSelectKeywords = map[string]string{
	"INSERT": "INSERT", "UPDATE": "UPDATE", "DELETE": "DELETE", "REPLACE": "REPLACE",
	"LOAD": "LOAD", "CREATE": "CREATE", "ALTER": "ALTER", "DROP": "DROP",
	"TRUNCATE": "TRUNCATE", "RENAME": "RENAME", "GRANT": "GRANT", "REVOKE": "REVOKE",
	"SET": "SET", "USE": "USE", "CALL": "CALL", "DO": "DO", "HANDLER": "HANDLER",
	"LOCK": "LOCK TABLES", "UNLOCK": "UNLOCK TABLES", "START": "START TRANSACTION",
	"BEGIN": "BEGIN", "COMMIT": "COMMIT", "ROLLBACK": "ROLLBACK", "SAVEPOINT": "SAVEPOINT",
	"RELEASE": "RELEASE SAVEPOINT", "XA": "XA", "PREPARE": "PREPARE", "EXECUTE": "EXECUTE",
	"DEALLOCATE": "DEALLOCATE PREPARE", "SHOW": "SHOW", "EXPLAIN": "EXPLAIN",
	"DESCRIBE": "DESCRIBE", "DESC": "DESCRIBE", "ANALYZE": "ANALYZE", "OPTIMIZE": "OPTIMIZE",
	"REPAIR": "REPAIR", "CHECK": "CHECK TABLE", "CHECKSUM": "CHECKSUM", "FLUSH": "FLUSH",
	"KILL": "KILL", "RESET": "RESET", "PURGE": "PURGE", "CHANGE": "CHANGE",
	"INSTALL": "INSTALL", "UNINSTALL": "UNINSTALL", "SHUTDOWN": "SHUTDOWN",
	"RESTART": "RESTART", "IMPORT": "IMPORT", "CLONE": "CLONE", "SIGNAL": "SIGNAL",
	"RESIGNAL": "RESIGNAL", "GET": "GET DIAGNOSTICS", "CACHE": "CACHE INDEX",
	"BINLOG": "BINLOG", "HELP": "HELP", "MERGE": "MERGE", "UPSERT": "UPSERT",
	"EXPORT": "EXPORT", "BACKUP": "BACKUP", "RESTORE": "RESTORE", "CANCEL": "CANCEL",
	"ADMIN": "ADMIN", "REFRESH": "REFRESH", "SUBMIT": "SUBMIT",
}

var (
	// Formats of the parser's syntax errors (grammar, then lexer).
	grammarErr = regexp.MustCompile(`line (\d+) column \d+ near "((?s).*)"\s*$`)
	lexerErr   = regexp.MustCompile(`near '((?s).*)' at line (\d+)`)
	// intoWrite finds the INTO forms the parser does not support (DUMPFILE,
	// @var, INTO before FROM) so the refusal can say what it is.
	intoWrite = regexp.MustCompile(`(?i)\bINTO\s+(OUTFILE|DUMPFILE|@)`)
)

// syntaxRefusal explains a parse failure. The statement is refused whatever
// this returns; the heuristics only choose the most helpful Reason.
func syntaxRefusal(sql string, err error) *Refusal {
	masked := maskLiterals(sql)
	if m := intoWrite.FindStringSubmatch(masked); m != nil {
		switch strings.ToUpper(m[1]) {
		case "OUTFILE":
			return intoRefusal(ast.SelectIntoOutfile)
		case "DUMPFILE":
			return intoRefusal(ast.SelectIntoDumpfile)
		default:
			return intoRefusal(ast.SelectIntoVars)
		}
	}
	if name, ok := nonSelectKeywords[leadingWord(masked)]; ok {
		return &Refusal{
			Kind:   KindNotSelect,
			Reason: fmt.Sprintf("only SELECT statements are allowed; this is %s statement", withArticle(name)),
			cause:  err,
		}
	}

	r := &Refusal{Kind: KindSyntax, cause: err}
	msg := err.Error()
	var near, line string
	if m := grammarErr.FindStringSubmatch(msg); m != nil {
		line, near = m[1], m[2]
	} else if m := lexerErr.FindStringSubmatch(msg); m != nil {
		near, line = m[1], m[2]
	}
	switch {
	case line == "":
		r.Reason = "the statement could not be parsed as MySQL SQL"
	case strings.TrimSpace(near) == "":
		r.Reason = fmt.Sprintf("syntax error at the end of the statement (line %s)", line)
	default:
		r.Reason = fmt.Sprintf("syntax error near '%s' at line %s", fragment(near), line)
	}
	return r
}

// leadingWord returns the first word of s in upper case, skipping blanks
// and opening parentheses.
func leadingWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	end := strings.IndexFunc(s, func(r rune) bool { return !(unicode.IsLetter(r) || r == '_') })
	if end < 0 {
		end = len(s)
	}
	return strings.ToUpper(s[:end])
}

// maskLiterals blanks out quoted strings, quoted identifiers and comments so
// keyword heuristics do not match their contents. It only steers the
// wording of refusals, so an approximate lexer is enough.
func maskLiterals(s string) string {
	b := []byte(s)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			b[k] = ' '
		}
	}
	for t := range sqlscan.Tokens(s, sqlscan.Quotes|sqlscan.Backslash|sqlscan.HashComment|sqlscan.AnyDashComment|sqlscan.BlockComment) {
		switch t.Kind {
		case sqlscan.Quoted:
			end := t.End
			if t.Terminated {
				end--
			}
			blank(t.Start+1, end)
		case sqlscan.Comment:
			blank(t.Start, t.End)
		}
	}
	return string(b)
}
