package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// find returns the result about what, failing the test when there is none.
func find(tb testing.TB, results []checkResult, what string) checkResult {
	tb.Helper()
	for _, r := range results {
		if r.What == what {
			return r
		}
	}
	var b strings.Builder
	printResults(&b, results)
	tb.Fatalf("no %q check in:\n%s", what, b.String())
	return checkResult{}
}

func TestDoctorSlack(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(*slackfake.Server)
		mode      string
		appToken  string
		want      map[string]checkStatus
		detailHas map[string]string
	}{
		{name: "socket mode, all granted", mode: "socket", appToken: slackfake.AppToken,
			want: map[string]checkStatus{"slack bot token": statusOK, "slack scopes": statusOK, "slack app token": statusOK}},
		{name: "extra scopes are fine", mode: "http",
			setup: func(f *slackfake.Server) {
				f.SetScopes(append([]string{"channels:history", "reactions:write"}, slackfake.DefaultScopes...)...)
			},
			want: map[string]checkStatus{"slack bot token": statusOK, "slack scopes": statusOK}},
		{name: "a missing scope is an error naming it", mode: "http",
			setup: func(f *slackfake.Server) {
				f.SetScopes("app_mentions:read", "channels:history", "commands", "files:write", "groups:history", "im:history", "users:read")
			},
			want:      map[string]checkStatus{"slack bot token": statusOK, "slack scopes": statusError},
			detailHas: map[string]string{"slack scopes": "missing chat:write"}},
		{name: "an app without the thread follow-up scopes is warned", mode: "http",
			setup: func(f *slackfake.Server) {
				f.SetScopes("app_mentions:read", "chat:write", "commands", "files:write", "im:history", "users:read")
			},
			want:      map[string]checkStatus{"slack bot token": statusOK, "slack scopes": statusWarn},
			detailHas: map[string]string{"slack scopes": "missing channels:history, groups:history: replies in a thread need an @mention"}},
		{name: "refused bot token", mode: "http",
			setup:     func(f *slackfake.Server) { f.FailAuth("invalid_auth") },
			want:      map[string]checkStatus{"slack bot token": statusError},
			detailHas: map[string]string{"slack bot token": "invalid_auth"}},
		{name: "wrong app token", mode: "socket", appToken: "xapp-1-A0OTHER-wrong",
			want:      map[string]checkStatus{"slack bot token": statusOK, "slack scopes": statusOK, "slack app token": statusError},
			detailHas: map[string]string{"slack app token": "apps.connections.open"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := slackfake.New(t)
			if tc.setup != nil {
				tc.setup(fake)
			}
			sc := SlackConfig{BotToken: slackfake.BotToken, AppToken: tc.appToken, SigningSecret: slackfake.Secret, Mode: tc.mode, APIURL: fake.APIURL()}
			results := checkSlack(context.Background(), sc, doctorEnv{}.WithDefaults())
			if len(results) != len(tc.want) {
				t.Fatalf("got %d results, want %d: %+v", len(results), len(tc.want), results)
			}
			for what, st := range tc.want {
				r := find(t, results, what)
				if r.Status != st {
					t.Errorf("%s: %s (%s), want %s", what, r.Status, r.Detail, st)
				}
				if sub := tc.detailHas[what]; sub != "" && !strings.Contains(r.Detail, sub) {
					t.Errorf("%s: detail %q lacks %q", what, r.Detail, sub)
				}
			}
			if len(fake.Calls("auth.test")) != 1 {
				t.Errorf("auth.test calls: %d", len(fake.Calls("auth.test")))
			}
		})
	}
}

func TestDoctorDiscord(t *testing.T) {
	const botID, appID = "1100000000000000001", "1100000000000000099"
	tests := []struct {
		name, token, appID string
		want               map[string]checkStatus
	}{
		{"matching application", "test-token", appID, map[string]checkStatus{"discord token": statusOK, "discord application": statusOK}},
		{"no application id configured", "test-token", "", map[string]checkStatus{"discord token": statusOK, "discord application": statusOK}},
		{"another application", "test-token", "1100000000000000777", map[string]checkStatus{"discord token": statusOK, "discord application": statusError}},
		{"refused token", "wrong-token", appID, map[string]checkStatus{"discord token": statusError}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := discordtest.New(t, discordtest.Options{BotID: botID, AppID: appID})
			env := doctorEnv{HTTP: fake.Server.Client(), DiscordAPI: fake.Server.URL + "/api/v9"}.WithDefaults()
			results := checkDiscord(context.Background(), DiscordConfig{Token: tc.token, ApplicationID: tc.appID}, env)
			if len(results) != len(tc.want) {
				t.Fatalf("got %+v, want %v", results, tc.want)
			}
			for what, st := range tc.want {
				if r := find(t, results, what); r.Status != st {
					t.Errorf("%s: %s (%s), want %s", what, r.Status, r.Detail, st)
				}
			}
		})
	}
}

