package llmengine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// A synthetic wide warehouse: 10 departments × 20 entities × 5 regional
// copies = 1,000 tables of 9–11 commented, profiled columns, with declared
// foreign keys inside each department and region.

type colSpec struct {
	name, typ, comment string
	values             []string // frequent values (text)
	min, max           string   // range (numbers, dates)
	ref                string   // entity referenced by this column
}

var entities = []struct {
	name, comment string
	cols          []colSpec
}{
	{"customers", "Customer accounts, one row per customer", []colSpec{{name: "name", typ: "varchar(100)", comment: "Customer name"}, {name: "segment", typ: "varchar(20)", comment: "Customer segment", values: []string{"Consumer", "Small Business", "Enterprise"}}, {name: "country", typ: "varchar(40)", comment: "Country of the billing address", values: []string{"United States", "Germany", "France", "Japan", "Brazil"}}, {name: "signup_date", typ: "date", comment: "Date the account was created", min: "2019-01-01", max: "2026-10-31"}}},
	{"orders", "Customer orders, one row per order", []colSpec{{name: "customer_id", typ: "int", comment: "Customer who placed the order", ref: "customers"}, {name: "order_date", typ: "date", comment: "Date the order was placed", min: "2020-01-01", max: "2026-10-31"}, {name: "ship_date", typ: "date", comment: "Date the order shipped", min: "2020-01-03", max: "2026-11-02"}, {name: "net_amount", typ: "decimal(12,2)", comment: "Net revenue after discounts", min: "1.00", max: "9800.00"}, {name: "gross_amount", typ: "decimal(12,2)", comment: "Gross revenue before discounts and returns", min: "1.00", max: "10450.00"}, {name: "currency", typ: "char(3)", comment: "Currency of the amounts", values: []string{"USD", "EUR", "JPY"}}}},
	{"order_items", "Products and quantities on each order", []colSpec{{name: "order_id", typ: "int", comment: "Order the item belongs to", ref: "orders"}, {name: "product_id", typ: "int", comment: "Product ordered", ref: "products"}, {name: "quantity", typ: "int", comment: "Units ordered", min: "1", max: "40"}, {name: "unit_price", typ: "decimal(10,2)", comment: "Price per unit charged", min: "0.50", max: "1999.00"}}},
	{"products", "Products in the catalogue", []colSpec{{name: "title", typ: "varchar(120)", comment: "Product name"}, {name: "category", typ: "varchar(40)", comment: "Product category", values: []string{"Hardware", "Software", "Services", "Accessories"}}, {name: "list_price", typ: "decimal(10,2)", comment: "Catalogue price per unit", min: "0.50", max: "1999.00"}}},
	{"invoices", "Invoices sent to customers", []colSpec{{name: "customer_id", typ: "int", comment: "Customer invoiced", ref: "customers"}, {name: "issued_on", typ: "date", comment: "Date the invoice was issued", min: "2020-01-01", max: "2026-10-31"}, {name: "due_on", typ: "date", comment: "Date payment is due", min: "2020-01-31", max: "2026-11-30"}, {name: "total", typ: "decimal(12,2)", comment: "Invoice total including tax", min: "5.00", max: "25000.00"}}},
	{"payments", "Payments received", []colSpec{{name: "invoice_id", typ: "int", comment: "Invoice paid", ref: "invoices"}, {name: "paid_on", typ: "date", comment: "Date the payment arrived", min: "2020-01-05", max: "2026-11-01"}, {name: "method", typ: "varchar(20)", comment: "Payment method", values: []string{"card", "wire", "check", "paypal"}}}},
	{"tickets", "Support tickets opened by customers", []colSpec{{name: "customer_id", typ: "int", comment: "Customer who opened the ticket", ref: "customers"}, {name: "priority", typ: "varchar(10)", comment: "Ticket priority", values: []string{"low", "normal", "high", "urgent"}}, {name: "opened_at", typ: "datetime", comment: "When the ticket was opened", min: "2020-01-01 08:00:00", max: "2026-10-31 18:00:00"}, {name: "closed_at", typ: "datetime", comment: "When the ticket was closed; empty while open", min: "2020-01-01 09:00:00", max: "2026-10-31 19:00:00"}}},
	{"employees", "Employees and contractors", []colSpec{{name: "full_name", typ: "varchar(100)", comment: "Employee name"}, {name: "title", typ: "varchar(60)", comment: "Job title"}, {name: "hired_on", typ: "date", comment: "Hire date", min: "2005-03-01", max: "2026-10-01"}, {name: "salary", typ: "decimal(10,2)", comment: "Yearly base salary", min: "32000", max: "410000"}}},
	{"campaigns", "Marketing campaigns", []colSpec{{name: "channel", typ: "varchar(20)", comment: "Marketing channel", values: []string{"email", "search", "social", "events"}}, {name: "budget", typ: "decimal(12,2)", comment: "Planned spend", min: "500", max: "900000"}, {name: "starts_on", typ: "date", comment: "First day of the campaign", min: "2020-01-01", max: "2026-12-01"}}},
	{"leads", "Sales leads from campaigns", []colSpec{{name: "campaign_id", typ: "int", comment: "Campaign that produced the lead", ref: "campaigns"}, {name: "source", typ: "varchar(20)", comment: "Lead source", values: []string{"web form", "trade show", "referral"}}, {name: "score", typ: "int", comment: "Lead score from 0 to 100", min: "0", max: "100"}}},
	{"shipments", "Shipments of orders", []colSpec{{name: "order_id", typ: "int", comment: "Order shipped", ref: "orders"}, {name: "carrier", typ: "varchar(10)", comment: "Shipping carrier", values: []string{"UPS", "FedEx", "DHL", "USPS"}}, {name: "delivered_on", typ: "date", comment: "Delivery date; empty while in transit", min: "2020-01-05", max: "2026-11-03"}}},
	{"suppliers", "Suppliers of products", []colSpec{{name: "company", typ: "varchar(100)", comment: "Supplier name"}, {name: "country", typ: "varchar(40)", comment: "Supplier country", values: []string{"China", "Mexico", "Vietnam", "Germany"}}, {name: "rating", typ: "tinyint", comment: "Quality rating 1-5", min: "1", max: "5"}}},
	{"warehouses", "Warehouses holding stock", []colSpec{{name: "city", typ: "varchar(60)", comment: "City of the warehouse"}, {name: "capacity", typ: "int", comment: "Pallet capacity", min: "200", max: "90000"}}},
	{"inventory", "Stock levels per product and warehouse", []colSpec{{name: "product_id", typ: "int", comment: "Product stocked", ref: "products"}, {name: "warehouse_id", typ: "int", comment: "Warehouse holding it", ref: "warehouses"}, {name: "on_hand", typ: "int", comment: "Units on hand", min: "0", max: "12000"}}},
	{"subscriptions", "Recurring subscriptions", []colSpec{{name: "customer_id", typ: "int", comment: "Subscriber", ref: "customers"}, {name: "plan", typ: "varchar(20)", comment: "Subscription plan", values: []string{"basic", "pro", "enterprise"}}, {name: "mrr", typ: "decimal(10,2)", comment: "Monthly recurring revenue", min: "9", max: "25000"}, {name: "cancelled_on", typ: "date", comment: "Cancellation date; empty while active", min: "2020-02-01", max: "2026-10-30"}}},
	{"returns", "Returned order items", []colSpec{{name: "order_id", typ: "int", comment: "Order returned", ref: "orders"}, {name: "reason", typ: "varchar(40)", comment: "Reason for the return", values: []string{"damaged", "wrong item", "changed mind"}}, {name: "refund", typ: "decimal(10,2)", comment: "Amount refunded", min: "1", max: "5000"}}},
	{"reviews", "Product reviews written by customers", []colSpec{{name: "product_id", typ: "int", comment: "Product reviewed", ref: "products"}, {name: "stars", typ: "tinyint", comment: "Rating from 1 to 5 stars", min: "1", max: "5"}, {name: "body", typ: "text", comment: "Review text"}}},
	{"sessions", "Website sessions", []colSpec{{name: "visitor", typ: "varchar(40)", comment: "Anonymous visitor id"}, {name: "landing_page", typ: "varchar(200)", comment: "First page of the session"}, {name: "duration_s", typ: "int", comment: "Session length in seconds", min: "1", max: "7200"}}},
	{"contracts", "Signed customer contracts", []colSpec{{name: "customer_id", typ: "int", comment: "Customer who signed", ref: "customers"}, {name: "value", typ: "decimal(14,2)", comment: "Total contract value", min: "1000", max: "5000000"}, {name: "signed_on", typ: "date", comment: "Signature date", min: "2018-01-01", max: "2026-10-30"}}},
	{"expenses", "Employee expense claims", []colSpec{{name: "employee_id", typ: "int", comment: "Employee claiming", ref: "employees"}, {name: "category", typ: "varchar(30)", comment: "Expense category", values: []string{"travel", "meals", "software", "training"}}, {name: "amount", typ: "decimal(10,2)", comment: "Amount claimed", min: "1", max: "12000"}}},
}

