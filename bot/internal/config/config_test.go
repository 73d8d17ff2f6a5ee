package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		name    string
		yaml    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults: the demo warehouse", check: func(t *testing.T, c Config) {
			if len(c.Warehouses) != 1 || !c.Warehouses[0].Demo || c.HTTP.Addr != ":8080" || c.Slack.Mode != "socket" {
				t.Fatalf("%+v", c)
			}
		}},
		{name: "env secrets override the file", yaml: "slack:\n  bot_token: xoxb-file\n  app_token: xapp-file\n",
			env: map[string]string{"SLACK_BOT_TOKEN": "xoxb-env", "OPENAI_MODEL": "gpt-4o-mini"},
			check: func(t *testing.T, c Config) {
				if c.Slack.BotToken != "xoxb-env" || c.Slack.AppToken != "xapp-file" || c.LLM.Model != "gpt-4o-mini" {
					t.Fatalf("%+v %+v", c.Slack, c.LLM)
				}
			}},
		{name: "CLARIFY_DSN adds a warehouse", env: map[string]string{"CLARIFY_DSN": "ro:pw@tcp(db:3306)/shop"}, check: func(t *testing.T, c Config) {
			if c.Warehouses[0].Name != "default" || c.Warehouses[0].DSN == "" {
				t.Fatalf("%+v", c.Warehouses)
			}
		}},
		{name: "wrong bot token prefix", env: map[string]string{"SLACK_BOT_TOKEN": "xoxp-user", "SLACK_APP_TOKEN": "xapp-1"}, wantErr: "must be a bot token starting with xoxb-"},
		{name: "socket mode needs an app token", env: map[string]string{"SLACK_BOT_TOKEN": "xoxb-1"}, wantErr: "app-level token"},
		{name: "http mode needs the signing secret", yaml: "slack:\n  mode: http\n", env: map[string]string{"SLACK_BOT_TOKEN": "xoxb-1"}, wantErr: "signing secret"},
		{name: "dsn without database", yaml: "warehouses:\n  - name: w\n    dsn: root@tcp(127.0.0.1:3306)/\n", wantErr: "names no database"},
		{name: "warehouse without dsn", yaml: "warehouses:\n  - name: w\n", wantErr: "dsn is required"},
		{name: "duplicate warehouse", yaml: "warehouses:\n  - name: w\n    demo: true\n  - name: w\n    demo: true\n", wantErr: "duplicate name"},
		{name: "unknown key is a typo", yaml: "slak:\n  bot_token: x\n", wantErr: "slak"},
		{name: "bad shard", yaml: "discord:\n  shard_id: 3\n  shard_count: 2\n", wantErr: "shard_id 3"},
		{name: "bad log level", yaml: "log_level: loud\n", wantErr: "log_level"},
		{name: "an empty file is not the demo", yaml: "# nothing yet\n", wantErr: "is empty: name at least one warehouse"},
		{name: "dsn setting sql_mode", yaml: "warehouses:\n  - name: w\n    dsn: \"ro:pw@tcp(db:3306)/shop?sql_mode=ANSI_QUOTES\"\n", wantErr: "sets sql_mode"},
		{name: "dsn in another charset", yaml: "warehouses:\n  - name: w\n    dsn: \"ro:pw@tcp(db:3306)/shop?charset=gbk\"\n", wantErr: "not UTF-8"},
		{name: "a denied function cannot be allowed", yaml: "warehouses:\n  - name: w\n    demo: true\n    functions: [shop.fiscal_year, get_lock]\n", wantErr: `"get_lock" can never be allowed`},
		{name: "functions and the byte cap", yaml: "warehouses:\n  - name: w\n    demo: true\n    functions: [shop.fiscal_year]\n    max_result_bytes: 1048576\n", check: func(t *testing.T, c Config) {
			wc := c.Warehouses[0].DBConfig(nil)
			if len(wc.Functions) != 1 || wc.MaxBytes != 1<<20 {
				t.Fatalf("%+v", wc)
			}
		}},
		{name: "shared scans off", yaml: "dialog: {shared_scan_rows: -1}\n", check: func(t *testing.T, c Config) {
			if got := c.Dialog.ManagerConfig().SharedScanRows; got != -1 {
				t.Fatalf("SharedScanRows = %d, want -1", got)
			}
		}},
		{name: "kept results for paging", yaml: "dialog: {kept_cells: 50000, display_rows: 10}\n", check: func(t *testing.T, c Config) {
			if got := c.Dialog.ManagerConfig(); got.KeptCells != 50000 || got.DisplayRows != 10 {
				t.Fatalf("KeptCells = %d, DisplayRows = %d", got.KeptCells, got.DisplayRows)
			}
		}},
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
			env := func(k string) string { return tc.env[k] }
			c, err := Load(path, env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// TestLimitsConfig: the limits section is read, burst defaults to 3, and
// negative values are refused.
func TestLimitsConfig(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       LimitsConfig
		wantErr    string
	}{
		{"absent: no limits", "log_level: info\n", LimitsConfig{Burst: 3, ChannelBurst: 10}, ""},
		{"set", "limits: {user_questions_per_minute: 6, channel_questions_per_minute: 30, burst: 2, channel_burst: 20}\n", LimitsConfig{6, 30, 2, 20}, ""},
		{"bursts default", "limits: {channel_questions_per_minute: 30}\n", LimitsConfig{0, 30, 3, 10}, ""},
		{"negative", "limits: {user_questions_per_minute: -1}\n", LimitsConfig{}, "must not be negative"},
		{"typo", "limits: {user_questions_per_min: 6}\n", LimitsConfig{}, "user_questions_per_min"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clarify.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path, func(string) string { return "" })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error about %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil || c.Limits != tt.want {
				t.Fatalf("limits %+v (%v), want %+v", c.Limits, err, tt.want)
			}
		})
	}
}