// TestDoctorDiscordAPIURL: with discord.api_url set (a fake, a staging
// proxy), bot doctor and the check at serve's start ask that server, as the
// bot itself does, not discord.com.
func TestDoctorDiscordAPIURL(t *testing.T) {
	const botID, appID = "1100000000000000001", "1100000000000000099"
	fake := discordtest.New(t, discordtest.Options{BotID: botID, AppID: appID})
	cfg := Config{DataDir: t.TempDir(), Discord: DiscordConfig{Token: "test-token", ApplicationID: appID, APIURL: fake.Server.URL}}
	results := runDoctor(context.Background(), cfg, doctorEnv{Timeout: 5 * time.Second, Stores: []storeChecker{}})
	for _, what := range []string{"discord token", "discord application"} {
		if r := find(t, results, what); r.Status != statusOK {
			t.Errorf("%s: %s (%s), want ok from the configured API", what, r.Status, r.Detail)
		}
	}
}

func TestDoctorModel(t *testing.T) {
	tests := []struct {
		name, model string
		listed      []string
		want        checkStatus
	}{
		{"listed", "gpt-4o-mini", []string{"gpt-4o", "gpt-4o-mini"}, statusOK},
		{"not listed", "gpt-5-typo", []string{"gpt-4o", "gpt-4o-mini"}, statusError},
		{"none configured", "", nil, statusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.SetModels(tc.listed...)
			lc := LLMConfig{Model: tc.model, APIKey: "sk-test", BaseURL: srv.URL}
			r := checkModel(context.Background(), lc, doctorEnv{HTTP: srv.Client()}.WithDefaults())
			if r.Status != tc.want {
				t.Fatalf("%s (%s), want %s", r.Status, r.Detail, tc.want)
			}
			if tc.model != "" && len(srv.Calls()) != 1 {
				t.Fatalf("want one GET /v1/models, got %d calls", len(srv.Calls()))
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		r := checkModel(context.Background(), LLMConfig{Model: "m", BaseURL: url + "/v1"}, doctorEnv{}.WithDefaults())
		if r.Status != statusError {
			t.Fatalf("%s (%s)", r.Status, r.Detail)
		}
	})
}

func TestDoctorStore(t *testing.T) {
	t.Run("empty data dir", func(t *testing.T) {
		results := checkBoltStore(context.Background(), t.TempDir())
		for _, r := range results {
			if r.Status != statusOK {
				t.Fatalf("%+v", r)
			}
		}
	})
	t.Run("data dir not created yet", func(t *testing.T) {
		r := checkDataDir(filepath.Join(t.TempDir(), "a", "b"))
		if r.Status != statusOK || !strings.Contains(r.Detail, "will be created") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("data dir is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if r := checkDataDir(file); r.Status != statusError {
			t.Fatalf("%+v", r)
		}
		if r := checkDataDir(filepath.Join(file, "sub")); r.Status != statusError {
			t.Fatalf("under a file: %+v", r)
		}
	})
	t.Run("file in use, then closed, then garbage", func(t *testing.T) {
		dir := t.TempDir()
		st, err := ontologyfile.Open(filepath.Join(dir, ontologyFile), ontology.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := find(t, checkBoltStore(context.Background(), dir), "store "+ontologyFile)
		if r.Status != statusOK || !strings.Contains(r.Detail, "in use by a running bot") {
			st.Close()
			t.Fatalf("locked: %+v", r)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		r = find(t, checkBoltStore(context.Background(), dir), "store "+ontologyFile)
		if r.Status != statusOK || !strings.HasPrefix(r.Detail, "schema version ") {
			t.Fatalf("closed: %+v", r)
		}
		if err := os.WriteFile(filepath.Join(dir, "broken.db"), []byte("not a bbolt file at all"), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := find(t, checkBoltStore(context.Background(), dir), "store broken.db"); r.Status != statusError {
			t.Fatalf("garbage: %+v", r)
		}
	})
}

func TestDoctorSummary(t *testing.T) {
	ok := checkResult{What: "model", Detail: "fine"}
	tests := []struct {
		name    string
		results []checkResult
		want    string
		worst   checkStatus
	}{
		{"all ok", []checkResult{ok, ok}, "doctor: 2 ok", statusOK},
		{"one warning", []checkResult{ok, ok, ok, ok, ok, {Status: statusWarn, What: "warehouse shop", Detail: "long", Short: "the account can write"}},
			"doctor: 5 ok, 1 warning (warehouse shop: the account can write; see bot doctor)", statusWarn},
		{"an error wins over an earlier warning", []checkResult{{Status: statusWarn, What: "a", Detail: "w"}, {Status: statusError, What: "slack scopes", Detail: "missing chat:write"}, {Status: statusWarn, What: "b", Detail: "w"}},
			"doctor: 0 ok, 2 warnings, 1 error (slack scopes: missing chat:write; see bot doctor)", statusError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, worst := doctorSummary(tc.results)
			if got != tc.want || worst != tc.worst {
				t.Fatalf("got %q (%s), want %q (%s)", got, worst, tc.want, tc.worst)
			}
		})
	}
}

// TestDoctorCommand runs `bot doctor` end to end on a configuration file:
// a demo warehouse and a fresh data dir pass; an unreachable warehouse
// fails with exit 1 and says which.
func TestDoctorCommand(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantCode int
		wantLine string
	}{
		{"demo", "warehouses: [{name: demo, demo: true, demo_orders: 300}]\n", exitOK, "ok     warehouse demo: built-in demo warehouse"},
		{"unreachable warehouse", "warehouses: [{name: shop, dsn: 'u:p@tcp(127.0.0.1:1)/shop'}]\n", exitFailure, "error  warehouse shop: cannot reach 127.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "clarify.yml")
			if err := os.WriteFile(path, []byte("data_dir: "+filepath.Join(dir, "data")+"\n"+tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"doctor", "--config", path, "--timeout", "5s"}, nil, &out, &errOut)
			if code != tc.wantCode || !strings.Contains(out.String(), tc.wantLine) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), "ok     model: none configured") || !strings.Contains(out.String(), "data dir ") {
				t.Fatalf("model and data dir lines missing:\n%s", out.String())
			}
		})
	}
}

