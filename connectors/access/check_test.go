package access

import (
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// shopSchema is a small schema unlike the demo's, so the walker is not
// tuned to the demo's names.
func shopSchema() *warehouse.Schema {
	tbl := func(name string, cols ...string) warehouse.Table {
		t := warehouse.Table{Name: name}
		for i, c := range cols {
			t.Columns = append(t.Columns, warehouse.Column{Table: name, Name: c, DataType: "varchar", Position: i + 1})
		}
		return t
	}
	return &warehouse.Schema{Database: "shop", Tables: []warehouse.Table{
		tbl("members", "id", "name", "email", "birth_date", "city"),
		tbl("loans", "id", "member_id", "book", "lent_at", "ip"),
		tbl("payroll", "id", "member_id", "salary"),
	}}
}

func shopPolicy(t *testing.T) *Policy {
	t.Helper()
	p, err := New(Rules{
		Hidden:    []string{"members.email", "payroll"},
		Sensitive: []string{"Members.Birth_Date", "loans.ip"},
	}, shopSchema())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheck(t *testing.T) {
	p := shopPolicy(t)
	const (
		ok        = ""
		hidEmail  = "hides some of what this statement reads"
		hidPay    = "hides some tables, and payroll is not one"
		sensBirth = "keeps members.birth_date sensitive: it can filter"
		sensIP    = "keeps loans.ip sensitive: it can filter"
		starBirth = "keeps members.birth_date sensitive, so * can't show it"
		starEmail = "hides some columns of members, so * can't be used on it"
		combBirth = "keeps members.birth_date sensitive: it can be compared only with fixed values"
	)
	cases := []struct {
		name, sql, want string
	}{
		{"plain columns", "SELECT id, name FROM members", ok},
		{"hidden column", "SELECT email FROM members", hidEmail},
		{"hidden column qualified by alias", "SELECT m.email FROM members m", hidEmail},
		{"hidden column qualified by database", "SELECT shop.members.email FROM shop.members", hidEmail},
		{"hidden column in where", "SELECT name FROM members WHERE email LIKE '%@x.org'", hidEmail},
		{"hidden column in order by", "SELECT name FROM members ORDER BY email", hidEmail},
		{"hidden column in count", "SELECT COUNT(DISTINCT email) FROM members", hidEmail},
		{"hidden table", "SELECT COUNT(*) FROM payroll", hidPay},
		{"hidden table joined", "SELECT m.name FROM members m JOIN payroll p ON p.member_id = m.id", hidPay},
		{"hidden table in exists", "SELECT name FROM members m WHERE EXISTS (SELECT 1 FROM payroll p WHERE p.member_id = m.id)", hidPay},
		{"hidden column in correlated subquery", "SELECT book FROM loans l WHERE EXISTS (SELECT 1 FROM members m WHERE m.id = l.member_id AND m.email IS NULL)", hidEmail},
		{"outer column from subquery", "SELECT book FROM loans WHERE member_id IN (SELECT id FROM members WHERE email <> '')", hidEmail},
		{"hidden column in derived table", "SELECT t.e FROM (SELECT email AS e FROM members) t", hidEmail},
		{"hidden column in cte", "WITH c AS (SELECT id, email FROM members) SELECT id FROM c", hidEmail},
		{"hidden column in union branch", "SELECT name FROM members UNION SELECT email FROM members", hidEmail},
		{"hidden column in window", "SELECT name, ROW_NUMBER() OVER (PARTITION BY email) FROM members", hidEmail},
		{"hidden column in join on", "SELECT l.book FROM loans l JOIN members m ON m.email = l.book", hidEmail},
		{"hidden column in having", "SELECT city FROM members GROUP BY city HAVING MAX(email) > 'a'", hidEmail},
		{"hidden column in scalar subquery", "SELECT name, (SELECT MAX(email) FROM members) FROM members", hidEmail},
		{"star over table with hidden column", "SELECT * FROM members", starEmail},
		{"t.star over table with hidden column", "SELECT l.*, m.* FROM loans l JOIN members m ON m.id = l.member_id", starEmail},
		{"star in derived table", "SELECT COUNT(*) FROM (SELECT * FROM members) t", starEmail},
		{"alias named like a hidden column", "SELECT name AS email FROM members ORDER BY email", hidEmail},
		{"alias named like a hidden column, ordered by an expression", "SELECT name AS email FROM members ORDER BY (email = 'a@x.org') DESC", hidEmail},
		{"subquery in order by reads the outer column", "SELECT name AS e FROM members ORDER BY (SELECT email) = 'a@x.org'", hidEmail},
		{"alias named like an ordinary column", "SELECT name AS city FROM members ORDER BY city", ok},
		{"other table's column of the same name", "SELECT l.book FROM loans l WHERE l.lent_at > '2024-01-01'", ok},

		{"sensitive shown", "SELECT name, birth_date FROM members", sensBirth},
		{"sensitive through function", "SELECT YEAR(birth_date) FROM members", sensBirth},
		{"sensitive through max", "SELECT MAX(birth_date) FROM members", sensBirth},
		{"sensitive through group_concat", "SELECT city, GROUP_CONCAT(birth_date) FROM members GROUP BY city", sensBirth},
		{"sensitive through any_value", "SELECT city, ANY_VALUE(birth_date) FROM members GROUP BY city", sensBirth},
		{"sensitive through case value", "SELECT CASE WHEN city = 'Oslo' THEN birth_date END FROM members", sensBirth},
		{"sensitive through concat", "SELECT CONCAT(name, ' ', birth_date) AS x FROM members", combBirth},
		{"sensitive through lag", "SELECT name, LAG(ip) OVER (ORDER BY lent_at) FROM loans", sensIP},
		{"sensitive through derived table", "SELECT t.d FROM (SELECT birth_date AS d FROM members) t", sensBirth},
		{"sensitive through cte", "WITH c (d) AS (SELECT birth_date FROM members) SELECT d FROM c", sensBirth},
		{"sensitive through recursive cte", "WITH RECURSIVE r AS (SELECT ip AS v, 1 AS n FROM loans UNION ALL SELECT v, n + 1 FROM r WHERE n < 3) SELECT v FROM r", "keeps loans.ip sensitive, and a recursive query"},
		{"sensitive in second union branch", "SELECT name FROM members UNION ALL SELECT ip FROM loans", sensIP},
		{"sensitive through scalar subquery", "SELECT name, (SELECT MIN(birth_date) FROM members) AS m FROM members", sensBirth},
		{"sensitive unqualified through join", "SELECT m.name, ip FROM members m JOIN loans l ON l.member_id = m.id", sensIP},
		{"sensitive by star", "SELECT * FROM loans", "keeps loans.ip sensitive, so * can't show it"},
		{"sensitive by star of cte", "WITH c AS (SELECT id, birth_date FROM members) SELECT * FROM c", starBirth},

		{"sensitive in where", "SELECT name FROM members WHERE birth_date < '1990-01-01'", ok},
		{"sensitive in between and in", "SELECT COUNT(*) FROM members WHERE birth_date BETWEEN '1980-01-01' AND '1990-01-01' OR birth_date IN ('2000-01-01')", ok},
		{"sensitive counted", "SELECT COUNT(DISTINCT ip) FROM loans", ok},
		{"sensitive in group by with count", "SELECT COUNT(*) AS n FROM members GROUP BY YEAR(birth_date)", ok},
		{"sensitive in having", "SELECT city FROM members GROUP BY city HAVING MIN(birth_date) > '1990-01-01'", ok},
		{"sensitive in order by", "SELECT name FROM members ORDER BY birth_date DESC LIMIT 3", ok},
		{"sensitive in window order", "SELECT name, RANK() OVER (ORDER BY birth_date) AS r FROM members", ok},
		{"sensitive predicate summed", "SELECT SUM(CASE WHEN birth_date < '1990-01-01' THEN 1 ELSE 0 END) FROM members", ok},
		{"sensitive in subquery filter", "SELECT name FROM members WHERE id IN (SELECT member_id FROM loans WHERE ip LIKE '10.%')", ok},
		{"sensitive in derived table, not shown", "SELECT COUNT(*) FROM (SELECT DISTINCT birth_date FROM members) t", ok},
		{"sensitive in derived table, filtered outside", "SELECT t.name FROM (SELECT name, birth_date FROM members) t WHERE t.birth_date > '2000-01-01'", ok},
		{"sensitive in join on", "SELECT a.name FROM members a JOIN members b ON a.birth_date = b.birth_date AND a.id <> b.id", ok},
		{"union of safe columns", "SELECT name FROM members UNION SELECT book FROM loans ORDER BY name", ok},
		{"count star", "SELECT COUNT(*) FROM loans", ok},
		{"star of a safe derived table", "SELECT * FROM (SELECT id, name FROM members) t", ok},
		{"other database", "SELECT m.email FROM other.members m", "another database (other)"},
		{"unknown table", "SELECT email FROM guests", "hides some tables, and guests is not one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := sqlguard.Check(tc.sql)
			if err != nil {
				t.Fatalf("guard: %v", err)
			}
			err = p.Check(st.Node)
			if tc.want == ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want a refusal containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refusal %q; want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "email") || strings.Contains(err.Error(), "payroll") && !strings.Contains(tc.sql, "payroll") {
				t.Fatalf("refusal %q names a hidden table or column", err)
			}
			r, isRefusal := sqlguard.Refused(err)
			if !isRefusal || r.Kind != sqlguard.KindAccess || !errors.Is(err, sqlguard.ErrRefused) {
				t.Fatalf("error %T %v is not an access refusal", err, err)
			}
		})
	}
}

func TestCheckInformationSchema(t *testing.T) {
	st, err := sqlguard.Check("SELECT column_name FROM information_schema.columns WHERE table_name = 'members'")
	if err != nil {
		t.Fatal(err)
	}
	if err := shopPolicy(t).Check(st.Node); err == nil || !strings.Contains(err.Error(), "information_schema") {
		t.Fatalf("got %v", err)
	}
	open, err := New(Rules{Channels: []string{"slack:T1:C1"}}, shopSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := open.Check(st.Node); err != nil {
		t.Fatalf("rules that hide nothing refused it: %v", err)
	}
}
