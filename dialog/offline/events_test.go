package offline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// lendingDump is a tool-lending shed the engine was never tuned on: each
// loan has a status that names its latest step ('borrowed', 'returned',
// 'repaired') and the dates of its events; a courier may deliver it to a
// town. Members joined on a date of their own.
func lendingDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE members (member_id INT PRIMARY KEY, member_name VARCHAR(40), joined_on DATE COMMENT 'Date the member joined the shed');
CREATE TABLE tools (tool_id INT PRIMARY KEY, tool_name VARCHAR(40), deposit DECIMAL(6,2));
CREATE TABLE loans (loan_id INT PRIMARY KEY, member_id INT, tool_id INT,
  status VARCHAR(12) COMMENT 'Latest step of the loan: borrowed, returned or repaired',
  borrowed_on DATE COMMENT 'Date the tool was borrowed',
  returned_on DATE COMMENT 'Date the tool was returned; empty while out',
  courier VARCHAR(12) COMMENT 'Courier that delivered the tool: Bikes, Vans or Walk',
  delivered_to VARCHAR(20) COMMENT 'Town the tool was delivered to',
  FOREIGN KEY (member_id) REFERENCES members(member_id), FOREIGN KEY (tool_id) REFERENCES tools(tool_id));
`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, 'Member %02d', '%d-%02d-10');\n", i, i, 2022+i%3, 1+i%12)
	}
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "INSERT INTO tools VALUES (%d, 'Tool %c', %d.00);\n", i, 'A'+rune(i), 5+i)
	}
	statuses := []string{"borrowed", "returned", "repaired", "returned"}
	for i := 1; i <= 120; i++ {
		year := 2023 + i%3
		status := statuses[i%4]
		returned := "NULL"
		if status != "borrowed" {
			returned = fmt.Sprintf("'%d-%02d-%02d'", year+(i%5)/4, 1+(i+3)%12, 1+i%27)
		}
		fmt.Fprintf(&b, "INSERT INTO loans VALUES (%d, %d, %d, '%s', '%d-%02d-%02d', %s, '%s', '%s');\n",
			i, 1+i%12, 1+i%8, status, year, 1+i%12, 1+i%27, returned, []string{"Bikes", "Vans", "Walk"}[i%3], []string{"Ashby", "Brill", "Cole"}[i%3])
	}
	return b.String()
}

// TestEventsAtTheirOwnDates: a participle that names an event of the
// subject, followed by a time, an agent or a place, reads first as the
// event (its date, its courier, its destination); the status that stores
// the same word stays a reading to ask about, never the only one.
func TestEventsAtTheirOwnDates(t *testing.T) {
	ctx := context.Background()
	e, wh := engineOn(t, lendingDump())
	cases := []struct {
		question, gold string
		// status is the status filter that must remain a reading.
		status string
	}{
		{"How many loans were returned in 2024?",
			"SELECT COUNT(*) FROM loans WHERE returned_on >= '2024-01-01' AND returned_on < '2025-01-01'", "loans.status = 'returned'"},
		{"How many loans were borrowed in 2025?",
			"SELECT COUNT(*) FROM loans WHERE borrowed_on >= '2025-01-01' AND borrowed_on < '2026-01-01'", "loans.status = 'borrowed'"},
		{"How many loans were delivered to Brill?",
			"SELECT COUNT(*) FROM loans WHERE delivered_to = 'Brill'", ""},
		// The fact's own date, not the member's joining date.
		{"Which member borrowed the most tools in 2024?",
			"SELECT m.member_name FROM members m JOIN loans l ON l.member_id = m.member_id WHERE l.borrowed_on >= '2024-01-01' AND l.borrowed_on < '2025-01-01' GROUP BY m.member_id, m.member_name ORDER BY COUNT(*) DESC LIMIT 1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil {
				t.Fatal(err)
			}
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("the likeliest reading is not the event:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("the event reading leaves %q out", top.Unused)
			}
			if tc.status == "" {
				return
			}
			found := false
			for _, c := range p.Candidates {
				found = found || strings.Contains(c.SQL, tc.status)
			}
			if !found {
				t.Errorf("the status reading (%s) is gone; it must stay an option", tc.status)
			}
		})
	}
}

// A verb before a preposition names the relation the reading joins
// ("tools kept by Member 03"): it needs no caveat. When the reading
// leaves out what the verb relates, the verb is still reported.
func TestRelationVerbsAreTheJoin(t *testing.T) {
	ctx := context.Background()
	e, _ := engineOn(t, lendingDump())
	for _, tc := range []struct {
		question string
		unused   string // a word the likeliest reading must report, "" for none
	}{
		{"which tools were kept by Member 03", ""},
		// A stranded preposition does not say what the verb relates.
		{"which members does Tool C go to", "go"},
		// The reading leaves the member out: the verb relating it is
		// reported with it.
		{"how many tools borrowed by Member 03 are repaired", "borrowed"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no readings: %v", err)
			}
			top := p.Candidates[0]
			got := strings.Join(top.Unused, " ")
			if tc.unused == "" && got != "" || tc.unused != "" && !strings.Contains(got, tc.unused) {
				t.Errorf("unused %q, want %q:\n%s", got, tc.unused, top.SQL)
			}
		})
	}
}

// depotsDump is a fleet's depots: where each is, and what it is used for.
const depotsDump = `CREATE TABLE depots (depot_id INT PRIMARY KEY, depot_name VARCHAR(40), location VARCHAR(40), usage_kind VARCHAR(20), opened_year INT);
INSERT INTO depots VALUES (1, 'North Yard', 'Ashby', 'storage', 2001), (2, 'South Yard', 'Brill', 'repair', 2010), (3, 'Quay', 'Cole', 'storage', 2015), (4, 'East Yard', 'Ashby', 'repair', 2018);`

// TestVerbsNamingColumns: a verb that names the column of the value after
// it is the condition, not what to show ("depots located in Ashby"); the
// columns of "each" thing are a list of those things, not a count per
// thing; a verb the lexicon relates to a column the reading reads
// ("used" → usage_kind) needs no caveat, one it relates to nothing read
// is still reported.
func TestVerbsNamingColumns(t *testing.T) {
	e, wh := engineOn(t, depotsDump)
	for _, tc := range []struct{ question, gold, unused string }{
		{"which depots are located in Ashby", "SELECT depot_name FROM depots WHERE location = 'Ashby'", ""},
		{"list the location of each depot used for storage", "SELECT depot_name, location FROM depots WHERE usage_kind = 'storage'", ""},
		{"the location and usage kind of every depot", "SELECT depot_name, location, usage_kind FROM depots", ""},
		{"list the location of each depot painted for storage", "SELECT depot_name, location FROM depots WHERE usage_kind = 'storage'", "painted"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if got := strings.Join(top.Unused, " "); got != tc.unused {
				t.Errorf("unused %q, want %q", got, tc.unused)
			}
		})
	}
}
