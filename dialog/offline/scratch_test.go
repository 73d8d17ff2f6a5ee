package offline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/demotest"
)

func TestScratchDemo(t *testing.T) {
	d := demotest.Start(t, 3000)
	e := New(d.Catalog, Options{Now: func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }})
	for _, q := range []string{"how many customers do we have?", "what was revenue in 2024?", "which region had the highest revenue in 2025?", "list customers in Ohio", "who is our best customer?", "how many orders from Texas in 2024?", "units sold per category", "top 5 products by units sold", "revenue by month in 2025", "average order value by segment", "who was our first customer?"} {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
		fmt.Printf("\n### %s (%v) %d\n", q, err, len(p.Candidates))
		for i, c := range p.Candidates {
			if i == 6 {
				break
			}
			fmt.Printf("%.3f %v\n%s\n", c.Prior, c.Phrases, c.SQL)
		}
	}
}
