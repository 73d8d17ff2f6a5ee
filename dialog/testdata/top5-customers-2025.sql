-- The candidates of "top 5 customers by revenue in 2025" on the demo,
-- as the offline engine proposes them; one statement per paragraph.

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.net_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.gross_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(order_lines.line_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE customers.signup_date >= '2025-01-01'
  AND customers.signup_date < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.net_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.net_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.net_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.gross_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(orders.gross_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(orders.gross_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.name
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.id, customers.name, customers.email
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name, customers.email
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(order_lines.line_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.ordered_at >= '2025-01-01'
  AND orders.ordered_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;

SELECT customers.name, SUM(order_lines.line_amount)
FROM customers
JOIN orders ON orders.customer_id = customers.id
JOIN order_lines ON order_lines.order_id = orders.id
WHERE orders.shipped_at >= '2025-01-01'
  AND orders.shipped_at < '2026-01-01'
GROUP BY customers.id, customers.name
ORDER BY SUM(order_lines.line_amount) DESC
LIMIT 5;
