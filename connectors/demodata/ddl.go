package demodata

// The DDL keeps to what MariaDB 10.11, MySQL 8 and go-mysql-server all
// accept: INT keys (the in-memory engine joins them far faster than text
// keys), KEY lines on every join and date column (it plans lookup joins
// and range scans only from declared indexes), no collation names (MySQL 8
// and MariaDB disagree on them), and comments in plain English because the
// bot words its clarifying questions from them.
//
// Declared foreign keys and deliberately undeclared joins:
// orders.customer_id and shipments.order_id have no FOREIGN KEY, so the bot
// has to infer those joins; customers.state holds full state names and has
// no key to states at all.

const regionsDDL = "CREATE TABLE `regions` (\n" +
	"  `id` INT NOT NULL COMMENT 'Region id',\n" +
	"  `name` VARCHAR(20) NOT NULL COMMENT 'Region name (US Census region)',\n" +
	"  PRIMARY KEY (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Sales regions: the four US Census regions'"

const statesDDL = "CREATE TABLE `states` (\n" +
	"  `code` CHAR(2) NOT NULL COMMENT 'Two-letter postal code of the state, such as TX',\n" +
	"  `name` VARCHAR(40) NOT NULL COMMENT 'Full state name, such as Texas',\n" +
	"  `region_id` INT NOT NULL COMMENT 'Sales region the state belongs to',\n" +
	"  PRIMARY KEY (`code`),\n" +
	"  KEY `idx_states_region` (`region_id`),\n" +
	"  CONSTRAINT `fk_states_region` FOREIGN KEY (`region_id`) REFERENCES `regions` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='US states and the District of Columbia'"

const customersDDL = "CREATE TABLE `customers` (\n" +
	"  `id` INT NOT NULL COMMENT 'Customer id',\n" +
	"  `name` VARCHAR(100) NOT NULL COMMENT 'Customer name: a person or a company',\n" +
	"  `email` VARCHAR(120) NOT NULL COMMENT 'Contact email address',\n" +
	"  `city` VARCHAR(60) NOT NULL COMMENT 'City of the customer''s address',\n" +
	"  `state` VARCHAR(40) NOT NULL COMMENT 'Full name of the state of the customer''s address, such as Texas',\n" +
	"  `segment` VARCHAR(20) NOT NULL COMMENT 'Customer segment: Consumer, Small Business or Enterprise',\n" +
	"  `signup_date` DATE NOT NULL COMMENT 'Date the customer created their account',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_customers_state` (`state`),\n" +
	"  KEY `idx_customers_signup` (`signup_date`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Customer accounts, one row per customer'"

const salesRepsDDL = "CREATE TABLE `sales_reps` (\n" +
	"  `id` INT NOT NULL COMMENT 'Sales rep id',\n" +
	"  `name` VARCHAR(100) NOT NULL COMMENT 'Full name of the sales rep',\n" +
	"  `email` VARCHAR(120) NOT NULL COMMENT 'Work email address',\n" +
	"  `region_id` INT NOT NULL COMMENT 'Region the rep covers',\n" +
	"  `hired_on` DATE NOT NULL COMMENT 'Date the rep was hired',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_sales_reps_region` (`region_id`),\n" +
	"  CONSTRAINT `fk_sales_reps_region` FOREIGN KEY (`region_id`) REFERENCES `regions` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Sales representatives; each covers one region'"

const categoriesDDL = "CREATE TABLE `categories` (\n" +
	"  `id` INT NOT NULL COMMENT 'Category id',\n" +
	"  `name` VARCHAR(40) NOT NULL COMMENT 'Category name',\n" +
	"  PRIMARY KEY (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Product categories'"

const productsDDL = "CREATE TABLE `products` (\n" +
	"  `id` INT NOT NULL COMMENT 'Product id',\n" +
	"  `name` VARCHAR(100) NOT NULL COMMENT 'Product name',\n" +
	"  `category_id` INT NOT NULL COMMENT 'Category of the product',\n" +
	"  `list_price` DECIMAL(10,2) NOT NULL COMMENT 'Current catalogue price per unit in US dollars',\n" +
	"  `unit_cost` DECIMAL(10,2) NOT NULL COMMENT 'What one unit costs us to buy, in US dollars',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_products_category` (`category_id`),\n" +
	"  CONSTRAINT `fk_products_category` FOREIGN KEY (`category_id`) REFERENCES `categories` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Products in the catalogue'"

