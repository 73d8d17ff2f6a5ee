package sqlshape

import (
	"strings"
	"testing"
)

type testLabels struct{}

func (testLabels) Column(c string) string {
	return map[string]string{
		"orders.net_amount": "net revenue", "orders.ship_state": "ship state", "orders.ordered_at": "order date",
		"orders.shipped_at": "ship date", "regions.name": "region", "customers.name": "name", "customers.email": "email",
		"customers.state": "state", "customers.id": "id", "orders.id": "order number",
		"orders.status": "status", "refunds.refunded_on": "date the refund was issued",
	}[c]
}

func (testLabels) IsKey(c string) bool { return strings.HasSuffix(c, ".id") }

func (testLabels) Table(t string) string { return strings.ReplaceAll(t, "_", " ") }

func TestExplain(t *testing.T) {
	cases := []struct{ sql, want string }{
		{"SELECT r.name, SUM(o.net_amount) FROM orders o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id WHERE o.ship_state = 'TX' AND YEAR(o.ordered_at) = 2024 GROUP BY r.name ORDER BY SUM(o.net_amount) DESC LIMIT 3",
			"Total net revenue per region, for orders whose ship state is 'TX' and whose order date is in 2024, sorted by total net revenue, highest first, top 3."},
		{"SELECT COUNT(*) FROM orders WHERE ship_state = 'TX' AND shipped_at >= '2024-01-01' AND shipped_at < '2025-01-01'",
			"The number of orders, for orders whose ship state is 'TX' and whose ship date is in 2024."},
		{"SELECT name, email FROM customers WHERE state = 'Ohio'", "Name and email of customers, whose state is 'Ohio'."},
		{"SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) DESC LIMIT 1",
			"Name of customers, sorted by the number of orders, highest first, only the first."},
		{"SELECT * FROM customers", "All columns of customers."},
		{"SELECT COUNT(DISTINCT o.id) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.state = 'Texas'",
			"The number of orders, for orders where the state of customers is 'Texas'."},
		{"SELECT r.name FROM orders o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id WHERE YEAR(o.ordered_at) = 2025 GROUP BY r.name ORDER BY SUM(o.net_amount) DESC LIMIT 1",
			"Region of regions, for regions where the order date is in 2025, sorted by total net revenue, highest first, only the first."},
		{"SELECT COUNT(DISTINCT o.status) FROM orders o", "The number of different status."},
		{"SELECT COUNT(*) FROM refunds WHERE YEAR(refunded_on) = 2025",
			"The number of refunds, for refunds where the date the refund was issued is in 2025."},
		{"SELECT AVG(net_amount) FROM orders WHERE net_amount > 100", "Average net revenue, for orders whose net revenue is above 100."},
	}
	for _, tc := range cases {
		got := Explain(mustParse(t, tc.sql), testLabels{})
		if got != tc.want {
			t.Errorf("%s\n got: %s\nwant: %s", tc.sql, got, tc.want)
		}
	}
}
