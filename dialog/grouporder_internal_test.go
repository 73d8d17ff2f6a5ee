package dialog

import (
	"fmt"
	"testing"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// TestOrderGroups: a grouped result without an order of its own is shown
// by its figure, largest first (NULL last); grouped by time, in time
// order; a reading's own ORDER BY or LIMIT is left alone.
func TestOrderGroups(t *testing.T) {
	t.Parallel()
	rows := func(vals ...any) [][]any {
		var out [][]any
		for i := 0; i < len(vals); i += 2 {
			out = append(out, []any{vals[i], vals[i+1]})
		}
		return out
	}
	tests := []struct {
		name, sql string
		cols      []sqlresult.Column
		in        [][]any
		want      string
	}{
		{"by figure", "SELECT status, COUNT(*) FROM loans GROUP BY status",
			[]sqlresult.Column{{Name: "status", Type: "VARCHAR"}, {Name: "COUNT(*)", Type: "BIGINT"}},
			rows("lost", int64(12), "returned", int64(90), "overdue", nil, "on loan", int64(8)),
			"[[returned 90] [lost 12] [on loan 8] [overdue <nil>]]"},
		{"decimal figures", "SELECT genre, SUM(fee) FROM loans GROUP BY genre",
			[]sqlresult.Column{{Name: "genre", Type: "VARCHAR"}, {Name: "SUM(fee)", Type: "DECIMAL"}},
			rows("poetry", "9.50", "history", "120.25", "maps", "19.75"),
			"[[history 120.25] [maps 19.75] [poetry 9.50]]"},
		{"by time", "SELECT MONTH(borrowed_on), COUNT(*) FROM loans GROUP BY MONTH(borrowed_on)",
			[]sqlresult.Column{{Name: "MONTH(borrowed_on)", Type: "BIGINT"}, {Name: "COUNT(*)", Type: "BIGINT"}},
			rows(int64(3), int64(40), int64(1), int64(10), int64(2), int64(55)),
			"[[1 10] [2 55] [3 40]]"},
		{"its own order", "SELECT status, COUNT(*) FROM loans GROUP BY status ORDER BY status",
			[]sqlresult.Column{{Name: "status", Type: "VARCHAR"}, {Name: "COUNT(*)", Type: "BIGINT"}},
			rows("lost", int64(12), "returned", int64(90)),
			"[[lost 12] [returned 90]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape, err := sqlshape.Parse(tt.sql, nil)
			if err != nil {
				t.Fatal(err)
			}
			res := &sqlresult.Result{Columns: tt.cols, Rows: tt.in}
			orderGroups(res, shape)
			if got := fmt.Sprint(res.Rows); got != tt.want {
				t.Fatalf("rows %s, want %s", got, tt.want)
			}
		})
	}
}
