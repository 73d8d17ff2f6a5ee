package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clarify-bot/clarify/bot/internal/glossarycmd"
	"github.com/clarify-bot/clarify/bot/internal/slot"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// clinicDump is a small clinic: phone numbers and invoices are hidden
// from the front desk, birth dates sensitive; the billing level sees the
// invoices. Hidden values are distinctive so that a leak is found.
func clinicDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE patients (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, phone VARCHAR(30), birth_date DATE, ward VARCHAR(20));
CREATE TABLE visits (id INT PRIMARY KEY, patient_id INT, visited DATE, reason VARCHAR(40));
CREATE TABLE invoices (id INT PRIMARY KEY, patient_id INT, amount INT);
`)
	wards := []string{"north", "south", "east"}
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "INSERT INTO patients VALUES (%d, 'Patient %d', '%s', '19%02d-03-0%d', '%s');\n", i, i, clinicPhone(i), 50+i, i, wards[i%3])
		fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, '2024-0%d-1%d', 'checkup');\n", i, i, i, i)
		fmt.Fprintf(&b, "INSERT INTO invoices VALUES (%d, %d, %d);\n", i, i, 9100000+i)
	}
	return b.String()
}

func clinicPhone(i int) string { return fmt.Sprintf("zqphone-%03d", i) }

// clinicPhones are the hidden phone numbers.
func clinicPhones() []string {
	var out []string
	for i := 1; i <= 9; i++ {
		out = append(out, clinicPhone(i))
	}
	return out
}

// clinic is the clinic on a real server with an account per access
// level: the front desk (default) and billing.
type clinic struct {
	d             *testwh.Database
	path          string // the bot's configuration file
	cfg           Config
	desk, billing string // the accounts' users
}

const clinicPassword = "clinic-pw"

// newClinic creates the clinic's database and accounts and writes the
// configuration. With enforce, the accounts get what bot access grants
// prints; without, SELECT on the whole database (what a read-only
// account had before).
func newClinic(t *testing.T, enforce bool) *clinic {
	t.Helper()
	var target testwh.Target
	for _, tg := range testwh.Targets() {
		if tg.Real {
			target = tg
		}
	}
	if !target.Real {
		t.Skip("needs a real server (MYSQL_TEST_DSN): accounts and column privileges are the server's")
	}
	c := &clinic{d: testwh.NewDatabase(t, target, clinicDump())}
	c.desk = c.d.NewUser(t, "clarify_desk_", clinicPassword)
	c.billing = c.d.NewUser(t, "clarify_bill_", clinicPassword)
	dir := t.TempDir()
	c.path = filepath.Join(dir, "clarify.yml")
	yml := fmt.Sprintf(`data_dir: %s
warehouses:
  - name: clinic
    dsn: %q
    access:
      hidden: [patients.phone, invoices]
      sensitive: [patients.birth_date]
      levels:
        - name: billing
          roles: [billing]
          dsn: %q
          hidden: [patients.phone]
