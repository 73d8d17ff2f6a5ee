package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// waterwaysDump is a canal network the engine was never tuned on: towns,
// the canals that pass through them (one reference each), and ferries,
// which refer to ports twice (where they sail from and to).
func waterwaysDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE towns (town_name VARCHAR(30) PRIMARY KEY, county VARCHAR(30), residents INT);
CREATE TABLE canals (canal_id INT PRIMARY KEY, canal_name VARCHAR(30), stop_town VARCHAR(30), length_km INT,
  FOREIGN KEY (stop_town) REFERENCES towns(town_name));
CREATE TABLE ports (port_name VARCHAR(30) PRIMARY KEY, berths INT);
CREATE TABLE ferries (ferry_id INT PRIMARY KEY, ferry_name VARCHAR(30), from_port VARCHAR(30), to_port VARCHAR(30),
  FOREIGN KEY (from_port) REFERENCES ports(port_name), FOREIGN KEY (to_port) REFERENCES ports(port_name));
`)
	towns := []string{"Ashby", "Brill", "Cole", "Dunmore", "Elm"}
	for i, t := range towns {
		fmt.Fprintf(&b, "INSERT INTO towns VALUES ('%s', '%s', %d);\n", t, []string{"Northshire", "Southshire"}[i%2], 1200+i*730)
	}
	// A canal is a row per town it passes; one canal shares a town's name.
	canals := []struct {
		name  string
		towns []string
		km    int
	}{{"Grand", []string{"Ashby", "Brill", "Cole"}, 90}, {"Elm", []string{"Brill", "Dunmore"}, 40}, {"Mill", []string{"Cole", "Elm"}, 25}, {"Long", []string{"Ashby", "Elm", "Dunmore", "Brill"}, 130}}
	id := 0
	for _, c := range canals {
		for _, t := range c.towns {
			id++
			fmt.Fprintf(&b, "INSERT INTO canals VALUES (%d, '%s', '%s', %d);\n", id, c.name, t, c.km)
		}
	}
	ports := []string{"Gull Bay", "Kestrel", "Heron Quay"}
	for i, p := range ports {
		fmt.Fprintf(&b, "INSERT INTO ports VALUES ('%s', %d);\n", p, 3+i)
	}
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO ferries VALUES (%d, 'Ferry %c', '%s', '%s');\n", i, 'A'+rune(i), ports[i%3], ports[(i+1)%3])
	}
	return b.String()
}

// TestRelationVerbsOfOneReference: a verb between a thing and a value of
// its one reference to another table ("canals that flow through Ashby")
// names that reference, so the reading that compares it is the likeliest
// and leaves no word out; a stranded verb ("what towns does the Grand
// canal run through") is the join when the two things relate in exactly
// one way. Where they relate in two ways (a ferry's two ports), the verb
// is what says which, so it stays reported.
func TestRelationVerbsOfOneReference(t *testing.T) {
	e, wh := engineOn(t, waterwaysDump())
	for _, tc := range []struct{ question, gold, unused string }{
		{"which canals flow through Elm", "SELECT DISTINCT canal_name FROM canals WHERE stop_town = 'Elm'", ""},
		{"what canals run through Brill", "SELECT DISTINCT canal_name FROM canals WHERE stop_town = 'Brill'", ""},
		{"what towns does the Grand canal run through", "SELECT stop_town FROM canals WHERE canal_name = 'Grand'", ""},
		{"which town has the most canals running through it", "SELECT stop_town FROM canals GROUP BY stop_town ORDER BY COUNT(*) DESC LIMIT 1", ""},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if got := strings.Join(top.Unused, " "); got != tc.unused {
				t.Errorf("unused %q, want %q:\n%s", got, tc.unused, top.SQL)
			}
		})
	}
	// Two references between ferries and ports: a reading that takes the
	// one the words do not name reports the verb.
	for _, q := range []string{"which ports does Ferry C sail to", "which ferries sail from Kestrel"} {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%q: no readings (%v)", q, err)
		}
		for _, c := range p.Candidates {
			named := strings.Contains(q, "from") && strings.Contains(c.SQL, "from_port") && !strings.Contains(c.SQL, "to_port")
			if strings.Contains(c.SQL, "_port") && !named && !slices.Contains(c.Unused, "sail") {
				t.Errorf("%q: a reading through one of two references leaves 'sail' unreported:\n%s", q, c.SQL)
			}
		}
	}
}

// TestCountAnsweredByAListIsReported: "how many towns" answered by a list
// of towns (no count, no number shown) says it left "how many" out; a
// count a column stores ("how many residents live in Cole") does not.
func TestCountAnsweredByAListIsReported(t *testing.T) {
	e, _ := engineOn(t, waterwaysDump())
	ctx := context.Background()
	p, err := e.Candidates(ctx, dialog.Request{Question: "how many towns does the shortest canal run through"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings (%v)", err)
	}
	lists := 0
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "COUNT(") {
			continue
		}
		lists++
		if !strings.Contains(strings.Join(c.Unused, " "), "how many") {
			t.Errorf("a reading that lists towns does not report 'how many': %q\n%s", c.Unused, c.SQL)
		}
	}
	if lists == 0 {
		t.Fatal("no listing reading to check")
	}
	p, err = e.Candidates(ctx, dialog.Request{Question: "how many residents live in Cole"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings (%v)", err)
	}
	if top := p.Candidates[0]; !strings.Contains(top.SQL, "residents") || slices.Contains(top.Unused, "how many") {
		t.Errorf("a stored count: %q\n%s", top.Unused, top.SQL)
	}
}

// hotelDump: rooms typed by a code that refers to the room types, and the
// bookings of each room. One suite is booked most, but standard rooms
// are booked most together.
func hotelDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE room_types (room_type_code VARCHAR(6) PRIMARY KEY, description VARCHAR(30));
CREATE TABLE rooms (room_id INT PRIMARY KEY, room_type_code VARCHAR(6), floor INT,
  FOREIGN KEY (room_type_code) REFERENCES room_types(room_type_code));
CREATE TABLE bookings (booking_id INT PRIMARY KEY, room_id INT, nights INT,
  FOREIGN KEY (room_id) REFERENCES rooms(room_id));
INSERT INTO room_types VALUES ('STD', 'Standard'), ('SUI', 'Suite'), ('FAM', 'Family');
INSERT INTO rooms VALUES (1, 'STD', 1), (2, 'STD', 1), (3, 'STD', 2), (4, 'SUI', 3), (5, 'FAM', 2);
`)
	rooms := []int{4, 4, 4, 4, 1, 1, 2, 2, 3, 3, 5}
	for i, r := range rooms {
		fmt.Fprintf(&b, "INSERT INTO bookings VALUES (%d, %d, %d);\n", i+1, r, 1+i%4)
	}
	return b.String()
}

