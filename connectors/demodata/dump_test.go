package demodata

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/embedded"
)

func TestWriteDumpFormat(t *testing.T) {
	rows := make([][]any, 1001)
	for i := range rows {
		rows[i] = []any{int64(i + 1), "x"}
	}
	rows[0] = []any{int64(1), "O'Brien \\ \"Muñoz\"\nnext; line"}
	rows[1] = []any{int64(2), nil}
	ds := &Dataset{Tables: []Table{
		{Name: "parent", CreateSQL: "CREATE TABLE `parent` (\n  `id` INT NOT NULL,\n  PRIMARY KEY (`id`)\n)", Columns: []string{"id"}, Rows: [][]any{{int64(1)}}},
		{Name: "child", CreateSQL: "CREATE TABLE `child` (\n  `id` INT NOT NULL,\n  `note` TEXT\n)", Columns: []string{"id", "note"}, Rows: rows},
	}}
	var buf bytes.Buffer
	if err := WriteDump(&buf, ds); err != nil {
		t.Fatal(err)
	}
	dump := buf.String()
	tests := []struct {
		name, want string
	}{
		{"drops referencing tables first", "DROP TABLE IF EXISTS `child`;\nDROP TABLE IF EXISTS `parent`;\n"},
		{"escapes quotes, backslashes and newlines", `(1,'O''Brien \\ "Muñoz"\nnext; line'),`},
		{"writes NULL", "(2,NULL),"},
		{"ends a full INSERT at 1000 rows", "(1000,'x');\nINSERT INTO `child` (`id`, `note`) VALUES\n(1001,'x');\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(dump, tt.want) {
				t.Errorf("dump lacks %q:\n%s", tt.want, dump[:min(len(dump), 600)])
			}
		})
	}
	if strings.Contains(strings.ToUpper(dump), "CREATE DATABASE") || strings.Contains(strings.ToUpper(dump), "\nUSE ") {
		t.Error("dump must not create or select a database")
	}
	bad := &Dataset{Tables: []Table{{Name: "t", Columns: []string{"a"}, Rows: [][]any{{struct{}{}}}}}}
	if err := WriteDump(&bytes.Buffer{}, bad); err == nil {
		t.Error("want an error for an unsupported value type")
	}
}

// TestDDLAndDumpLoadOnEmbedded loads a small demo both ways the embedded
// server offers: the full DDL with keys (keyed inserts are quadratic there,
// so only a few hundred customers) and the WriteDump text through LoadDump.
func TestDDLAndDumpLoadOnEmbedded(t *testing.T) {
	ds := Generate(DefaultSeed, 300)
	orders := mustView(t, ds, "orders")
	keep := map[int64]bool{}
	for _, r := range orders.t.Rows {
		keep[orders.int(r, "customer_id")] = true
	}
	customers := mustView(t, ds, "customers")
	var kept [][]any
	var tricky []string // names that need escaping or utf8mb4
	for _, r := range customers.t.Rows {
		id, name := customers.int(r, "id"), customers.str(r, "name")
		special := strings.ContainsAny(name, "'ñéíë")
		if keep[id] || id <= 100 || (special && len(tricky) < 5) {
			kept = append(kept, r)
			if special {
				tricky = append(tricky, name)
			}
		}
	}
	customers.t.Rows = kept
	if len(tricky) == 0 {
		t.Fatal("no customer name with an apostrophe or accent")
	}

	srv := mustServer(t)
	ctx := context.Background()
	var tables []embedded.Table
	for _, tb := range ds.Tables {
		tables = append(tables, embedded.Table{Name: tb.Name, CreateSQL: tb.CreateSQL, Rows: tb.Rows})
	}
	if err := srv.LoadTables(ctx, "keyed", tables); err != nil {
		t.Fatalf("full DDL on go-mysql-server: %v", err)
	}
	var dump bytes.Buffer
	if err := WriteDump(&dump, ds); err != nil {
		t.Fatal(err)
	}
	if err := srv.LoadDump(ctx, "dumped", &dump); err != nil {
		t.Fatalf("dump on go-mysql-server: %v", err)
	}
	for _, db := range []string{"keyed", "dumped"} {
		t.Run(db, func(t *testing.T) {
			conn := mustOpen(t, srv, db)
			var n int
			if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers").Scan(&n); err != nil || n != len(kept) {
				t.Errorf("%d customers, want %d (%v)", n, len(kept), err)
			}
			for _, name := range tricky {
				if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM customers WHERE name = ?", name).Scan(&n); err != nil || n != 1 {
					t.Errorf("%d customers named %q (%v)", n, name, err)
				}
			}
			var comment string
			err := conn.QueryRowContext(ctx, "SELECT COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND COLUMN_NAME = 'net_amount'", db).Scan(&comment)
			if err != nil || comment != "Net revenue after discounts (excludes shipping)" {
				t.Errorf("net_amount comment %q (%v)", comment, err)
			}
		})
	}
}

// TestColumnsMatchDDL guards the contract between Columns, Rows and
// CreateSQL: LoadTables and WriteDump both rely on the same column order.
func TestColumnsMatchDDL(t *testing.T) {
	ds := Generate(DefaultSeed, 100)
	for _, tb := range ds.Tables {
		t.Run(tb.Name, func(t *testing.T) {
			var cols []string
			for _, l := range strings.Split(tb.CreateSQL, "\n")[1:] {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "`") {
					cols = append(cols, l[1:strings.Index(l[1:], "`")+1])
				}
			}
			if strings.Join(cols, ",") != strings.Join(tb.Columns, ",") {
				t.Errorf("DDL columns %v, Columns %v", cols, tb.Columns)
			}
			if !strings.Contains(tb.CreateSQL, "CHARSET=utf8mb4 COMMENT='") {
				t.Error("want utf8mb4 and a table comment")
			}
		})
	}
}
