package embedded

import (
	"context"
	"strings"
	"testing"

	gsql "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// timeTable has dates on both sides of month and year ends, a datetime
// column and NULLs, so that off-by-one conversions change the counts.
func loadTimeTable(tb testing.TB, s *Server) {
	tb.Helper()
	err := s.LoadTables(context.Background(), "tf", []Table{{
		Name:      "ev",
		CreateSQL: "CREATE TABLE ev (id INT PRIMARY KEY, d DATE NULL, at DATETIME NULL)",
		Rows: [][]any{
			{1, "2023-12-31", "2023-12-31 23:59:59"},
			{2, "2024-01-01", "2024-01-01 00:00:00"},
			{3, "2024-01-15", "2024-01-15 12:30:00"},
			{4, "2024-01-31", "2024-01-31 08:00:00"},
			{5, "2024-02-01", "2024-02-01 00:00:01"},
			{6, nil, nil},
		},
	}})
	if err != nil {
		tb.Fatal(err)
	}
}

func TestTimeLiteralComparisons(t *testing.T) {
	s := mustServer(t)
	loadTimeTable(t, s)
	db := mustOpen(t, s, "tf")
	tests := []struct {
		name  string
		where string
		want  string // ids in order
	}{
		{"date range", "d >= '2024-01-01' AND d < '2024-02-01'", "2,3,4"},
		{"literal on the left", "'2024-01-15' <= d", "3,4,5"},
		{"equality", "d = '2024-01-31'", "4"},
		{"not equal skips NULL", "d <> '2024-01-31'", "1,2,3,5"},
		{"null-safe equality", "d <=> '2024-01-01'", "2"},
		{"between", "d BETWEEN '2024-01-01' AND '2024-01-31'", "2,3,4"},
		{"date against a time of day", "d < '2024-01-15 00:00:01'", "1,2,3"},
		{"datetime against a date", "at >= '2024-01-31'", "4,5"},
		{"datetime to the second", "at > '2024-01-01 00:00:00'", "3,4,5"},
		{"inside a subquery", "EXISTS (SELECT 1 FROM ev e2 WHERE e2.id = ev.id AND e2.d > '2024-01-15')", "4,5"},
		{"in a derived table", "id IN (SELECT id FROM (SELECT id FROM ev WHERE at < '2024-01-02') x)", "1,2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := db.QueryContext(context.Background(), "SELECT id FROM ev WHERE "+tc.where+" ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var ids []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ids, ","); got != tc.want {
				t.Errorf("WHERE %s: got ids %q, want %q", tc.where, got, tc.want)
			}
		})
	}
}

// The rule must actually fold: an analyzed plan keeps no string literal
// beside a date column, and a literal that is no date stays as written.
func TestTimeLiteralsAreFoldedInThePlan(t *testing.T) {
	s := mustServer(t)
	loadTimeTable(t, s)
	tests := []struct {
		query      string
		wantString int // string literals left in comparisons with time columns
	}{
		{"SELECT id FROM ev WHERE d >= '2024-01-01' AND d < '2024-02-01'", 0},
		{"SELECT id FROM ev WHERE EXISTS (SELECT 1 FROM ev e2 WHERE e2.id = ev.id + 1 AND e2.at > '2024-01-15')", 0},
		{"SELECT id FROM ev WHERE d = 'soon'", 1},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			ctx := s.newContext(context.Background(), "tf")
			node, err := s.engine.AnalyzeQuery(ctx, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := stringTimeComparisons(node); got != tc.wantString {
				t.Errorf("%d comparisons of a time column with a string literal, want %d", got, tc.wantString)
			}
		})
	}
}

func stringTimeComparisons(n gsql.Node) int {
	count := 0
	transform.InspectExpressionsWithNode(n, func(_ gsql.Node, e gsql.Expression) bool {
		if sq, ok := e.(*plan.Subquery); ok {
			count += stringTimeComparisons(sq.Query)
			return true
		}
		c, ok := e.(expression.Comparer)
		if !ok {
			return true
		}
		for _, pair := range [][2]gsql.Expression{{c.Left(), c.Right()}, {c.Right(), c.Left()}} {
			lit, isLit := pair[1].(*expression.Literal)
			if isLit && types.IsTime(pair[0].Type()) && types.IsText(lit.Type()) {
				count++
			}
		}
		return true
	})
	return count
}
