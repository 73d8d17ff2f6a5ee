package offline_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// planWordCases: for each set the plan stage and the word accounting read
// from planWordFiles (and the sets of other files they share), a question
// on a schema of our own whose reading depends on one word of the set;
// each fails when that word is taken out of its file.
var planWordCases = []struct {
	file, set, word string
	dump, question  string
	want            []string // in the likeliest reading's SQL
	used            string   // a word the likeliest reading accounts for
	ahead, behind   string   // a reading with ahead is proposed, before any with behind
	none            string   // in no reading's SQL
	odds            float64  // when set, the reading with behind is at most this likely against the first
}{
	{file: "copulas", set: "beform", word: "are", dump: "choir", question: "list the venues that are cosy",
		ahead: "WHERE venues.kind = 'pub'"},
	{file: "copulas", set: "differencelink", word: "is", dump: "courier", question: "list deliveries whose price charged minus carrier cost is less than 0",
		want: []string{"WHERE deliveries.price_charged - deliveries.carrier_cost < 0"}},
	{file: "copulas", set: "andwhatverb", word: "is", dump: "choir", question: "which venue has the highest rating and what is it",
		want: []string{"SELECT venues.venue_name, venues.rating"}},
	{file: "grammar", set: "article", word: "the", dump: "choir", question: "list the singers at the venue with the highest rating",
		want: []string{"WHERE venues.rating = (SELECT MAX(venues.rating) FROM venues)"}},
	{file: "articles", set: "leadarticle", word: "the", dump: "library", question: "top 3 genres by the total pages",
		want: []string{"ORDER BY SUM(books.pages) DESC"}},
	{file: "articles", set: "anyarticle", word: "a", dump: "lending", question: "show the courier that delivered a tool for each loan",
		want: []string{"loans.courier"}, used: "tool"},
	{file: "connectives", set: "coordinator", word: "and", dump: "library", question: "list the books with illustrations and audio",
		want: []string{"WHERE books.has_illustrations = TRUE\n  AND books.has_audio = TRUE"}},
	{file: "connectives", set: "eitherarticle", word: "the", dump: "courier", question: "list deliveries with carrier UPS or the DHL",
		want: []string{"WHERE deliveries.carrier IN ('UPS', 'DHL')"}},
	{file: "possession", set: "bothwaysneg", word: "not", dump: "rooms", question: "how many rooms have a projector and how many rooms do not",
		want: []string{"GROUP BY rooms.has_projector"}, used: "not"},
	{file: "possession", set: "withhaving", word: "with", dump: "choir", question: "list the singers at the venue with the highest rating",
		want: []string{"WHERE venues.rating = (SELECT MAX(venues.rating) FROM venues)"}},
	{file: "possession", set: "superlativehave", word: "with", dump: "choir", question: "what is the venue with the highest rating",
		ahead: "SELECT venues.venue_id, venues.venue_name", behind: "SELECT MAX(venues.rating) AS max_rating"},
	{file: "questionwords", set: "whichwhat", word: "which", dump: "library", question: "which genre has the most books and how many",
		want: []string{"SELECT books.genre, COUNT(*)"}},
	{file: "questionwords", set: "whatlead", word: "what", dump: "choir", question: "what is the highest rating of the venues",
		ahead: "SELECT MAX(venues.rating) AS max_rating", behind: "SELECT venues.venue_id, venues.venue_name"},
	{file: "countnouns", set: "countof", word: "count", dump: "library", question: "return the genre and the count of the books",
		want: []string{"SELECT books.genre, COUNT(*)", "GROUP BY books.genre"}},
	{file: "countnouns", set: "identitynoun", word: "id", dump: "library", question: "list the members with book id over 20",
		want: []string{"WHERE books.book_id > 20"}, used: "over"},
	{file: "countnouns", set: "bracketid", word: "id", dump: "library", question: "list the members (id and name)",
		ahead: "SELECT members.member_id\nFROM members", behind: "SELECT members.full_name\nFROM members"},
	{file: "articles", set: "objectarticle", word: "a", dump: "courier", question: "which trucks never returned a delivery",
		want: []string{"WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.truck_id = trucks.truck_id)"}},
	{file: "connectives", set: "listarticle", word: "the", dump: "library", question: "list the city, and the full name of each member",
		want: []string{"SELECT members.full_name, members.city"}},
	{file: "connectives", set: "labelfiller", word: "its", dump: "library", question: "list the members (name and its city)",
		want: []string{"SELECT members.full_name, members.city"}, none: "SELECT DISTINCT members.city"},
	{file: "connectives", set: "politeword", word: "please", dump: "vans", question: "Which depots have the largest fleet size? Please show the district.",
		want: []string{"SELECT van_depots.depot_name, van_depots.district"}},
	{file: "possession", set: "flagprep", word: "without", dump: "library", question: "list the books without illustrations",
		want: []string{"WHERE NOT books.has_illustrations"}},
	{file: "possession", set: "superlativewith", word: "having", dump: "vans", question: "list the van models of the maker having the largest production",
		want: []string{"WHERE van_models.production = (SELECT MAX(van_models.production) FROM van_models)"}, none: "SELECT MAX(van_models.production) AS"},
	{file: "countnouns", set: "countnoun", word: "counts", dump: "library", question: "which genres have the most books and their counts",
		want: []string{"SELECT books.genre, COUNT(*)"}, used: "counts"},
	{file: "countnouns", set: "numbercount", word: "number", dump: "library", question: "list the city and number of loans of each member",
		want: []string{"COUNT(DISTINCT loans.loan_id) AS number_of_loans"}},
	{file: "countnouns", set: "pairnoun", word: "pair", dump: "library", question: "for each hall pair, the total crates",
		want: []string{"GROUP BY moves.from_hall, moves.to_hall"}},
	{file: "superlatives", set: "mostleast", word: "most", dump: "library", question: "top 3 most common genres",
		want: []string{"GROUP BY books.genre\nORDER BY COUNT(*) DESC"}},
	{file: "quantifiers", set: "otherness", word: "different", dump: "choir", question: "which choir has more than 3 different singers",
		want: []string{"HAVING COUNT(*) > 3"}},
	{file: "quantifiers", set: "valuesuperlative", word: "maximum", dump: "choir", question: "what is the maximum rating of the venues",
		want: []string{"SELECT MAX(venues.rating) AS max_rating"}},
	{file: "questionwords", set: "relativewhich", word: "that", dump: "vans", question: "list the makers of van models that have the largest production",
		want: []string{"WHERE van_models.production = (SELECT MAX(van_models.production)"}},
	{file: "questionwords", set: "rowlead", word: "name", dump: "choir", question: "name the highest rated venue",
		want: []string{"SELECT venues.venue_name"}, behind: "SELECT MAX(venues.rating) AS max_rating", odds: 0.4},
	{file: "countnouns", set: "aggnoun", word: "amount", dump: "lending", question: "what is the total amount of deposit of all tools",
		want: []string{"SELECT SUM(tools.deposit)"}, used: "amount"},
	{file: "countnouns", set: "idcode", word: "id", dump: "library", question: "what is the total fee of loans for each book id",
		want: []string{"GROUP BY books.book_id"}},
	{file: "quantifiers", set: "countquantifier", word: "most", dump: "choir", question: "list the singers in the most choirs",
		want: []string{"ORDER BY COUNT(DISTINCT choirs.choir_id) DESC"}},
	{file: "quantifiers", set: "uniqueness", word: "unique", dump: "choir", question: "list the venues that are unique",
		want: []string{"SELECT venues.venue_name"}, none: "WHERE venues.kind = 'pub'"},
	{file: "requests", set: "showverb", word: "show", dump: "library", question: "which genre has the most books? show the genre and its total",
		want: []string{"SELECT books.genre, COUNT(*)"}},
	{file: "requests", set: "sortword", word: "sorted", dump: "library", question: "list the books in sorted order by pages",
		want: []string{"ORDER BY books.pages"}, used: "sorted"},
	{file: "windows", set: "windowend", word: "inclusive", dump: "lending", question: "count the loans that went out over the last 30 days inclusive of today",
		want: []string{"WHERE loans.borrowed_on >= "}, used: "inclusive"},
	{file: "requests", set: "insensitive", word: "insensitive", dump: "library", question: "list books whose title is 'Book A26', case insensitive",
		want: []string{"WHERE books.title = 'Book A26'"}, used: "insensitive"},
}

