package warehouse_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

const shopDump = `
CREATE TABLE regions (id INT PRIMARY KEY, name VARCHAR(40)) COMMENT='Sales regions';
CREATE TABLE states (code CHAR(2) PRIMARY KEY, name VARCHAR(40) NOT NULL, region_id INT,
  FOREIGN KEY (region_id) REFERENCES regions(id));
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(80) COMMENT 'Full name of the customer', email VARCHAR(120), state VARCHAR(40));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, ordered_at DATE COMMENT 'Date the order was placed',
  ship_state CHAR(2), net_amount DECIMAL(12,2) COMMENT 'Net revenue after discounts', KEY (customer_id));
INSERT INTO regions VALUES (1,'South'),(2,'West');
INSERT INTO states VALUES ('TX','Texas',1),('CA','California',2),('OK','Oklahoma',1);
INSERT INTO customers VALUES (1,'Ann Lee','ann@example.com','Texas'),(2,'Bo Chen','bo@example.com','California'),(3,'Cy Diaz',NULL,'Texas');
INSERT INTO orders VALUES (1,1,'2024-01-05','TX','100.00'),(2,1,'2024-02-01','CA','50.50'),(3,2,'2023-12-30','CA',NULL),(4,3,'2025-03-03','TX','10.00');
`

func TestIntrospectAndProfile(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, shopDump)
			w := d.Open(t, warehouse.Config{})
			ctx := context.Background()
			s, err := w.Introspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Tables); got != 4 {
				t.Fatalf("%d tables", got)
			}
			orders := s.Table("orders")
			if orders == nil || !slices.Equal(orders.PrimaryKey, []string{"id"}) {
				t.Fatalf("orders: %+v", orders)
			}
			if c := orders.Column("ordered_at"); c == nil || c.Comment != "Date the order was placed" || c.Kind() != warehouse.KindTime {
				t.Fatalf("ordered_at: %+v", c)
			}
			if c := orders.Column("net_amount"); c == nil || c.FullType != "decimal(12,2)" || !c.Nullable {
				t.Fatalf("net_amount: %+v", c)
			}
			if s.Table("regions").Comment != "Sales regions" {
				t.Fatalf("table comment: %q", s.Table("regions").Comment)
			}
			var declared, inferred []warehouse.Join
			for _, j := range s.Joins {
				if j.Declared {
					declared = append(declared, j)
				} else {
					inferred = append(inferred, j)
				}
			}
			if len(declared) != 1 || declared[0].FromTable != "states" || declared[0].ToTable != "regions" || declared[0].Confidence != 1 {
				t.Fatalf("declared joins: %+v", declared)
			}
			if !hasJoin(inferred, "orders", "customer_id", "customers", "id") {
				t.Fatalf("orders.customer_id → customers.id not inferred: %+v", inferred)
			}
			for _, j := range inferred {
				if j.Confidence >= 1 || j.Reason == "" {
					t.Fatalf("inferred join must carry a confidence below 1 and a reason: %+v", j)
				}
				if j.FromTable == "states" && j.FromColumn == "region_id" {
					t.Fatalf("declared key inferred again: %+v", j)
				}
			}

			snap, err := w.TakeSnapshot(ctx, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := snap.Profile("orders", "net_amount")
			if p == nil || p.Rows != 4 || p.Distinct != 3 || p.NullShare != 0.25 || !numEq(p.Min, 10) || !numEq(p.Max, 100) {
				t.Fatalf("net_amount profile: %+v", p)
			}
			if p := snap.Profile("orders", "ordered_at"); p == nil || !strings.HasPrefix(p.Min, "2023-12-30") || !strings.HasPrefix(p.Max, "2025-03-03") {
				t.Fatalf("ordered_at profile: %+v", p)
			}
			ps := snap.Profile("customers", "state")
			if ps == nil || len(ps.Top) != 2 || ps.Top[0].Value != "Texas" || ps.Top[0].Count != 2 {
				t.Fatalf("customers.state top values: %+v", ps)
			}
			if !slices.Contains(ps.Values, "California") {
				t.Fatalf("customers.state values: %v", ps.Values)
			}
			if !hasAlias(snap.Aliases, "TX", "Texas") || !hasAlias(snap.Aliases, "CA", "California") {
				t.Fatalf("aliases: %+v", snap.Aliases)
			}
			if !hasJoin(snap.Schema.Joins, "orders", "ship_state", "states", "code") {
				t.Fatalf("value-contained join orders.ship_state → states.code missing: %+v", snap.Schema.Joins)
			}
			if !hasJoin(snap.Schema.Joins, "customers", "state", "states", "name") {
				t.Fatalf("value-contained join customers.state → states.name missing: %+v", snap.Schema.Joins)
			}

			// The snapshot is cached: a second call reads the file, refresh retakes it.
			path := filepath.Join(t.TempDir(), "snap.json.gz")
			first, err := w.CachedSnapshot(ctx, path, 0, false, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			second, err := w.CachedSnapshot(ctx, path, 0, false, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !second.TakenAt.Equal(first.TakenAt) || len(second.Profiles) != len(first.Profiles) {
				t.Fatalf("cache not used: %v vs %v", first.TakenAt, second.TakenAt)
			}
			// A table added behind the cache's back: only a refresh sees it
			// (no clock involved, so no wait).
			d.Exec(t, "CREATE TABLE added_later (id INT PRIMARY KEY)")
			if again, err := w.CachedSnapshot(ctx, path, 0, false, warehouse.ProfileOptions{}); err != nil || again.Schema.Table("added_later") != nil {
				t.Fatalf("the cache should still be used: %v", err)
			}
			third, err := w.CachedSnapshot(ctx, path, 0, true, warehouse.ProfileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if third.Schema.Table("added_later") == nil {
				t.Fatal("refresh did not retake the snapshot")
			}
		})
	}
}

func TestProfileIsBoundedOnLargeTables(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE big (id INT PRIMARY KEY, tag VARCHAR(10));\nINSERT INTO big VALUES ")
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(" + itoa(i) + ",'t" + itoa(i%7) + "')")
	}
	b.WriteString(";")
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, b.String())
			w := d.Open(t, warehouse.Config{})
			s, err := w.Introspect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ps := w.ProfileTable(context.Background(), s.Table("big"), warehouse.ProfileOptions{SampleRows: 1000, ValueCap: 5})
			tag := ps[1]
			if tag.Rows != 1000 || !tag.Sampled {
				t.Fatalf("sampling not applied: %+v", tag)
			}
			if len(tag.Top) != 7 || len(tag.Values) > 5 {
				t.Fatalf("tag profile: top %d values %d", len(tag.Top), len(tag.Values))
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func numEq(s string, want float64) bool {
	f, ok := warehouse.AsFloat(s)
	return ok && f == want
}

func hasJoin(js []warehouse.Join, ft, fc, tt, tc string) bool {
	for _, j := range js {
		if strings.EqualFold(j.FromTable, ft) && strings.EqualFold(j.FromColumn, fc) && strings.EqualFold(j.ToTable, tt) && strings.EqualFold(j.ToColumn, tc) {
			return true
		}
	}
	return false
}

func hasAlias(as []warehouse.ValueAlias, code, name string) bool {
	for _, a := range as {
		if a.Code == code && a.Name == name {
			return true
		}
	}
	return false
}
