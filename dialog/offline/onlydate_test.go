package offline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// millDump is a weaving mill of its own: looms know only the year they
// date from; repairs of a loom have their own date; bales have two dates.
func millDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE looms (loom_id INT PRIMARY KEY, loom_name VARCHAR(40), year INT, width_cm INT);
CREATE TABLE repairs (repair_id INT PRIMARY KEY, loom_id INT, repaired_on DATE, cost DECIMAL(8,2), FOREIGN KEY (loom_id) REFERENCES looms(loom_id));
CREATE TABLE bales (bale_id INT PRIMARY KEY, woven_on DATE, dispatched_on DATE, weight_kg DECIMAL(6,1));
`)
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&b, "INSERT INTO looms VALUES (%d, 'Loom %02d', %d, %d);\n", i, i, 1980+i%12, 120+i*5)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO repairs VALUES (%d, %d, '20%02d-%02d-10', %d.00);\n", i, 1+i%24, 18+i%6, 1+i%12, 40+i)
		fmt.Fprintf(&b, "INSERT INTO bales VALUES (%d, '2024-%02d-03', '2024-%02d-20', %d.5);\n", i, 1+i%12, 1+i%12, 90+i)
	}
	return b.String()
}

// TestAVerbOfTheOnlyDate: a participle before a time ("looms built in
// 1985"), or closing a passive clause the time opens ("In 1985, how many
// looms were made?"), names the event of the one date the reading reads
// when its table has no other date and no column elsewhere names the
// verb: it is no word left out. Where the verb could choose a date, it
// is still reported.
func TestAVerbOfTheOnlyDate(t *testing.T) {
	e, _ := engineOn(t, millDump())
	cases := []struct {
		question, sql, unused string
	}{
		{"how many looms were built in 1985?", "looms.year = 1985", ""},
		{"In 1985, how many looms were made?", "looms.year = 1985", ""},
		{"number of looms installed in each year", "GROUP BY looms.year", ""},
		// repairs.repaired_on names the verb: reading looms.year would
		// answer another question, and says so.
		{"how many looms were repaired in 1985?", "looms.year = 1985", "repaired"},
		// Bales have two dates: the verb would choose between them.
		{"how many bales were packed in 2024?", "", "packed"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			for _, c := range p.Candidates {
				if !strings.Contains(c.SQL, tc.sql) {
					continue
				}
				if got := strings.Join(c.Unused, " "); got != tc.unused {
					t.Errorf("leaves out %q, want %q\n%s", got, tc.unused, c.SQL)
				}
				return
			}
			t.Fatalf("no reading with %s; likeliest:\n%s", tc.sql, p.Candidates[0].SQL)
		})
	}
}

// TestToDate: "year to date", "quarter to date", "mtd" run from the start
// of the period (the test clock's 22 November 2026) to now, with no end.
func TestToDate(t *testing.T) {
	e, _ := engineOn(t, millDump())
	cases := []struct{ question, from string }{
		{"total repair cost year to date", "'2026-01-01'"},
		{"total repair cost quarter to date", "'2026-10-01'"},
		{"repair cost mtd", "'2026-11-01'"},
		{"how many repairs ytd?", "'2026-01-01'"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			sql := p.Candidates[0].SQL
			if !strings.Contains(sql, "repairs.repaired_on >= "+tc.from) {
				t.Errorf("likeliest reading does not start at %s:\n%s", tc.from, sql)
			}
			if strings.Contains(sql, "repaired_on <") {
				t.Errorf("a to-date period has no end:\n%s", sql)
			}
			if len(p.Candidates[0].Unused) > 0 {
				t.Errorf("words left out: %v", p.Candidates[0].Unused)
			}
		})
	}
}
