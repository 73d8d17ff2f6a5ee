package grants

import (
	"slices"
	"testing"
)

func TestParseGrant(t *testing.T) {
	tests := []struct {
		name, stmt string
		want       Grant
		wantErr    bool
	}{
		{"mariadb global all", "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION",
			Grant{Privs: []string{"ALL PRIVILEGES"}, DB: "*", Table: "*"}, false},
		{"usage with password", "GRANT USAGE ON *.* TO `clarify`@`%` IDENTIFIED BY PASSWORD '*A4B6157319038724E3560894F7F932C8886EBFCF'",
			Grant{Privs: []string{"USAGE"}, DB: "*", Table: "*"}, false},
		{"read-only database", "GRANT SELECT, SHOW VIEW ON `shop`.* TO `clarify`@`%`",
			Grant{Privs: []string{"SELECT", "SHOW VIEW"}, DB: "shop", Table: "*"}, false},
		{"mysql 8 quoting and lower case", "grant select on 'shop'.'orders' to 'u'@'%'",
			Grant{Privs: []string{"SELECT"}, DB: "shop", Table: "orders"}, false},
		{"column privileges", "GRANT SELECT (`id`, `name`), UPDATE (`name`) ON `shop`.`customers` TO `u`@`%`",
			Grant{Privs: []string{"SELECT", "UPDATE"}, DB: "shop", Table: "customers"}, false},
		{"a name with ON and TO inside quotes", "GRANT INSERT ON `on to`.`to on` TO `u`@`%`",
			Grant{Privs: []string{"INSERT"}, DB: "on to", Table: "to on"}, false},
		{"procedure", "GRANT EXECUTE, ALTER ROUTINE ON PROCEDURE `shop`.`refresh` TO `u`@`%`",
			Grant{Privs: []string{"EXECUTE", "ALTER ROUTINE"}, DB: "shop", Table: "refresh", Routine: true}, false},
		{"escaped wildcard", "GRANT SELECT ON `shop\\_eu`.* TO `u`@`%`",
			Grant{Privs: []string{"SELECT"}, DB: "shop\\_eu", Table: "*"}, false},
		{"proxy", "GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION",
			Grant{Privs: []string{"PROXY"}}, false},
		{"role", "GRANT `analyst` TO `u`@`%`", Grant{Role: "analyst"}, false},
		// A backslash escapes a quote inside a string: the TO and the
		// comma after it are part of the name.
		{"backslash-escaped quote in a name", `GRANT SELECT ON 'it\'s, TO x'.* TO 'u'@'%'`,
			Grant{Privs: []string{"SELECT"}, DB: `'it\'s, TO x'`, Table: "*"}, false},
		{"backslash-escaped quote in a role", `GRANT 'r\' TO x' TO 'u'@'%'`, Grant{Role: `'r\' TO x'`}, false},
		{"not a grant", "REVOKE SELECT ON *.* FROM u", Grant{}, true},
		{"no TO", "GRANT SELECT ON *.*", Grant{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.stmt)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !slices.Equal(got.Privs, tc.want.Privs) || got.DB != tc.want.DB || got.Table != tc.want.Table || got.Routine != tc.want.Routine || got.Role != tc.want.Role {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSplitTopLevel(t *testing.T) {
	for _, tc := range []struct {
		s    string
		sep  byte
		want []string
	}{
		{"SELECT, INSERT (a, b)", ',', []string{"SELECT", "INSERT (a, b)"}},
		{"`a.b`.c", '.', []string{"`a.b`", "c"}},
		{`'o\'brien, jr', x`, ',', []string{`'o\'brien, jr'`, "x"}},
		{`"a\"b.c".d`, '.', []string{`"a\"b.c"`, "d"}},
	} {
		if got := splitTopLevel(tc.s, tc.sep); !slices.Equal(got, tc.want) {
			t.Errorf("splitTopLevel(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestAnalyzeGrants(t *testing.T) {
	usage := "GRANT USAGE ON *.* TO `clarify`@`%`"
	tests := []struct {
		name       string
		stmts      []string
		db         string
		write      []string
		system     []string
		roles      []string
		risky      []string
		wantErrors bool
	}{
		{name: "read-only on the warehouse", db: "shop",
			stmts: []string{usage, "GRANT SELECT, SHOW VIEW ON `shop`.* TO `clarify`@`%`"}},
		{name: "root", db: "shop",
			stmts:  []string{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION", "GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION"},
			write:  []string{"ALL PRIVILEGES on *.*"},
			system: []string{"ALL PRIVILEGES on *.*"},
			risky:  []string{riskyPrivs[0].why, riskyPrivs[1].why, riskyPrivs[2].why}},
		{name: "writes on the warehouse", db: "shop",
			stmts: []string{usage, "GRANT SELECT, INSERT, UPDATE, DELETE ON `shop`.* TO `app`@`%`"},
			write: []string{"INSERT, UPDATE, DELETE on `shop`.*"}},
		{name: "writes on another database do not count", db: "shop",
			stmts: []string{usage, "GRANT SELECT ON `shop`.* TO `u`@`%`", "GRANT ALL PRIVILEGES ON `scratch`.* TO `u`@`%`"}},
		{name: "a table of the warehouse", db: "shop",
			stmts: []string{"GRANT SELECT, DROP ON `shop`.`orders` TO `u`@`%`"},
			write: []string{"DROP on `shop`.`orders`"}},
		{name: "column update", db: "shop",
			stmts: []string{"GRANT SELECT (`id`), UPDATE (`note`) ON `shop`.`orders` TO `u`@`%`"},
			write: []string{"UPDATE on `shop`.`orders`"}},
		{name: "wildcard database pattern", db: "shop_eu",
			stmts: []string{"GRANT CREATE ON `shop%`.* TO `u`@`%`"},
			write: []string{"CREATE on `shop%`.*"}},
		{name: "escaped underscore does not match another character", db: "shopxeu",
			stmts: []string{"GRANT ALTER ON `shop\\_eu`.* TO `u`@`%`"}},
		{name: "select on everything reads mysql", db: "shop",
			stmts:  []string{"GRANT SELECT, PROCESS ON *.* TO `u`@`%`"},
			system: []string{"SELECT on *.*"},
			risky:  []string{"PROCESS (it reads other sessions' statements)"}},
		{name: "process alone is read-only but risky", db: "shop",
			stmts: []string{"GRANT PROCESS ON *.* TO `u`@`%`", "GRANT SELECT ON `shop`.* TO `u`@`%`"},
			risky: []string{"PROCESS (it reads other sessions' statements)"}},
		{name: "super", db: "shop",
			stmts: []string{"GRANT SUPER ON *.* TO `u`@`%`"},
			write: []string{"SUPER on *.*"},
			risky: []string{"SUPER (it overrides read_only and kills other sessions)"}},
		{name: "process on a database is no such thing", db: "shop",
			stmts: []string{"GRANT SELECT ON `shop`.* TO `u`@`%`"}},
		{name: "select on mysql", db: "shop",
			stmts:  []string{"GRANT SELECT ON `shop`.* TO `u`@`%`", "GRANT SELECT ON `mysql`.`user` TO `u`@`%`"},
			system: []string{"SELECT on `mysql`.`user`"}},
		{name: "global file privilege", db: "shop",
			stmts: []string{"GRANT FILE ON *.* TO `u`@`%`"},
			write: []string{"FILE on *.*"},
			risky: []string{"FILE (it reads and writes the server's files)"}},
		{name: "execute a procedure is not a write, altering it is", db: "shop",
			stmts: []string{"GRANT EXECUTE ON PROCEDURE `shop`.`p` TO `u`@`%`", "GRANT EXECUTE, ALTER ROUTINE ON FUNCTION `shop`.`f` TO `u`@`%`"},
			write: []string{"ALTER ROUTINE on `shop`.`f`"}},
		{name: "roles are reported", db: "shop",
			stmts: []string{usage, "GRANT `analyst` TO `u`@`%`"},
			roles: []string{"analyst"}},
		{name: "an unreadable statement is an error, the rest still counts", db: "shop",
			stmts:      []string{"GRANT INSERT ON `shop`.* TO `u`@`%`", "SOMETHING ELSE"},
			write:      []string{"INSERT on `shop`.*"},
			wantErrors: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Analyze(tc.stmts, tc.db)
			if (err != nil) != tc.wantErrors {
				t.Fatalf("err = %v", err)
			}
			if !slices.Equal(f.Write, tc.write) {
				t.Errorf("write = %q, want %q", f.Write, tc.write)
			}
			if !slices.Equal(f.System, tc.system) {
				t.Errorf("system = %q, want %q", f.System, tc.system)
			}
			if !slices.Equal(f.Roles, tc.roles) {
				t.Errorf("roles = %q, want %q", f.Roles, tc.roles)
			}
			if !slices.Equal(f.Risky, tc.risky) {
				t.Errorf("risky = %q, want %q", f.Risky, tc.risky)
			}
		})
	}
}

func TestLikeMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"shop", "shop", true},
		{"shop", "SHOP", true},
		{"shop", "shops", false},
		{"shop%", "shop_eu", true},
		{"%", "", true},
		{"s_op", "shop", true},
		{"s\\_op", "shop", false},
		{"s\\_op", "s_op", true},
		{"%eu", "shop_eu", true},
		{"%eu", "shop_us", false},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+"~"+tc.s, func(t *testing.T) {
			if got := likeMatch(tc.pattern, tc.s); got != tc.want {
				t.Fatalf("likeMatch(%q, %q) = %v", tc.pattern, tc.s, got)
			}
		})
	}
}
