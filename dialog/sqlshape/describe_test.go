package sqlshape

import (
	"regexp"
	"strings"
	"testing"
)

// TestExplainShapes gives one explanation per shape the engines write and
// checks that no SQL reaches it: no parentheses, backquotes, qualified
// column names or SQL words.
func TestExplainShapes(t *testing.T) {
	cases := []struct{ shape, sql, want string }{
		{"period of a date", "SELECT MONTH(orders.ordered_at) AS month, COUNT(*) FROM orders WHERE YEAR(orders.ordered_at) = 2024 GROUP BY MONTH(orders.ordered_at) ORDER BY MONTH(orders.ordered_at)",
			"The number of orders per month of order date, for orders whose order date is in 2024, sorted by month of order date, earliest first."},
		{"year-month period", "SELECT DATE_FORMAT(orders.ordered_at, '%Y-%m') AS month, SUM(orders.net_amount) FROM orders GROUP BY DATE_FORMAT(orders.ordered_at, '%Y-%m')",
			"Total net revenue per month of order date."},
		{"quarter period", "SELECT CONCAT(YEAR(orders.ordered_at), '-Q', QUARTER(orders.ordered_at)) AS quarter, COUNT(*) FROM orders GROUP BY CONCAT(YEAR(orders.ordered_at), '-Q', QUARTER(orders.ordered_at))",
			"The number of orders per quarter of order date."},
		{"per-group ranking", "SELECT orders.status, COUNT(*) FROM orders GROUP BY orders.status ORDER BY COUNT(*) DESC LIMIT 3",
			"The number of orders per status, sorted by the number of orders, highest first, top 3."},
		{"computed duration", "SELECT AVG(TIMESTAMPDIFF(DAY, orders.ordered_at, orders.shipped_at)) FROM orders",
			"Average days from order date to ship date."},
		{"age", "SELECT AVG(TIMESTAMPDIFF(YEAR, customers.birth_date, CURDATE())) FROM customers",
			"Average years since birth date."},
		{"date difference", "SELECT AVG(DATEDIFF(orders.shipped_at, orders.ordered_at)) FROM orders",
			"Average days from order date to ship date."},
		{"ratio of two columns", "SELECT orders.id, orders.net_amount * 1e0 / NULLIF(orders.shipping_fee, 0) AS ratio FROM orders",
			"Order number and net revenue per shipping fee of orders."},
		{"difference of two columns", "SELECT customers.name, orders.net_amount - orders.discount FROM orders JOIN customers ON customers.id = orders.customer_id",
			"Name and net revenue minus discount of customers."},
		{"text pattern", "SELECT customers.name FROM customers WHERE customers.name LIKE 'J%'",
			"Name of customers, whose name matches 'J%'."},
		{"counting kinds", "SELECT COUNT(DISTINCT orders.status) FROM orders", "The number of different status."},
		{"group condition: at least N related rows", "SELECT customers.name FROM customers WHERE customers.id IN (SELECT orders.customer_id FROM orders WHERE 1 = 1 GROUP BY orders.customer_id HAVING COUNT(*) >= 3)",
			"Name of customers, with at least 3 orders."},
		{"group condition: fewer, none included (NOT IN)", "SELECT COUNT(*) FROM customers WHERE customers.id NOT IN (SELECT orders.customer_id FROM orders WHERE orders.customer_id IS NOT NULL AND 1 = 1 GROUP BY orders.customer_id HAVING COUNT(*) >= 3)",
			"The number of customers, for customers with fewer than 3 orders."},
		{"group condition: a joined grouped table", "SELECT customers.name FROM customers JOIN (SELECT orders.customer_id FROM orders GROUP BY orders.customer_id HAVING COUNT(*) >= 40) AS grouped ON grouped.customer_id = customers.id",
			"Name of customers, with at least 40 orders."},
		{"group condition: fewer, as the rows missing from a grouped table", "SELECT COUNT(*) FROM customers LEFT JOIN (SELECT orders.customer_id FROM orders GROUP BY orders.customer_id HAVING COUNT(*) >= 3) AS grouped ON grouped.customer_id = customers.id WHERE grouped.customer_id IS NULL",
			"The number of customers, for customers with fewer than 3 orders."},
		{"group condition: a value shared by rows", "SELECT DISTINCT customers.state FROM customers JOIN (SELECT customers.state FROM customers GROUP BY customers.state HAVING COUNT(*) > 6) AS grouped ON grouped.state = customers.state",
			"State of customers (each different value once), whose state is shared by more than 6 customers."},
		{"ratio of two sets of rows", "SELECT SUM(CASE WHEN orders.ship_state = 'TX' THEN orders.net_amount END) * 1e0 / NULLIF(SUM(CASE WHEN orders.ship_state = 'CA' THEN orders.net_amount END), 0) FROM orders",
			"Total net revenue where ship state is 'tx' per total net revenue where ship state is 'ca' of orders."},
		{"share of different things", "SELECT COUNT(DISTINCT CASE WHEN members.tier = 'Gold' THEN members.id END) * 100e0 / NULLIF(COUNT(DISTINCT members.id), 0) AS percent FROM members",
			"Number of members where tier is 'gold' as a percentage of number of members."},
		{"average over a grouped step", "SELECT AVG(grouped.count) AS average_count FROM (SELECT customers.name AS name, COUNT(DISTINCT orders.id) AS count FROM customers JOIN orders ON orders.customer_id = customers.id WHERE orders.ordered_at >= '2025-01-01' AND orders.ordered_at < '2026-01-01' GROUP BY customers.id, customers.name) AS grouped",
			"Average number of orders per id and name, for orders whose order date is in 2025."},
		{"margin as a percentage", "SELECT AVG((orders.net_amount - orders.discount) * 100e0 / NULLIF(orders.net_amount, 0)) FROM orders",
			"Average net revenue minus discount as a percentage of net revenue."},
		{"share of the total", "SELECT grouped.name, grouped.total_net_amount, grouped.total_net_amount * 100e0 / SUM(grouped.total_net_amount) OVER () AS share_of_total_percent FROM (SELECT regions.name AS name, SUM(orders.net_amount) AS total_net_amount FROM orders JOIN regions ON orders.region_id = regions.id GROUP BY regions.name) AS grouped",
			"Total net revenue per region, with each one's share of the total in percent."},
		{"change from the previous period", "SELECT grouped.month, grouped.count, grouped.count - LAG(grouped.count) OVER (ORDER BY grouped.month) AS change_from_previous FROM (SELECT MONTH(orders.ordered_at) AS month, COUNT(*) AS count FROM orders GROUP BY MONTH(orders.ordered_at)) AS grouped ORDER BY grouped.month",
			"The number of orders per month of order date, with the change from the previous month."},
		{"nested superlative", "SELECT COUNT(*) FROM orders JOIN customers ON orders.customer_id = customers.id WHERE customers.credit_limit = (SELECT MAX(customers.credit_limit) FROM customers)",
			"The number of orders, for orders of the customer with the highest credit limit."},
		{"per-group extreme", "SELECT regions.name, customers.name FROM customers JOIN regions ON customers.region_id = regions.id WHERE (regions.name, customers.credit_limit) IN (SELECT regions.name, MAX(customers.credit_limit) FROM customers JOIN regions ON customers.region_id = regions.id GROUP BY regions.name)",
			"Region and name of customers, with the highest credit limit for each region."},
	}
	for _, tc := range cases {
		t.Run(tc.shape, func(t *testing.T) {
			got := Explain(mustParse(t, tc.sql), shapeLabels{})
			if got != tc.want {
				t.Errorf("%s\n got: %s\nwant: %s", tc.sql, got, tc.want)
			}
			for _, leak := range []string{"(", ")", "`", "NULLIF", "1e0", " mul ", " div ", "TIMESTAMPDIFF", "DATE_FORMAT", "%"} {
				if strings.Contains(got, leak) && !strings.Contains(tc.want, leak) {
					t.Errorf("SQL %q leaks into %q", leak, got)
				}
			}
			if m := regexp.MustCompile(`[a-z_]+\.[a-z_]+`).FindString(got); m != "" {
				t.Errorf("a column name %q leaks into %q", m, got)
			}
		})
	}
}

