package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, env, wantDSN, wantErr string
	}{
		{name: "files by default", yaml: "log_level: info\n"},
		{name: "server", yaml: "store:\n  dsn: \"bot:pw@tcp(db:3306)/clarify\"\n", wantDSN: "bot:pw@tcp(db:3306)/clarify"},
		{name: "environment wins", yaml: "store:\n  dsn: \"bot:pw@tcp(db:3306)/clarify\"\n", env: "x@tcp(other:3306)/c2", wantDSN: "x@tcp(other:3306)/c2"},
		{name: "no database", yaml: "store:\n  dsn: \"bot:pw@tcp(db:3306)/\"\n", wantErr: "names no database"},
		{name: "malformed", yaml: "store:\n  dsn: \"bot:pw@tcp(db:3306\"\n", wantErr: "store: invalid dsn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clarify.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"CLARIFY_STORE_DSN": tc.env, "CLARIFY_DATA_DIR": t.TempDir()}
			cfg, err := Load(path, func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Store.DSN != tc.wantDSN {
				t.Errorf("store.dsn = %q, want %q", cfg.Store.DSN, tc.wantDSN)
			}
		})
	}
}
