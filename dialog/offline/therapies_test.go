package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// therapyDump is a hospital's therapies, each run by one ward, the terms
// each is offered in (a table named by the verb people use), and the
// transfers of its patients between sites.
func therapyDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE therapies (therapy_id INT PRIMARY KEY, therapy_name VARCHAR(40), ward VARCHAR(20), sessions INT, applications INT);
CREATE TABLE therapy_offering (offering_id INT PRIMARY KEY, therapy_id INT, term VARCHAR(12), FOREIGN KEY (therapy_id) REFERENCES therapies(therapy_id));
CREATE TABLE transfers (transfer_id INT PRIMARY KEY, therapy_id INT, departed_on DATE, arrived_on DATE, FOREIGN KEY (therapy_id) REFERENCES therapies(therapy_id));
`)
	wards := []string{"Cardiology", "Oncology", "Neurology"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO therapies VALUES (%d, 'Therapy %02d', '%s', %d, %d);\n", i, i, wards[i%3], 4+i%5, 10+(i*7)%30)
	}
	terms := []string{"Spring 2025", "Autumn 2025"}
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "INSERT INTO therapy_offering VALUES (%d, %d, '%s');\n", i, 1+(i*5)%12, terms[i%2])
	}
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&b, "INSERT INTO transfers VALUES (%d, %d, '2025-%02d-03', '2025-%02d-%02d');\n", i, 1+i%12, 1+i%9, 2+i%9, 1+i%27)
	}
	return b.String()
}

// TestVerbsNamingATableLeftOut: a verb that names a table the reading does
// not read ("offered" → therapy_offering) is accounted for where it only
// says how the thing has an attribute of its own; where what follows is
// not one, it is reported.
func TestVerbsNamingATableLeftOut(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	cases := []struct {
		question, sql string
		unused        []string
	}{
		{"Which therapies are offered by the Cardiology ward?", "therapies.ward = 'Cardiology'", nil},
		{"How many therapies does each ward offer?", "GROUP BY therapies.ward", nil},
		// Said of the therapies themselves, the verb may mean they are
		// offered in some term: reported.
		{"Which Cardiology therapies are offered?", "therapies.ward = 'Cardiology'", []string{"offered"}},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			i := slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, tc.sql) })
			if i < 0 {
				t.Fatalf("no reading with %s; likeliest:\n%s", tc.sql, p.Candidates[0].SQL)
			}
			if c := p.Candidates[i]; !slices.Equal(c.Unused, tc.unused) {
				t.Fatalf("unused %v, want %v:\n%s", c.Unused, tc.unused, c.SQL)
			}
		})
	}
}

// TestSpanEndsAndUnits: the words naming a time span's ends ("since
// departure" → departed_on) and its unit ("in no. of days", where "no."
// is no negation) are what the reading measures.
func TestSpanEndsAndUnits(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	const q = "What is the average time to arrival since departure in no. of days?"
	p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	if c := p.Candidates[0]; !strings.Contains(c.SQL, "TIMESTAMPDIFF(DAY, transfers.departed_on, transfers.arrived_on)") || len(c.Unused) > 0 {
		t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
	}
}

// TestWordsOfAShownColumnsFamily: a word of the lexicon's family of a
// column the reading shows or orders by ("applicants" for applications,
// through "apply") names that column; one of a column it neither shows nor
// orders by is reported.
func TestWordsOfAShownColumnsFamily(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	cases := []struct{ question, sql, unused string }{
		{"What is the total number of applications for each ward, ordered from highest to lowest applicants?", "ORDER BY SUM(therapies.applications) DESC", ""},
		{"Which therapy has the most sessions, and what is its applicant figure?", "MAX(therapies.sessions)", "applicant figure"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			c := p.Candidates[0]
			if !strings.Contains(c.SQL, tc.sql) || strings.Join(c.Unused, " ") != tc.unused {
				t.Fatalf("likeliest reading (unused %v, want %q):\n%s", c.Unused, tc.unused, c.SQL)
			}
		})
	}
}

// TestVerbBeforeAComparison: "therapies running more than 7 sessions"
// says how the therapies have a number of their own, compared: the verb
// needs no caveat.
func TestVerbBeforeAComparison(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	q := "Which wards have both therapies running fewer than 5 sessions and therapies running more than 7 sessions?"
	p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	if c := p.Candidates[0]; !strings.Contains(c.SQL, "HAVING SUM(CASE WHEN therapies.sessions < 5 THEN 1 END) > 0 AND SUM(CASE WHEN therapies.sessions > 7 THEN 1 END) > 0") || len(c.Unused) > 0 {
		t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
	}
}