const ordersDDL = "CREATE TABLE `orders` (\n" +
	"  `id` INT NOT NULL COMMENT 'Order number',\n" +
	"  `customer_id` INT NOT NULL COMMENT 'Customer who placed the order',\n" +
	"  `sales_rep_id` INT NOT NULL COMMENT 'Sales rep credited with the order',\n" +
	"  `ordered_at` DATE NOT NULL COMMENT 'Date the order was placed',\n" +
	"  `shipped_at` DATE NULL COMMENT 'Date the order left the warehouse; empty if not shipped yet or cancelled',\n" +
	"  `ship_state` CHAR(2) NOT NULL COMMENT 'Two-letter code of the state the order was shipped to',\n" +
	"  `status` VARCHAR(12) NOT NULL COMMENT 'Order status: placed, shipped, delivered, cancelled or returned',\n" +
	"  `gross_amount` DECIMAL(12,2) NOT NULL COMMENT 'Gross revenue: order lines plus shipping, before discounts',\n" +
	"  `discount_amount` DECIMAL(12,2) NOT NULL COMMENT 'Discount given on the order lines',\n" +
	"  `shipping_fee` DECIMAL(12,2) NOT NULL COMMENT 'Shipping fee charged to the customer',\n" +
	"  `net_amount` DECIMAL(12,2) NOT NULL COMMENT 'Net revenue after discounts (excludes shipping)',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_orders_customer` (`customer_id`),\n" +
	"  KEY `idx_orders_sales_rep` (`sales_rep_id`),\n" +
	"  KEY `idx_orders_ordered_at` (`ordered_at`),\n" +
	"  KEY `idx_orders_shipped_at` (`shipped_at`),\n" +
	"  KEY `idx_orders_ship_state` (`ship_state`),\n" +
	"  CONSTRAINT `fk_orders_sales_rep` FOREIGN KEY (`sales_rep_id`) REFERENCES `sales_reps` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Customer orders, one row per order, including cancelled and returned orders'"

const orderLinesDDL = "CREATE TABLE `order_lines` (\n" +
	"  `id` INT NOT NULL COMMENT 'Order line id',\n" +
	"  `order_id` INT NOT NULL COMMENT 'Order the line belongs to',\n" +
	"  `product_id` INT NOT NULL COMMENT 'Product ordered',\n" +
	"  `quantity` INT NOT NULL COMMENT 'Number of units ordered',\n" +
	"  `unit_price` DECIMAL(10,2) NOT NULL COMMENT 'Price per unit charged on this order',\n" +
	"  `line_amount` DECIMAL(12,2) NOT NULL COMMENT 'Line revenue: quantity times unit price, before order discounts and shipping',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_order_lines_order` (`order_id`),\n" +
	"  KEY `idx_order_lines_product` (`product_id`),\n" +
	"  CONSTRAINT `fk_order_lines_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`),\n" +
	"  CONSTRAINT `fk_order_lines_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Order lines: the products and quantities on each order'"

const shipmentsDDL = "CREATE TABLE `shipments` (\n" +
	"  `id` INT NOT NULL COMMENT 'Shipment id',\n" +
	"  `order_id` INT NOT NULL COMMENT 'Order shipped',\n" +
	"  `carrier` VARCHAR(10) NOT NULL COMMENT 'Shipping carrier: UPS, FedEx, USPS or DHL',\n" +
	"  `shipped_on` DATE NOT NULL COMMENT 'Date the carrier picked up the package',\n" +
	"  `delivered_on` DATE NULL COMMENT 'Date the package was delivered; empty while in transit',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_shipments_order` (`order_id`),\n" +
	"  KEY `idx_shipments_shipped_on` (`shipped_on`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Shipments, one per shipped order'"

const refundsDDL = "CREATE TABLE `refunds` (\n" +
	"  `id` INT NOT NULL COMMENT 'Refund id',\n" +
	"  `order_id` INT NOT NULL COMMENT 'Order refunded',\n" +
	"  `refunded_on` DATE NOT NULL COMMENT 'Date the refund was issued',\n" +
	"  `amount` DECIMAL(12,2) NOT NULL COMMENT 'Amount refunded to the customer',\n" +
	"  `reason` VARCHAR(40) NOT NULL COMMENT 'Reason given for the refund',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `idx_refunds_order` (`order_id`),\n" +
	"  KEY `idx_refunds_refunded_on` (`refunded_on`),\n" +
	"  CONSTRAINT `fk_refunds_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`)\n" +
	") DEFAULT CHARSET=utf8mb4 COMMENT='Refunds issued for returned or damaged orders'"
