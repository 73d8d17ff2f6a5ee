package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// TestWordFilesMatter: for each file of words/, a word of one of its sets
// changes the likeliest reading of a question on a schema of our own the
// way the set says, so a word added to a file is known to reach the
// engine. Every file has a case.
func TestWordFilesMatter(t *testing.T) {
	dumps := map[string]func() string{"choir": choirDump, "guide": guideDump, "rooms": roomsDump, "lending": lendingDump, "library": libraryDump, "vans": vanFleetDump}
	cases := []struct {
		file, set, word string
		dump, question  string
		want            []string // in the likeliest reading's SQL
		used            string   // a word it accounts for
	}{
		{"negations", "negating", "lacking", "choir", "list the singers lacking a solo", []string{"WHERE NOT EXISTS (SELECT 1 FROM solos"}, "lacking"},
		{"grammar", "have", "have", "choir", "list the singers that have solos", []string{"WHERE EXISTS (SELECT 1 FROM solos WHERE solos.singer_id = singers.singer_id)"}, "solos"},
		{"aggregates", "kind", "different", "choir", "how many different voices are there", []string{"COUNT(DISTINCT singers.voice)"}, "different"},
		{"ordering", "direction", "descending", "choir", "list the venues ordered by rating descending", []string{"ORDER BY venues.rating DESC"}, "descending"},
		{"ordering", "sortverb", "arranged", "choir", "list the venues arranged by rating", []string{"ORDER BY venues.rating"}, "arranged"},
		{"ordering", "reverse", "reverse", "choir", "list the venues in reverse alphabetical order", []string{"ORDER BY venues.venue_name DESC"}, "reverse"},
		{"grammar", "flaghave", "offering", "rooms", "list the rooms offering a projector", []string{"rooms.has_projector = 'Y'"}, "offering"},
		{"grammar", "flaglack", "lacks", "rooms", "which room lacks a projector", []string{"rooms.has_projector = 'N'"}, "lacks"},
		{"prepositions", "relationprep", "in", "choir", "which venues are located in Brill", []string{"WHERE venues.town = 'Brill'"}, "located"},
		{"comparisons", "comparison", "exceeding", "choir", "list the singers with a fee paid exceeding 50", []string{"WHERE singers.fee_paid > 50"}, "exceeding"},
		{"numbers", "number", "fifty", "choir", "list the singers with a fee paid over fifty", []string{"WHERE singers.fee_paid > 50"}, "fifty"},
		{"periods", "month", "march", "lending", "how many loans were borrowed in march 2024", []string{"WHERE loans.borrowed_on >= '2024-03-01'"}, "march"},
		{"listverbs", "split", "broken", "choir", "average fee paid broken down by voice", []string{"GROUP BY singers.voice"}, "down"},
		{"units", "unit", "dollar", "choir", "list the singers with a fee paid over 50 dollars", []string{"WHERE singers.fee_paid > 50"}, "dollars"},
		{"nouns", "generic", "places", "guide", "list the good places in Dunmore", []string{"guesthouses.star_rating > 2.5"}, "places"},
		{"columns", "notid", "paid", "choir", "what is the total fee paid of the singers", []string{"SUM(singers.fee_paid)"}, "fee"},
		{"adjectives", "good", "great", "guide", "list great walks in Dunmore", []string{"walks.score > 5"}, "great"},
		{"flags", "yes", "y", "rooms", "list the rooms that have a projector", []string{"rooms.has_projector = 'Y'"}, "projector"},
		{"verbs", "participle", "sold", "rooms", "how many chairs were sold in 2024", []string{"WHERE chairs.sell_date >= '2024-01-01'"}, "sold"},
		{"verbs", "pattern", "starts", "choir", "list the singers whose name starts with 'Singer 1'", []string{"WHERE singers.singer_name LIKE 'Singer 1%'"}, "starts"},
		{"columns", "place", "address", "rooms", "where is Rowan?", []string{"rooms.address\nFROM rooms\nWHERE rooms.room_name = 'Rowan'"}, "where"},
		{"verbs", "agent", "sent", "lending", "which tools were sent by Vans", []string{"SELECT DISTINCT tools.tool_name", "WHERE loans.courier = 'Vans'"}, "sent"},
		{"grammar", "relative", "that", "choir", "list the singers that have solos", []string{"WHERE EXISTS (SELECT 1 FROM solos WHERE solos.singer_id = singers.singer_id)"}, "solos"},
		{"aggregates", "distinct", "distinct", "choir", "give the number of distinct voices among singers", []string{"COUNT(DISTINCT singers.voice)"}, "distinct"},
		{"aggregates", "sum", "combined", "choir", "what is the fee paid of all singers combined", []string{"SELECT SUM(singers.fee_paid)"}, "combined"},
		{"stopwords", "function", "relevant", "choir", "list the relevant singers", []string{"SELECT singers.singer_name\nFROM singers"}, "relevant"},
	}
	// Tried word by word in words_test.go.
	covered := map[string]bool{"superlatives": true, "measures": true, "how": true}
	// Tried set by set in planwords_test.go.
	for _, tc := range planWordCases {
		covered[tc.file] = true
	}
	engine := wordEngines(t, dumps)
	for _, tc := range cases {
		covered[tc.file] = true
		e := engine(tc.dump)
		t.Run(tc.file+"/"+tc.set+"/"+tc.word, func(t *testing.T) {
			checkWordCase(t, e, tc.file, tc.set, tc.word, dialog.Request{Question: tc.question}, tc.want, tc.used)
		})
	}
	for _, set := range words.Names() {
		if f := words.File(set); !covered[f] {
			t.Errorf("words/%s.tsv has no case here", f)
			covered[f] = true
		}
	}
}