`, filepath.Join(dir, "data"), c.d.As(c.desk, clinicPassword).FormatDSN(), c.d.As(c.billing, clinicPassword).FormatDSN())
	if err := os.WriteFile(c.path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	if c.cfg, err = LoadConfig(c.path, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if enforce {
		c.applyGrants(t)
	} else {
		for _, u := range []string{c.desk, c.billing} {
			c.d.Exec(t, fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", c.d.Name, u))
		}
	}
	return c
}

// applyGrants runs bot access grants (passwords from the environment,
// the schema read as the administrator) and applies its output.
func (c *clinic) applyGrants(t *testing.T) {
	t.Helper()
	t.Setenv("CLARIFY_PASSWORD_DEFAULT", clinicPassword)
	t.Setenv("CLARIFY_PASSWORD_BILLING", clinicPassword)
	admin := c.d.Config.Clone()
	code, out, errOut := runCmd(t, "access", "grants", "--config", c.path, "--dsn", admin.FormatDSN(), "--password-from-env")
	if code != exitOK {
		t.Fatalf("bot access grants: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, clinicPassword) != true || strings.Contains(out, "CHANGE_ME") {
		t.Fatalf("the passwords are not the environment's:\n%s", out)
	}
	c.d.ExecScript(t, out)
}

// TestDoctorProvesEnforcement: on accounts that can read the whole
// database, bot doctor reports each level's rules not enforced and fails;
// once the accounts are what bot access grants prints, it proves each
// level enforced by the server's privilege errors.
func TestDoctorProvesEnforcement(t *testing.T) {
	c := newClinic(t, false)
	ctx := context.Background()
	wc := c.cfg.Warehouses[0]
	results := checkAccess(ctx, wc)
	desk := find(t, results, "access clinic (level default)")
	if desk.Status != statusError || !strings.Contains(desk.Detail, "NOT ENFORCED") || !strings.Contains(desk.Detail, "reads patients.phone; reads invoices") {
		t.Fatalf("default level: %s %s", desk.Status, desk.Detail)
	}
	bill := find(t, results, "access clinic (level billing)")
	if bill.Status != statusError || !strings.Contains(bill.Detail, "reads patients.phone") || strings.Contains(bill.Detail, "invoices") {
		t.Fatalf("billing level: %s %s", bill.Status, bill.Detail)
	}
	code, out, _ := runCmd(t, "doctor", "--config", c.path)
	if code != exitFailure || !strings.Contains(out, "NOT ENFORCED") || !strings.Contains(out, "bot access grants --config FILE --warehouse clinic") {
		t.Fatalf("bot doctor exits %d:\n%s", code, out)
	}

	c.applyGrants(t)
	results = checkAccess(ctx, wc)
	for what, refused := range map[string]string{"access clinic (level default)": "patients.phone, invoices", "access clinic (level billing)": "patients.phone"} {
		r := find(t, results, what)
		if r.Status != statusOK || !strings.Contains(r.Detail, "enforced: the server refuses the account "+refused+" (privilege errors 1142/1143)") {
			t.Fatalf("%s after bot access grants: %s %s", what, r.Status, r.Detail)
		}
	}
	if r := find(t, results, "warehouse clinic@billing"); r.Status != statusOK || !strings.Contains(r.Detail, "read-only account") {
		t.Fatalf("the billing account: %s %s", r.Status, r.Detail)
	}
	code, out, _ = runCmd(t, "doctor", "--config", c.path)
	if strings.Contains(out, "NOT ENFORCED") || !strings.Contains(out, "ok     access clinic (level default): enforced") {
		t.Fatalf("bot doctor exits %d after bot access grants:\n%s", code, out)
	}
}

// toolThenSQL is a model that first runs probe with execute_sql, then
// answers with final; it never finds a question ambiguous.
func toolThenSQL(probe, final string) llmtest.Step {
	return func(tb testing.TB, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.System(), "You review") {
			return llmtest.Text(`{"ambiguous": false}`)
		}
		if len(toolResults(c)) == 0 && c.Req.ToolChoice == "auto" {
			return llmtest.Tools(llmtest.ToolCall{Name: "execute_sql", Args: map[string]any{"sql": probe}})
		}
		stmts := make([]string, c.N())
		for i := range stmts {
			stmts[i] = final
		}
		return llmtest.SQL(stmts...)
	}
}

// toolResults are the tool results a call sends the model.
func toolResults(c llmtest.Call) []string {
	var out []string
	for _, m := range c.Req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

// sentToModel is every tool result of the calls after the first skip.
func sentToModel(srv *llmtest.Server, skip int) string {
	var b strings.Builder
	for _, c := range srv.Calls()[skip:] {
		for _, r := range toolResults(c) {
			fmt.Fprintln(&b, r)
		}
	}
	return b.String()
}

// TestAccessLevelsOnTheDemo: on the demo warehouse (one server, so the
// checker alone enforces its levels), a person of the support level, who
// sees what the default hides, gets the emails; anyone else gets none,
// and the model's execute_sql runs with the asker's level: its result
// carries the emails to the model for the support person only.
func TestAccessLevelsOnTheDemo(t *testing.T) {
	emails := hiddenEmails(t)
	wc := shopWarehouse()
	wc.Access.Levels = []access.Level{{Name: "support", Roles: []string{"support"}, SeesAll: true}}
	const listSQL = "SELECT name, email FROM customers ORDER BY name LIMIT 5"
	srv := llmtest.New(t)
	srv.Fallback(toolThenSQL(listSQL, listSQL))
	m, _, _ := startMain(t, Config{
		Warehouses: []WarehouseConfig{wc},
		LLM:        LLMConfig{APIKey: "sk-test", BaseURL: srv.URL, Model: "gpt-4o-mini", Samples: 2, Tools: true},
	})
	support := ana
	support.User, support.Roles = "U2", "support"

	replies := converse(t, m.router, ana, "plain", "customer emails")
	assertNoneShown(t, shown(replies), emails)
	toModel := sentToModel(srv, 0)
	assertNoneShown(t, toModel, emails)
	if !strings.Contains(toModel, "error:") {
		t.Fatalf("the plain person's execute_sql was not refused:\n%s", toModel)
	}
	calls := len(srv.Calls())

	replies = converse(t, m.router, support, "support", "customer emails")
	a := answerOf(replies)
	if a == nil || !strings.Contains(shown(replies), "@") {
		t.Fatalf("the support level got no emails:\n%s", shown(replies))
	}
	if toModel := sentToModel(srv, calls); !strings.Contains(toModel, "@") {
		t.Fatalf("the support person's execute_sql did not run on their level:\n%s", toModel)
	}
}

// TestQuestionRunsOnTheLevelsAccount: a question runs on the account of
// its asker's level; the model's statement asks the server which account
// runs it.
func TestQuestionRunsOnTheLevelsAccount(t *testing.T) {
	c := newClinic(t, true)
	srv := llmtest.New(t)
	srv.Fallback(sqlSamples("SELECT CURRENT_USER() AS account"))
	cfg := c.cfg
	cfg.LLM = LLMConfig{APIKey: "sk-test", BaseURL: srv.URL, Model: "gpt-4o-mini", Samples: 2}
	m, _, _ := startMain(t, cfg)
	if rep := m.slots[0].Enforced(); rep == nil || len(rep.Levels) != 0 {
		t.Fatalf("the start found the levels not enforced: %+v", rep)
	}
	desk := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}
	bill := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U2", Roles: "billing"}
	for _, tc := range []struct {
		who  dialog.Who
		user string
	}{{desk, c.desk}, {bill, c.billing}, {desk, c.desk}} {
		replies := converse(t, m.router, tc.who, "q-"+tc.who.User, "which account answers me?")
		a := answerOf(replies)
		if a == nil || len(a.Rows) != 1 || !strings.HasPrefix(a.Rows[0][0], tc.user+"@") {
			t.Fatalf("%s's question ran on another account than %s:\n%s", tc.who.User, tc.user, shown(replies))
		}
	}
}

// TestLevelAccountsAtStart: a warehouse whose accounts can read what
// their levels hide serves, but says so: a warning in the log, a note in
// /healthz (naming levels, not columns) and a banner in the admin console.
func TestLevelAccountsAtStart(t *testing.T) {
	c := newClinic(t, false)
	m, _, _ := startMain(t, c.cfg)
	rep := m.slots[0].Enforced()
	if rep == nil || strings.Join(rep.Levels, ",") != "default,billing" {
		t.Fatalf("not-enforced levels: %+v", rep)
	}
	st, _ := m.health.get("warehouse:clinic")
	if st.State != stateUp || !strings.Contains(st.Detail, "not enforced by the warehouse's privileges for level default, billing") || strings.Contains(st.Detail, "phone") {
		t.Fatalf("/healthz: %+v", st)
	}
	w := slot.EnforcementWarnings(m.slots)
	if len(w) != 1 || !strings.Contains(w[0], "level default: reads patients.phone; reads invoices") || !strings.Contains(w[0], "bot access grants") {
		t.Fatalf("console banner: %q", w)
	}
}

// TestToolResultsOnAnEnforcedAccount: the model's execute_sql runs on the
// asker's account, so a statement that slips past the checker is refused
// by the server, and the model is told so without the server's message
// (which names the account and the column).
func TestToolResultsOnAnEnforcedAccount(t *testing.T) {
	c := newClinic(t, true)
	srv := llmtest.New(t)
	const leak = "SELECT (SELECT P.phone FROM (SELECT 'x' AS phone) AS p) AS contact FROM patients AS P"
	srv.Fallback(toolThenSQL(leak, "SELECT COUNT(*) FROM patients"))
	cfg := c.cfg
	cfg.LLM = LLMConfig{APIKey: "sk-test", BaseURL: srv.URL, Model: "gpt-4o-mini", Samples: 2, Tools: true}
	m, _, _ := startMain(t, cfg)
	desk := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}
	replies := converse(t, m.router, desk, "q", "how can we reach each patient?")
	assertNoneShown(t, shown(replies), clinicPhones())
	toModel := sentToModel(srv, 0)
	assertNoneShown(t, toModel, clinicPhones())
	if !strings.Contains(toModel, "error:") || strings.Contains(toModel, c.desk) || strings.Contains(toModel, "denied") {
		t.Fatalf("tool result:\n%s", toModel)
	}
}

// TestVerifiedQueriesOnEnforcedAccounts: a verified query is checked
// with the same code as any statement, when it is added (bot glossary
// check) and when it runs, on the account of the asker's level: one that
// reads a hidden column through a derived table's alias fails the check,
// and if it is in the store anyway, the front desk never gets the phone
// numbers; a verified query over invoices answers billing only.
func TestVerifiedQueriesOnEnforcedAccounts(t *testing.T) {
	c := newClinic(t, true)
	gl := writeFile(t, "team.yml", `name: front desk
