package offline_test

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// TestReadingWordSets: each word set the reading stage looks words up in
// (dialog/offline/read) changes the likeliest reading of a question on a
// schema of our own through one of its words, so a word added to the set's
// file reaches the engine. Each case was checked to fail with its word
// taken out of the file.
func TestReadingWordSets(t *testing.T) {
	dumps := map[string]func() string{"choir": choirDump, "guide": guideDump, "rooms": roomsDump, "lending": lendingDump, "library": libraryDump}
	cases := []struct {
		file, set, word string
		dump, question  string
		feedback        string   // a piece of feedback to remove something, if any
		want            []string // in the likeliest reading's SQL; one ending in a newline ends it
		used            string   // a word it accounts for
	}{
		{"grammar", "idlead", "with", "library", "list the loans of the member with id 7", "", []string{"WHERE loans.member_id = 7"}, "member"},
		{"grammar", "comparisonstop", "are", "choir", "which singers are over 50 in fee paid", "", []string{"SELECT singers.singer_name", "WHERE singers.fee_paid > 50"}, "over"},
		{"grammar", "possession", "having", "choir", "list the top 3 venues having the highest rating", "", []string{"SELECT venues.venue_name", "ORDER BY venues.rating DESC\nLIMIT 3"}, "rating"},
		{"grammar", "possessionfiller", "received", "library", "list the top 3 members having received the most loans", "", []string{"SELECT members.full_name", "GROUP BY members.member_id", "ORDER BY COUNT(*) DESC\nLIMIT 3"}, "loans"},
		{"grammar", "article", "the", "library", "list the books whose title has the word 'A0'", "", []string{"WHERE books.title LIKE '%A0%'"}, "word"},
		{"grammar", "groupfiller", "the", "library", "count the loans per the month", "", []string{"GROUP BY DATE_FORMAT(loans.borrowed_on, '%Y-%m')"}, "month"},
		{"grammar", "listjoin", "and", "choir", "the total and average fee paid of singers", "", []string{"SUM(singers.fee_paid)", "AVG(singers.fee_paid)"}, "total"},
		{"grammar", "isare", "is", "rooms", "where is Rowan?", "", []string{"rooms.address\nFROM rooms\nWHERE rooms.room_name = 'Rowan'"}, "where"},
		{"grammar", "distributive", "every", "library", "how many loans every genre", "", []string{"GROUP BY books.genre"}, "every"},
		{"grammar", "distributive", "each", "library", "what are the genres and how many of each", "", []string{"GROUP BY books.genre"}, "each"},
		{"grammar", "patternhave", "having", "library", "list the books whose title having the word 'A0'", "", []string{"WHERE books.title LIKE '%A0%'"}, "word"},
		{"negations", "valuenegation", "except", "library", "list the members except Leeds", "", []string{"WHERE members.city <> 'Leeds'"}, "except"},
		{"negations", "verbnegation", "never", "choir", "list the singers who never have the voice tenor", "", []string{"WHERE singers.voice <> 'tenor'"}, "never"},
		{"negations", "periodexclusion", "excluding", "lending", "count the loans that went out over the past 3 months, excluding this month", "", []string{"loans.borrowed_on >= '2026-08-01'", "loans.borrowed_on < '2026-11-01'"}, "excluding"},
		{"prepositions", "eventprep", "by", "lending", "which tools were returned by Vans", "", []string{"WHERE loans.courier = 'Vans'"}, "returned"},
		{"prepositions", "spanopen", "between", "lending", "average days between borrowing and return of loans", "", []string{"AVG(TIMESTAMPDIFF(DAY, loans.borrowed_on, loans.returned_on))"}, "days"},
		{"prepositions", "spanjoin", "until", "lending", "average days from borrowing until return of loans", "", []string{"AVG(TIMESTAMPDIFF(DAY, loans.borrowed_on, loans.returned_on))"}, "days"},
		{"prepositions", "spanto", "until", "lending", "average days until return of loans", "", []string{"AVG(TIMESTAMPDIFF(DAY, loans.borrowed_on, loans.returned_on))"}, "days"},
		{"prepositions", "durationprep", "between", "lending", "average time between borrowing and return of loans", "", []string{"AVG(DATEDIFF(loans.returned_on, loans.borrowed_on))"}, "time"},
		{"prepositions", "ratioopen", "of", "choir", "the ratio of fee paid to years sung of singers", "", []string{"singers.fee_paid * 1e0 / NULLIF(singers.years_sung, 0)"}, "ratio"},
		{"prepositions", "ratiojoin", "per", "choir", "ratio of fee paid per years sung of singers", "", []string{"singers.fee_paid * 1e0 / NULLIF(singers.years_sung, 0)"}, "ratio"},
		{"prepositions", "perunit", "per", "library", "list the racks with capacity per cm", "", []string{"SELECT DISTINCT racks.capacity\nFROM racks"}, "cm"},
		{"prepositions", "shareof", "by", "library", "percentage by genre of loans", "", []string{"SUM(grouped.count) OVER ()", "GROUP BY books.genre"}, "percentage"},
		{"prepositions", "changefrom", "to", "library", "loans compared to the prior month", "", []string{"LAG(grouped.count) OVER (ORDER BY grouped.month)"}, "prior"},
		{"prepositions", "since", "since", "library", "how many loans since 2024", "", []string{"WHERE loans.borrowed_on >= '2024-01-01'\n"}, "since"},
		{"prepositions", "until", "till", "library", "how many loans till 2025", "", []string{"WHERE loans.borrowed_on < '2025-01-01'"}, "loans"},
		{"prepositions", "directionlead", "from", "choir", "list the venues ordered by rating from highest to lowest", "", []string{"ORDER BY venues.rating DESC"}, "highest"},
		{"nouns", "agenoun", "age", "library", "the average age of our members", "", []string{"AVG(TIMESTAMPDIFF(YEAR, members.birth_date, CURDATE()))"}, "age"},
		{"nouns", "gapnoun", "gap", "choir", "the gap between fee paid and years sung of singers", "", []string{"singers.fee_paid - singers.years_sung"}, "gap"},
		{"nouns", "rationoun", "proportion", "choir", "the proportion of fee paid to years sung of singers", "", []string{"singers.fee_paid * 1e0 / NULLIF(singers.years_sung, 0)"}, "proportion"},
		{"nouns", "keynoun", "id", "library", "list the loan id and fee", "", []string{"SELECT loans.loan_id, loans.fee"}, "fee"},
		{"nouns", "columnnoun", "column", "library", "list the members and their cities", "drop the city column", []string{"SELECT members.full_name\nFROM members"}, "members"},
		{"nouns", "patternfiller", "letter", "library", "list the members whose full name starts with the letter 'R'", "", []string{"WHERE members.full_name LIKE 'R%'"}, "letter"},
		{"nouns", "sortnounfollow", "them", "choir", "show the venues and order them by rating", "", []string{"SELECT venues.venue_name", "ORDER BY venues.rating"}, "order"},
		{"verbs", "dropverb", "drop", "library", "list the members and their cities", "drop the city column", []string{"SELECT members.full_name\nFROM members"}, "members"},
		{"verbs", "vary", "varies", "library", "how the fee varies across genres", "", []string{"GROUP BY books.genre"}, "genres"},
		{"aggregates", "average", "mean", "library", "mean fee of loans", "", []string{"AVG(loans.fee)"}, "mean"},
		{"aggregates", "acrossall", "different", "library", "total fee across different genres", "", []string{"GROUP BY books.genre"}, "genres"},
		{"comparisons", "ormore", "fewer", "choir", "singers with 2 or fewer solos", "", []string{"HAVING COUNT(*) > 2", "WHERE counted.singer_id IS NULL"}, "solos"},
		{"comparisons", "comparednumber", "above", "library", "books with pages above 2000", "", []string{"WHERE books.pages > 2000"}, "above"},
		{"superlatives", "mostleast", "most", "guide", "which walk is the most long", "", []string{"WHERE walks.miles = (SELECT MAX(walks.miles) FROM walks)"}, "long"},
		{"periods", "windowunit", "week", "lending", "how many loans were borrowed in the last 3 weeks", "", []string{"WHERE loans.borrowed_on >= '2026-11-01'"}, "weeks"},
		{"periods", "lastn", "past", "lending", "how many loans were borrowed in the past 3 months", "", []string{"WHERE loans.borrowed_on >= '2026-08-22'"}, "past"},
		{"periods", "periodlead", "previous", "lending", "how many loans were borrowed in the previous year", "", []string{"loans.borrowed_on >= '2025-01-01'", "loans.borrowed_on < '2026-01-01'"}, "previous"},
		{"periods", "relativeperiod", "quarter", "lending", "how many loans were borrowed last quarter", "", []string{"loans.borrowed_on >= '2026-07-01'", "loans.borrowed_on < '2026-10-01'"}, "quarter"},
		{"periods", "todate", "ytd", "lending", "how many loans ytd", "", []string{"WHERE loans.borrowed_on >= '2026-01-01'"}, "ytd"},
		{"periods", "priorperiod", "prior", "library", "loans compared to the prior month", "", []string{"LAG(grouped.count) OVER (ORDER BY grouped.month)"}, "prior"},
		{"periods", "wholeperiod", "full", "lending", "how many loans were borrowed in the last 3 full months", "", []string{"WHERE loans.borrowed_on >= '2026-08-22'"}, "full"},
		{"periods", "thisperiod", "this", "lending", "count the loans that went out over the past 3 months, excluding this month", "", []string{"loans.borrowed_on >= '2026-08-01'", "loans.borrowed_on < '2026-11-01'"}, "excluding"},
		{"periods", "currentperiod", "current", "lending", "how many loans were borrowed in the last 3 months except the current month", "", []string{"loans.borrowed_on >= '2026-08-01'", "loans.borrowed_on < '2026-11-01'"}, "current"},
		{"ordering", "alphaorder", "alphabetically", "choir", "list the venues ordered alphabetically", "", []string{"ORDER BY venues.venue_name"}, "alphabetically"},
	}
	engine := wordEngines(t, dumps)
	for _, tc := range cases {
		e := engine(tc.dump)
		t.Run(tc.set+"/"+tc.word, func(t *testing.T) {
			req := dialog.Request{Question: tc.question}
			if tc.feedback != "" {
				req.Feedback = []dialog.Feedback{{Kind: dialog.FeedbackRemove, Text: tc.feedback}}
			}
			checkWordCase(t, e, tc.file, tc.set, tc.word, req, tc.want, tc.used)
		})
	}
}
