package demodata

import (
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/embedded"
)

// EmbeddedTables returns the tables for embedded.Server.LoadTables, which
// keeps their keys and indexes (see the embedded package). Dates are passed
// as time.Time; rows without dates are shared with ds.
func (ds *Dataset) EmbeddedTables() []embedded.Table {
	out := make([]embedded.Table, len(ds.Tables))
	dates := map[string]any{}
	for i, t := range ds.Tables {
		out[i] = embedded.Table{Name: t.Name, CreateSQL: t.CreateSQL, Rows: withTimes(t, dates)}
	}
	return out
}

// withTimes returns t's rows with DATE strings replaced by time.Time values,
// which the engine stores without parsing: its string parsing tries several
// layouts per value and was a fifth of the load time. Rows without dates are
// shared with t; each distinct date is boxed once.
func withTimes(t Table, dates map[string]any) [][]any {
	var cols []int
	for i, c := range t.Columns {
		if strings.HasSuffix(c, "_at") || strings.HasSuffix(c, "_on") || strings.HasSuffix(c, "_date") {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return t.Rows
	}
	rows := make([][]any, len(t.Rows))
	for i, r := range t.Rows {
		r = slices.Clone(r)
		for _, c := range cols {
			s, ok := r[c].(string)
			if !ok {
				continue
			}
			v, seen := dates[s]
			if !seen {
				tm, err := time.Parse(time.DateOnly, s)
				if err != nil {
					continue // leave it to the engine to reject
				}
				v = tm
				dates[s] = v
			}
			r[c] = v
		}
		rows[i] = r
	}
	return rows
}