// TestDoctorWarehouseGrants runs against MariaDB (MYSQL_TEST_DSN) and TiDB
// (TIDB_TEST_DSN): a read-only account passes, a read-write account gets
// the warning and the GRANT statements to fix it, and the server's version
// and the session settings it accepted are reported. The users are dropped
// at cleanup.
func TestDoctorWarehouseGrants(t *testing.T) {
	targets := testwh.RealTargets()
	if len(targets) == 0 {
		t.Skip(testwh.EnvDSN + " and " + testwh.EnvTiDB + " not set")
	}
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) { testDoctorWarehouseGrants(t, tg.DSN(), tg.TiDB) })
	}
}

func testDoctorWarehouseGrants(t *testing.T, rootDSN string, tidb bool) {
	rootCfg, err := mysql.ParseDSN(rootDSN)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mysql.NewConnector(rootCfg)
	if err != nil {
		t.Fatal(err)
	}
	root := sql.OpenDB(conn)
	t.Cleanup(func() { root.Close() })
	ctx := context.Background()

	suffix := randomHex(t)
	db := "clarify_doctor_" + suffix
	ro, rw := "clarify_ro_"+suffix, "clarify_rw_"+suffix
	exec := func(stmt string) {
		t.Helper()
		if _, err := root.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	exec("CREATE DATABASE " + db)
	t.Cleanup(func() { root.ExecContext(ctx, "DROP DATABASE IF EXISTS "+db) })
	exec("CREATE TABLE " + db + ".t (id INT PRIMARY KEY)")
	pr := "clarify_pr_" + suffix
	for _, u := range []string{ro, rw, pr} {
		exec(fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw-%s'", u, suffix))
		t.Cleanup(func() { root.ExecContext(ctx, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", u)) })
	}
	exec(fmt.Sprintf("GRANT SELECT, SHOW VIEW ON `%s`.* TO '%s'@'%%'", db, ro))
	exec(fmt.Sprintf("GRANT SELECT, INSERT, UPDATE, DELETE ON `%s`.* TO '%s'@'%%'", db, rw))
	exec(fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", db, pr))
	exec(fmt.Sprintf("GRANT PROCESS ON *.* TO '%s'@'%%'", pr))

	dsnFor := func(user string) string {
		c := rootCfg.Clone()
		c.User, c.Passwd, c.DBName = user, "pw-"+suffix, db
		return c.FormatDSN()
	}
	tests := []struct {
		name, dsn string
		want      checkStatus
		detailHas string
	}{
		{"read-only", dsnFor(ro), statusOK, map[bool]string{
			true:  "(checked: time limit (max_execution_time), memory cap (tidb_mem_quota_query)); no read-only transactions on TiDB: the guard and a SELECT-only account keep writes out, read-only account",
			false: "(checked: time limit (max_statement_time), read-only transactions), read-only account"}[tidb]},
		{"read-write", dsnFor(rw), statusWarn, "the account can write (INSERT, UPDATE, DELETE on `" + db + "`.*)"},
		{"process", dsnFor(pr), statusWarn, "the account has PROCESS (it reads other sessions' statements)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			r := checkWarehouse(cctx, WarehouseConfig{Name: "shop", DSN: tc.dsn})
			if tidb && !strings.Contains(r.Detail, "server TiDB v") {
				t.Errorf("detail %q: want the TiDB release", r.Detail)
			}
			if r.Status != tc.want || !strings.Contains(r.Detail, tc.detailHas) {
				t.Fatalf("%s: %s, want %s with %q", r.Status, r.Detail, tc.want, tc.detailHas)
			}
			hasFix := strings.Contains(strings.Join(r.Extra, "\n"), "GRANT SELECT, SHOW VIEW ON `"+db+"`.* TO 'clarify'@'%';")
			if hasFix != (tc.want == statusWarn) {
				t.Fatalf("GRANT advice shown: %v; extra %q", hasFix, r.Extra)
			}
		})
	}
	// The check wrote nothing: the table is still empty and unchanged.
	var n int
	if err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+db+".t").Scan(&n); err != nil || n != 0 {
		t.Fatalf("table changed: %d rows, %v", n, err)
	}
}

func randomHex(tb testing.TB) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func TestHealthcheck(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   int
	}{
		{"healthy", http.StatusOK, exitOK},
		{"failing", http.StatusServiceUnavailable, exitFailure},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/healthz" {
					http.NotFound(w, r)
					return
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, `{"status":"ok"}`)
			}))
			defer srv.Close()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), []string{"healthcheck", "--url", srv.URL + "/healthz"}, nil, &out, &errOut); code != tc.want {
				t.Fatalf("exit %d, want %d: %s", code, tc.want, errOut.String())
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		if code := run(context.Background(), []string{"healthcheck", "--url", url + "/healthz"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != exitFailure {
			t.Fatalf("exit %d", code)
		}
	})
}

