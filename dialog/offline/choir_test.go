package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// choirDump is a choir network of its own: singers (each with a voice,
// a mentor and a fee) in choirs, the solos they sang, venues rated out of five, and recitals of a
// choir at a venue, some of them cancelled.
func choirDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE choirs (choir_id INT PRIMARY KEY, choir_name VARCHAR(40));
CREATE TABLE singers (singer_id INT PRIMARY KEY, singer_name VARCHAR(40), voice VARCHAR(10), mentor VARCHAR(20), choir_id INT, fee_paid DECIMAL(6,2), years_sung INT,
  FOREIGN KEY (choir_id) REFERENCES choirs(choir_id));
CREATE TABLE solos (solo_id INT PRIMARY KEY, singer_id INT, piece VARCHAR(40), FOREIGN KEY (singer_id) REFERENCES singers(singer_id));
CREATE TABLE venues (venue_id INT PRIMARY KEY, venue_name VARCHAR(40), kind VARCHAR(10), town VARCHAR(20), rating DECIMAL(2,1));
CREATE TABLE recitals (recital_id INT PRIMARY KEY, choir_id INT, venue_id INT, held_on DATE, cancelled_on DATE,
  FOREIGN KEY (choir_id) REFERENCES choirs(choir_id), FOREIGN KEY (venue_id) REFERENCES venues(venue_id));
