package demodata

import (
	"bytes"
	"crypto/sha256"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/embedded"
)

func TestMain(m *testing.M) {
	embedded.QuietEngineLogs(io.Discard, slog.LevelError)
	os.Exit(m.Run())
}

// view gives name-based access to a generated table's rows.
type view struct {
	tb  testing.TB
	t   *Table
	col map[string]int
}

func mustView(tb testing.TB, ds *Dataset, name string) view {
	tb.Helper()
	t := ds.Table(name)
	if t == nil {
		tb.Fatalf("no table %s", name)
	}
	v := view{tb: tb, t: t, col: map[string]int{}}
	for i, c := range t.Columns {
		v.col[c] = i
	}
	return v
}

func (v view) idx(col string) int {
	i, ok := v.col[col]
	if !ok {
		v.tb.Fatalf("table %s has no column %s", v.t.Name, col)
	}
	return i
}

func (v view) str(row []any, col string) string {
	s, _ := row[v.idx(col)].(string)
	return s
}

func (v view) int(row []any, col string) int64 {
	n, ok := row[v.idx(col)].(int64)
	if !ok {
		v.tb.Fatalf("%s.%s = %#v, want int64", v.t.Name, col, row[v.idx(col)])
	}
	return n
}

func (v view) null(row []any, col string) bool { return row[v.idx(col)] == nil }