// TestRankedCodeQualifiedByItsTable: "which room type code is used by the
// most bookings" ranks the codes, not the rooms: the table's noun before
// its column is part of the column's name, so the ranked thing is the
// code right after "which".
func TestRankedCodeQualifiedByItsTable(t *testing.T) {
	e, wh := engineOn(t, hotelDump())
	top, ok := topReading(t, e, wh, "Which room type code is used by the most bookings?",
		"SELECT r.room_type_code FROM bookings b JOIN rooms r ON r.room_id = b.room_id GROUP BY r.room_type_code ORDER BY COUNT(*) DESC LIMIT 1")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}

// TestRankedVerbAfterTheTableIsNoColumn: "which canal crosses the most
// towns" ranks canals; "crosses" is what a canal does, even where a
// column is named like it, so no reading ranks the towns it names.
func TestRankedVerbAfterTheTableIsNoColumn(t *testing.T) {
	e, _ := engineOn(t, strings.Replace(waterwaysDump(), "stop_town", "crosses", -1))
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "which canal crosses the most towns"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings (%v)", err)
	}
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "GROUP BY canals.crosses\n") {
			t.Errorf("a reading ranks the towns:\n%s", c.SQL)
		}
	}
}

// TestRestatedAndInstructionWordsAreUsed: words that restate what the
// reading already does leave nothing out: a table's noun after "of" and
// its column ("publishers of writers"), a count said again ("number of
// books … return the number of books"), "different" before a grouped
// column, "sort", "as well", "the word" before a matched pattern, "exist".
func TestRestatedAndInstructionWordsAreUsed(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	for _, tc := range []struct{ question, gold string }{
		{"Show different publishers of writers and the number of writers with each publisher.",
			"SELECT publisher, COUNT(*) FROM writers GROUP BY publisher"},
		{"What are the top 2 formats by number of books? Return the format and number of books.",
			"SELECT format, COUNT(*) FROM books GROUP BY format ORDER BY COUNT(*) DESC LIMIT 2"},
		{"List the names of writers and sort in ascending order of age.",
			"SELECT name FROM writers ORDER BY age"},
		{"Which writers have a name with the substring 'er C'?",
			"SELECT name FROM writers WHERE name LIKE '%er C%'"},
		{"How many writers exist?", "SELECT COUNT(*) FROM writers"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("unused %q:\n%s", top.Unused, top.SQL)
			}
		})
	}
}

