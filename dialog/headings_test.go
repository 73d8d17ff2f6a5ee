package dialog

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// TestOutputPeriodFromTrees names the period of every select-list item
// from its parsed tree and from its canonical text: the same word. The
// statements are sqlshape's (the repository's own tests) and a few that
// take parts of dates.
func TestOutputPeriodFromTrees(t *testing.T) {
	t.Parallel()
	qs := []string{
		"SELECT YEAR(o.ordered_at), MONTH(o.ordered_at), COUNT(*) FROM orders o GROUP BY 1, 2",
		"SELECT DATE_FORMAT(orders.ordered_at, '%Y-%m') AS m, SUM(orders.net_amount) FROM orders GROUP BY m",
		"SELECT DATE_FORMAT(orders.ordered_at, '%d.%m.%Y'), DATE_FORMAT(orders.ordered_at, '%x-%v') FROM orders",
		"SELECT YEAR(trips.started_at) * 100 + MONTH(trips.started_at) AS ym, COUNT(*) FROM trips GROUP BY ym",
		"SELECT DAYNAME(v.visited_on), WEEK(v.visited_on), QUARTER(v.visited_on), DATE(v.visited_on) FROM visits v",
		"SELECT LOWER(m.name), m.name, MAX(m.joined_on) FROM members m GROUP BY m.name",
	}
	f, err := os.Open("sqlshape/testdata/statements.sql")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "--") {
			qs = append(qs, l)
		}
	}
	periods := 0
	for _, q := range qs {
		s, err := sqlshape.Parse(q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, o := range s.Outputs {
			n := s.ExprNode(o.Expr)
			if n == nil && o.Expr != "*" && !strings.HasSuffix(o.Expr, ".*") {
				t.Errorf("%s: no tree for %q", q, o.Expr)
			}
			got, want := outputPeriod(o.Expr, n), periodWord(o.Expr)
			if got != want {
				t.Errorf("%s: %q from its tree is %q, from its text %q", q, o.Expr, got, want)
			}
			if want != "" {
				periods++
			}
		}
	}
	if periods < 10 {
		t.Errorf("only %d periods named", periods)
	}
}