// money parses a DECIMAL string into cents.
func (v view) money(row []any, col string) int64 {
	s := v.str(row, col)
	whole, frac, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if !ok || len(frac) != 2 || err != nil {
		v.tb.Fatalf("%s.%s = %q, want a DECIMAL with two decimals", v.t.Name, col, s)
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	return n*100 + f
}

func dumpHash(tb testing.TB, ds *Dataset) [32]byte {
	tb.Helper()
	h := sha256.New()
	if err := WriteDump(h, ds); err != nil {
		tb.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

func TestGenerateIsDeterministic(t *testing.T) {
	a := dumpHash(t, defaultDataset())
	if b := dumpHash(t, Generate(DefaultSeed, DefaultOrders)); a != b {
		t.Fatal("two dumps of the same seed and size differ")
	}
	// A different seed changes the dump at any size: the quick tier checks
	// it on 1,000 orders.
	seedA, seedB := Generate(DefaultSeed, 1000), Generate(DefaultSeed+1, 1000)
	if !testing.Short() {
		seedA, seedB = defaultDataset(), Generate(DefaultSeed+1, DefaultOrders)
	}
	if dumpHash(t, seedA) == dumpHash(t, seedB) {
		t.Fatal("a different seed gave the same dump")
	}
	// Customers, reps and products depend on the seed only, so a demo with
	// fewer orders still has the same people.
	small, full := Generate(DefaultSeed, 1000), defaultDataset()
	for _, name := range []string{"customers", "sales_reps", "products"} {
		var x, y bytes.Buffer
		WriteDump(&x, &Dataset{Tables: []Table{*small.Table(name)}})
		WriteDump(&y, &Dataset{Tables: []Table{*full.Table(name)}})
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Errorf("%s differ between 1,000 and %d orders", name, DefaultOrders)
		}
	}
}

func TestTableSizes(t *testing.T) {
	ds := defaultDataset()
	tests := []struct {
		table    string
		min, max int
	}{
		{"regions", 4, 4},
		{"states", 51, 51},
		{"customers", 4500, 5500},
		{"sales_reps", 30, 50},
		{"categories", 6, 10},
		{"products", 150, 250},
		{"orders", DefaultOrders, DefaultOrders},
		{"order_lines", DefaultOrders * 3 / 2, DefaultOrders * 5 / 2},
		{"shipments", DefaultOrders * 9 / 10, DefaultOrders},
		{"refunds", 1000, 9000},
	}
	var names []string
	for _, tt := range tests {
		names = append(names, tt.table)
		t.Run(tt.table, func(t *testing.T) {
			tb := ds.Table(tt.table)
			if tb == nil {
				t.Fatal("missing")
			}
			if n := len(tb.Rows); n < tt.min || n > tt.max {
				t.Errorf("%d rows, want %d…%d", n, tt.min, tt.max)
			}
			for i, r := range tb.Rows {
				if len(r) != len(tb.Columns) {
					t.Fatalf("row %d has %d values for %d columns", i+1, len(r), len(tb.Columns))
				}
			}
		})
	}
	var got []string
	for _, tb := range ds.Tables {
		got = append(got, tb.Name)
	}
	if !slices.Equal(got, names) {
		t.Errorf("tables %v, want %v in creation order", got, names)
	}
	orders := mustView(t, ds, "orders")
	first, last := "9999", ""
	for _, r := range orders.t.Rows {
		d := orders.str(r, "ordered_at")
		first, last = min(first, d), max(last, d)
	}
	if first != "2022-01-01" || last > "2026-10-31" || last < "2026-10-20" {
		t.Errorf("orders span %s…%s, want 2022-01-01 to late October 2026", first, last)
	}
}

// keySet collects the values of one column.
func keySet[K comparable](v view, col string, key func([]any, string) K) map[K]bool {
	s := map[K]bool{}
	for _, r := range v.t.Rows {
		s[key(r, col)] = true
	}
	return s
}

func TestReferentialIntegrity(t *testing.T) {
	ds := defaultDataset()
	regions, states := mustView(t, ds, "regions"), mustView(t, ds, "states")
	customers, reps := mustView(t, ds, "customers"), mustView(t, ds, "sales_reps")
	categories, products := mustView(t, ds, "categories"), mustView(t, ds, "products")
	orders, lines := mustView(t, ds, "orders"), mustView(t, ds, "order_lines")
	shipments, refunds := mustView(t, ds, "shipments"), mustView(t, ds, "refunds")

	ints := func(v view) func([]any, string) int64 { return v.int }
	strs := func(v view) func([]any, string) string { return v.str }
	tests := []struct {
		name           string
		child          view
		col            string
		parent         view
		parentCol      string
		text, nullable bool
	}{
		{"states.region_id", states, "region_id", regions, "id", false, false},
		{"customers.state", customers, "state", states, "name", true, false},
		{"sales_reps.region_id", reps, "region_id", regions, "id", false, false},
		{"products.category_id", products, "category_id", categories, "id", false, false},
		{"orders.customer_id", orders, "customer_id", customers, "id", false, false},
		{"orders.sales_rep_id", orders, "sales_rep_id", reps, "id", false, false},
		{"orders.ship_state", orders, "ship_state", states, "code", true, false},
		{"order_lines.order_id", lines, "order_id", orders, "id", false, false},
		{"order_lines.product_id", lines, "product_id", products, "id", false, false},
		{"shipments.order_id", shipments, "order_id", orders, "id", false, false},
		{"refunds.order_id", refunds, "order_id", orders, "id", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.text {
				parent := keySet(tt.parent, tt.parentCol, strs(tt.parent))
				for _, r := range tt.child.t.Rows {
					if v := tt.child.str(r, tt.col); !parent[v] {
						t.Fatalf("%q has no match in %s.%s", v, tt.parent.t.Name, tt.parentCol)
					}
				}
				return
			}
			parent := keySet(tt.parent, tt.parentCol, ints(tt.parent))
			for _, r := range tt.child.t.Rows {
				if v := tt.child.int(r, tt.col); !parent[v] {
					t.Fatalf("%d has no match in %s.%s", v, tt.parent.t.Name, tt.parentCol)
				}
			}
		})
	}
	t.Run("primary keys are unique", func(t *testing.T) {
		for _, v := range []view{regions, customers, reps, categories, products, orders, lines, shipments, refunds} {
			if n := len(keySet(v, "id", v.int)); n != len(v.t.Rows) {
				t.Errorf("%s: %d distinct ids for %d rows", v.t.Name, n, len(v.t.Rows))
			}
		}
		if n := len(keySet(states, "code", states.str)); n != 51 {
			t.Errorf("states: %d distinct codes", n)
		}
		if n := len(keySet(customers, "email", customers.str)); n != len(customers.t.Rows) {
			t.Errorf("customers: %d distinct emails for %d rows", n, len(customers.t.Rows))
		}
	})
	t.Run("amounts add up", func(t *testing.T) {
		sumLines := map[int64]int64{}
		for _, r := range lines.t.Rows {
			if got, want := lines.money(r, "line_amount"), lines.int(r, "quantity")*lines.money(r, "unit_price"); got != want {
				t.Fatalf("line %d: line_amount %d cents, quantity × unit_price %d", lines.int(r, "id"), got, want)
			}
			sumLines[lines.int(r, "order_id")] += lines.money(r, "line_amount")
		}
		for _, r := range orders.t.Rows {
			id, sum := orders.int(r, "id"), sumLines[orders.int(r, "id")]
			if sum == 0 {
				t.Fatalf("order %d has no lines", id)
			}
			if g := orders.money(r, "gross_amount"); g != sum+orders.money(r, "shipping_fee") {
				t.Fatalf("order %d: gross %d ≠ lines %d + shipping", id, g, sum)
			}
			if n := orders.money(r, "net_amount"); n != sum-orders.money(r, "discount_amount") {
				t.Fatalf("order %d: net %d ≠ lines %d − discount", id, n, sum)
			}
		}
		net := map[int64]int64{}
		for _, r := range orders.t.Rows {
			net[orders.int(r, "id")] = orders.money(r, "net_amount")
		}
		for _, r := range refunds.t.Rows {
			if a := refunds.money(r, "amount"); a <= 0 || a > net[refunds.int(r, "order_id")] {
				t.Fatalf("refund %d of %d cents for an order of %d", refunds.int(r, "id"), a, net[refunds.int(r, "order_id")])
			}
		}
	})
	t.Run("dates are consistent", func(t *testing.T) {
		signup := map[int64]string{}
		for _, r := range customers.t.Rows {
			signup[customers.int(r, "id")] = customers.str(r, "signup_date")
		}
		hired := map[int64]string{}
		for _, r := range reps.t.Rows {
			hired[reps.int(r, "id")] = reps.str(r, "hired_on")
		}
		shipped := map[int64]string{}
		for _, r := range orders.t.Rows {
			id, day := orders.int(r, "id"), orders.str(r, "ordered_at")
			if s := signup[orders.int(r, "customer_id")]; s > day {
				t.Fatalf("order %d on %s before its customer signed up on %s", id, day, s)
			}
			if h := hired[orders.int(r, "sales_rep_id")]; h > day {
				t.Fatalf("order %d on %s credited to a rep hired on %s", id, day, h)
			}
			status := orders.str(r, "status")
			if orders.null(r, "shipped_at") != (status == "placed" || status == "cancelled") {
				t.Fatalf("order %d: status %s with shipped_at %v", id, status, r[orders.idx("shipped_at")])
			}
			if !orders.null(r, "shipped_at") {
				s := orders.str(r, "shipped_at")
				if s <= day || s > "2026-10-31" {
					t.Fatalf("order %d placed %s shipped %s", id, day, s)
				}
				shipped[id] = s
			}
		}
		seen := map[int64]bool{}
		for _, r := range shipments.t.Rows {
			o := shipments.int(r, "order_id")
			if seen[o] || shipments.str(r, "shipped_on") != shipped[o] {
				t.Fatalf("shipment %d: order %d shipped_at %q, shipped_on %q (seen before: %v)",
					shipments.int(r, "id"), o, shipped[o], shipments.str(r, "shipped_on"), seen[o])
			}
			seen[o] = true
			if !shipments.null(r, "delivered_on") && shipments.str(r, "delivered_on") <= shipped[o] {
				t.Fatalf("shipment %d delivered before it shipped", shipments.int(r, "id"))
			}
		}
		if len(seen) != len(shipped) {
			t.Fatalf("%d shipments for %d shipped orders", len(seen), len(shipped))
		}
	})
}

// TestAmbiguityIsReal checks, in Go rather than SQL, that each reading of
// the demo's ambiguous questions gives a different answer.
func TestAmbiguityIsReal(t *testing.T) {
	ds := defaultDataset()
	customers, orders := mustView(t, ds, "customers"), mustView(t, ds, "orders")
	lines, states := mustView(t, ds, "order_lines"), mustView(t, ds, "states")
	year := func(d string) string { return d[:4] }

	t.Run("three revenues", func(t *testing.T) {
		orderYear := map[int64]string{}
		gross, net, sum := map[string]int64{}, map[string]int64{}, map[string]int64{}
		for _, r := range orders.t.Rows {
			y := year(orders.str(r, "ordered_at"))
			orderYear[orders.int(r, "id")] = y
			gross[y] += orders.money(r, "gross_amount")
			net[y] += orders.money(r, "net_amount")
		}
		for _, r := range lines.t.Rows {
			sum[orderYear[lines.int(r, "order_id")]] += lines.money(r, "line_amount")
		}
		for _, y := range []string{"2022", "2023", "2024", "2025", "2026"} {
			if g, n, s := gross[y], net[y], sum[y]; !(g > s && s > n) {
				t.Errorf("%s: gross %d, order lines %d, net %d: want three different numbers", y, g, s, n)
			}
		}
	})
	t.Run("ordered or shipped in 2024", func(t *testing.T) {
		var byOrder, byShip int
		for _, r := range orders.t.Rows {
			if year(orders.str(r, "ordered_at")) == "2024" {
				byOrder++
			}
			if !orders.null(r, "shipped_at") && year(orders.str(r, "shipped_at")) == "2024" {
				byShip++
			}
		}
		if byOrder == byShip {
			t.Errorf("%d orders both ways", byOrder)
		}
	})
	t.Run("best customer", func(t *testing.T) {
		count, net := map[int64]int64{}, map[int64]int64{}
		for _, r := range orders.t.Rows {
			c := orders.int(r, "customer_id")
			count[c]++
			net[c] += orders.money(r, "net_amount")
		}
		byCount, byNet := uniqueMax(t, count), uniqueMax(t, net)
		if byCount == byNet {
			t.Errorf("customer %d has both the most orders and the most net revenue", byCount)
		}
	})
	t.Run("first customer", func(t *testing.T) {
		signup := map[int64]int64{}
		for _, r := range customers.t.Rows {
			signup[customers.int(r, "id")] = -dayNumber(customers.str(r, "signup_date"))
		}
		firstOrder := map[int64]int64{}
		for _, r := range orders.t.Rows {
			c, d := orders.int(r, "customer_id"), -dayNumber(orders.str(r, "ordered_at"))
			if v, ok := firstOrder[c]; !ok || d > v {
				firstOrder[c] = d
			}
		}
		bySignup, byOrder := uniqueMax(t, signup), uniqueMax(t, firstOrder)
		if bySignup == byOrder {
			t.Errorf("customer %d both signed up and ordered first", bySignup)
		}
	})
	t.Run("top region by net and by gross", func(t *testing.T) {
		region := map[string]int64{}
		for _, r := range states.t.Rows {
			region[states.str(r, "code")] = states.int(r, "region_id")
		}
		// The demo question is about 2025; ana reads it by ship date, ben by order date.
		readings := []struct{ year, date string }{{"2025", "shipped_at"}, {"2025", "ordered_at"}}
		for _, rd := range readings {
			net, gross := map[int64]int64{}, map[int64]int64{}
			for _, r := range orders.t.Rows {
				if orders.null(r, rd.date) || year(orders.str(r, rd.date)) != rd.year {
					continue
				}
				reg := region[orders.str(r, "ship_state")]
				net[reg] += orders.money(r, "net_amount")
				gross[reg] += orders.money(r, "gross_amount")
			}
			if n, g := uniqueMax(t, net), uniqueMax(t, gross); n == g {
				t.Errorf("%s by %s: region %d tops both net and gross revenue", rd.year, rd.date, n)
			}
		}
	})
	t.Run("Texas and TX", func(t *testing.T) {
		texans := map[int64]bool{}
		for _, r := range customers.t.Rows {
			if customers.str(r, "state") == "Texas" {
				texans[customers.int(r, "id")] = true
			}
		}
		shipsToTX := map[int64]bool{}
		var texanElsewhere, othersToTX int
		for _, r := range orders.t.Rows {
			c, tx := orders.int(r, "customer_id"), orders.str(r, "ship_state") == "TX"
			if tx {
				shipsToTX[c] = true
			}
			switch {
			case texans[c] && !tx:
				texanElsewhere++
			case !texans[c] && tx:
				othersToTX++
			}
		}
		if texanElsewhere == 0 || othersToTX == 0 {
			t.Errorf("orders of Texas customers shipped elsewhere: %d; orders of others shipped to TX: %d; want both > 0",
				texanElsewhere, othersToTX)
		}
		var onlyTX int
		for c := range shipsToTX {
			if !texans[c] {
				onlyTX++
			}
		}
		if onlyTX == 0 || len(texans) == 0 {
			t.Errorf("%d Texas customers, %d other customers with orders shipped to TX", len(texans), onlyTX)
		}
	})
}

// uniqueMax returns the key with the largest value and fails if the largest
// value is shared: a tie would make the gold answer depend on the engine.
func uniqueMax(tb testing.TB, m map[int64]int64) int64 {
	tb.Helper()
	var best, second int64 = -1 << 62, -1 << 62
	var key int64
	for k, v := range m {
		switch {
		case v > best:
			best, second, key = v, best, k
		case v > second:
			second = v
		}
	}
	if best == second {
		tb.Fatalf("the largest value %d is shared", best)
	}
	return key
}

func dayNumber(date string) int64 {
	y, _ := strconv.Atoi(date[:4])
	m, _ := strconv.Atoi(date[5:7])
	d, _ := strconv.Atoi(date[8:10])
	return int64(dayOf(y, time.Month(m), d))
}

// defaultDataset is the default demo, generated once for the tests that
// only read it (generating 100,000 orders takes a while).
var defaultDataset = sync.OnceValue(func() *Dataset { return Generate(DefaultSeed, DefaultOrders) })