// TestNamedWordIsAPattern: "a name with the word Yard" looks for the word
// inside the names, quoted or not.
func TestNamedWordIsAPattern(t *testing.T) {
	e, wh := engineOn(t, depotsDump)
	top, ok := topReading(t, e, wh, "which depots have a name with the word Yard",
		"SELECT depot_name FROM depots WHERE depot_name LIKE '%Yard%'")
	if !ok || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
}

// TestPatternOnTheColumnNamed: with no column before its verb, a pattern
// is looked for in the text column the question names, not the label.
func TestPatternOnTheColumnNamed(t *testing.T) {
	const dump = `CREATE TABLE incidents (incident_id INT PRIMARY KEY, reporter VARCHAR(30), note TEXT, injured INT);
INSERT INTO incidents VALUES (1, 'Ann Roofe', 'fell from the east roof', 1), (2, 'Bo Lane', 'van reversed into gate', 0), (3, 'Cy Hale', 'roof tile loose', 0), (4, 'Di Roof', 'slipped on ice', 2);`
	e, wh := engineOn(t, dump)
	top, ok := topReading(t, e, wh, "What are the notes of the incidents which have substring 'roof'?",
		"SELECT note FROM incidents WHERE note LIKE '%roof%'")
	if !ok || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
}

// harbourDump: crews, ships, and two tables of links between them: the
// voyages a crew sailed on a ship, and the refits a crew did on one.
func harbourDump(withRefits bool) string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE crews (crew_id INT PRIMARY KEY, crew_name VARCHAR(30));
CREATE TABLE ships (ship_id INT PRIMARY KEY, ship_name VARCHAR(30), tonnage INT);
CREATE TABLE voyages (voyage_id INT PRIMARY KEY, crew_id INT, ship_id INT, voyage_year INT,
  FOREIGN KEY (crew_id) REFERENCES crews(crew_id), FOREIGN KEY (ship_id) REFERENCES ships(ship_id));
`)
	if withRefits {
		b.WriteString(`CREATE TABLE refits (refit_id INT PRIMARY KEY, crew_id INT, ship_id INT, cost INT,
  FOREIGN KEY (crew_id) REFERENCES crews(crew_id), FOREIGN KEY (ship_id) REFERENCES ships(ship_id));
