package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// col is shorthand for a column of the test schema.
func col(table, name, dataType, comment string) warehouse.Column {
	return warehouse.Column{Table: table, Name: name, DataType: dataType, FullType: dataType, Comment: comment}
}

// testSnapshot resembles a small company warehouse.
func testSnapshot() *warehouse.Snapshot {
	tables := []warehouse.Table{
		{Name: "orders", Comment: "One row per customer order", PrimaryKey: []string{"id"}, Columns: []warehouse.Column{
			col("orders", "id", "int", ""),
			col("orders", "customer_id", "int", ""),
			col("orders", "ordered_at", "date", "Date the order was placed"),
			col("orders", "shipped_at", "date", "Date the order left the warehouse"),
			col("orders", "ship_state", "char", ""),
			col("orders", "gross_amount", "decimal", "Gross revenue before discounts"),
			col("orders", "net_amount", "decimal", "Net revenue after discounts"),
			col("orders", "status", "varchar", ""),
		}},
		{Name: "customers", Comment: "People and companies that bought from us", PrimaryKey: []string{"id"}, Columns: []warehouse.Column{
			col("customers", "id", "int", ""),
			col("customers", "name", "varchar", "Full name"),
			col("customers", "email", "varchar", ""),
			col("customers", "state", "varchar", ""),
			col("customers", "region", "varchar", "Sales region"),
			col("customers", "lastLoginAt", "datetime", ""),
			col("customers", "lifetime_value", "decimal", ""),
		}},
		{Name: "states", Columns: []warehouse.Column{
			col("states", "code", "char", "Two-letter postal code"),
			col("states", "name", "varchar", ""),
		}},
		{Name: "order_lines", Comment: "Items of an order", Columns: []warehouse.Column{
			col("order_lines", "order_id", "int", ""),
			col("order_lines", "product_id", "int", ""),
			col("order_lines", "quantity", "int", ""),
			col("order_lines", "unit_price", "decimal", ""),
			col("order_lines", "line_amount", "decimal", "Line revenue: quantity × unit price"),
		}},
		{Name: "products", Columns: []warehouse.Column{
			col("products", "id", "int", ""),
			col("products", "name", "varchar", ""),
			col("products", "category_id", "int", ""),
			col("products", "list_price", "decimal", "Catalogue price"),
		}},
		{Name: "categories", Columns: []warehouse.Column{
			col("categories", "id", "int", ""),
			col("categories", "name", "varchar", ""),
		}},
		{Name: "audit_log", Comment: "Changes made by administrators", Columns: []warehouse.Column{
			col("audit_log", "id", "int", ""),
			col("audit_log", "message", "text", ""),
			col("audit_log", "logged_at", "datetime", ""),
		}},
	}
	for _, t := range tables {
		for i := range t.Columns {
			t.Columns[i].Position = i + 1
		}
	}
	top := func(vs ...string) []warehouse.ValueCount {
		out := make([]warehouse.ValueCount, len(vs))
		for i, v := range vs {
			out[i] = warehouse.ValueCount{Value: v, Count: int64(100 - i)}
		}
		return out
	}
	return &warehouse.Snapshot{
		Schema: warehouse.Schema{
			Database: "shop",
			Flavor:   warehouse.FlavorMySQL,
			Tables:   tables,
			Joins: []warehouse.Join{
				{FromTable: "order_lines", FromColumn: "order_id", ToTable: "orders", ToColumn: "id", Declared: true, Confidence: 1, Reason: "fk_lines_order"},
				// Inference rediscovers the declared key; the declared edge must win.
				{FromTable: "order_lines", FromColumn: "order_id", ToTable: "orders", ToColumn: "id", Confidence: 0.99, Reason: "name match"},
				{FromTable: "orders", FromColumn: "customer_id", ToTable: "customers", ToColumn: "id", Confidence: 0.8, Reason: "name match"},
				{FromTable: "order_lines", FromColumn: "product_id", ToTable: "products", ToColumn: "id", Declared: true, Confidence: 1},
				{FromTable: "products", FromColumn: "category_id", ToTable: "categories", ToColumn: "id", Declared: true, Confidence: 1},
				{FromTable: "orders", FromColumn: "ship_state", ToTable: "states", ToColumn: "code", Confidence: 0.9, Reason: "value overlap"},
				{FromTable: "customers", FromColumn: "state", ToTable: "states", ToColumn: "name", Confidence: 0.7, Reason: "value overlap"},
			},
		},
		Profiles: []warehouse.Profile{
			{Table: "orders", Column: "ship_state", Values: []string{"TX", "CA", "NY", "OR"}, Top: top("TX", "CA", "NY", "OR")},
			{Table: "orders", Column: "status", Values: []string{"shipped", "pending", "cancelled"}, Top: top("shipped", "pending", "cancelled")},
			{Table: "orders", Column: "ordered_at", Samples: []string{"2024-01-03", "2024-02-11"}},
			{Table: "customers", Column: "state", Values: []string{"Texas", "California", "New York", "Oregon"}, Top: top("Texas", "California", "New York", "Oregon")},
			{Table: "customers", Column: "region", Values: []string{"Bay Area", "New England", "Gulf Coast"}},
			{Table: "customers", Column: "name", Samples: []string{"Alice Smith", "Bob Jones", "Carla Texeira"}},
			{Table: "states", Column: "code", Values: []string{"TX", "CA", "NY", "OR"}},
			{Table: "states", Column: "name", Values: []string{"Texas", "California", "New York", "Oregon"}},
			{Table: "categories", Column: "name", Values: []string{"Books", "Electronics", "Garden"}},
		},
		Aliases: []warehouse.ValueAlias{
			{Table: "states", CodeColumn: "code", NameColumn: "name", Code: "TX", Name: "Texas"},
			{Table: "states", CodeColumn: "code", NameColumn: "name", Code: "CA", Name: "California"},
		},
		Version: 1,
	}
}