warehouse: clinic
workspaces: ["slack:T1"]
verified_queries:
  - question: patient contact list
    sql: SELECT name, (SELECT P.phone FROM (SELECT 'x' AS phone) AS p) AS contact FROM patients AS P
    verified_by: ana
  - question: invoice total
    sql: SELECT SUM(amount) AS total FROM invoices
    verified_by: ana
`)
	code, out, errOut := runCmd(t, "glossary", "check", gl, "--config", c.path)
	if code == exitOK || !strings.Contains(out, `verified query "patient contact list"`) {
		t.Fatalf("bot glossary check exits %d:\n%s%s", code, out, errOut)
	}
	assertNoneShown(t, out+errOut, clinicPhones())

	m, _, _ := startMain(t, c.cfg)
	g, err := glossary.ReadFile(gl)
	if err != nil {
		t.Fatal(err)
	}
	// As an older load, or a glossary loaded before the rules, would have.
	if _, err := glossarycmd.Load(context.Background(), m.stores.Facts, g, "clinic", nil); err != nil {
		t.Fatal(err)
	}
	desk := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}
	bill := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U2", Roles: "billing"}
	for _, who := range []dialog.Who{desk, bill} {
		replies := converse(t, m.router, who, "contacts-"+who.User, "patient contact list")
		assertNoneShown(t, shown(replies), clinicPhones())
		if strings.Contains(shown(replies), "verified query") {
			t.Fatalf("%s got the leaking verified query's answer:\n%s", who.User, shown(replies))
		}
	}
	total := fmt.Sprint(9*9100000 + 45)
	if text := shown(converse(t, m.router, desk, "total-desk", "invoice total")); strings.Contains(strings.ReplaceAll(text, ",", ""), total) {
		t.Fatalf("the front desk got the invoice total:\n%s", text)
	}
	if text := shown(converse(t, m.router, bill, "total-bill", "invoice total")); !strings.Contains(strings.ReplaceAll(text, ",", ""), total) || !strings.Contains(text, "verified query") {
		t.Fatalf("billing did not get the verified invoice total:\n%s", text)
	}
}

// TestAccessGrantsRefusals: bot access grants says what is wrong before
// it connects anywhere.
func TestAccessGrantsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		args   []string
		code   int
		says   string
	}{
		{"no configuration", "", nil, exitUsage, "usage: bot access grants --config FILE"},
		{"the demo", "warehouses: [{name: shop, demo: true}]\n", nil, exitFailure, "the demo warehouse has no accounts"},
		{"root", "warehouses: [{name: shop, dsn: \"root@tcp(127.0.0.1:1)/shop\", access: {hidden: [t.c]}}]\n", nil, exitFailure, "level default: the dsn's user is root"},
		{"a password missing from the environment",
			"warehouses: [{name: shop, dsn: \"desk@tcp(127.0.0.1:1)/shop\", access: {hidden: [t.c], levels: [{name: back-office, roles: [r], dsn: \"back@tcp(127.0.0.1:1)/shop\", sees_all: true}]}}]\n",
			[]string{"--password-from-env"}, exitFailure, "level back-office: --password-from-env: CLARIFY_PASSWORD_BACK_OFFICE is not set"},
		{"another database to read the schema from", "warehouses: [{name: shop, dsn: \"desk@tcp(127.0.0.1:1)/shop\"}]\n",
			[]string{"--dsn", "admin@tcp(127.0.0.1:1)/other"}, exitFailure, `--dsn names the database "other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"access", "grants"}
			if tc.config != "" {
				args = append(args, "--config", writeFile(t, "c.yml", tc.config))
			}
			code, out, errOut := runCmd(t, append(args, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.says) || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d saying %q", code, out, errOut, tc.code, tc.says)
			}
		})
	}
}