`)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "INSERT INTO choirs VALUES (%d, 'Choir %c');\n", i, 'A'+rune(i))
	}
	voices := []string{"soprano", "alto", "tenor", "bass"}
	mentors := []string{"Hale", "Moss", "Reed"}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO singers VALUES (%d, 'Singer %02d', '%s', '%s', %d, %d.00, %d);\n", i, i, voices[i%4], mentors[i%3], 1+i%5, 20+(i*13)%70, 1+(i*7)%30)
	}
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "INSERT INTO solos VALUES (%d, %d, 'Piece %02d');\n", i, 1+(i*i)%40, i%17)
	}
	kinds := []string{"church", "hall", "pub"}
	towns := []string{"Ashby", "Brill", "Cole"}
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&b, "INSERT INTO venues VALUES (%d, 'Venue %02d', '%s', '%s', %.1f);\n", i, i, kinds[i%3], towns[(i/3)%3], 1.4+float64((i*5)%35)/10)
	}
	for i := 1; i <= 30; i++ {
		cancelled := "NULL"
		if i%7 == 0 {
			cancelled = fmt.Sprintf("'2025-%02d-01'", 1+i%12)
		}
		fmt.Fprintf(&b, "INSERT INTO recitals VALUES (%d, %d, %d, '2025-%02d-15', %s);\n", i, 1+i%5, 1+i%15, 1+i%12, cancelled)
	}
	return b.String()
}

// TestWordsThatAddNothing: words that say no more than the reading already
// does are not reported as left out; a word that could say more still is.
func TestWordsThatAddNothing(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct {
		name, question string
		sql            string   // in the reading checked (the likeliest with it)
		notUnused      []string // words it must account for
		unused         []string // words it must still report (unless its SQL reads them)
	}{
		// "people" stands for the singers the reading lists, which no
		// other word names.
		{"generic noun", "which people have a tenor voice?", "singers.singer_name", []string{"people"}, nil},
		// and a word judging it qualifies them.
		{"judged generic noun", "list good places in Brill", "venues.rating > 2.5", []string{"good", "places"}, nil},
		// A passive closing its clause only says the rows exist, when the
		// schema names nothing by the verb…
		{"existence", "how many recitals are planned?", "COUNT(", []string{"planned"}, nil},
		// …but not when a column does.
		{"a column names the verb", "how many recitals are cancelled?", "COUNT(", nil, []string{"cancelled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			i := slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, tc.sql) })
			if i < 0 {
				t.Fatalf("no reading with %s; likeliest:\n%s", tc.sql, p.Candidates[0].SQL)
			}
			c := p.Candidates[i]
			unused := " " + strings.Join(c.Unused, " ") + " "
			for _, w := range tc.notUnused {
				if strings.Contains(unused, " "+w+" ") {
					t.Errorf("reports %q as left out:\n%s", w, c.SQL)
				}
			}
			for _, w := range tc.unused {
				if !strings.Contains(unused, " "+w+" ") && !strings.Contains(c.SQL, w) {
					t.Errorf("%q is neither read nor reported (unused %v):\n%s", w, c.Unused, c.SQL)
				}
			}
		})
	}
}

// TestARankingEndingItsClause: a superlative with nothing after it ranks
// by the number named right before it ("which singer is paid the most"),
// and a money column whose name ends in "paid" is a measure, not a key.
func TestARankingEndingItsClause(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, want string }{
		{"which singer is paid the most?", "singers.fee_paid = (SELECT MAX(singers.fee_paid) FROM singers)"},
		{"name the singer who was paid the least", "singers.fee_paid = (SELECT MIN(singers.fee_paid) FROM singers)"},
		{"what is the total fee paid to tenor singers", "SUM(singers.fee_paid)"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.want) || len(first.Unused) > 0 {
				t.Fatalf("likeliest reading (unused %v):\n%s", first.Unused, first.SQL)
			}
		})
	}
}

// TestNamesByInitials: "first name" is the column Fname, "last name"
// LName, whatever else the words could be read as; the oldest or youngest
// of things that store an age rank by it (the largest age is the oldest),
// and "where is … from" shows where the one ranked comes from.
func TestNamesByInitials(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE wardens (WardenID INT PRIMARY KEY, Fname VARCHAR(20), LName VARCHAR(20), Age INT, Park VARCHAR(20), Hometown VARCHAR(20));\n")
	// Rangers keep their age as text.
	b.WriteString("CREATE TABLE rangers (RangerID INT PRIMARY KEY, Fname VARCHAR(20), Age VARCHAR(3));\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO wardens VALUES (%d, 'Given%02d', 'Family%02d', %d, '%s', '%s');\n", i, i, i, 20+i*3, []string{"Heath", "Moor", "Fen"}[i%3], []string{"Ashby", "Brill", "Cole", "Dunmore"}[i%4])
		fmt.Fprintf(&b, "INSERT INTO rangers VALUES (%d, 'Ranger%02d', '%d');\n", i, i, 9+i*7)
	}
	e, _ := engineOn(t, b.String())
	cases := []struct{ question, shows, ranks string }{
		{"list the first name of wardens in the Heath park", "SELECT wardens.Fname", ""},
		{"what is the last name of the oldest warden", "wardens.LName", "wardens.Age = (SELECT MAX(wardens.Age) FROM wardens)"},
		{"which warden is the youngest", "SELECT wardens.", "wardens.Age = (SELECT MIN(wardens.Age) FROM wardens)"},
		// Where the one ranked is from: its home town.
		{"where is the oldest warden from?", "wardens.Hometown\n", "wardens.Age = (SELECT MAX(wardens.Age) FROM wardens)"},
		// Fname of the rangers, not of the wardens; their ages compared
		// as numbers ('9' is younger than '16').
		{"what is the first name of the oldest ranger", "SELECT rangers.Fname", "rangers.Age + 0 = (SELECT MAX(rangers.Age + 0) FROM rangers)"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.shows) || !strings.Contains(first.SQL, tc.ranks) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestPluralsOfStoredValues: "pubs" is the stored 'pub', when nothing
// is stored as written; a plural that names a table stays the table.
func TestPluralsOfStoredValues(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, want string }{
		{"how many pubs are there", "venues.kind = 'pub'"},
		{"list the pubs in Ashby", "venues.kind = 'pub'"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.want) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestAlphabeticalOrders: "(in) alphabetical order", "lexicographically"
// sort A to Z; "reverse" or "reversed" before them, Z to A; no word of it
// is left out.
func TestAlphabeticalOrders(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, want string }{
		{"list the choir names in alphabetical order", "ORDER BY choirs.choir_name\n"},
		{"list venue names lexicographically", "ORDER BY venues.venue_name\n"},
		{"show the venue names in reverse alphabetical order", "ORDER BY venues.venue_name DESC"},
		{"list the choir names in reversed lexicographical order", "ORDER BY choirs.choir_name DESC"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.Contains(first.SQL+"\n", tc.want) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestColumnsListedAfterARanking: a ranking asked in one sentence and the
// columns to show listed in the next are one answer; a bare "id" there is
// the thing's own key, not another id it stores (choir_id).
func TestColumnsListedAfterARanking(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, shows string }{
		{"Which singer is paid the most? Give the singer name, voice and mentor.", "SELECT singers.singer_name, singers.voice, singers.mentor"},
		{"Which singer is paid the most? Give the id and the voice.", "SELECT singers.singer_id, singers.voice"},
	}
	// Tours store their region's id before their own.
	tours, _ := engineOn(t, `CREATE TABLE regions (region_id INT PRIMARY KEY, region_name VARCHAR(20));
