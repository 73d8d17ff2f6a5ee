package access

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// realTarget is the MariaDB/MySQL target, if MYSQL_TEST_DSN names one.
func realTarget(t *testing.T) testwh.Target {
	t.Helper()
	for _, tg := range testwh.Targets() {
		if tg.Real {
			return tg
		}
	}
	t.Skip("needs a real server (MYSQL_TEST_DSN): accounts and column privileges are the server's")
	return testwh.Target{}
}

// hiddenShown returns the hidden value a cell shows (sensitive ones
// aside: the enforced account is granted them), "" for none. The
// hidden emails' domain counts: a generated column could show it.
func hiddenShown(cell any) string {
	s := fmt.Sprint(cell)
	for _, token := range []string{"zqhid", "zqbio", "secret.test"} {
		if strings.Contains(s, token) {
			return s
		}
	}
	for i := 1; i <= 12; i++ {
		if s == fmt.Sprint(7000000+i) {
			return s
		}
	}
	return ""
}

// TestHostileCorpusOnEnforcedAccount applies what GrantStatements (bot
// access grants) writes for the corpus's rules to a fresh account, then
// runs every hostile statement twice on that account: with the guard
// alone (what the server's privileges hold by themselves: no hidden value
// may come back, whatever the checker would say), and through the bot's
// path (guard, checker resolved with NewFor, account): no hidden or
// sensitive value, no statement the corpus says hides something runs, and
// no table changes. A view and a generated column over the hidden email
// must get no grant.
func TestHostileCorpusOnEnforcedAccount(t *testing.T) {
	target := realTarget(t)
	ctx := context.Background()
	d := testwh.NewDatabase(t, target, corpusSchema())
	d.Exec(t, "ALTER TABLE customers ADD COLUMN email_domain VARCHAR(80) AS (SUBSTRING_INDEX(email, '@', -1)) VIRTUAL")
	d.Exec(t, "CREATE VIEW customer_contacts AS SELECT id, name, email FROM customers")
	d.Exec(t, "CREATE VIEW order_totals AS SELECT customer_id, SUM(total) AS total FROM orders GROUP BY customer_id")
	root := d.Open(t, warehouse.Config{MaxRows: 500})
	objs, err := ReadObjects(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	const password = "enforced-pw"
	user := d.NewUser(t, "clarify_enf_", password)
	g, err := GrantStatements(d.Name, objs, Account{Level: DefaultLevel, User: user, Rules: corpusRules}, password)
	if err != nil {
		t.Fatal(err)
	}
	d.ExecScript(t, strings.Join(g.Statements, "\n"))
	acct, err := warehouse.Open(ctx, warehouse.Config{MySQL: d.As(user, password), MaxRows: 500})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { acct.Close() })

	if e, err := Probe(ctx, root, corpusRules); err != nil || e.Enforced() {
		t.Fatalf("the administrator's account is reported enforced: %+v %v", e, err)
	}
	e, err := Probe(ctx, acct, corpusRules)
	if err != nil || !e.Enforced() || len(e.Refused) != len(corpusRules.Hidden) {
		t.Fatalf("the granted account is not refused every hidden name: %+v %v", e, err)
	}
	seen, err := ReadObjects(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if x := seen.Exposures(corpusRules, true); len(x) > 0 {
		t.Fatalf("the granted account reaches %v", x)
	}
	if seen.Object("order_totals") == nil {
		t.Fatal("a view over visible columns got no grant")
	}

	cases := readCorpusIn(t, d.Name)
	for _, sql := range []string{
		"SELECT (SELECT C.email FROM (SELECT 'x' AS email) AS c) FROM customers AS C",
		"SELECT (SELECT " + d.Name + ".customers.email FROM (SELECT 'x' AS email) customers) FROM customers",
		"SELECT name FROM customers AS C WHERE (SELECT C.email FROM (SELECT 'x' AS email) AS c) LIKE 'zqhid1%'",
		"SELECT email_domain FROM customers",
		"SELECT * FROM customer_contacts",
		"SELECT amount FROM salaries",
	} {
		cases = append(cases, corpusCase{verdict: "hidden", sql: sql})
	}
	before := tableDigest(t, root)

	// The server alone: no hidden value it holds comes back. A value the
	// statement writes itself may (MariaDB joins NATURAL JOIN and USING
	// columns without the column privilege, so such a statement tells
	// whether a value it guesses exists): that is the checker's to refuse,
	// below.
	t.Run("the server alone", func(t *testing.T) {
		var ran, refused, guesses int
		for _, c := range cases {
			res, err := acct.Query(ctx, c.sql, warehouse.Limits{MaxRows: 500})
			if err != nil {
				refused++
				continue
			}
			ran++
			for _, row := range res.Rows {
				for _, cell := range row {
					v := hiddenShown(cell)
					switch {
					case v == "":
					case strings.Contains(c.sql, "'"+v+"'"):
						guesses++
					default:
						t.Errorf("%s: the account read the hidden value %q: %s", c.where(), v, c.sql)
					}
				}
			}
		}
		t.Logf("guard and account without the checker: %d statements, %d refused, %d ran, 0 hidden values read, %d cells echo a value the statement guessed", len(cases), refused, ran, guesses)
	})

	t.Run("the bot's path", func(t *testing.T) { botPath(t, acct, cases, "default") })

	// Sessions that start in another sql_mode or client character set
	// (the server's defaults, or anything else that sets them when a
	// connection opens): the bot sets them back before each statement,
	// and the server's privileges hold under each of them alone too.
	for _, m := range sessionModes {
		t.Run(m.name, func(t *testing.T) {
			cfg := d.As(user, password)
			if err := cfg.Apply(mysql.BeforeConnect(func(_ context.Context, c *mysql.Config) error {
				if c.Params == nil {
					c.Params = map[string]string{}
				}
				maps.Copy(c.Params, m.params)
				return nil
			})); err != nil {
				t.Fatal(err)
			}
			w, err := warehouse.Open(ctx, warehouse.Config{MySQL: cfg, MaxRows: 500})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			botPath(t, w, cases, m.name)
			serverInMode(t, d.As(user, password), m.params, cases, m.name)
		})
	}
	if after := tableDigest(t, root); after != before {
		t.Errorf("the tables changed: %s before, %s after", before, after)
	}
}

// sessionModes are the session settings the corpus runs under.
var sessionModes = []struct {
	name   string
	params map[string]string
}{
	{"ANSI_QUOTES", map[string]string{"sql_mode": "'ANSI_QUOTES'"}},
	{"PIPES_AS_CONCAT", map[string]string{"sql_mode": "'PIPES_AS_CONCAT'"}},
	{"NO_BACKSLASH_ESCAPES", map[string]string{"sql_mode": "'NO_BACKSLASH_ESCAPES'"}},
	{"gbk client", map[string]string{"character_set_client": "gbk"}},
}

// serverInMode runs every statement the guard accepts on the account,
// the session left in the mode (what the server's privileges hold
// without the checker and without the bot's session): no hidden value
// the statement does not spell itself may come back.
func serverInMode(t *testing.T, cfg *mysql.Config, params map[string]string, cases []corpusCase, mode string) {
	t.Helper()
	ctx := context.Background()
	cfg.Params = maps.Clone(params)
	cfg.Params["max_statement_time"] = "2"
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var ran, refused int
	for _, c := range cases {
		if _, err := sqlguard.Check(c.sql); err != nil {
			continue
		}
		rows, err := db.QueryContext(ctx, c.sql)
		if err != nil {
			refused++
			continue
		}
		ran++
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				break
			}
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				if h := hiddenShown(v); h != "" && !strings.Contains(c.sql, "'"+h+"'") {
					t.Errorf("%s: %s: the account read the hidden value %q: %s", mode, c.where(), h, c.sql)
				}
			}
		}
		rows.Close()
	}
	t.Logf("%s, guard and account without the checker or the bot's session: %d statements ran, %d failed, 0 hidden values read", mode, ran, refused)
}

