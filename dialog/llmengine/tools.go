package llmengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Tool mode (after Interactive-T2S): before it answers, the model may look
// up columns, stored values and join paths, and run read-only queries —
// every execute_sql through the warehouse's guarded Query.

const maxToolCallsPerStep = 8

// toolDefs are the tools offered; execute_sql only with an executor.
func (e *Engine) toolDefs() []llm.Tool {
	tools := []llm.Tool{
		{Name: "search_columns", Description: "Find the columns a phrase of the question may refer to, best first.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"phrase":{"type":"string","description":"words of the question, e.g. \"revenue\""},"limit":{"type":"integer","minimum":1,"maximum":10}},"required":["phrase"],"additionalProperties":false}`)},
		{Name: "search_values", Description: "Find stored text values matching a phrase (exact, case-insensitive, abbreviation, prefix or typo), with their table and column.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"phrase":{"type":"string","description":"a value as the person wrote it, e.g. \"texas\""},"limit":{"type":"integer","minimum":1,"maximum":10}},"required":["phrase"],"additionalProperties":false}`)},
		{Name: "join_path", Description: "Give the joins that connect tables.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"tables":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":8}},"required":["tables"],"additionalProperties":false}`)},
	}
	if e.opts.Exec != nil {
		tools = append(tools, llm.Tool{Name: "execute_sql", Description: "Run one read-only SELECT and see its first rows (at most 10).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"],"additionalProperties":false}`)})
	}
	return tools
}

// explore runs the tool steps. It returns the conversation so far and, if
// the model answered without calling a tool, that answer.
func (r *run) explore(ctx context.Context, msgs []llm.Message, tools []llm.Tool, temp float64) ([]llm.Message, *llm.Choice, error) {
	for step := 0; step < r.e.opts.MaxToolSteps; step++ {
		resp, err := r.chat(ctx, llm.Request{Messages: msgs, Tools: tools, ToolChoice: llm.ToolChoiceAuto, N: 1, Temperature: temp, MaxTokens: maxCompletion, JSON: true})
		if err != nil {
			return nil, nil, err
		}
		if len(resp.Choices) == 0 {
			return msgs, nil, nil
		}
		ch := resp.Choices[0]
		if len(ch.Message.ToolCalls) == 0 {
			return msgs, &ch, nil
		}
		msg := ch.Message
		msg.Role = llm.RoleAssistant
		msgs = append(msgs, msg)
		for i, tc := range msg.ToolCalls {
			out := "skipped: too many calls in one step"
			if i < maxToolCallsPerStep {
				out = r.callTool(ctx, tc)
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: out})
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
	}
	return msgs, nil, nil
}

// callTool runs one tool call; errors become text for the model.
func (r *run) callTool(ctx context.Context, tc llm.ToolCall) string {
	e := r.e
	var args struct {
		Phrase string   `json:"phrase"`
		Limit  int      `json:"limit"`
		Tables []string `json:"tables"`
		SQL    string   `json:"sql"`
	}
	if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
		return "error: the arguments are not valid JSON"
	}
	limit := args.Limit
	if limit <= 0 || limit > 10 {
		limit = 5
	}
	e.log.Debug("tool call", "tool", tc.Name, "args", clipRunes(tc.Arguments, 200))
	switch tc.Name {
	case "search_columns":
		type col struct {
			Table, Column, Type, Comment string
		}
		var out []col
		for _, h := range e.cat.SearchColumns(args.Phrase, limit) {
			c := col{Table: h.Table, Column: h.Column}
			if t := e.cat.Snapshot().Schema.Table(h.Table); t != nil {
				if cc := t.Column(h.Column); cc != nil {
					c.Type, c.Comment = cc.FullType, oneLine(cc.Comment, 120)
				}
			}
			out = append(out, c)
		}
		return toJSON(out)
	case "search_values":
		type val struct {
			Table, Column, Value, Match string
		}
		var out []val
		for _, h := range e.cat.SearchValues(args.Phrase, limit) {
			out = append(out, val{Table: h.Table, Column: h.Column, Value: h.Value, Match: h.Match.String()})
		}
		return toJSON(out)
	case "join_path":
		if len(args.Tables) < 2 || len(args.Tables) > 8 {
			return "error: give 2 to 8 tables"
		}
		tree, err := e.cat.JoinPath(args.Tables...)
		if err != nil {
			return "error: " + err.Error()
		}
		var joins []string
		for _, j := range tree.Edges {
			joins = append(joins, j.Condition())
		}
		return toJSON(map[string]any{"tables": tree.Tables, "joins": joins})
	case "execute_sql":
		if e.opts.Exec == nil {
			return "error: execution is not available"
		}
		if len(args.SQL) > e.opts.MaxSQLBytes {
			return "error: the statement is too long"
		}
		// The asker's executor: their access level's account and rules,
		// so that the result holds no more than they may see.
		res, err := e.opts.Exec.Query(ctx, args.SQL, sqlresult.Limits{MaxRows: 10, Timeout: e.opts.ExecLimits.Timeout})
		if err != nil {
			return "error: " + modelError(err).Error()
		}
		return clipRunes(resultText(res), 2000)
	}
	return "error: unknown tool " + tc.Name
}

// errPrivileges is what the model is told when the warehouse's own
// privileges refuse a statement: the server's message names the account,
// its host and the column or table refused, none of which the model
// provider should learn.
var errPrivileges = errors.New("the warehouse's privileges refuse a table or column this statement reads; it is not available to this person, leave it out")

// modelError is err as the model may read it.
func modelError(err error) error {
	if warehouse.KindOfError(err) == warehouse.KindAccessDenied {
		return errPrivileges
	}
	return err
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// resultText shows a result compactly: column names, then rows.
func resultText(res *sqlresult.Result) string {
	var b strings.Builder
	for i, c := range res.Columns {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(c.Name)
	}
	b.WriteByte('\n')
	for _, row := range res.Rows {
		for i, v := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprint(&b, v)
			}
		}
		b.WriteByte('\n')
	}
	if len(res.Rows) == 0 {
		b.WriteString("(no rows)\n")
	}
	if res.Truncated {
		b.WriteString("(more rows not shown)\n")
	}
	return b.String()
}

// resultKey identifies a result up to row order, to tell whether two
// candidates agree.
func resultKey(res *sqlresult.Result) string {
	rows := make([]string, len(res.Rows))
	for i, row := range res.Rows {
		cells := make([]string, len(row))
		for j, v := range row {
			if f, ok := sqlresult.AsFloat(v); ok {
				cells[j] = fmt.Sprintf("%.9g", f)
			} else {
				cells[j] = fmt.Sprint(v)
			}
		}
		rows[i] = strings.Join(cells, "\x1f")
	}
	sort.Strings(rows)
	return fmt.Sprint(len(res.Columns)) + "\x1e" + strings.Join(rows, "\x1e")
}