`)
	}
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "INSERT INTO crews VALUES (%d, 'Crew %c');\n", i, 'A'+rune(i))
		fmt.Fprintf(&b, "INSERT INTO ships VALUES (%d, 'Ship %d', %d);\n", i, i, 900+i*150)
	}
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "INSERT INTO voyages VALUES (%d, %d, %d, %d);\n", i, 1+i%3, 1+i%5, 2020+i%4)
		if withRefits {
			fmt.Fprintf(&b, "INSERT INTO refits VALUES (%d, %d, %d, %d);\n", i, 2+i%4, 1+(i*2)%5, 100*i)
		}
	}
	return b.String()
}

// TestVerbAndItsObjectAreTheRelation: "crews that never sailed ships"
// reads the voyages, whose rows stand for ships; "which crew handled the
// most ships" counts through the one table of links, so the verb is the
// relation. With a second table of links between crews and ships, a
// reading through one the verb does not name ("sailed" names voyages)
// reports the verb.
func TestVerbAndItsObjectAreTheRelation(t *testing.T) {
	e, wh := engineOn(t, harbourDump(false))
	for _, tc := range []struct{ question, gold string }{
		{"Which crews have not sailed any ships?",
			"SELECT crew_name FROM crews WHERE crew_id NOT IN (SELECT crew_id FROM voyages)"},
		{"Which crew handled the most ships?",
			"SELECT c.crew_name FROM crews c JOIN voyages v ON v.crew_id = c.crew_id GROUP BY c.crew_id, c.crew_name ORDER BY COUNT(*) DESC LIMIT 1"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("unused %q:\n%s", top.Unused, top.SQL)
			}
		})
	}
	e2, _ := engineOn(t, harbourDump(true))
	for q, verb := range map[string]string{"Which crew sailed the most ships?": "sailed", "Which crew handled the most ships?": "handled"} {
		p, err := e2.Candidates(context.Background(), dialog.Request{Question: q})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("no readings (%v)", err)
		}
		for _, c := range p.Candidates {
			// "sailed" names the voyages; "handled" names neither table.
			through := strings.Contains(c.SQL, "refits") || verb == "handled" && strings.Contains(c.SQL, "voyages")
			if through && !slices.Contains(c.Unused, verb) {
				t.Errorf("%q: a reading through a table of links the verb does not name leaves %q unreported:\n%s", q, verb, c.SQL)
			}
		}
	}
}

// TestPluralIdsAreTheKey: "the ids of chapters" are the chapters' own
// key, not another id column of the table; "the ids and names of
// writers" their key and label.
func TestPluralIdsAreTheKey(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	top, ok := topReading(t, e, wh, "What are the ids and headings of chapters in the book titled 'Book 09'?",
		"SELECT c.chapter_id, c.heading FROM chapters c JOIN books b ON b.book_id = c.book_id WHERE b.title = 'Book 09'")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
	// "names" closing the list is the label of the things the ids are of.
	top, ok = topReading(t, e, wh, "Show the ids and names of writers with paperback books",
		"SELECT DISTINCT w.writer_id, w.name FROM writers w JOIN books b ON b.writer_id = w.writer_id WHERE b.format = 'paperback'")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}

// TestSatelliteWordsOfWhatIsRead: words that restate what the reading
// reads need no caveat: "inclusive of today" after a window ending now,
// "the total amount of", "member names" (the label shown), pronouns.
func TestSatelliteWordsOfWhatIsRead(t *testing.T) {
	e, wh := engineOn(t, lendingDump())
	for _, tc := range []struct{ question, gold string }{
		{"Count members who joined in the past 400 days, inclusive of today",
			"SELECT COUNT(*) FROM members WHERE joined_on >= '2025-10-18'"},
		{"Find the total amount of deposit of all tools.", "SELECT SUM(deposit) FROM tools"},
		{"Which member had the most loans, and how many loans did he or she have?",
			"SELECT m.member_name, COUNT(*) FROM members m JOIN loans l ON l.member_id = m.member_id GROUP BY m.member_id, m.member_name ORDER BY COUNT(*) DESC LIMIT 1"},
		{"Who are the top 3 members by number of loans? Give the member names.",
			"SELECT m.member_name FROM members m JOIN loans l ON l.member_id = m.member_id GROUP BY m.member_id, m.member_name ORDER BY COUNT(*) DESC LIMIT 3"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("unused %q:\n%s", top.Unused, top.SQL)
			}
		})
	}
}

// TestComparisonWithItsColumnBetween: "writers above age 40" compares the
// column named between the comparison and its number.
func TestComparisonWithItsColumnBetween(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	top, ok := topReading(t, e, wh, "What are the different publishers of writers above age 40?",
		"SELECT DISTINCT publisher FROM writers WHERE age > 40")
	if !ok || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
}

// TestRankingCountsEachThingOnce: "the top 3 tools by number of members"
// joins members to tools through their loans; a member who borrowed a
// tool twice is still one member.
func TestRankingCountsEachThingOnce(t *testing.T) {
	e, wh := engineOn(t, lendingDump())
	top, ok := topReading(t, e, wh, "list the top 3 tools by number of members",
		"SELECT t.tool_name FROM tools t JOIN loans l ON l.tool_id = t.tool_id GROUP BY t.tool_id, t.tool_name ORDER BY COUNT(DISTINCT l.member_id) DESC, t.tool_id LIMIT 3")
	if !strings.Contains(top.SQL, "COUNT(DISTINCT members.member_id)") {
		t.Errorf("the ranking counts loans, not members (match %v):\n%s", ok, top.SQL)
	}
}

// TestWordIsNoStartOfALongerWord: "place" does not begin 'placer', nor
// "paper" 'paperback': an unquoted word starts a stored value only as a
// whole word of it ("North" still begins 'North Yard').
func TestWordIsNoStartOfALongerWord(t *testing.T) {
	e, _ := engineOn(t, pressDump())
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "how many books are paper editions"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "'paperback'") {
			t.Errorf("a reading reads 'paper' as the start of 'paperback':\n%s", c.SQL)
		}
	}
	e2, wh := engineOn(t, depotsDump)
	top, ok := topReading(t, e2, wh, "how many depots are called North", "SELECT COUNT(*) FROM depots WHERE depot_name = 'North Yard'")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}

// TestTopNMostCommon: "the top 2 most common book formats" ranks formats
// by how many books carry each; "most common" after "top 2" is how often,
// no word left out.
func TestTopNMostCommon(t *testing.T) {
	e, _ := engineOn(t, pressDump())
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "What are the top 2 most common book formats and their counts?"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings (%v)", err)
	}
	top := p.Candidates[0]
	if !strings.Contains(top.SQL, "GROUP BY books.format") || !strings.Contains(top.SQL, "ORDER BY COUNT(*) DESC") || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
}

// TestNeverVerbedThroughItsItems: "tools never hired" — the hires do not
// refer to tools, their items do; the table whose name holds the verb's
// word and refers to the tools is what "never hired" checks. The
// participle alone is no sort ("ordered", "ranked" need "by").
func TestNeverVerbedThroughItsItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE members (member_id INT PRIMARY KEY, member_name VARCHAR(30));
CREATE TABLE tools (tool_id INT PRIMARY KEY, tool_name VARCHAR(30));
CREATE TABLE hires (hire_id INT PRIMARY KEY, member_id INT, hired_on DATE, FOREIGN KEY (member_id) REFERENCES members(member_id));
CREATE TABLE hire_items (item_id INT PRIMARY KEY, hire_id INT, tool_id INT,
  FOREIGN KEY (hire_id) REFERENCES hires(hire_id), FOREIGN KEY (tool_id) REFERENCES tools(tool_id));
`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, 'Member %d');\n", i, i)
		fmt.Fprintf(&b, "INSERT INTO tools VALUES (%d, 'Tool %d');\n", i, i)
	}
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO hires VALUES (%d, %d, '2025-0%d-01');\n", i, 1+i%3, i)
	}
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "INSERT INTO hire_items VALUES (%d, %d, %d);\n", i, 1+i%6, 1+i%4) // tools 5 and 6 never hired
	}
	e, wh := engineOn(t, b.String())
	top, ok := topReading(t, e, wh, "how many tools have never been hired?",
		"SELECT COUNT(*) FROM tools WHERE tool_id NOT IN (SELECT tool_id FROM hire_items)")
	if !ok || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "how many tools have never been ranked?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "ORDER BY") {
			t.Errorf("'ranked' alone read as a sort:\n%s", c.SQL)
		}
	}
}