// nearBirthDate reports whether a cell shows a date within a year of a
// sensitive birth date.
func nearBirthDate(cell any) bool {
	s := fmt.Sprint(cell)
	if len(s) < 10 {
		return false
	}
	d, err := time.Parse("2006-01-02", s[:10])
	if err != nil {
		return false
	}
	for i := 1; i <= 12; i++ {
		b, _ := time.Parse("2006-01-02", corpusBirth(i))
		if diff := d.Sub(b); diff < 366*24*time.Hour && diff > -366*24*time.Hour {
			return true
		}
	}
	return false
}

// botPath runs every case through the bot's path on acct (guard, checker
// resolved with NewFor, the account): no statement the corpus says reads
// a hidden column runs, and no hidden value, sensitive value or date
// within a year of a birth date is shown.
func botPath(t *testing.T, acct *warehouse.DB, cases []corpusCase, mode string) {
	t.Helper()
	ctx := context.Background()
	{
		schema, err := acct.Introspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pol, err := NewFor(ctx, acct, corpusRules, schema)
		if err != nil {
			t.Fatal(err)
		}
		db := acct.WithPolicy(pol)
		var ran, byChecker, byServer int
		for _, c := range cases {
			res, err := db.Query(ctx, c.sql, warehouse.Limits{MaxRows: 500})
			switch _, refusal := sqlguard.Refused(err); {
			case err != nil && refusal:
				byChecker++
				continue
			case err != nil:
				byServer++
				continue
			}
			ran++
			if c.verdict == "hidden" {
				t.Errorf("%s: a statement that reads a hidden column ran: %s", c.where(), c.sql)
			}
			for _, row := range res.Rows {
				for _, cell := range row {
					if v := leakedValue(cell); v != "" || hiddenShown(cell) != "" || nearBirthDate(cell) && !strings.Contains(c.sql, "'19") {
						t.Errorf("%s: %s: the result shows the protected value %q: %s", mode, c.where(), fmt.Sprint(cell), c.sql)
					}
				}
			}
		}
		t.Logf("%s, bot's path on the enforced account: %d statements, %d refused by the guard or checker, %d by the server, %d ran, 0 protected values shown", mode, len(cases), byChecker, byServer, ran)
	}
}
