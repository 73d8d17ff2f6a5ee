package llmengine

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// Everything a model writes is untrusted: it may be prose, JSON with the
// statement inside, a fenced block, several statements, a write, a query
// over invented columns, or pages of text. This file turns a reply into at
// most one statement; the guard and the schema check decide whether it may
// go anywhere.

var (
	errNoSQL     = errors.New("the reply holds no SQL statement")
	errCutOff    = errors.New("the reply was cut off (too long)")
	errTooLong   = errors.New("the reply is absurdly long")
	errSQLTooBig = errors.New("the statement is too long")
)

var (
	fenceRe   = regexp.MustCompile("(?s)```[a-zA-Z]*[ \t]*\n?(.*?)```")
	startRe   = regexp.MustCompile(`(?i)\b(select|with)\b`)
	stmtStart = regexp.MustCompile(`(?i)^\s*(select|with|insert|update|delete|replace|drop|create|alter|truncate|grant|revoke|set|call|load|lock|unlock|rename|show|use|begin|commit|rollback|do|handler)\b`)
	// sqlWords start lines that continue a statement after a blank line.
	sqlWords = regexp.MustCompile(`(?i)^\s*(?:(?:from|where|join|inner|left|right|cross|full|on|and|or|group|order|having|limit|union|intersect|except|select|with|case|when|then|else|end|as)\b|[()])`)
)

// reply turns one choice into a statement, or says why it cannot.
func (e *Engine) reply(ch llm.Choice) (string, error) {
	c := ch.Message.Content
	if len(c) > e.opts.MaxOutputBytes {
		return "", fmt.Errorf("%w (%d bytes)", errTooLong, len(c))
	}
	if ch.FinishReason == "length" {
		return "", errCutOff
	}
	sql, err := extractSQL(c)
	if err != nil {
		return "", err
	}
	if len(sql) > e.opts.MaxSQLBytes {
		return "", fmt.Errorf("%w (%d bytes; the limit is %d)", errSQLTooBig, len(sql), e.opts.MaxSQLBytes)
	}
	return sql, nil
}

// extractSQL finds the statement in a reply: the "sql" field of a JSON
// object (possibly fenced, possibly followed by prose), else a fenced
// block, else the text from the first SELECT or WITH, cut where prose
// starts again.
func extractSQL(content string) (string, error) {
	c := strings.TrimSpace(content)
	if c == "" {
		return "", errNoSQL
	}
	if m := fenceRe.FindStringSubmatch(c); m != nil && strings.HasPrefix(strings.TrimSpace(m[1]), "{") {
		c = strings.TrimSpace(m[1])
	}
	if strings.HasPrefix(c, "{") {
		var v map[string]any
		if err := json.NewDecoder(strings.NewReader(c)).Decode(&v); err == nil {
			for _, k := range []string{"sql", "query", "SQL"} {
				if s, ok := v[k].(string); ok && strings.TrimSpace(s) != "" {
					return strings.TrimSpace(s), nil
				}
			}
			return "", fmt.Errorf("%w: the JSON reply has no \"sql\" field", errNoSQL)
		}
	}
	if m := fenceRe.FindStringSubmatch(c); m != nil && startRe.MatchString(m[1]) {
		return cutProse(strings.TrimSpace(m[1])), nil
	}
	loc := startRe.FindStringIndex(c)
	if loc == nil {
		return "", errNoSQL
	}
	return cutProse(c[loc[0]:]), nil
}

// cutProse ends the statement at its semicolon, unless another statement
// follows (then everything is kept, and the guard refuses the batch), or
// at a blank line followed by prose.
func cutProse(s string) string {
	if i := topLevelSemicolon(s); i >= 0 {
		rest := s[i+1:]
		if stmtStart.MatchString(rest) {
			return strings.TrimSpace(s)
		}
		return strings.TrimSpace(s[:i])
	}
	paras := strings.Split(s, "\n\n")
	out := paras[0]
	for _, p := range paras[1:] {
		if !sqlWords.MatchString(p) {
			break
		}
		out += "\n\n" + p
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(out), "```"))
}