// leagueDump: seasons, players, and the registrations of players in
// seasons; players do not refer to seasons, their registrations do.
func leagueDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE seasons (season_id INT PRIMARY KEY, season_name VARCHAR(20));
CREATE TABLE players (player_id INT PRIMARY KEY, player_name VARCHAR(30), fitness VARCHAR(10));
CREATE TABLE player_registrations (registration_id INT PRIMARY KEY, player_id INT, season_id INT,
  FOREIGN KEY (player_id) REFERENCES players(player_id), FOREIGN KEY (season_id) REFERENCES seasons(season_id));
INSERT INTO seasons VALUES (1, 'Spring 2024'), (2, 'Autumn 2024'), (3, 'Spring 2025'), (4, 'Autumn 2025');
`)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "INSERT INTO players VALUES (%d, 'Player %d', '%s');\n", i, i, []string{"fit", "injured"}[i%2])
	}
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "INSERT INTO player_registrations VALUES (%d, %d, %d);\n", i, 1+i%8, 1+i%3) // season 4 has none
	}
	return b.String()
}

// TestNoThingsThroughTheirLinks: "seasons with no players" checks the
// registrations, the table named after players that refers to seasons.
// A word naming the subject itself, or a clause that also names a column
// or value of the players, does not reach past the players' table; a
// reading with no negation at all reports the "no" it left out.
func TestNoThingsThroughTheirLinks(t *testing.T) {
	e, wh := engineOn(t, leagueDump())
	top, ok := topReading(t, e, wh, "Which seasons have no players? List the season name.",
		"SELECT season_name FROM seasons WHERE season_id NOT IN (SELECT season_id FROM player_registrations)")
	if !ok || len(top.Unused) > 0 {
		t.Errorf("likeliest reading (unused %q):\n%s", top.Unused, top.SQL)
	}
	// Either the players' own condition is inside the negated check, or
	// the reading says what it left out.
	for _, q := range []string{"Which seasons have no injured players?", "Which seasons have no players with fitness injured?"} {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Candidates {
			not := strings.Index(c.SQL, "NOT EXISTS")
			inside := not >= 0 && strings.Contains(c.SQL[not:], "'injured'") && !strings.Contains(c.SQL[:not], "'injured'")
			unused := " " + strings.Join(c.Unused, " ") + " "
			if !inside && !strings.Contains(unused, " no ") && !strings.Contains(unused, "injured") {
				t.Errorf("%q: a reading answers another question and says nothing:\n%s", q, c.SQL)
			}
		}
	}
}

// TestMeasureOncePerGroupOfRelatedRows: "total deposit of tools by
// courier" groups a tool's deposit by what its loans say; a tool lent
// through the same courier ten times counts once for that courier, and
// once for each other courier it went through.
func TestMeasureOncePerGroupOfRelatedRows(t *testing.T) {
	e, wh := engineOn(t, lendingDump())
	top, ok := topReading(t, e, wh, "total deposit of tools by courier",
		"SELECT l.courier, SUM(t.deposit) FROM tools t JOIN (SELECT DISTINCT tool_id, courier FROM loans) l ON l.tool_id = t.tool_id GROUP BY l.courier")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}

// TestEventVerbBeforeItsTablesNoun: "members who made payments in 2025"
// is the payments' event and its date, even where 'made' is also a
// stored status and the verb stands right before the payments' own noun.
func TestEventVerbBeforeItsTablesNoun(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE members (member_id INT PRIMARY KEY, member_name VARCHAR(30), joined_on DATE COMMENT 'Date the member joined');
CREATE TABLE payments (payment_id INT PRIMARY KEY, member_id INT, amount DECIMAL(8,2),
  status VARCHAR(10) COMMENT 'Latest step: made, refunded or failed',
  made_on DATE COMMENT 'Date the payment was made',
  FOREIGN KEY (member_id) REFERENCES members(member_id));
`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, 'Member %d', '%d-03-01');\n", i, i, 2023+i%3)
	}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO payments VALUES (%d, %d, %d.50, '%s', '%d-%02d-11');\n", i, 1+i%12, 10+i, []string{"made", "refunded", "failed", "made"}[i%4], 2024+i%2, 1+i%12)
	}
	e, wh := engineOn(t, b.String())
	top, ok := topReading(t, e, wh, "how many members made payments in 2025?",
		"SELECT COUNT(DISTINCT member_id) FROM payments WHERE made_on >= '2025-01-01' AND made_on < '2026-01-01'")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}

