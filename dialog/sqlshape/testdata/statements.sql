-- Statements from the repository's own tests (no evaluation set's tables), one a line:
-- nodes_test.go explains each from its parsed trees and from its canonical strings.
SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2023
SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2022
SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2025
SELECT COUNT(*) FROM loans WHERE YEAR(returned_on) = 2024
SELECT COUNT(*) FROM loans WHERE status = 'lost' AND YEAR(borrowed_on) = 2025
SELECT SUM(fee) - (SELECT SUM(r.amount) FROM refunds r JOIN loans x ON x.id = r.loan_id WHERE YEAR(x.borrowed_on) = 2024) FROM loans WHERE YEAR(borrowed_on) = 2024
SELECT COUNT(*) FROM loans WHERE status IN ('on loan', 'overdue')
SELECT COUNT(*) FROM loans
SELECT name FROM t WHERE town = 'Ashby' AND pop > 1000.5 LIMIT 3
SELECT * FROM t WHERE depot = "North Yard" AND x > 0.25
SELECT * FROM t WHERE a = 'say "hi"'
SELECT * FROM t WHERE a = '' AND b = 2
SELECT t1.c2, 3d FROM t1 WHERE d >= CURRENT_DATE - INTERVAL 30 DAY
SELECT * FROM t WHERE a = 'O''Brien' AND b = 2
SELECT * FROM t WHERE a = 'C:\\' AND b = 2
SELECT `o'neil`, `2019` FROM t WHERE x = 'A'
SELECT name FROM t
SELECT SUM(net_amount) FROM orders WHERE YEAR(ordered_at) = 2024
SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2025
SELECT COUNT(*) FROM customers WHERE EXISTS (SELECT 1 FROM orders WHERE orders.customer_id = customers.id AND orders.ordered_at >= CURRENT_DATE - INTERVAL 90 DAY)
SELECT vehicles.plate FROM trips JOIN vehicles ON trips.vehicle_id = vehicles.id GROUP BY vehicles.id, vehicles.plate ORDER BY COUNT(*) DESC LIMIT 1
SELECT vehicles.plate, COUNT(*) AS number_of_rows FROM trips JOIN vehicles ON trips.vehicle_id = vehicles.id GROUP BY vehicles.id, vehicles.plate ORDER BY COUNT(*) DESC LIMIT 1
SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id GROUP BY v.id, v.plate ORDER BY SUM(t.km) desc LIMIT 3
SELECT v.plate, SUM(t.km) AS total_km FROM vehicles v JOIN trips t ON t.vehicle_id = v.id GROUP BY v.id, v.plate ORDER BY SUM(t.km) desc LIMIT 3
SELECT plate FROM vehicles ORDER BY mileage DESC LIMIT 1
SELECT plate, mileage AS mileage FROM vehicles ORDER BY mileage DESC LIMIT 1
SELECT depot FROM vehicles GROUP BY depot ORDER BY AVG(mileage)
SELECT depot, AVG(mileage) AS average_mileage FROM vehicles GROUP BY depot ORDER BY AVG(mileage)
SELECT depot AS total_km FROM trips GROUP BY depot ORDER BY SUM(km) DESC LIMIT 2
SELECT depot AS total_km, SUM(km) AS total_km_2 FROM trips GROUP BY depot ORDER BY SUM(km) DESC LIMIT 2
SELECT plate, COUNT(*) FROM trips GROUP BY plate ORDER BY COUNT(*) DESC LIMIT 1
SELECT plate, COUNT(*) AS n FROM trips GROUP BY plate ORDER BY n DESC LIMIT 1
SELECT plate, COUNT(*) FROM trips GROUP BY plate ORDER BY 2 DESC LIMIT 1
SELECT DISTINCT plate FROM trips ORDER BY km DESC LIMIT 3
SELECT plate FROM vehicles ORDER BY mileage DESC
SELECT * FROM vehicles ORDER BY mileage DESC LIMIT 1
SELECT plate FROM vehicles v ORDER BY (SELECT COUNT(*) FROM trips t WHERE t.vehicle_id = v.id) DESC LIMIT 1
SELECT plate FROM vehicles LIMIT 5
SELECT plate FROM vehicles UNION SELECT plate FROM trips ORDER BY plate LIMIT 1
SELECT plate FROM trips GROUP BY plate ORDER BY SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) DESC LIMIT 1
SELECT plate, SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) AS ranked_by FROM trips GROUP BY plate ORDER BY SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) DESC LIMIT 1
SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 3
SELECT plate, SUM(km) AS total_km FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 203
SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 10, 5
SELECT plate, SUM(km) AS total_km FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 215
SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 5 OFFSET 10
SELECT depot FROM vehicles GROUP BY depot ORDER BY COUNT(*)
SELECT depot, COUNT(*) AS number_of_rows FROM vehicles GROUP BY depot ORDER BY COUNT(*)
SELECT vehicles.plate FROM trips JOIN vehicles ON trips.vehicle_id = vehicles.id WHERE trips.started_at >= '2025-01-01' GROUP BY vehicles.id, vehicles.plate ORDER BY SUM(trips.km) DESC LIMIT 5
SELECT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 ORDER BY COUNT(*) DESC LIMIT 1
SELECT COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0
SELECT SUM(amount) FROM sales WHERE qty > 1
select count(*) from sales where qty>1 -- how many
SELECT SUM(amount) FROM sales WHERE qty > 2
SELECT COUNT(*) FROM sales WHERE qty > 2
SELECT amount FROM sales WHERE qty > 1
SELECT MAX(qty) FROM sales WHERE qty > 1 ORDER BY SUM(qty)
SELECT DISTINCT amount FROM sales WHERE qty > 1
SELECT id FROM sales WHERE qty > 1
SELECT DISTINCT qty FROM sales WHERE qty > 1
SELECT stores.name, (SELECT COUNT(*) FROM sales s2 WHERE s2.store_id = stores.id) FROM stores WHERE stores.id > 1
SELECT stores.name, RANK() OVER (ORDER BY stores.id) FROM stores WHERE stores.id > 1
SELECT stores.name FROM stores WHERE stores.id > 1 ORDER BY (SELECT MAX(amount) FROM sales)
SELECT stores.name, RAND() FROM stores WHERE stores.id > 1
SELECT * FROM stores WHERE stores.id > 1
SELECT stores.id FROM stores WHERE stores.id > 1
SELECT YEAR(sold_on) AS y, SUM(amount) FROM sales GROUP BY y
SELECT YEAR(sold_on) AS y, COUNT(*) FROM sales GROUP BY y
SELECT store_id, SUM(amount) AS s FROM sales GROUP BY store_id HAVING s > 10
SELECT store_id, COUNT(*) AS s FROM sales GROUP BY store_id HAVING s > 10
SELECT store_id, SUM(amount) FROM sales GROUP BY 1
SELECT store_id, COUNT(*) FROM sales GROUP BY 1
SELECT store_id, SUM(amount) FROM sales GROUP BY store_id HAVING store_id > 1
SELECT store_id, COUNT(*) FROM sales GROUP BY store_id HAVING store_id > 1
SELECT store_id, SUM(amount) FROM sales GROUP BY store_id HAVING COUNT(*) > 1
SELECT store_id, MAX(amount) AS top FROM sales GROUP BY store_id HAVING COUNT(*) > 1
SELECT SUM(amount) AS qty FROM sales WHERE store_id > 1
SELECT MAX(qty) FROM sales WHERE store_id > 1
SELECT MIN(amount) FROM sales WHERE store_id > 1
SELECT qty FROM sales WHERE qty > 1 UNION SELECT qty FROM sales WHERE qty > 1
WITH s AS (SELECT qty FROM sales) SELECT qty FROM s WHERE qty > 1
SELECT qty AS n FROM sales WHERE qty > 1 ORDER BY n + 1
SELECT amount FROM sales WHERE qty > 1 ORDER BY 1
SELECT amount FROM sales WHERE qty > 1 ORDER BY 'a'
SELECT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY SUM(sales.amount) DESC LIMIT 3
SELECT stores.name, SUM(sales.amount) AS total FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY total ASC LIMIT 2
SELECT stores.name, SUM(sales.amount) AS total FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY total DESC
SELECT stores.id, MAX(sales.sold_on) AS last_sale FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY last_sale DESC, stores.id
SELECT stores.id, MIN(sales.sold_on) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY 2, 1 LIMIT 4
SELECT stores.name, AVG(sales.rate), COUNT(*) AS n FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name
SELECT stores.name, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 0 GROUP BY stores.id, stores.name ORDER BY stores.name LIMIT 3
SELECT stores.id, SUM(sales.qty) AS q FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY q DESC LIMIT 2
SELECT stores.id, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY COUNT(*) LIMIT 3
SELECT stores.id, SUM(sales.amount) FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY SUM(sales.amount) DESC LIMIT 1 OFFSET 1
SELECT SUM(sales.qty) AS q FROM sales JOIN stores ON stores.id = sales.store_id GROUP BY stores.id ORDER BY q DESC LIMIT 3
SELECT SUM(amount) FROM sales WHERE sold_on >= '2025-01-01'
SELECT COUNT(*), AVG(amount) AS avg_amount FROM sales WHERE sold_on >= '2025-01-01'
SELECT MAX(rate), MIN(sold_on) FROM sales WHERE sold_on >= '2025-01-01'
SELECT SUM(amount) FROM sales WHERE sold_on >= '2025-01-01' ORDER BY COUNT(*) DESC LIMIT 5
SELECT sales.id, sales.amount FROM sales WHERE sales.qty > 1 ORDER BY sales.amount DESC, sales.id LIMIT 4
SELECT sales.id FROM sales WHERE sales.qty > 1 ORDER BY sales.sold_on, sales.id LIMIT 3 OFFSET 1
SELECT sales.rate * 2 AS r2, sales.id FROM sales WHERE sales.qty > 1 ORDER BY r2 DESC, sales.id
SELECT DISTINCT sales.qty FROM sales WHERE sales.qty > 1 ORDER BY sales.qty DESC
SELECT DISTINCT sales.store_id, sales.qty FROM sales WHERE sales.qty > 1
SELECT DISTINCT sales.amount FROM sales WHERE sales.qty > 1 ORDER BY 1 LIMIT 3
SELECT DISTINCT stores.region, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region
SELECT DISTINCT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region
SELECT stores.name, SUM(sales.amount) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region
SELECT DISTINCT COUNT(*) AS n FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region ORDER BY n DESC
SELECT DISTINCT stores.region FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.qty > 1 GROUP BY stores.id, stores.name, stores.region
SELECT stores.name, COUNT(*) FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.amount IS NOT NULL GROUP BY stores.id, stores.name
SELECT DISTINCT stores.name FROM sales JOIN stores ON stores.id = sales.store_id WHERE sales.amount IS NOT NULL GROUP BY stores.id, stores.name
SELECT stores.name, (SELECT COUNT(*) FROM sales WHERE sales.store_id = stores.id) AS n FROM stores WHERE stores.id > 2
SELECT stores.name FROM stores WHERE stores.id > 2
SELECT sales.id, sales.qty FROM sales WHERE sales.qty > 1 ORDER BY sales.id
SELECT sales.id FROM sales WHERE sales.qty > 1
SELECT SUM(orders.net_amount) FROM orders WHERE orders.shipped_at >= '2024-01-01'
SELECT plate FROM vehicles WHERE fuel = 'hydrogen'
SELECT plate FROM vehicles WHERE plate = 'hydrogen'
SELECT plate FROM vehicles WHERE fuel = 'diesel'
SELECT plate FROM vehicles ORDER BY weight DESC LIMIT 1
SELECT plate FROM vehicles ORDER BY horsepower DESC LIMIT 1
SELECT plate FROM vehicles ORDER BY weight ASC LIMIT 1
SELECT plate FROM vehicles ORDER BY plate LIMIT 1
SELECT COUNT(*) FROM vehicles WHERE fuel = 'diesel'
SELECT v.plate FROM vehicles AS v WHERE v.horsepower = (SELECT MAX(horsepower) FROM vehicles)
SELECT driver, SUM(km) FROM trips WHERE status = 'done' GROUP BY driver
SELECT driver, AVG(km) FROM trips WHERE status = 'done' GROUP BY driver
SELECT driver, SUM(km) FROM trips WHERE status = 'done' GROUP BY driver ORDER BY SUM(km) DESC LIMIT 1
SELECT vehicle_id, SUM(km) FROM trips WHERE status = 'done' GROUP BY vehicle_id
SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE fuel = 'diesel')
SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE horsepower > 250)
SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE fuel = 'electric')
SELECT plate FROM vehicles
SELECT v.plate FROM vehicles v JOIN depots d ON d.id = v.depot_id WHERE d.name = 'north yard'
SELECT SUM(o.net_amount) FROM orders o WHERE YEAR(o.ordered_at) = 2024 GROUP BY o.customer_id ORDER BY 1 DESC LIMIT 1
SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2024
SELECT SUM(net_amount) FROM orders WHERE YEAR(shipped_at) = 2023
SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2022
SELECT SUM(gross_amount) FROM orders WHERE YEAR(shipped_at) = 2025
SELECT COUNT(*) FROM orders
SELECT COUNT(*) FROM customers
SELECT COUNT(*) FROM orders WHERE YEAR(ordered_at) = 2024
SELECT COUNT(*) FROM orders WHERE YEAR(shipped_at) = 2024
SELECT COUNT(DISTINCT customer_id) FROM orders WHERE YEAR(ordered_at) = 2025
SELECT COUNT(*) FROM orders WHERE status = 'cancelled' AND YEAR(ordered_at) = 2025
SELECT SUM(o.net_amount) - (SELECT SUM(r.amount) FROM refunds r JOIN orders o2 ON o2.id = r.order_id WHERE YEAR(o2.ordered_at) = 2024) FROM orders o WHERE YEAR(o.ordered_at) = 2024
SELECT COUNT(*) FROM orders WHERE status IN ('placed', 'shipped')
SELECT COUNT(*) FROM orders WHERE status = 'returned'
SELECT COUNT(*) FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)
SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)
SELECT COUNT(*) FROM customers WHERE segment = 'Consumer'
SELECT COUNT(*) FROM customers WHERE segment = 'Small Business'
SELECT COUNT(*) FROM customers WHERE segment = 'Enterprise'
SELECT MONTH(orders.ordered_at) AS month, COUNT(*) FROM orders WHERE YEAR(orders.ordered_at) = 2024 GROUP BY MONTH(orders.ordered_at) ORDER BY MONTH(orders.ordered_at)
SELECT DATE_FORMAT(orders.ordered_at, '%Y-%m') AS month, SUM(orders.net_amount) FROM orders GROUP BY DATE_FORMAT(orders.ordered_at, '%Y-%m')
SELECT CONCAT(YEAR(orders.ordered_at), '-Q', QUARTER(orders.ordered_at)) AS quarter, COUNT(*) FROM orders GROUP BY CONCAT(YEAR(orders.ordered_at), '-Q', QUARTER(orders.ordered_at))
SELECT orders.status, COUNT(*) FROM orders GROUP BY orders.status ORDER BY COUNT(*) DESC LIMIT 3
SELECT AVG(TIMESTAMPDIFF(DAY, orders.ordered_at, orders.shipped_at)) FROM orders
SELECT AVG(TIMESTAMPDIFF(YEAR, customers.birth_date, CURDATE())) FROM customers
SELECT AVG(DATEDIFF(orders.shipped_at, orders.ordered_at)) FROM orders
SELECT orders.id, orders.net_amount * 1e0 / NULLIF(orders.shipping_fee, 0) AS ratio FROM orders
SELECT customers.name, orders.net_amount - orders.discount FROM orders JOIN customers ON customers.id = orders.customer_id
SELECT customers.name FROM customers WHERE customers.name LIKE 'J%'
SELECT COUNT(DISTINCT orders.status) FROM orders
SELECT customers.name FROM customers WHERE customers.id IN (SELECT orders.customer_id FROM orders WHERE 1 = 1 GROUP BY orders.customer_id HAVING COUNT(*) >= 3)
SELECT COUNT(*) FROM customers WHERE customers.id NOT IN (SELECT orders.customer_id FROM orders WHERE orders.customer_id IS NOT NULL AND 1 = 1 GROUP BY orders.customer_id HAVING COUNT(*) >= 3)
SELECT customers.name FROM customers JOIN (SELECT orders.customer_id FROM orders GROUP BY orders.customer_id HAVING COUNT(*) >= 40) AS grouped ON grouped.customer_id = customers.id
SELECT COUNT(*) FROM customers LEFT JOIN (SELECT orders.customer_id FROM orders GROUP BY orders.customer_id HAVING COUNT(*) >= 3) AS grouped ON grouped.customer_id = customers.id WHERE grouped.customer_id IS NULL
SELECT SUM(CASE WHEN orders.ship_state = 'TX' THEN orders.net_amount END) * 1e0 / NULLIF(SUM(CASE WHEN orders.ship_state = 'CA' THEN orders.net_amount END), 0) FROM orders
SELECT AVG((orders.net_amount - orders.discount) * 100e0 / NULLIF(orders.net_amount, 0)) FROM orders
SELECT grouped.name, grouped.total_net_amount, grouped.total_net_amount * 100e0 / SUM(grouped.total_net_amount) OVER () AS share_of_total_percent FROM (SELECT regions.name AS name, SUM(orders.net_amount) AS total_net_amount FROM orders JOIN regions ON orders.region_id = regions.id GROUP BY regions.name) AS grouped
SELECT grouped.month, grouped.count, grouped.count - LAG(grouped.count) OVER (ORDER BY grouped.month) AS change_from_previous FROM (SELECT MONTH(orders.ordered_at) AS month, COUNT(*) AS count FROM orders GROUP BY MONTH(orders.ordered_at)) AS grouped ORDER BY grouped.month
SELECT COUNT(*) FROM orders JOIN customers ON orders.customer_id = customers.id WHERE customers.credit_limit = (SELECT MAX(customers.credit_limit) FROM customers)
SELECT regions.name, customers.name FROM customers JOIN regions ON customers.region_id = regions.id WHERE (regions.name, customers.credit_limit) IN (SELECT regions.name, MAX(customers.credit_limit) FROM customers JOIN regions ON customers.region_id = regions.id GROUP BY regions.name)
SELECT r.name AS region, SUM(o.net_amount) AS revenue FROM orders AS o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id WHERE o.ship_state = 'TX' AND YEAR(o.ordered_at) = 2024 AND o.status IN ('shipped', 'delivered') GROUP BY r.name HAVING SUM(o.net_amount) > 1000 ORDER BY revenue DESC LIMIT 3
SELECT COUNT(*) FROM orders WHERE ordered_at BETWEEN '2024-01-01' AND '2024-12-31'
SELECT COUNT(*) FROM orders WHERE ordered_at >= '2024-01-01' AND ordered_at < '2025-01-01'
SELECT COUNT(*) FROM orders WHERE ordered_at < '2025-01-01' AND ordered_at >= '2024-01-01'
SELECT COUNT(*) FROM orders o WHERE o.ordered_at >= '2024-01-01' AND o.ordered_at <= '2024-12-31'
SELECT COUNT(*) FROM orders WHERE ship_state = 'TX' AND YEAR(shipped_at) = 2024
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY SUM(o.net_amount) DESC LIMIT 1
SELECT p.name, SUM(l.quantity) AS units FROM order_lines l JOIN products p ON p.id = l.product_id GROUP BY 1 ORDER BY units DESC, 1
SELECT email FROM orders JOIN customers ON customers.id = orders.customer_id
SELECT r.name, SUM(o.net_amount) FROM orders o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id WHERE o.ship_state = 'TX' AND YEAR(o.ordered_at) = 2024 GROUP BY r.name ORDER BY SUM(o.net_amount) DESC LIMIT 3
SELECT COUNT(*) FROM orders WHERE ship_state = 'TX' AND shipped_at >= '2024-01-01' AND shipped_at < '2025-01-01'
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) DESC LIMIT 1
SELECT * FROM customers
SELECT r.name FROM orders o JOIN states s ON s.code = o.ship_state JOIN regions r ON r.id = s.region_id WHERE YEAR(o.ordered_at) = 2025 GROUP BY r.name ORDER BY SUM(o.net_amount) DESC LIMIT 1
SELECT COUNT(DISTINCT o.status) FROM orders o
SELECT COUNT(*) FROM refunds WHERE YEAR(refunded_on) = 2025
SELECT AVG(net_amount) FROM orders WHERE net_amount > 100
SELECT v.plate FROM vehicles v WHERE v.weight > (SELECT AVG(v2.weight) FROM vehicles v2 WHERE v2.depot = 'north')
SELECT v.plate FROM vehicles v WHERE v.weight > (SELECT AVG(v2.horsepower) FROM vehicles v2 WHERE v2.depot = 'north')
SELECT d.name FROM depots d WHERE d.id IN (SELECT v.depot_id FROM vehicles v WHERE v.fuel = 'diesel')
SELECT d.name FROM depots d WHERE d.id IN (SELECT v.depot_id FROM vehicles v WHERE v.make = 'diesel')
WITH long_trips AS (SELECT t.vehicle_id FROM trips t WHERE t.km > 500) SELECT COUNT(*) FROM long_trips
WITH long_trips AS (SELECT t.vehicle_id FROM trips t WHERE t.minutes > 500) SELECT COUNT(*) FROM long_trips
SELECT v.plate FROM vehicles v WHERE v.fuel = 'diesel' INTERSECT SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id WHERE t.km > 100
SELECT v.plate FROM vehicles v WHERE v.fuel = 'diesel' INTERSECT SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id WHERE t.minutes > 100
SELECT AVG(x.n) FROM (SELECT t.driver, COUNT(*) AS n FROM trips t GROUP BY t.driver) AS x
SELECT AVG(x.n) FROM (SELECT t.driver, COUNT(*) AS n FROM trips t GROUP BY t.vehicle_id) AS x
WITH busy AS (SELECT t.vehicle_id FROM trips t GROUP BY t.vehicle_id HAVING COUNT(*) > 3) SELECT d.name, v.* FROM depots d JOIN vehicles v ON v.depot_id = d.id WHERE v.id IN (SELECT b.vehicle_id FROM busy b) ORDER BY d.opened
SELECT v.plate FROM vehicles v ORDER BY CASE WHEN v.km IS NULL THEN 1 ELSE 0 END, v.km DESC
SELECT v.plate FROM vehicles v ORDER BY v.km DESC
SELECT v.plate FROM vehicles v WHERE LOWER(v.make) LIKE '%volvo%' OR LOWER(v.model) LIKE '%volvo%'
SELECT v.plate FROM vehicles v WHERE LOWER(v.fuel) LIKE '%volvo%' OR LOWER(v.model) LIKE '%volvo%'
SELECT SUM(o.net_amount), COUNT(DISTINCT o.customer_id) FROM orders o
SELECT SUM(o.net_amount) / COUNT(*) FROM orders o
SELECT c.id, c.name FROM customers c
SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) DESC LIMIT 2
SELECT COUNT(*) FROM orders o
SELECT COUNT(*) FROM products p WHERE p.name = 'Nuts, Bolts | Washers'
SELECT c.name FROM customers c ORDER BY c.created_at DESC, c.name
SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id
SELECT c.name FROM customers c
SELECT SUM(net_amount) FROM orders
SELECT SUM(shipping_fee) FROM orders WHERE YEAR(ordered_at) = 2024
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) ASC LIMIT 1
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name HAVING COUNT(*) <= 3
SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.id
SELECT * FROM t WHERE a = 'Ashby' OR b = "North Yard"
SELECT * FROM t WHERE a = '' OR b = 'x'
SELECT * FROM t WHERE a = 'O''Brien'
SELECT `o'neil` FROM t WHERE x = 'a'
SELECT 'x' -- isn't FROM t WHERE y = 'Z'
SELECT r.name, SUM(o.net_amount) FROM orders o JOIN sales_reps s ON s.id = o.sales_rep_id JOIN regions r ON r.id = s.region_id GROUP BY r.name
SELECT COUNT(*) FROM products
SELECT SUM(gross_amount) FROM orders WHERE YEAR(ordered_at) = 2024
SELECT status, COUNT(*) FROM orders GROUP BY status
WITH t AS (SELECT customer_id, SUM(net_amount) AS total FROM orders GROUP BY customer_id) SELECT MAX(t.total) FROM t
SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY n DESC
SELECT SUM(revenue) FROM orders WHERE YEAR(ordered_at) = 2024
SELECT SUM(o.revenue_net) FROM orders o WHERE YEAR(o.ordered_at) = 2024
SELECT SUM(net_amount) FROM orders JOIN customers ON orders.customer_id = customers.id WHERE YEAR(ordered_at) = 2024 AND id > 0
SELECT COUNT(*) FROM orders o JOIN shipments s ON s.order_id = o.id WHERE YEAR(s.delivered_on) = 2024
SELECT SUM(net_amount) FROM orders WHERE status = 'canceled'
SELECT SUM(net_amount) FROM orders WHERE status = 'cancelled'
SELECT region_id FROM states WHERE name = 'New'
SELECT COUNT(*) FROM orders WHERE ship_state = 'TX'
SELECT * FROM nowhere
SELECT COUNT(*) FROM books WHERE format IN ('paperback', 'ebook')
SELECT COUNT(*) FROM books WHERE format NOT IN ('paperback', 'ebook')
SELECT name FROM writers ORDER BY age
SELECT name FROM writers ORDER BY years_active
SELECT name FROM writers ORDER BY years_active DESC
SELECT publisher FROM writers ORDER BY age DESC
SELECT book_id, COUNT(*) FROM chapters GROUP BY book_id
SELECT book_id FROM chapters GROUP BY book_id HAVING COUNT(*) >= 2
SELECT publisher FROM writers GROUP BY publisher ORDER BY COUNT(*) DESC LIMIT 1
SELECT format FROM books GROUP BY format ORDER BY COUNT(*) LIMIT 1
SELECT COUNT(*) FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id AND b.format = 'ebook')
SELECT name FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id AND b.format = 'ebook')
SELECT b.book_id, b.title FROM books b JOIN chapters c ON c.book_id = b.book_id GROUP BY b.book_id, b.title ORDER BY COUNT(*) DESC LIMIT 1
SELECT AVG(pages) FROM books
SELECT COUNT(*) FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id)
SELECT COUNT(*), b.title FROM books b JOIN chapters c ON c.book_id = b.book_id GROUP BY b.book_id, b.title
SELECT w.name FROM writers w JOIN books b ON b.writer_id = w.writer_id GROUP BY w.writer_id, w.name ORDER BY COUNT(*) DESC LIMIT 1
SELECT v.summary FROM visits v JOIN patients p ON p.patient_id = v.patient_id WHERE p.full_name = 'Ann Lee'
SELECT DISTINCT p.full_name FROM visits v JOIN patients p ON p.patient_id = v.patient_id WHERE v.summary = 'Routine check, no findings'
SELECT p.full_name FROM patients p WHERE EXISTS (SELECT 1 FROM visits v WHERE v.patient_id = p.patient_id AND v.summary = 'Follow-up 2, stable') AND EXISTS (SELECT 1 FROM visits v WHERE v.patient_id = p.patient_id AND v.summary = 'Follow-up 5, stable')
SELECT t.country_name, t.town_name FROM town t WHERE t.inhabitants = (SELECT MAX(inhabitants) FROM town WHERE country_name = t.country_name)
SELECT COUNT(*) FROM orders WHERE status = 'cancelled'
SELECT COUNT(*) FROM customers WHERE signup_date >= '2025-01-01'
SELECT COUNT(*) FROM products WHERE list_price BETWEEN 100 AND 200
SELECT name FROM products WHERE list_price > 500
SELECT SUM(amount) FROM refunds
SELECT AVG(shipping_fee) FROM orders
SELECT MIN(list_price) FROM products
SELECT MAX(quantity) FROM order_lines
SELECT segment, COUNT(*) FROM customers GROUP BY segment
SELECT c.name, SUM(ol.quantity) FROM order_lines ol JOIN products p ON p.id = ol.product_id JOIN categories c ON c.id = p.category_id GROUP BY c.name
SELECT name FROM products ORDER BY list_price DESC LIMIT 1
SELECT name FROM products ORDER BY list_price DESC LIMIT 5
SELECT name FROM sales_reps ORDER BY hired_on LIMIT 1
SELECT carrier FROM shipments GROUP BY carrier ORDER BY COUNT(*) DESC LIMIT 1
SELECT COUNT(DISTINCT carrier) FROM shipments
SELECT COUNT(DISTINCT reason) FROM refunds
SELECT SUM(billed_amount) FROM visits
SELECT SUM(fee_amount) FROM visit_procedures
SELECT SUM(list_fee) FROM procedures
SELECT SUM(fuel_cost) FROM trips
SELECT SUM(stop_charge) FROM trip_stops
SELECT SUM(distance_km) FROM trips
SELECT SUM(parcels) FROM trip_stops
SELECT SUM(billed_amount) FROM visits v WHERE EXISTS (SELECT 1 FROM visit_procedures vp JOIN procedures p ON p.procedure_id = vp.procedure_id WHERE vp.visit_id = v.visit_id AND p.title = 'Procedure B')
SELECT s.title, SUM(v.billed_amount * vp.fee_amount / t.total) FROM visits v JOIN visit_procedures vp ON vp.visit_id = v.visit_id JOIN procedures p ON p.procedure_id = vp.procedure_id JOIN specialties s ON s.specialty_id = p.specialty_id JOIN (SELECT visit_id, SUM(fee_amount) AS total FROM visit_procedures GROUP BY visit_id) t ON t.visit_id = v.visit_id GROUP BY s.title
SELECT s.title, SUM(vp.fee_amount) FROM visit_procedures vp JOIN procedures p ON p.procedure_id = vp.procedure_id JOIN specialties s ON s.specialty_id = p.specialty_id GROUP BY s.title
SELECT genre FROM books GROUP BY genre ORDER BY COUNT(*) DESC LIMIT 2
SELECT genre, COUNT(*) FROM books GROUP BY genre ORDER BY COUNT(*) DESC LIMIT 2
SELECT membership_type FROM members GROUP BY membership_type ORDER BY COUNT(*) DESC LIMIT 1
SELECT genre, COUNT(*), AVG(pages) FROM books GROUP BY genre ORDER BY AVG(pages) DESC LIMIT 2
SELECT title, pages FROM books WHERE pages = (SELECT MAX(pages) FROM books)
SELECT title FROM books ORDER BY pages DESC
SELECT title FROM books ORDER BY title
SELECT genre, COUNT(*) FROM books GROUP BY genre ORDER BY COUNT(*) DESC
SELECT title FROM books WHERE pages > 300 ORDER BY title DESC
SELECT title FROM books WHERE published_year > 2010
SELECT genre, AVG(pages) FROM books GROUP BY genre
SELECT published_year, AVG(pages) FROM books GROUP BY published_year
SELECT AVG(DATEDIFF(returned_on, borrowed_on)) FROM loans
SELECT title, pages * 1e0 / NULLIF(published_year, 0) FROM books
SELECT book_id, pages * 1e0 / NULLIF(published_year, 0) FROM books
SELECT COUNT(*) FROM books WHERE title LIKE 'B%'
SELECT full_name FROM members WHERE full_name LIKE '%0%'
SELECT COUNT(*) FROM loans l JOIN members m ON m.member_id = l.member_id WHERE m.full_name LIKE 'Reader 1%'
SELECT title FROM books WHERE title LIKE 'Book A%' OR genre LIKE '%poet%'
SELECT COUNT(*) FROM books WHERE has_illustrations = 1
SELECT title FROM books WHERE has_illustrations = 0
SELECT COUNT(*) FROM books WHERE has_illustrations = 1 AND has_audio = 1
SELECT COUNT(*) FROM books WHERE has_illustrations = 1 OR has_audio = 1
SELECT has_audio, COUNT(*) FROM books GROUP BY has_audio
SELECT COUNT(*) FROM loans WHERE borrowed_on >= '2024-03-01'
SELECT COUNT(*) FROM transfers WHERE from_city = 'York' AND to_city = 'Leeds'
SELECT member_id, full_name FROM members WHERE member_id IN (SELECT member_id FROM loans)
SELECT book_id, title FROM books WHERE book_id NOT IN (SELECT book_id FROM loans)
SELECT genre, title FROM books b WHERE pages = (SELECT MAX(pages) FROM books WHERE genre = b.genre)
SELECT g.month, g.n, g.n - LAG(g.n) OVER (ORDER BY g.month), (g.n - LAG(g.n) OVER (ORDER BY g.month)) * 100e0 / NULLIF(LAG(g.n) OVER (ORDER BY g.month), 0) FROM (SELECT MONTH(borrowed_on) AS month, COUNT(*) AS n FROM loans WHERE YEAR(borrowed_on) = 2024 GROUP BY MONTH(borrowed_on)) AS g ORDER BY g.month
SELECT full_name FROM members WHERE member_id IN (SELECT member_id FROM loans GROUP BY member_id HAVING COUNT(*) >= 8)
SELECT title FROM books WHERE book_id IN (SELECT book_id FROM loans GROUP BY book_id HAVING COUNT(*) > 5)
SELECT COUNT(*) FROM members WHERE member_id NOT IN (SELECT member_id FROM loans GROUP BY member_id HAVING COUNT(*) >= 8)
SELECT full_name FROM members m WHERE (SELECT COUNT(*) FROM loans WHERE member_id = m.member_id) >= 8 AND (SELECT COUNT(*) FROM messages WHERE sender_id = m.member_id AND sender_type = 0) >= 2
SELECT m.member_id, COUNT(*) FROM members m JOIN messages g ON g.sender_id = m.member_id AND g.sender_type = 0 GROUP BY m.member_id
SELECT member_id FROM members WHERE member_id IN (SELECT receiver_id FROM messages WHERE receiver_type = 0 AND topic = 'overdue')
SELECT member_id, full_name FROM members WHERE member_id NOT IN (SELECT member_id FROM loans)
SELECT COUNT(*) FROM books WHERE genre LIKE '%mystery%'
SELECT SUM(fee) FROM loans WHERE member_id = 3
SELECT membership_type, COUNT(*) FROM members GROUP BY membership_type ORDER BY COUNT(*) DESC LIMIT 2
SELECT DISTINCT member_id FROM loans
SELECT m.full_name, COUNT(*), SUM(l.fee) FROM members m JOIN loans l ON l.member_id = m.member_id GROUP BY m.member_id, m.full_name ORDER BY SUM(l.fee) DESC LIMIT 3
SELECT rack_id, capacity * 1e0 / NULLIF(width_cm, 0) FROM racks
SELECT rack_id, total_slots FROM racks ORDER BY total_slots DESC
SELECT rack_id, capacity * 1e0 / NULLIF(total_slots, 0) FROM racks
SELECT rack_id, member_votes FROM racks
SELECT room, COUNT(*) FROM racks GROUP BY room
SELECT maximum_load FROM racks WHERE room = 'North'
SELECT plate_number FROM racks WHERE service_days LIKE '%mon%' AND service_days LIKE '%wed%'
SELECT COUNT(*) FROM racks WHERE lock_required = 'Yes'
SELECT from_hall, to_hall, AVG(crates) FROM moves GROUP BY from_hall, to_hall
SELECT title, pages FROM books WHERE genre = 'poetry'
SELECT title FROM books WHERE genre = 'poetry'
SELECT author_name FROM authors WHERE pen_name IS NOT NULL
SELECT COUNT(*) FROM authors WHERE award = 'Best Novel'
SELECT COUNT(*) FROM loans WHERE returned_on >= '2024-01-01' AND returned_on < '2025-01-01'
SELECT COUNT(*) FROM loans WHERE borrowed_on >= '2025-01-01' AND borrowed_on < '2026-01-01'
SELECT COUNT(*) FROM loans WHERE delivered_to = 'Brill'
SELECT m.member_name FROM members m JOIN loans l ON l.member_id = m.member_id WHERE l.borrowed_on >= '2024-01-01' AND l.borrowed_on < '2025-01-01' GROUP BY m.member_id, m.member_name ORDER BY COUNT(*) DESC LIMIT 1
SELECT depot_name FROM depots WHERE location = 'Ashby'
SELECT depot_name, location FROM depots WHERE usage_kind = 'storage'
SELECT depot_name, location, usage_kind FROM depots
SELECT 1 FROM trips WHERE trips.vehicle_id = vehicles.vehicle_id
SELECT courier, AVG(DATEDIFF(returned_on, borrowed_on)) FROM loans GROUP BY courier
SELECT 100.0 * SUM(status = 'returned') / COUNT(*) FROM loans
SELECT 100.0 * SUM(CASE WHEN p.town = 'Ashby' THEN v.billed_amount END) / SUM(v.billed_amount) FROM visits v JOIN patients p ON p.patient_id = v.patient_id
SELECT AVG(n) FROM (SELECT visit_id, COUNT(*) AS n FROM visit_procedures GROUP BY visit_id) t
SELECT AVG(n) FROM (SELECT patient_id, COUNT(*) AS n FROM visits GROUP BY patient_id) t
SELECT k.kind_name, SUM(l.line_amount - l.quantity * b.unit_cost) FROM sale_lines l JOIN bakes b ON b.bake_id = l.bake_id JOIN kinds k ON k.kind_id = b.kind_id GROUP BY k.kind_name
SELECT status, COUNT(*) FROM loans GROUP BY status
SELECT k.kind_name FROM kinds k JOIN tools t ON t.kind_id = k.kind_id GROUP BY k.kind_id, k.kind_name ORDER BY COUNT(*) DESC LIMIT 1
SELECT COUNT(*) AS n FROM orders
SELECT name FROM regions ORDER BY name
SELECT code FROM states
SELECT nope FROM orders
SELECT id, name FROM t ORDER BY id
SELECT COUNT(*) FROM visits
SELECT COUNT(*) FROM clarify_lease
SELECT name, email FROM customers LIMIT 3
SELECT COUNT(*) FROM customers WHERE email LIKE '%@%'
SELECT * FROM customers LIMIT 1
SELECT name, unit_cost FROM products
SELECT COUNT(*) AS cheap FROM products WHERE unit_cost < 1000000
SELECT email FROM customers ORDER BY id LIMIT 1
SELECT name, email FROM customers ORDER BY name
SELECT name, unit_cost FROM products ORDER BY name
SELECT a FROM t
SELECT a FROM t WHERE b = 1
SELECT a FROM t WHERE b = 'x y'
SELECT "name" AS v, 1 || 0 AS w FROM items ORDER BY id LIMIT 1
SELECT id, body FROM notes WHERE id <= 5 ORDER BY id
SELECT body FROM notes WHERE id = 6
SELECT email FROM members
SELECT id FROM items
SELECT nope FROM items
SELECT name, price FROM items ORDER BY id
SELECT name FROM items WHERE price IS NOT NULL ORDER BY id
SELECT COUNT(*) AS n FROM items
SELECT id, name, price FROM items ORDER BY id
SELECT COUNT(*) FROM n a, n b, n c WHERE a.i + b.i + c.i = 7
SELECT COUNT(*) FROM n
SELECT i FROM n ORDER BY i
SELECT i FROM n ORDER BY i LIMIT 5
SELECT i FROM n ORDER BY i LIMIT 40
SELECT i FROM n UNION ALL SELECT i FROM n
SELECT i FROM n -- all of them
SELECT `order`, `group`, `from`, amount, ratio, d, big FROM `select` ORDER BY `order`
SELECT i.nope FROM items AS i
SELECT * FROM nope
SELECT id, name FROM items ORDER BY id
SELECT id FROM items WHERE price IS NOT NULL ORDER BY price DESC
SELECT COUNT(*) FROM customers WHERE name = ?
select id, name from customers where id = 3
SELECT o.id, c.name, p.title FROM orders o JOIN customers c ON c.id = o.customer_id LEFT JOIN products p USING (product_id) WHERE o.total > 100
WITH big AS (SELECT id FROM orders WHERE total > 100) SELECT COUNT(*) FROM big
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n
SELECT id FROM a UNION ALL SELECT id FROM b
SELECT id FROM a INTERSECT SELECT id FROM b EXCEPT SELECT id FROM c
SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE region = 'EU')
SELECT * FROM c WHERE EXISTS (SELECT 1 FROM o WHERE o.cid = c.id)
SELECT t.n FROM (SELECT COUNT(*) AS n FROM orders) AS t
SELECT id, (SELECT MAX(total) FROM orders o WHERE o.cid = c.id) AS top FROM customers c
SELECT id, ROW_NUMBER() OVER (PARTITION BY cid ORDER BY ts DESC) AS rn, SUM(total) OVER w FROM orders WINDOW w AS (PARTITION BY cid)
SELECT cid, SUM(total) AS s FROM orders GROUP BY cid HAVING SUM(total) > 10 ORDER BY s DESC LIMIT 10 OFFSET 5
SELECT * FROM us_states WHERE STATE_NAME = "texas"
SELECT `select`, `order` FROM `from` WHERE `where` = 1 ORDER BY `order`
SELECT sleep, benchmark FROM naps
SELECT 'DROP TABLE x; DELETE FROM y' AS s
SELECT CAST(total AS DECIMAL(10,2)), DATE_ADD(ts, INTERVAL 1 DAY), CASE WHEN a > 1 THEN 'x' ELSE 'y' END, COALESCE(a, 0) FROM t
SELECT DISTINCT region FROM customers
SELECT * FROM t WHERE name LIKE '%\_%' OR path = 'C:\\temp'
WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS x) SELECT x FROM a UNION SELECT x FROM b
SELECT a FROM t WHERE b = "now ("
SELECT ROUND(AVG(total), 2), DATE_FORMAT(ts, '%Y-%m') FROM orders GROUP BY 2
SELECT NATURAL_SORT_KEY(name) FROM t
SELECT REGEXP_LIKE(name, 'a') FROM t
SELECT * FROM orders WHERE ts >= {d '2020-01-01'} AND ts < {ts '2021-01-01 00:00:00'}
SELECT {fn UPPER(name)} FROM t
SELECT MAX#c (id) FROM t
SELECT COUNT(id), MAX(id) FROM t WHERE id IN (1, 2) AND EXISTS (SELECT 1)
SELECT 'COUNT (x)' AS s, `count` FROM t -- SUM (x)
SELECT name FROM t /* MAX (x) */ WHERE a = "now ("
SELECT t.count, x.sum FROM t JOIN (SELECT 1 AS sum) x ON TRUE
SELECT COUNT(*), SUM(price), MAX(added) FROM items
SELECT b FROM t WHERE a = 2
SELECT COUNT(*) FROM big WHERE id = 1234
SELECT COUNT(*) FROM big WHERE id > 2990 OR id <= 5
SELECT COUNT(*) FROM big WHERE id IN (3, 30, 300, 3000, 30000)
SELECT COUNT(*) FROM big WHERE id = '17'
SELECT COUNT(*) FROM big b JOIN small s ON s.id = b.small_id WHERE s.name = 'b'
SELECT COUNT(*) FROM big WHERE at >= '2024-03-01' AND at < '2024-05-01'
SELECT COUNT(*) FROM big WHERE at IS NULL
SELECT COUNT(*) FROM big WHERE at IS NOT NULL
SELECT COUNT(*) FROM big WHERE st = 'tx'
SELECT COUNT(*) FROM big WHERE st > 'P'
SELECT COUNT(*) FROM big WHERE st = 'OHIO'
SELECT COUNT(*) FROM big WHERE k = 3 AND small_id = 1
SELECT COUNT(*) FROM big WHERE k BETWEEN 2 AND 4
SELECT COUNT(*) FROM t
SELECT id FROM ev WHERE d >= '2024-01-01' AND d < '2024-02-01'
SELECT id FROM ev WHERE EXISTS (SELECT 1 FROM ev e2 WHERE e2.id = ev.id + 1 AND e2.at > '2024-01-15')
SELECT id FROM ev WHERE d = 'soon'
SELECT id, name FROM members
SELECT m.email FROM members m
SELECT name FROM members WHERE email LIKE '%@x.org'
SELECT name FROM members ORDER BY email
SELECT COUNT(DISTINCT email) FROM members
SELECT COUNT(*) FROM payroll
SELECT m.name FROM members m JOIN payroll p ON p.member_id = m.id
SELECT name FROM members m WHERE EXISTS (SELECT 1 FROM payroll p WHERE p.member_id = m.id)
SELECT book FROM loans l WHERE EXISTS (SELECT 1 FROM members m WHERE m.id = l.member_id AND m.email IS NULL)
SELECT book FROM loans WHERE member_id IN (SELECT id FROM members WHERE email <> '')
SELECT t.e FROM (SELECT email AS e FROM members) t
WITH c AS (SELECT id, email FROM members) SELECT id FROM c
SELECT name FROM members UNION SELECT email FROM members
SELECT name, ROW_NUMBER() OVER (PARTITION BY email) FROM members
SELECT l.book FROM loans l JOIN members m ON m.email = l.book
SELECT name, (SELECT MAX(email) FROM members) FROM members
SELECT * FROM members
SELECT l.*, m.* FROM loans l JOIN members m ON m.id = l.member_id
SELECT COUNT(*) FROM (SELECT * FROM members) t
SELECT name AS email FROM members ORDER BY email
SELECT name AS email FROM members ORDER BY (email = 'a@x.org') DESC
SELECT name AS e FROM members ORDER BY (SELECT email) = 'a@x.org'
SELECT l.book FROM loans l WHERE l.lent_at > '2024-01-01'
SELECT name, birth_date FROM members
SELECT YEAR(birth_date) FROM members
SELECT MAX(birth_date) FROM members
SELECT CONCAT(name, ' ', birth_date) AS x FROM members
SELECT name, LAG(ip) OVER (ORDER BY lent_at) FROM loans
SELECT t.d FROM (SELECT birth_date AS d FROM members) t
WITH c (d) AS (SELECT birth_date FROM members) SELECT d FROM c
WITH RECURSIVE r AS (SELECT ip AS v, 1 AS n FROM loans UNION ALL SELECT v, n + 1 FROM r WHERE n < 3) SELECT v FROM r
SELECT name FROM members UNION ALL SELECT ip FROM loans
SELECT name, (SELECT MIN(birth_date) FROM members) AS m FROM members
SELECT m.name, ip FROM members m JOIN loans l ON l.member_id = m.id
SELECT * FROM loans
WITH c AS (SELECT id, birth_date FROM members) SELECT * FROM c
SELECT name FROM members WHERE birth_date < '1990-01-01'
SELECT COUNT(*) FROM members WHERE birth_date BETWEEN '1980-01-01' AND '1990-01-01' OR birth_date IN ('2000-01-01')
SELECT COUNT(DISTINCT ip) FROM loans
SELECT COUNT(*) AS n FROM members GROUP BY YEAR(birth_date)
SELECT name FROM members ORDER BY birth_date DESC LIMIT 3
SELECT name, RANK() OVER (ORDER BY birth_date) AS r FROM members
SELECT SUM(CASE WHEN birth_date < '1990-01-01' THEN 1 ELSE 0 END) FROM members
SELECT name FROM members WHERE id IN (SELECT member_id FROM loans WHERE ip LIKE '10.%')
SELECT COUNT(*) FROM (SELECT DISTINCT birth_date FROM members) t
SELECT t.name FROM (SELECT name, birth_date FROM members) t WHERE t.birth_date > '2000-01-01'
SELECT a.name FROM members a JOIN members b ON a.birth_date = b.birth_date AND a.id <> b.id
SELECT name FROM members UNION SELECT book FROM loans ORDER BY name
SELECT * FROM (SELECT id, name FROM members) t
SELECT m.email FROM other.members m
SELECT email FROM guests
SELECT c.name, x.email FROM customers c NATURAL JOIN (SELECT 'zqhid1@secret.test' AS email UNION ALL SELECT 'x') x
SELECT name AS email FROM customers ORDER BY email LIKE 'zqh%' DESC LIMIT 1
SELECT name FROM customers ORDER BY (SELECT email LIKE 'zqh%') DESC LIMIT 1
SELECT c.name, x.d FROM customers c JOIN (SELECT CAST(DATE_ADD('1902-01-01', INTERVAL n DAY) AS DATE) AS d FROM numbers) x ON c.birth_date = x.d
SELECT c.name, x.v FROM customers c JOIN (SELECT 8007900 + n AS v FROM numbers) x ON c.credit_score = x.v
SELECT name, birth_date FROM customers
SELECT birth_date FROM customers
SELECT email FROM customers
SELECT SUM(gross_amount) FROM orders
SELECT region, SUM(net_amount) FROM orders GROUP BY region
SELECT month, SUM(net) AS revenue FROM orders GROUP BY month
SELECT a, b FROM t
SELECT 'a', "b" FROM t WHERE c = 'd'
SELECT `o'neil` FROM t WHERE a = 'x'
SELECT COUNT(DISTINCT id) FROM visits
SELECT fee FROM visits
-- An alias inside a part canon prints as SQL (see differs in nodes_test.go):
SELECT o.id FROM orders o WHERE o.ship_state = 'TX' OR o.net_amount LIKE '1%'