var (
	departments = []string{"sales", "finance", "support", "marketing", "ops", "logistics", "hr", "billing", "product", "web"}
	regions     = []string{"us", "eu", "apac", "latam", "archive"}
)

func syntheticSnapshot() *warehouse.Snapshot {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Database: "wide", Flavor: "mysql"}}
	name := func(dept, entity, region string) string { return dept + "_" + entity + "_" + region }
	for _, d := range departments {
		for _, r := range regions {
			for _, e := range entities {
				t := warehouse.Table{Name: name(d, e.name, r), Comment: fmt.Sprintf("%s (%s department, %s region)", e.comment, d, r), PrimaryKey: []string{"id"}, RowCount: 25000}
				add := func(c colSpec) {
					col := warehouse.Column{Table: t.Name, Name: c.name, DataType: strings.SplitN(c.typ, "(", 2)[0], FullType: c.typ, Comment: c.comment, Position: len(t.Columns) + 1}
					t.Columns = append(t.Columns, col)
					p := warehouse.Profile{Table: t.Name, Column: c.name, Rows: 25000, Distinct: 1000, Min: c.min, Max: c.max}
					for i, v := range c.values {
						p.Top = append(p.Top, warehouse.ValueCount{Value: v, Count: int64(5000 - 1000*i)})
						p.Values = append(p.Values, v)
						p.Distinct = int64(len(c.values))
					}
					if c.values == nil && col.Kind() == warehouse.KindText {
						p.Samples = []string{c.name + " A", c.name + " B", c.name + " C"}
					}
					snap.Profiles = append(snap.Profiles, p)
					if c.ref != "" {
						snap.Schema.Joins = append(snap.Schema.Joins, warehouse.Join{FromTable: t.Name, FromColumn: c.name, ToTable: name(d, c.ref, r), ToColumn: "id", Declared: true, Confidence: 1})
					}
				}
				add(colSpec{name: "id", typ: "int", comment: "Row id", min: "1", max: "25000"})
				for _, c := range e.cols {
					add(c)
				}
				add(colSpec{name: "status", typ: "varchar(12)", comment: "Record status", values: []string{"active", "closed", "pending"}})
				add(colSpec{name: "region", typ: "varchar(20)", comment: "Sales region", values: []string{"North", "South", "East", "West"}})
				add(colSpec{name: "created_at", typ: "datetime", comment: "When the row was created", min: "2018-01-01 00:00:00", max: "2026-10-31 23:59:59"})
				add(colSpec{name: "updated_at", typ: "datetime", comment: "When the row last changed", min: "2018-01-01 00:00:00", max: "2026-10-31 23:59:59"})
				snap.Schema.Tables = append(snap.Schema.Tables, t)
			}
		}
	}
	return snap
}

