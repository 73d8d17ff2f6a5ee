package offline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/demotest"
)

var now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

// TestAnalyticShapes checks that for each common shape one of the
// engine's readings computes what the question asks (its result equals
// the hand-written query's), and that it is among the likeliest few.
func TestAnalyticShapes(t *testing.T) {
	d := demotest.Start(t, 2000)
	e := offline.New(d.Catalog, offline.Options{Now: now})
	ctx := context.Background()
	cases := []struct {
		shape, question, gold string
		ordered               bool
	}{
		{"projection with a value", "list the names of customers in Ohio", "SELECT name FROM customers WHERE state = 'Ohio'", false},
		{"count", "how many customers do we have?", "SELECT COUNT(*) FROM customers", false},
		{"count with a value", "how many orders were cancelled?", "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'", false},
		{"in a year", "how many orders were placed in 2024?", "SELECT COUNT(*) FROM orders WHERE YEAR(ordered_at) = 2024", false},
		{"after a year", "how many customers signed up after 2024?", "SELECT COUNT(*) FROM customers WHERE signup_date >= '2025-01-01'", false},
		{"last year", "how many refunds were issued last year?", "SELECT COUNT(*) FROM refunds WHERE YEAR(refunded_on) = 2025", false},
		{"between", "how many products have a list price between 100 and 200?", "SELECT COUNT(*) FROM products WHERE list_price BETWEEN 100 AND 200", false},
		{"comparison", "products with a list price over 500", "SELECT name FROM products WHERE list_price > 500", false},
		{"sum", "total refund amount", "SELECT SUM(amount) FROM refunds", false},
		{"average", "average shipping fee of orders", "SELECT AVG(shipping_fee) FROM orders", false},
		{"minimum", "what is the lowest list price of a product?", "SELECT MIN(list_price) FROM products", false},
		{"maximum", "maximum quantity on an order line", "SELECT MAX(quantity) FROM order_lines", false},
		{"per grouping", "number of customers per segment", "SELECT segment, COUNT(*) FROM customers GROUP BY segment", false},
		{"by grouping over a join", "units sold per category", "SELECT c.name, SUM(ol.quantity) FROM order_lines ol JOIN products p ON p.id = ol.product_id JOIN categories c ON c.id = p.category_id GROUP BY c.name", false},
		{"superlative", "which product has the highest list price?", "SELECT name FROM products ORDER BY list_price DESC LIMIT 1", false},
		{"top k", "top 5 products by list price", "SELECT name FROM products ORDER BY list_price DESC LIMIT 5", true},
		{"first", "who was the first sales rep hired?", "SELECT name FROM sales_reps ORDER BY hired_on LIMIT 1", false},
		{"most, counted", "which carrier handled the most shipments?", "SELECT carrier FROM shipments GROUP BY carrier ORDER BY COUNT(*) DESC LIMIT 1", false},
		{"abbreviated value", "how many orders were shipped to Texas?", "SELECT COUNT(*) FROM orders WHERE ship_state = 'TX'", false},
		{"counting kinds", "how many different carriers are there?", "SELECT COUNT(DISTINCT carrier) FROM shipments", false},
		{"counting kinds of", "how many kinds of refund reasons are there?", "SELECT COUNT(DISTINCT reason) FROM refunds", false},
		{"several outputs", "show the name, email and city of customers in Ohio", "SELECT name, email, city FROM customers WHERE state = 'Ohio'", false},
		{"join via a value", "how many customers live in the West region?", "SELECT COUNT(*) FROM customers c JOIN states s ON s.name = c.state JOIN regions r ON r.id = s.region_id WHERE r.name = 'West'", false},
	}
	for _, tc := range cases {
		t.Run(tc.shape, func(t *testing.T) {
			gold, err := d.DB.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatalf("gold %s: %v", tc.gold, err)
			}
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil {
				t.Fatalf("%q: %v", tc.question, err)
			}
			var tried []string
			for rank, c := range p.Candidates {
				res, err := d.DB.Query(ctx, c.SQL, warehouse.Limits{})
				if err != nil {
					t.Errorf("candidate %d fails: %v\n%s", rank, err, c.SQL)
					continue
				}
				if eval.Match(res, gold, tc.ordered) {
					if rank >= 6 {
						t.Errorf("the right reading is only candidate %d of %d:\n%s", rank+1, len(p.Candidates), c.SQL)
					}
					return
				}
				tried = append(tried, c.SQL)
			}
			t.Fatalf("%q: no reading computes %s; tried:\n%s", tc.question, tc.gold, strings.Join(tried, "\n--\n"))
		})
	}
}

// TestFeedbackNamesTheColumn checks that typed feedback ("use ship date")
// makes its column the likeliest reading.
func TestFeedbackNamesTheColumn(t *testing.T) {
	d := demotest.Start(t, 500)
	e := offline.New(d.Catalog, offline.Options{Now: now})
	p, err := e.Candidates(context.Background(), dialog.Request{
		Question: "how many orders in 2024?",
		Feedback: []dialog.Feedback{{Kind: dialog.FeedbackEdit, Text: "use the ship date", About: "2024"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if top := p.Candidates[0].SQL; !strings.Contains(top, "shipped_at") {
		t.Fatalf("the likeliest reading should filter on the ship date:\n%s", top)
	}
}

func TestNothingToLink(t *testing.T) {
	d := demotest.Start(t, 100)
	e := offline.New(d.Catalog, offline.Options{Now: now})
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "zorblat quux frobnicate"})
	if err != nil || len(p.Candidates) != 0 {
		t.Fatalf("words the schema doesn't know should give no reading, got %v, %+v", err, p)
	}
}