// TestLogDoctor: serve's start-up logs exactly one summary line, at warn
// level when a check warns.
func TestLogDoctor(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetModels("other-model")
	cfg := Config{Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 300}}, LLM: LLMConfig{Model: "m", BaseURL: srv.URL}}
	var buf bytes.Buffer
	logDoctor(context.Background(), cfg, doctorEnv{HTTP: srv.Client(), Stores: []storeChecker{}}, newLogger(&buf, "info"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := `level=WARN msg="doctor: 1 ok, 1 error (model: \"m\" not found; see bot doctor)"`
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Fatalf("want one line with %s, got:\n%s", want, buf.String())
	}
}

// TestDoctorServerStore runs against MariaDB (MYSQL_TEST_DSN): a new
// database, one the bot has set up, one a newer build wrote, and one the
// account cannot write; the check changes nothing in any of them.
func TestDoctorServerStore(t *testing.T) {
	ctx := context.Background()
	dsn := kvtest.MustDatabase(t)
	if r := checkServerStore(ctx, dsn); r.Status != statusOK || !strings.Contains(r.Detail, "no tables yet") {
		t.Fatalf("new database: %+v", r)
	}
	srv, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if r := checkServerStore(ctx, dsn); r.Status != statusOK || !strings.Contains(r.Detail, "writable") {
		t.Fatalf("set up: %+v", r)
	}
	var leases int
	db := openSQL(t, dsn)
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM clarify_lease").Scan(&leases); err != nil || leases != 0 {
		t.Fatalf("the write probe left %d lease rows (%v)", leases, err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE clarify_schema SET version = 99"); err != nil {
		t.Fatal(err)
	}
	if r := checkServerStore(ctx, dsn); r.Status != statusError || !strings.Contains(r.Detail, "newer than this build") {
		t.Fatalf("newer schema: %+v", r)
	}
	if r := checkServerStore(ctx, "root@tcp(127.0.0.1:1)/nothing"); r.Status != statusError {
		t.Fatalf("unreachable: %+v", r)
	}
}

func openSQL(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