var benchQuestions = []string{
	"what was the net revenue of sales orders in 2024 by region?",
	"how many urgent support tickets are still open?",
	"average invoice total for enterprise customers in germany",
	"top 10 products by units ordered last year",
	"which marketing campaigns produced the most leads from trade shows?",
}

var (
	benchOnce sync.Once
	benchTok  *llm.Tokenizer
	benchCat  *catalog.Catalog
)

func benchSetup(tb testing.TB) (*llm.Tokenizer, *catalog.Catalog) {
	benchOnce.Do(func() {
		tk, err := llm.NewTokenizer(llm.EncodingO200k)
		if err == nil {
			err = tk.Load()
		}
		if err != nil {
			tb.Fatal(err)
		}
		benchTok, benchCat = tk, catalog.New(syntheticSnapshot(), catalog.Options{})
	})
	return benchTok, benchCat
}

// BenchmarkPromptTokens1000Tables measures the prompt for a question on a
// 1,000-table warehouse: tokens/question with the linked schema (what is
// sent) and fullschema-tokens with every table (what is not), counted with
// the o200k tokenizer.
func BenchmarkPromptTokens1000Tables(b *testing.B) {
	tk, cat := benchSetup(b)
	e, err := New(Options{Model: &meter{}, Catalog: cat, Tokens: tk})
	if err != nil {
		b.Fatal(err)
	}
	if n := len(cat.Snapshot().Schema.Tables); n != 1000 {
		b.Fatalf("%d tables", n)
	}
	prompt := func(q, schema string) []llm.Message {
		r := &run{e: e, req: dialog.Request{Question: q}, text: q}
		r.link = e.link(q, nil)
		if schema != "" {
			r.link.schema = schema
		}
		return r.generationMessages()
	}
	full := tk.CountMessages(prompt(benchQuestions[0], e.fullSchema()))
	b.ResetTimer()
	total, worst := 0, 0
	for i := 0; i < b.N; i++ {
		q := benchQuestions[i%len(benchQuestions)]
		n := tk.CountMessages(prompt(q, ""))
		total += n
		worst = max(worst, n)
	}
	b.StopTimer()
	per := float64(total) / float64(b.N)
	b.ReportMetric(per, "tokens/question")
	b.ReportMetric(float64(worst), "max-tokens/question")
	b.ReportMetric(float64(full), "fullschema-tokens")
	b.ReportMetric(float64(full)/per, "reduction-x")
}

