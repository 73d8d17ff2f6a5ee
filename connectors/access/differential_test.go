package access

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// differential compares the checker's resolution of names with the
// server's: the same statement runs on two accounts, one with the
// privileges bot access grants writes (no grant on what the rules hide)
// and one granted everything. A statement the account without the
// hidden grants cannot run (its privilege error) reads something hidden,
// as the server resolves it; the checker must have refused it. The
// reverse (the checker refuses what the server runs without the grants)
// is fine: the checker refuses what it cannot be sure of, and MariaDB
// does not check the privileges of NATURAL JOIN and USING columns.
//
// Besides, what the checker accepts must show no hidden value on the
// account granted everything, where the checker is the only wall.
type differential struct {
	db              string
	denied, granted *warehouse.DB
	policy          *Policy
	limits          warehouse.Limits
}

// diffStats counts the statements by what happened to them.
type diffStats struct {
	sync.Mutex
	statements, byGuard, byChecker, byServer, failing, ran, leaked int
}

func (s *diffStats) String() string {
	return fmt.Sprintf("%d statements: %d refused by the guard, %d by the checker, %d by the server's privileges (the checker refused them too), %d fail with every grant, %d ran, %d hidden values leaked",
		s.statements, s.byGuard, s.byChecker, s.byServer, s.failing, s.ran, s.leaked)
}

func newDifferential(tb testing.TB, target testwh.Target) *differential {
	tb.Helper()
	ctx := context.Background()
	d := testwh.NewDatabase(tb, target, corpusSchema())
	root := d.Open(tb, warehouse.Config{MaxRows: 200})
	objs, err := ReadObjects(ctx, root)
	if err != nil {
		tb.Fatal(err)
	}
	const password = "differential-pw"
	open := func(prefix string, grants []string) *warehouse.DB {
		user := d.NewUser(tb, prefix, password)
		for i, g := range grants {
			grants[i] = strings.ReplaceAll(g, "{user}", user)
		}
		if grants == nil {
			g, err := GrantStatements(d.Name, objs, Account{Level: DefaultLevel, User: user, Rules: corpusRules}, password)
			if err != nil {
				tb.Fatal(err)
			}
			grants = g.Statements
		}
		d.ExecScript(tb, strings.Join(grants, "\n"))
		w, err := warehouse.Open(ctx, warehouse.Config{MySQL: d.As(user, password), MaxRows: 200, QueryTimeout: 5 * time.Second})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { w.Close() })
		return w
	}
	x := &differential{db: d.Name, limits: warehouse.Limits{MaxRows: 200, Timeout: 2 * time.Second}}
	x.denied = open("clarify_dn_", nil)
	x.granted = open("clarify_gr_", []string{"GRANT SELECT ON `" + d.Name + "`.* TO '{user}'@'%';"})
	schema, err := x.denied.Introspect(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if x.policy, err = NewFor(ctx, x.denied, corpusRules, schema); err != nil {
		tb.Fatal(err)
	}
	return x
}

// judge runs one statement; a non-empty failure says what went wrong.
func (x *differential) judge(ctx context.Context, sql string, st *diffStats) string {
	st.Lock()
	st.statements++
	st.Unlock()
	count := func(n *int) {
		st.Lock()
		*n++
		st.Unlock()
	}
	parsed, err := sqlguard.Check(sql)
	if err != nil {
		count(&st.byGuard)
		return ""
	}
	checkerErr := x.policy.Check(parsed.Node)
	if u := strings.ToUpper(sql); strings.Contains(sql, x.db+".") && (strings.Contains(u, "NATURAL") || strings.Contains(u, "USING")) {
		// MariaDB 10.11 crashes resolving some of these; the checker
		// refuses them all (see Check), and the shared server is spared.
		if checkerErr == nil {
			return "the checker accepts a database-qualified name beside NATURAL JOIN or USING"
		}
		count(&st.byChecker)
		return ""
	}
	full, err := x.granted.Query(ctx, sql, x.limits)
	if err != nil {
		// It fails with every grant (a name the server does not know,
		// an ambiguous one, a slow one): nothing to compare.
		count(&st.failing)
		if checkerErr != nil {
			count(&st.byChecker)
		}
		return ""
	}
	_, err = x.denied.Query(ctx, sql, x.limits)
	switch {
	case err != nil && IsPrivilegeError(err) && checkerErr == nil:
		return "the checker accepts it, but the server needs a grant on what the rules hide: " + err.Error()
	case err != nil && IsPrivilegeError(err):
		count(&st.byServer)
	}
	if checkerErr != nil {
		count(&st.byChecker)
		return ""
	}
	count(&st.ran)
	for _, row := range full.Rows {
		for _, cell := range row {
			if v := hiddenShown(cell); v != "" && !strings.Contains(sql, v) {
				count(&st.leaked)
				return "the checker accepts it, and it shows the hidden value " + v
			}
		}
	}
	return ""
}

// realOnly is the MariaDB/MySQL target, or nil.
func realOnly() *testwh.Target {
	for _, tg := range testwh.Targets() {
		if tg.Real {
			return &tg
		}
	}
	return nil
}

var differentialStats diffStats

// FuzzCheckerAgainstGrants generates SELECTs with hostile names (aliases
// alike but for case or accent, WITH queries, database-qualified
// references) and compares the checker with the server's privileges
// (see differential). Its seeds run in every go test; the fuzzer runs
// with go test -fuzz=FuzzCheckerAgainstGrants and MYSQL_TEST_DSN set.
func FuzzCheckerAgainstGrants(f *testing.F) {
	target := realOnly()
	if target == nil {
		f.Skip("needs a real server (MYSQL_TEST_DSN): the comparison is with its column privileges")
	}
	for _, s := range oracleSeeds() {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(38, 2026))
	for range 700 {
		b := make([]byte, 48)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		f.Add(b)
	}
	x := newDifferential(f, *target)
	f.Cleanup(func() { f.Logf("checker against grants: %s", &differentialStats) })
	f.Fuzz(func(t *testing.T, data []byte) {
		sql := strings.ReplaceAll(generateHostile(data), "{db}", x.db)
		if fail := x.judge(context.Background(), sql, &differentialStats); fail != "" {
			t.Fatalf("%s\n%s", fail, sql)
		}
	})
}

// TestCheckerAgainstGrantsOnCorpus runs the hostile corpora through the
// same comparison.
func TestCheckerAgainstGrantsOnCorpus(t *testing.T) {
	target := realOnly()
	if target == nil {
		t.Skip("needs a real server (MYSQL_TEST_DSN): the comparison is with its column privileges")
	}
	x := newDifferential(t, *target)
	var st diffStats
	for _, c := range readCorpusIn(t, x.db) {
		if fail := x.judge(context.Background(), c.sql, &st); fail != "" {
			t.Errorf("%s: %s\n%s", c.where(), fail, c.sql)
		}
	}
	t.Logf("corpus against grants: %s", &st)
	if st.byServer == 0 || st.ran == 0 {
		t.Errorf("the comparison saw nothing: %s", &st)
	}
}