// roomsDump is a venue's meeting rooms of our own, whose flags are
// stored as text ('Y'/'N'), at an address, and the old chairs it sells, dated by the
// base form of their verb (sell_date).
func roomsDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE rooms (room_id INT PRIMARY KEY, room_name VARCHAR(20), seats INT, has_projector VARCHAR(3), address VARCHAR(30));
CREATE TABLE chairs (chair_id INT PRIMARY KEY, room_id INT, bought_on DATE, sell_date DATE, FOREIGN KEY (room_id) REFERENCES rooms(room_id));
`)
	trees := []string{"Larch", "Birch", "Cedar", "Alder", "Rowan", "Hazel", "Maple", "Aspen", "Holly", "Laurel", "Willow", "Yew"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO rooms VALUES (%d, '%s', %d, '%s', '%d Mill Lane');\n", i, trees[i-1], 4+i*3, []string{"Y", "N", "N"}[i%3], i%4+1)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO chairs VALUES (%d, %d, '2019-%02d-03', '%d-%02d-20');\n", i, 1+i%12, 1+i%12, 2023+i%3, 1+i%12)
	}
	return b.String()
}

// wordEngines builds each dump's engine once, when a case first needs it.
func wordEngines(t *testing.T, dumps map[string]func() string) func(name string) *offline.Engine {
	built := map[string]*offline.Engine{}
	return func(name string) *offline.Engine {
		if built[name] == nil {
			built[name], _ = engineOn(t, dumps[name]())
		}
		return built[name]
	}
}

// checkWordCase fails unless word is in set, set is in file, and the
// likeliest reading of req has each of want (one ending in a newline ends
// the reading) and uses the word used; it returns the proposal.
func checkWordCase(t *testing.T, e *offline.Engine, file, set, word string, req dialog.Request, want []string, used string) *dialog.Proposal {
	t.Helper()
	if got := words.File(set); got != file {
		t.Fatalf("set %q is in %s.tsv, not %s.tsv", set, got, file)
	}
	if !words.Set(set)[word] {
		t.Fatalf("%q is not in set %q", word, set)
	}
	p, err := e.Candidates(context.Background(), req)
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("%q: no reading (%v)", req.Question, err)
	}
	first := p.Candidates[0]
	// Unused holds runs of words ("case insensitive"): the word is left
	// out when a run has it.
	if used != "" && slices.ContainsFunc(first.Unused, func(run string) bool { return slices.Contains(strings.Fields(run), used) }) {
		t.Errorf("%q: the likeliest reading leaves %q out:\n%s", req.Question, used, first.SQL)
	}
	for _, w := range want {
		if ends := strings.HasSuffix(w, "\n"); ends && !strings.HasSuffix(first.SQL+"\n", w) || !ends && !strings.Contains(first.SQL, w) {
			t.Errorf("%q: want %q in the likeliest reading:\n%s", req.Question, w, first.SQL)
		}
	}
	return p
}