// planWordFiles are the files of words/ that hold only sets the plan stage
// and the word accounting read; each of their sets has a case.
var planWordFiles = map[string]bool{"copulas": true, "articles": true, "connectives": true, "possession": true,
	"questionwords": true, "countnouns": true, "quantifiers": true, "windows": true, "requests": true}

// TestPlanWordSetsMatter runs planWordCases.
func TestPlanWordSetsMatter(t *testing.T) {
	dumps := map[string]func() string{"choir": choirDump, "rooms": roomsDump, "lending": lendingDump, "library": libraryDump, "vans": vanFleetDump, "courier": courierFleetDump}
	engine := wordEngines(t, dumps)
	cased := map[string]bool{}
	for _, tc := range planWordCases {
		cased[tc.set] = true
		e := engine(tc.dump)
		t.Run(tc.file+"/"+tc.set+"/"+tc.word, func(t *testing.T) {
			p := checkWordCase(t, e, tc.file, tc.set, tc.word, dialog.Request{Question: tc.question}, tc.want, tc.used)
			first := p.Candidates[0]
			at := func(s string) int {
				return slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, s) })
			}
			if tc.none != "" {
				if i := at(tc.none); i >= 0 {
					t.Errorf("%q: want no reading with %q:\n%s", tc.question, tc.none, p.Candidates[i].SQL)
				}
			}
			if tc.odds > 0 {
				if i := at(tc.behind); i < 0 || p.Candidates[i].Prior > tc.odds*first.Prior {
					t.Errorf("%q: want a reading with %q at most %.2f as likely as the first", tc.question, tc.behind, tc.odds)
				}
				return
			}
			if tc.ahead == "" {
				return
			}
			ahead, behind := at(tc.ahead), -1
			if tc.behind != "" {
				behind = at(tc.behind)
			}
			if ahead < 0 || behind >= 0 && behind < ahead {
				var all []string
				for _, c := range p.Candidates {
					all = append(all, c.SQL)
				}
				t.Errorf("%q: want a reading with %q ahead of any with %q:\n%s", tc.question, tc.ahead, tc.behind, strings.Join(all, "\n--\n"))
			}
		})
	}
	for _, set := range words.Names() {
		if planWordFiles[words.File(set)] && !cased[set] {
			t.Errorf("set %q of words/%s.tsv has no case here", set, words.File(set))
		}
	}
}
