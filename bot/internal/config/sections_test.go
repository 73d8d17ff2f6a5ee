package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/access"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuditRetentionConfig(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       time.Duration
		wantErr    string
	}{
		{"default 90 days", "", 90 * 24 * time.Hour, ""},
		{"days", "audit: {question_retention: 30d}\n", 30 * 24 * time.Hour, ""},
		{"hours", "audit: {question_retention: 36h}\n", 36 * time.Hour, ""},
		{"zero keeps forever", "audit: {question_retention: 0}\n", 0, ""},
		{"negative", "audit: {question_retention: -3d}\n", 0, "invalid age"},
		{"typo", "audit: {question_retention: 3 weeks}\n", 0, "invalid age"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = filepath.Join(t.TempDir(), "clarify.yaml")
				if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(path, func(string) string { return "" })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Audit.Retention(); got != tc.want {
				t.Errorf("retention %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAccessConfig(t *testing.T) {
	cases := []struct {
		name, yaml, wantErr string
	}{
		{"parsed", "warehouses:\n  - name: shop\n    demo: true\n    access:\n      channels: [\"slack:T1:C1\", \"discord:G1\"]\n      users: [\"slack:T1:U7\"]\n      roles: [admin]\n      hidden: [customers.email, refunds]\n      sensitive: [products.unit_cost]\n", ""},
		{"channel without platform", "warehouses:\n  - name: shop\n    demo: true\n    access: {channels: [C123]}\n", `warehouse "shop": access.channels: "C123" is not platform:workspace:channel`},
		{"sensitive table", "warehouses:\n  - name: shop\n    demo: true\n    access: {sensitive: [customers]}\n", "names a whole table"},
		{"unknown key", "warehouses:\n  - name: shop\n    demo: true\n    access: {hide: [customers]}\n", "hide"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clarify.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path, func(string) string { return "" })
			if tc.wantErr == "" {
				if err != nil || len(c.Warehouses[0].Access.Hidden) != 2 || c.Warehouses[0].Access.Roles[0] != "admin" {
					t.Fatalf("%v %+v", err, c.Warehouses)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

func TestAccessLevelsConfig(t *testing.T) {
	base := func() WarehouseConfig {
		return WarehouseConfig{Name: "clinic", DSN: "desk:pw@tcp(db:3306)/clinic", Access: access.Rules{
			Hidden: []string{"patients.phone"},
			Levels: []access.Level{{Name: "billing", Roles: []string{"billing"}, DSN: "bill:pw@tcp(db:3306)/clinic", SeesAll: true}},
		}}
	}
	cases := []struct {
		name   string
		change func(w *WarehouseConfig)
		want   string // "" for valid
	}{
		{"valid", func(w *WarehouseConfig) {}, ""},
		{"a level without its account", func(w *WarehouseConfig) { w.Access.Levels[0].DSN = "" }, `access.levels "billing": dsn is required`},
		{"another database", func(w *WarehouseConfig) { w.Access.Levels[0].DSN = "bill:pw@tcp(db:3306)/other" }, `names the database "other", the warehouse's names "clinic"`},
		{"the warehouse's own account", func(w *WarehouseConfig) { w.Access.Levels[0].DSN = "desk:pw2@tcp(db:3306)/clinic" }, `runs on the user "desk" like level "default"`},
		{"a session setting", func(w *WarehouseConfig) {
			w.Access.Levels[0].DSN = "bill:pw@tcp(db:3306)/clinic?sql_mode=ANSI_QUOTES"
		}, "sets sql_mode"},
		{"a dsn on the demo", func(w *WarehouseConfig) { w.DSN, w.Demo = "", true }, "the demo warehouse has no accounts"},
		{"the demo's levels share it", func(w *WarehouseConfig) { w.DSN, w.Demo, w.Access.Levels[0].DSN = "", true, "" }, ""},
		{"a level that says nothing of its rules", func(w *WarehouseConfig) { w.Access.Levels[0].SeesAll = false }, "or sees_all: true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := base()
			tc.change(&w)
			cfg := Config{Warehouses: []WarehouseConfig{w}}
			cfg.ApplyDefaults()
			err := cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}

	t.Run("the YAML form", func(t *testing.T) {
		path := writeFile(t, "c.yml", `warehouses:
  - name: clinic
    dsn: desk:pw@tcp(db:3306)/clinic
    access:
      hidden: [patients.phone, invoices]
      levels:
        - name: billing
          roles: [billing]
          dsn: bill:pw@tcp(db:3306)/clinic
          hidden: [patients.phone]
        - name: records
          users: ["slack:T1:U7"]
          dsn: rec:pw@tcp(db:3306)/clinic
          sees_all: true
`)
		cfg, err := Load(path, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		w := cfg.Warehouses[0]
		for _, tc := range []struct {
			who    access.Asker
			level  string
			hidden string
			user   string // the account's
		}{
			{access.Asker{Channel: "slack:T1:C1", User: "slack:T1:U1"}, "default", "patients.phone,invoices", "desk:"},
			{access.Asker{Channel: "slack:T1:C1", User: "slack:T1:U1", Roles: []string{"billing"}}, "billing", "patients.phone", "bill:"},
			{access.Asker{Channel: "slack:T1:C1", User: "slack:T1:U7"}, "records", "", "rec:"},
		} {
			a := w.LevelOf(tc.who)
			if a.Name != tc.level || strings.Join(a.Rules.Hidden, ",") != tc.hidden || !strings.HasPrefix(a.DSN, tc.user) {
				t.Errorf("%+v: level %s hiding %v on %s, want %s hiding %s on %s…", tc.who, a.Name, a.Rules.Hidden, a.DSN, tc.level, tc.hidden, tc.user)
			}
		}
	})
}