type shapeLabels struct{ testLabels }

func (shapeLabels) Column(c string) string {
	if l := (testLabels{}).Column(c); l != "" {
		return l
	}
	return map[string]string{"orders.shipping_fee": "shipping fee", "orders.discount": "discount", "customers.birth_date": "birth date", "customers.credit_limit": "credit limit"}[c]
}

// TestDescribeLeavesNoSQL words the expressions and conditions a model
// writes that the engines' own shapes do not use.
func TestDescribeLeavesNoSQL(t *testing.T) {
	exprs := []struct{ expr, want string }{
		{"SUM(case when trips.status='done' then 1 else 0 end) mul 1 div COUNT(*)", "share of rows where status is 'done'"},
		{"SUM(CASE WHEN trips.status = 'done' THEN 1 ELSE 0 END) / COUNT(*)", "share of rows where status is 'done'"},
		{"COUNT(CASE WHEN trips.late = 1 THEN 1 END)", "number of rows where late is 1"},
		{"CAST(SUM(trips.km) AS DOUBLE) div NULLIF(COUNT(DISTINCT trips.driver), 0)", "total km per number of different driver"},
		{"DATE_SUB(CURDATE(), 6, month)", "6 months before today"},
	}
	for _, tc := range exprs {
		if got := DescribeExpression(tc.expr, testLabels{}); got != tc.want {
			t.Errorf("%s → %q, want %q", tc.expr, got, tc.want)
		}
	}
	conds := []struct{ cond, want string }{
		{"lower(trips.driver) like lower('%ann%') or lower(trips.depot) like '%north%'", "driver contains 'ann' or depot contains 'north'"},
		{"trips.km ge 100", "km is at least 100"},
		{"trips.ended is null", "ended is empty"},
		{"trips.depot not in ('north', 'south')", "depot is none of 'north', 'south'"},
		{"trips.started ge DATE_SUB(CURDATE(), 6, month)", "started is at least 6 months before today"},
	}
	for _, tc := range conds {
		got := DescribeCondition(tc.cond, testLabels{})
		if got != tc.want {
			t.Errorf("%s → %q, want %q", tc.cond, got, tc.want)
		}
		if m := regexp.MustCompile(`[a-z_]+\.[a-z_]+|\(|\)`).FindString(got); m != "" {
			t.Errorf("SQL %q leaks into %q", m, got)
		}
	}
}