// topLevelSemicolon finds the first ';' outside quotes, backticks and comments.
func topLevelSemicolon(s string) int {
	for t := range sqlscan.Tokens(s, sqlscan.Quotes|sqlscan.Backslash|sqlscan.HashComment|sqlscan.AnyDashComment) {
		if t.Kind == sqlscan.Code && s[t.Start] == ';' {
			return t.Start
		}
	}
	return -1
}

// sqlKey identifies a statement up to white space and the case of what is
// not quoted, so that equal samples count together.
func sqlKey(s string) string {
	var b strings.Builder
	space := false
	for t := range sqlscan.Tokens(s, sqlscan.Quotes) {
		text := s[t.Start:t.End]
		if t.Kind == sqlscan.Code {
			switch c := text[0]; {
			case c == ' ' || c == '\n' || c == '\t' || c == '\r':
				space = true
				continue
			case c >= 'A' && c <= 'Z':
				text = string(c + 'a' - 'A')
			}
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(text)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// schemaError names an invented table or column.
type schemaError struct{ msg string }

func (e *schemaError) Error() string { return e.msg }

// checkSchema refuses statements over tables or columns the warehouse
// does not have. Names of CTEs, derived tables and select aliases are
// allowed; unqualified columns must exist in one of the statement's tables
// unless derived tables could provide them.
func (e *Engine) checkSchema(n ast.StmtNode) error {
	v := &nameVisitor{ctes: map[string]bool{}, derived: map[string]bool{}, aliases: map[string]string{}, selectAs: map[string]bool{}}
	n.Accept(v)
	db := strings.ToLower(e.cat.Snapshot().Schema.Database)
	var bases []string
	for _, t := range v.tables {
		if t.schema != "" && db != "" && t.schema != db {
			return &schemaError{fmt.Sprintf("unknown database %s (use only the tables of the schema given)", t.schema)}
		}
		if v.ctes[t.name] && t.schema == "" {
			continue
		}
		if e.columns[t.name] == nil {
			return &schemaError{fmt.Sprintf("unknown table %s", t.name)}
		}
		bases = append(bases, t.name)
	}
	for _, c := range v.cols {
		if c.table != "" {
			t := c.table
			if base, ok := v.aliases[t]; ok {
				t = base
			}
			if v.ctes[t] || v.derived[t] {
				continue
			}
			cols := e.columns[t]
			if cols == nil {
				return &schemaError{fmt.Sprintf("unknown table or alias %s in %s.%s", c.table, c.table, c.name)}
			}
			if !cols[c.name] {
				return &schemaError{fmt.Sprintf("unknown column %s.%s", t, c.name)}
			}
			continue
		}
		if v.selectAs[c.name] {
			continue
		}
		found := false
		for _, t := range bases {
			if e.columns[t][c.name] {
				found = true
				break
			}
		}
		if !found && len(v.ctes) == 0 && len(v.derived) == 0 {
			return &schemaError{fmt.Sprintf("unknown column %s (not in %s)", c.name, strings.Join(bases, ", "))}
		}
	}
	return nil
}

type tableRef struct{ schema, name string }
type colRef struct{ table, name string }

type nameVisitor struct {
	tables   []tableRef
	cols     []colRef
	ctes     map[string]bool
	derived  map[string]bool
	aliases  map[string]string
	selectAs map[string]bool
}

func (v *nameVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.CommonTableExpression:
		v.ctes[x.Name.L] = true
	case *ast.TableSource:
		switch src := x.Source.(type) {
		case *ast.TableName:
			if x.AsName.L != "" {
				v.aliases[x.AsName.L] = src.Name.L
			}
		default:
			if x.AsName.L != "" {
				v.derived[x.AsName.L] = true
			}
		}
	case *ast.TableName:
		v.tables = append(v.tables, tableRef{schema: x.Schema.L, name: x.Name.L})
	case *ast.ColumnName:
		v.cols = append(v.cols, colRef{table: x.Table.L, name: x.Name.L})
	case *ast.SelectField:
		if x.AsName.L != "" {
			v.selectAs[x.AsName.L] = true
		}
	}
	return n, false
}

func (v *nameVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