// TestNamedThingMeasuredBySibling: "the highest hill" is named by one
// column and measured by its sibling (highest_hill, highest_height); a
// reading that reads the height for it leaves no word out.
func TestNamedThingMeasuredBySibling(t *testing.T) {
	const dump = `CREATE TABLE moors (moor_name VARCHAR(20) PRIMARY KEY, area_km INT, highest_hill VARCHAR(20), highest_height INT);
INSERT INTO moors VALUES ('Northmoor', 120, 'Black Hill', 640), ('Eastmoor', 80, 'Crow Knoll', 510), ('Westmoor', 200, 'High Pike', 720), ('Southmoor', 60, 'Low Fell', 300);`
	e, wh := engineOn(t, dump)
	for _, tc := range []struct{ question, gold string }{
		{"how high is the highest hill of Eastmoor", "SELECT highest_height FROM moors WHERE moor_name = 'Eastmoor'"},
		{"what is the area of the moor with the highest hill", "SELECT area_km FROM moors ORDER BY highest_height DESC LIMIT 1"},
	} {
		top, ok := topReading(t, e, wh, tc.question, tc.gold)
		if !ok || len(top.Unused) > 0 {
			t.Errorf("%q: likeliest reading (unused %q):\n%s", tc.question, top.Unused, top.SQL)
		}
	}
}

// TestAverageOfCountsIsNamed: the average of per-member counts is headed
// by what was counted ("average number of loans"), not "average count".
func TestAverageOfCountsIsNamed(t *testing.T) {
	e, _ := engineOn(t, lendingDump())
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "average number of loans per member"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings (%v)", err)
	}
	found := false
	for _, c := range p.Candidates {
		if strings.Contains(c.SQL, "AVG(grouped.") {
			found = true
			if !strings.Contains(c.SQL, "average_number_of_loans") {
				t.Errorf("the average of counts is not named after the loans:\n%s", c.SQL)
			}
		}
	}
	if !found {
		t.Fatalf("no average over per-member counts among:\n%s", p.Candidates[0].SQL)
	}
}