// TestPromptTokens1000Tables holds the benchmark's targets as a test:
// every question under 2,000 tokens and at least 50× fewer than the full
// schema, and the linked prompt finds the tables the question is about.
func TestPromptTokens1000Tables(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a tokenizer and a 1,000-table catalog")
	}
	tk, cat := benchSetup(t)
	e, err := New(Options{Model: &meter{}, Catalog: cat, Tokens: tk})
	if err != nil {
		t.Fatal(err)
	}
	full := 0
	{
		r := &run{e: e, req: dialog.Request{Question: benchQuestions[0]}}
		r.link = e.link(benchQuestions[0], nil)
		r.link.schema = e.fullSchema()
		full = tk.CountMessages(r.generationMessages())
	}
	want := []string{"orders", "tickets", "invoices", "order_items", "leads"}
	for i, q := range benchQuestions {
		r := &run{e: e, req: dialog.Request{Question: q}}
		r.link = e.link(q, nil)
		msgs := r.generationMessages()
		n := tk.CountMessages(msgs)
		if n > 2000 || full < 50*n {
			t.Errorf("%q: %d tokens (full schema %d)", q, n, full)
		}
		if testing.Verbose() {
			t.Logf("%q: %d tokens\n%s", q, n, r.link.schema)
		}
		if !strings.Contains(r.link.schema, "_"+want[i]+"_") {
			t.Errorf("%q: the linked schema has no %s table:\n%s", q, want[i], r.link.schema)
		}
	}
}
