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
	b.WriteString(`CREATE TABLE therapies (therapy_id INT PRIMARY KEY, therapy_name VARCHAR(40), ward VARCHAR(20), sessions INT, applications INT,
  rest_days INT COMMENT 'Days a patient must rest after the therapy before discharge',
  nurse_ratio DOUBLE COMMENT 'Nurses per patient in a session', staffing INT COMMENT 'Nurses assigned to the therapy');
CREATE TABLE patients (patient_id INT PRIMARY KEY, patient_name VARCHAR(40));
CREATE TABLE therapy_offering (offering_id INT PRIMARY KEY, therapy_id INT, term VARCHAR(12), FOREIGN KEY (therapy_id) REFERENCES therapies(therapy_id));
CREATE TABLE transfers (transfer_id INT PRIMARY KEY, therapy_id INT, departed_on DATE, arrived_on DATE, FOREIGN KEY (therapy_id) REFERENCES therapies(therapy_id));
`)
	wards := []string{"Cardiology", "Oncology", "Neurology"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO therapies VALUES (%d, 'Therapy %02d', '%s', %d, %d, %d, %d.5, %d);\n", i, i, wards[i%3], 4+i%5, 10+(i*7)%30, 1+i%6, i%3, 2+i%5)
		fmt.Fprintf(&b, "INSERT INTO patients VALUES (%d, 'Patient %02d');\n", i, i)
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
			p := proposal(t, e, tc.question)
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
	p := proposal(t, e, q)
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
			p := proposal(t, e, tc.question)
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
	p := proposal(t, e, q)
	if c := p.Candidates[0]; !strings.Contains(c.SQL, "HAVING SUM(CASE WHEN therapies.sessions < 5 THEN 1 END) > 0 AND SUM(CASE WHEN therapies.sessions > 7 THEN 1 END) > 0") || len(c.Unused) > 0 {
		t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
	}
}

// TestWordsOfAColumnsDescription: the nouns a shown or ranked column's
// comment describes it with, next to the same word ("days a patient must
// rest"), are that column, not a reading of the patients table; a verb is
// still reported.
func TestWordsOfAColumnsDescription(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	cases := []struct{ question, sql, unused string }{
		{"Which therapy has the most rest days a patient needs?", "MAX(therapies.rest_days)", "needs"},
		// Not next to a word it has in the comment: reported.
		{"Which therapy needs the most days of rest for a patient?", "MAX(therapies.rest_days)", "needs patient"},
		{"List the rest days a patient needs for each Oncology therapy.", "therapies.rest_days", "needs"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			c := p.Candidates[0]
			if !strings.Contains(c.SQL, tc.sql) || strings.Join(c.Unused, " ") != tc.unused {
				t.Fatalf("likeliest reading (unused %v, want %q):\n%s", c.Unused, tc.unused, c.SQL)
			}
		})
	}
}

// TestTheNounAfterTheNumber: in "therapies running more than 7 sessions"
// the noun after the number names the column compared, and it is no
// column to show: the therapies are.
func TestTheNounAfterTheNumber(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	p := proposal(t, e, "Which therapies running more than 7 sessions are in the Oncology ward?")
	if c := p.Candidates[0]; !strings.HasPrefix(c.SQL, "SELECT therapies.therapy_name") || !strings.Contains(c.SQL, "therapies.sessions > 7") || len(c.Unused) > 0 {
		t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
	}
}

// TestRatesAreNoCounts: "more than 3 nurses" counts nurses: a column of
// nurses per patient is a rate of them, and the column its comment says
// holds the nurses assigned is what the number compares with.
func TestRatesAreNoCounts(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	p := proposal(t, e, "Which therapies have more than 3 nurses assigned?")
	if c := p.Candidates[0]; !strings.Contains(c.SQL, "therapies.staffing > 3") || len(c.Unused) > 0 {
		t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
	}
	// The rate stays a reading, a distant one.
	rate := 0.0
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "nurse_ratio > 3") {
			rate += c.Prior
		}
	}
	if rate == 0 || rate > 0.25 {
		t.Fatalf("readings of the rate weigh %.2f, want (0, 0.25]", rate)
	}
}

// TestTheThingsCountedMustBeCounted: "more than 3 patients" counts
// patients; no patient belongs to a therapy here, so a reading comparing
// some number of the therapy with 3 reports the comparison.
func TestTheThingsCountedMustBeCounted(t *testing.T) {
	e, _ := engineOn(t, therapyDump())
	p := proposal(t, e, "Which therapies have more than 3 patients?")
	for _, c := range p.Candidates {
		if !strings.Contains(" "+strings.Join(c.Unused, " ")+" ", " more than 3 patients ") {
			t.Errorf("reading (unused %v) says nothing of the patients:\n%s", c.Unused, c.SQL)
		}
	}
}

// TestAReferenceIsNoDescription: a reading showing clinics.ward_name,
// whose comment names the ward, does not thereby read "wards with an area
// greater than 1000": comparing the clinic's own area reports "wards".
func TestAReferenceIsNoDescription(t *testing.T) {
	e, _ := engineOn(t, `CREATE TABLE wards (ward_name VARCHAR(20) PRIMARY KEY, floor_area INT COMMENT 'Floor area of the ward in square metres');
CREATE TABLE clinics (clinic_name VARCHAR(30) PRIMARY KEY, ward_name VARCHAR(20) COMMENT 'The ward the clinic is held in',
  clinic_area INT COMMENT 'Area of the clinic room in square metres', FOREIGN KEY (ward_name) REFERENCES wards(ward_name));
INSERT INTO wards VALUES ('Cardiology', 900), ('Oncology', 1500), ('Neurology', 400);
INSERT INTO clinics VALUES ('Clinic A', 'Cardiology', 40), ('Clinic B', 'Oncology', 1200), ('Clinic C', 'Neurology', 30), ('Clinic D', 'Oncology', 25), ('Clinic E', 'Cardiology', 1100);
`)
	p, err := e.Candidates(context.Background(), dialog.Request{Question: `Which clinics have a name that starts with "Clinic"? They should be held in wards with an area greater than 1000 square metres.`})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "clinics.clinic_area > 1000") {
			seen = true
			if !slices.Contains(c.Unused, "wards") {
				t.Errorf("reading (unused %v) leaves the wards out silently:\n%s", c.Unused, c.SQL)
			}
		}
	}
	if !seen {
		t.Fatal("no reading compares the clinic's own area: the case checks nothing")
	}
}
