package access

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
)

// BenchmarkCheck is the cost the rules add to every statement: the walk of
// an already parsed statement (joins, a CTE, a subquery, a window).
func BenchmarkCheck(b *testing.B) {
	p, err := New(Rules{Hidden: []string{"members.email", "payroll"}, Sensitive: []string{"members.birth_date", "loans.ip"}}, shopSchema())
	if err != nil {
		b.Fatal(err)
	}
	st, err := sqlguard.Check(`WITH active AS (SELECT member_id, COUNT(*) AS n FROM loans WHERE lent_at >= '2024-01-01' GROUP BY member_id)
SELECT m.city, COUNT(*) AS members, SUM(a.n) AS loans, RANK() OVER (ORDER BY SUM(a.n) DESC) AS r
FROM members m JOIN active a ON a.member_id = m.id
WHERE m.birth_date < '1990-01-01' AND m.id IN (SELECT member_id FROM loans WHERE ip LIKE '10.%')
GROUP BY m.city HAVING COUNT(*) > 1 ORDER BY loans DESC LIMIT 10`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Check(st.Node); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/check")
}

// BenchmarkCheckCorpus checks every statement of the hostile corpus that
// the guard accepts (most are refused by the rules, some run).
func BenchmarkCheckCorpus(b *testing.B) {
	p := corpusStaticPolicy(b)
	var stmts []*sqlguard.Statement
	for _, c := range readCorpus(b) {
		if st, err := sqlguard.Check(c.sql); err == nil {
			stmts = append(stmts, st)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, st := range stmts {
			_ = p.Check(st.Node)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(stmts))/1000, "µs/statement")
}