// mustCatalog builds a Catalog of the test snapshot.
func mustCatalog(tb testing.TB, opts Options) *Catalog {
	tb.Helper()
	c := New(testSnapshot(), opts)
	if c.Snapshot() == nil {
		tb.Fatal("New returned a catalog without snapshot")
	}
	return c
}

func TestNewEdgeCases(t *testing.T) {
	tests := []struct {
		name       string
		snap       *warehouse.Snapshot
		wantValues int
	}{
		{"nil snapshot", nil, 0},
		{"empty snapshot", &warehouse.Snapshot{}, 0},
		{"joins to unknown tables and self joins", &warehouse.Snapshot{Schema: warehouse.Schema{
			Tables: []warehouse.Table{{Name: "a", Columns: []warehouse.Column{col("a", "id", "int", "")}}},
			Joins: []warehouse.Join{
				{FromTable: "a", FromColumn: "x", ToTable: "ghost", ToColumn: "id"},
				{FromTable: "a", FromColumn: "parent_id", ToTable: "a", ToColumn: "id", Declared: true},
			},
		}}, 0},
		// A profile the schema does not describe is still searchable.
		{"profile of unknown column", &warehouse.Snapshot{Profiles: []warehouse.Profile{
			{Table: "x", Column: "y", Values: []string{"Texas"}},
		}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.snap, Options{})
			if c.Snapshot() == nil {
				t.Fatal("Snapshot() is nil")
			}
			if got := c.SearchColumns("revenue by state", 5); len(got) != 0 {
				t.Errorf("SearchColumns = %v, want none", got)
			}
			if got := c.SearchValues("Texas", 5); len(got) != tt.wantValues {
				t.Errorf("SearchValues = %v, want %d hits", got, tt.wantValues)
			}
			if tt.snap != nil && len(tt.snap.Schema.Tables) == 1 {
				tree, err := c.JoinPath("a")
				if err != nil || len(tree.Edges) != 0 {
					t.Errorf("JoinPath(a) = %+v, %v; want a tree without edges", tree, err)
				}
			}
		})
	}
}

// TestConcurrentUse runs every search from several goroutines; with -race it
// proves the catalog is read-only after New, without it that results agree.
func TestConcurrentUse(t *testing.T) {
	c := mustCatalog(t, Options{})
	want := fmt.Sprint(c.SearchColumns("ship date", 5), c.SearchValues("texas", 5))
	wantTree, err := c.JoinPath("categories", "customers", "states")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got := fmt.Sprint(c.SearchColumns("ship date", 5), c.SearchValues("texas", 5))
				tree, err := c.JoinPath("categories", "customers", "states")
				if got != want || err != nil || !reflect.DeepEqual(tree, wantTree) {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent result %s differs from %s", got, want)
	}
}

func TestDeterminism(t *testing.T) {
	a, b := mustCatalog(t, Options{}), mustCatalog(t, Options{})
	for _, q := range []string{"revenue", "ship date", "customer state", "name", "id", "texas", "tex", "new yrok"} {
		t.Run(q, func(t *testing.T) {
			if x, y := a.SearchColumns(q, 20), b.SearchColumns(q, 20); !reflect.DeepEqual(x, y) {
				t.Errorf("SearchColumns differs between catalogs:\n%v\n%v", x, y)
			}
			if x, y := a.SearchColumns(q, 20), a.SearchColumns(q, 20); !reflect.DeepEqual(x, y) {
				t.Errorf("SearchColumns differs between calls:\n%v\n%v", x, y)
			}
			if x, y := a.SearchValues(q, 20), b.SearchValues(q, 20); !reflect.DeepEqual(x, y) {
				t.Errorf("SearchValues differs:\n%v\n%v", x, y)
			}
		})
	}
	for _, refs := range [][]string{{"categories", "customers", "states"}, {"order_lines", "customers"}} {
		t.Run(strings.Join(refs, "+"), func(t *testing.T) {
			x, err1 := a.JoinPath(refs...)
			y, err2 := b.JoinPath(refs...)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(x, y) {
				t.Errorf("JoinPath differs:\n%+v %v\n%+v %v", x, err1, y, err2)
			}
		})
	}
}
