package offline_test

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// BenchmarkCandidates measures the offline engine reading everyday
// questions (linking, readings, accounting of each reading's words) on
// two small schemas of its own.
func BenchmarkCandidates(b *testing.B) {
	press, _ := engineOn(b, pressDump())
	lending, _ := engineOn(b, lendingDump())
	cases := []struct {
		e interface {
			Candidates(context.Context, dialog.Request) (*dialog.Proposal, error)
		}
		q string
	}{
		{press, "which publisher is used by the most books"},
		{press, "list writers sorted by age, oldest first"},
		{press, "show the ids and names of writers with paperback books"},
		{lending, "which members does Tool C go to"},
		{lending, "list the top 3 tools by number of members"},
		{lending, "total deposit of tools by courier"},
		{lending, "count members who joined in the past 400 days, inclusive of today"},
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			if _, err := c.e.Candidates(ctx, dialog.Request{Question: c.q}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(cases)), "µs/question")
}
