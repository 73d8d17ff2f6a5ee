package access

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// corpusRules are the access rules the hostile corpus is judged under.
var corpusRules = Rules{
	Hidden:    []string{"customers.email", "customers.bio", "salaries"},
	Sensitive: []string{"customers.birth_date", "customers.credit_score", "orders.ip"},
}

// corpusSchema creates the corpus's tables. Hidden and sensitive values
// are distinctive (see leakedValue), so that a result holding one is found.
func corpusSchema() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, email VARCHAR(80), birth_date DATE,
  city VARCHAR(40), credit_score INT, bio TEXT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, placed_at DATE, total DECIMAL(10,2), status VARCHAR(12), ip VARCHAR(20));
CREATE TABLE salaries (id INT PRIMARY KEY, customer_id INT, amount INT);
CREATE TABLE contacts (id INT PRIMARY KEY, customer_id INT, email VARCHAR(80));
CREATE TABLE notes (id INT PRIMARY KEY, customer_id INT, body TEXT);
CREATE TABLE numbers (n INT PRIMARY KEY);
`)
	cities := []string{"Oslo", "Lima", "Pune", "Oslo", "Kobe", "Lima"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO customers VALUES (%d, 'Name%02d', 'zqhid%d@secret.test', '%s', '%s', %d, 'zqbio secret text %d');\n",
			i, i, i, corpusBirth(i), cities[i%len(cities)], corpusScore(i), i)
		fmt.Fprintf(&b, "INSERT INTO salaries VALUES (%d, %d, %d);\n", i, i, 7000000+i)
		fmt.Fprintf(&b, "INSERT INTO contacts VALUES (%d, %d, 'public%d@example.org');\n", i, i, i)
		fmt.Fprintf(&b, "INSERT INTO notes VALUES (%d, %d, 'delivery note %d');\n", i, i, i)
	}
	for i := 1; i <= 40; i++ {
		status := []string{"paid", "shipped", "returned"}[i%3]
		fmt.Fprintf(&b, "INSERT INTO orders VALUES (%d, %d, '2024-%02d-%02d', %d.37, '%s', '%s');\n", i, 1+i%12, 1+i%12, 1+i%28, 20+i*7, status, corpusIP(i))
	}
	var nums []string
	for n := 0; n < 100; n++ {
		nums = append(nums, fmt.Sprintf("(%d)", n))
	}
	b.WriteString("INSERT INTO numbers VALUES " + strings.Join(nums, ",") + ";\n")
	return b.String()
}

func corpusBirth(i int) string { return fmt.Sprintf("190%d-%02d-%02d", i%9+1, i, i+2) }
func corpusScore(i int) int    { return 8000000 + i*7919 }
func corpusIP(i int) string    { return fmt.Sprintf("10.99.%d.%d", i%7, i) }

// leakedValue returns the hidden or sensitive value a result cell shows,
// "" for none.
func leakedValue(cell any) string {
	s := fmt.Sprint(cell)
	for _, token := range []string{"zqhid", "zqbio"} {
		if strings.Contains(s, token) {
			return s
		}
	}
	for i := 1; i <= 12; i++ {
		if strings.Contains(s, corpusBirth(i)) || s == fmt.Sprint(corpusScore(i)) || s == fmt.Sprint(7000000+i) {
			return s
		}
	}
	for i := 1; i <= 40; i++ {
		if s == corpusIP(i) {
			return s
		}
	}
	return ""
}

type corpusCase struct {
	file    string
	line    int
	verdict string // ok, hidden, sensitive, access, guard
	// rule is the access rule the statement attacks (hostile_names.tsv
	// says it on each line; hostile.tsv in its section headings).
	rule string
	sql  string
}

// where is the case's file and line, for messages.
func (c corpusCase) where() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// corpusFiles are the hostile corpora: hostile.tsv is "verdict<TAB>sql",
// hostile_names.tsv "verdict<TAB>rule<TAB>sql".
var corpusFiles = []string{"hostile.tsv", "hostile_names.tsv"}

// readCorpus reads every corpus with {db} standing for the database's
// name; readCorpusIn puts a name in.
func readCorpus(tb testing.TB) []corpusCase { return readCorpusIn(tb, "") }

func readCorpusIn(tb testing.TB, db string) []corpusCase {
	tb.Helper()
	var out []corpusCase
	for _, name := range corpusFiles {
		out = append(out, readCorpusFile(tb, name, db)...)
	}
	return out
}

func readCorpusFile(tb testing.TB, name, db string) []corpusCase {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := corpusCase{file: name, line: n}
		fields := strings.SplitN(line, "\t", 3)
		switch {
		case name == "hostile.tsv" && len(fields) >= 2:
			c.verdict, c.sql = fields[0], strings.Join(fields[1:], "\t")
		case name != "hostile.tsv" && len(fields) == 3:
			c.verdict, c.rule, c.sql = fields[0], fields[1], fields[2]
		default:
			tb.Fatalf("%s: the line has not the corpus's fields", c.where())
		}
		switch c.verdict {
		case "ok", "hidden", "sensitive", "access", "guard":
		default:
			tb.Fatalf("%s: unknown verdict %q", c.where(), c.verdict)
		}
		if db != "" {
			c.sql = strings.ReplaceAll(c.sql, "{db}", db)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// verdictOf names how err refused a statement: "ok" for no refusal.
func verdictOf(err error) string {
	if err == nil {
		return "ok"
	}
	r, ok := sqlguard.Refused(err)
	switch {
	case !ok:
		return "error: " + err.Error()
	case r.Kind != sqlguard.KindAccess:
		return "guard"
	case strings.Contains(r.Reason, " hides "):
		return "hidden"
	case strings.Contains(r.Reason, " sensitive"):
		return "sensitive"
	}
	return "access"
}

func matches(want, got string) bool {
	return want == got || want == "access" && (got == "hidden" || got == "sensitive")
}

// corpusPolicy resolves corpusRules against the corpus's schema as a
// warehouse describes it.
func corpusPolicy(tb testing.TB, db *warehouse.DB) *Policy {
	tb.Helper()
	schema, err := db.Introspect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	p, err := New(corpusRules, schema)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestHostileCorpus runs every statement of testdata/hostile.tsv through
// the guarded, access-checked path of each warehouse (the embedded server,
// and MariaDB when MYSQL_TEST_DSN is set): each verdict must be the
// expected one, no result may hold a hidden or sensitive value, and no
// table may change.
func TestHostileCorpus(t *testing.T) {
	if cases := readCorpus(t); len(cases) < 300 {
		t.Fatalf("the corpus has %d statements; it must keep at least 300", len(cases))
	}
	ctx := context.Background()
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			d := testwh.NewDatabase(t, target, corpusSchema())
			cases := readCorpusIn(t, d.Name)
			if target.Real {
				d.Exec(t, "ALTER TABLE customers ADD FULLTEXT INDEX ft_bio (bio)")
				d.Exec(t, "ALTER TABLE notes ADD FULLTEXT INDEX ft_body (body)")
			}
			raw := d.Open(t, warehouse.Config{MaxRows: 500})
			before := tableDigest(t, raw)
			db := raw.WithPolicy(corpusPolicy(t, raw))
			var ran, serverErrors, refused int
			for _, c := range cases {
				res, err := db.Query(ctx, c.sql, warehouse.Limits{MaxRows: 500})
				got := verdictOf(err)
				if _, refusal := sqlguard.Refused(err); err != nil && !refusal {
					// It reached the server, which failed it: no refusal,
					// and nothing shown.
					got, res = "ok", nil
					serverErrors++
					t.Logf("%s: the server failed it: %v", c.where(), err)
				}
				if !matches(c.verdict, got) {
					t.Errorf("%s: verdict %s, want %s: %s (%v)", c.where(), got, c.verdict, c.sql, err)
				}
				if err != nil {
					if got != "ok" {
						refused++
					}
					continue
				}
				ran++
				for _, row := range res.Rows {
					for _, cell := range row {
						if v := leakedValue(cell); v != "" {
							t.Errorf("%s: the result shows the protected value %q: %s", c.where(), v, c.sql)
						}
					}
				}
			}
			if after := tableDigest(t, raw); after != before {
				t.Errorf("the tables changed: %s before, %s after", before, after)
			}
			t.Logf("%s: %d statements: %d refused, %d ran (%d failed on the server), 0 hidden values shown", target.Name, len(cases), refused, ran+serverErrors, serverErrors)
		})
	}
}

// tableDigest hashes every row of every corpus table, read directly.
func tableDigest(tb testing.TB, db *warehouse.DB) string {
	tb.Helper()
	h := sha256.New()
	for _, table := range []string{"customers", "orders", "salaries", "contacts", "notes", "numbers"} {
		res, err := db.Query(context.Background(), "SELECT * FROM "+table+" ORDER BY 1", warehouse.Limits{MaxRows: 1000})
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(h, "%s:%d:%v\n", table, len(res.Rows), res.Rows)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestHostileCorpusVerdicts checks the verdicts without a server: the
// guard and the checker alone, on the schema the corpus creates.
func TestHostileCorpusVerdicts(t *testing.T) {
	p := corpusStaticPolicy(t)
	for _, c := range readCorpusIn(t, "corpus") {
		got := "ok"
		st, err := sqlguard.Check(c.sql)
		if err != nil {
			got = verdictOf(err)
		} else {
			got = verdictOf(p.Check(st.Node))
		}
		if !matches(c.verdict, got) {
			t.Errorf("%s: verdict %s, want %s: %s", c.where(), got, c.verdict, c.sql)
		}
	}
}

func corpusStaticPolicy(tb testing.TB) *Policy {
	tb.Helper()
	schema := &warehouse.Schema{Database: "corpus", Tables: []warehouse.Table{
		table("customers", "id", "name", "email", "birth_date", "city", "credit_score", "bio"),
		table("orders", "id", "customer_id", "placed_at", "total", "status", "ip"),
		table("salaries", "id", "customer_id", "amount"),
		table("contacts", "id", "customer_id", "email"),
		table("notes", "id", "customer_id", "body"),
		table("numbers", "n"),
	}}
	p, err := New(corpusRules, schema)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func table(name string, cols ...string) warehouse.Table {
	t := warehouse.Table{Name: name}
	for i, c := range cols {
		t.Columns = append(t.Columns, warehouse.Column{Table: name, Name: c, DataType: "varchar", Position: i + 1})
	}
	return t
}