CREATE TABLE tours (region_id INT, tour_id INT PRIMARY KEY, tour_name VARCHAR(20), start_town VARCHAR(20), length_km INT, FOREIGN KEY (region_id) REFERENCES regions(region_id));
INSERT INTO regions VALUES (1, 'North'), (2, 'South');
INSERT INTO tours VALUES (1, 10, 'Ridge', 'Ashby', 12), (2, 11, 'Coast', 'Brill', 30), (1, 12, 'Valley', 'Cole', 18);`)
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		first := p.Candidates[0]
		if !strings.HasPrefix(first.SQL, tc.shows+"\n") || !strings.Contains(first.SQL, "MAX(singers.fee_paid)") || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
	p, err := tours.Candidates(context.Background(), dialog.Request{Question: "Which tour is the longest? Give the id and the start town."})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	if first := p.Candidates[0]; !strings.HasPrefix(first.SQL, "SELECT tours.tour_id, tours.start_town\n") {
		t.Errorf("tours: likeliest reading:\n%s", first.SQL)
	}
}

// TestSeveralAggregatesOfOneMeasure: "the average, minimum and maximum
// fee" shows each, in the question's order, and leaves no word out.
func TestSeveralAggregatesOfOneMeasure(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, shows string }{
		{"Give the mean, minimum and maximum fee paid to the tenors.", "SELECT AVG(singers.fee_paid) AS avg_fee_paid, MIN(singers.fee_paid) AS min_fee_paid, MAX(singers.fee_paid) AS max_fee_paid\n"},
		{"show the maximum and minimum rating of venues in Brill", "SELECT MAX(venues.rating) AS max_rating, MIN(venues.rating) AS min_rating\n"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.HasPrefix(first.SQL, tc.shows) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestNumberOfDifferentValues: "the number of different voices" counts
// the values, however the count is asked.
func TestNumberOfDifferentValues(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, want string }{
		{"Give the number of different voices among the singers.", "COUNT(DISTINCT singers.voice)"},
		{"what's the number of different mentors", "COUNT(DISTINCT singers.mentor)"},
		{"how many different mentors are there", "COUNT(DISTINCT singers.mentor)"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.want) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestANegatedVerbBeforeItsValue: "do not have the voice tenor", "are not
// in Brill": the negation a few words before the value negates it, and the
// column word between names the value's column, nothing to show.
func TestANegatedVerbBeforeItsValue(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	cases := []struct{ question, want string }{
		{"list the singers who do not have the voice tenor", "SELECT singers.singer_name\nFROM singers\nWHERE singers.voice <> 'tenor'"},
		{"return the names of singers that do not have the mentor \"Hale\"", "SELECT singers.singer_name\nFROM singers\nWHERE singers.mentor <> 'Hale'"},
		{"list venues that are not in Brill", "WHERE venues.town <> 'Brill'"},
	}
	for _, tc := range cases {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no reading (%v)", tc.question, err)
		}
		if first := p.Candidates[0]; !strings.Contains(first.SQL, tc.want) || len(first.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %v):\n%s", tc.question, first.Unused, first.SQL)
		}
	}
}

// TestThingsUsedForOtherRows: "venues used for recitals" are the venues
// some recital refers to; "different badges" are the badges themselves,
// each once, as well as their codes when many badges share a code.
func TestThingsUsedForOtherRows(t *testing.T) {
	e, _ := engineOn(t, choirDump())
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "count the venues used for recitals"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	if first := p.Candidates[0]; !strings.Contains(first.SQL, "WHERE EXISTS (SELECT 1 FROM recitals WHERE recitals.venue_id = venues.venue_id)") || len(first.Unused) > 0 {
		t.Errorf("likeliest reading (unused %v):\n%s", first.Unused, first.SQL)
	}
	var b strings.Builder
	b.WriteString(`CREATE TABLE badges (badge_id INT PRIMARY KEY, badge_code VARCHAR(8));
CREATE TABLE awards (award_id INT PRIMARY KEY, badge_id INT, given_on DATE, FOREIGN KEY (badge_id) REFERENCES badges(badge_id));
`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO badges VALUES (%d, '%s');\n", i, []string{"GOLD", "SILVER", "BRONZE"}[i%3])
	}
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "INSERT INTO awards VALUES (%d, %d, '2025-%02d-01');\n", i, 1+i%7, 1+i%12)
	}
	badges, _ := engineOn(t, b.String())
	p, err = badges.Candidates(context.Background(), dialog.Request{Question: "count the number of different badges used for awards"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no reading (%v)", err)
	}
	found := false
	for _, c := range p.Candidates {
		found = found || strings.Contains(c.SQL, "COUNT(DISTINCT badges.badge_id)") && strings.Contains(c.SQL, "EXISTS (SELECT 1 FROM awards")
	}
	if !found {
		t.Errorf("no reading counts the badges used, each once; likeliest:\n%s", p.Candidates[0].SQL)
	}
}
