package offline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
	"github.com/clarify-bot/clarify/dialog/offline"
)

// pressDump is a small publishing house the engine was never tuned on:
// writers (with a publisher), their books (a few-valued format) and the
// chapters of each book, whose headings repeat across books.
func pressDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE writers (writer_id INT PRIMARY KEY, name VARCHAR(40), age INT, years_active INT, publisher VARCHAR(30));
CREATE TABLE books (book_id INT PRIMARY KEY, writer_id INT, title VARCHAR(60), format VARCHAR(12), pages INT,
  stage VARCHAR(12) COMMENT 'Where the book is: drafted or published',
  FOREIGN KEY (writer_id) REFERENCES writers(writer_id));
CREATE TABLE chapters (chapter_id INT PRIMARY KEY, book_id INT, heading VARCHAR(40),
  FOREIGN KEY (book_id) REFERENCES books(book_id));
`)
	pubs := []string{"Penrose", "Quill", "Harbor", "Penrose", "Quill", "Penrose"}
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO writers VALUES (%d, 'Writer %c', %d, %d, '%s');\n", i, 'A'+rune(i), 30+i*7%25, 2+i*3%11, pubs[i-1])
	}
	formats := []string{"paperback", "hardback", "ebook", "paperback", "audio"}
	ch := 0
	for i := 1; i <= 14; i++ {
		stage := []string{"drafted", "published", "published"}[i%3]
		fmt.Fprintf(&b, "INSERT INTO books VALUES (%d, %d, 'Book %02d', '%s', %d, '%s');\n", i, 1+i%5, i, formats[i%5], 100+i*37%300, stage)
		n := i % 4
		if i == 9 {
			n = 5 // one book has the most chapters, no tie
		}
		for k := 0; k < n; k++ {
			ch++
			h := []string{"Prologue", "Arrival", "Prologue", "Storm"}[(i+k)%4]
			fmt.Fprintf(&b, "INSERT INTO chapters VALUES (%d, %d, '%s');\n", ch, i, h)
		}
	}
	return b.String()
}

// TestPressReadings: everyday list and count questions whose likeliest
// reading must be the one the words say — either of two values, the
// columns named shown, the sort key not shown, counts of related rows,
// conditions inside a negated relation. Each was answered wrongly, with
// no question, before.
func TestPressReadings(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	for _, tc := range []struct{ question, gold string }{
		// Two values joined by "or" are either value, also negated.
		{"Count the books whose format is paperback or ebook",
			"SELECT COUNT(*) FROM books WHERE format IN ('paperback', 'ebook')"},
		{"how many books are not paperback or ebook",
			"SELECT COUNT(*) FROM books WHERE format NOT IN ('paperback', 'ebook')"},
		// The sort key orders the rows; the names are what they show.
		{"List the names of writers in ascending order of age",
			"SELECT name FROM writers ORDER BY age"},
		{"List the names of writers ordered by years active",
			"SELECT name FROM writers ORDER BY years_active"},
		// The sort key is found in the clause's words, after "of".
		{"List the names of writers in descending order of number of years active",
			"SELECT name FROM writers ORDER BY years_active DESC"},
		// Rows sorted by what they do not show are listed each in its
		// place, not folded into distinct values.
		{"list the publishers of writers in descending order of age",
			"SELECT publisher FROM writers ORDER BY age DESC"},
		// The column named before "each" shows the group.
		{"Show all book ids and the number of chapters in each book",
			"SELECT book_id, COUNT(*) FROM chapters GROUP BY book_id"},
		// "at least two chapters" counts chapters; it is no id compared with 2.
		{"List all book ids with at least two chapters",
			"SELECT book_id FROM chapters GROUP BY book_id HAVING COUNT(*) >= 2"},
		// "the greatest number of writers" is a count.
		{"What is the publisher used by the greatest number of writers",
			"SELECT publisher FROM writers GROUP BY publisher ORDER BY COUNT(*) DESC LIMIT 1"},
		{"which format has the smallest number of books",
			"SELECT format FROM books GROUP BY format ORDER BY COUNT(*) LIMIT 1"},
		// The subject ranked may be a few words before the superlative
		// when a participle says how ("is used by the most …").
		{"which publisher is used by the most books",
			"SELECT w.publisher FROM books b JOIN writers w ON w.writer_id = b.writer_id GROUP BY w.publisher ORDER BY COUNT(*) DESC LIMIT 1"},
		// The value after the related noun qualifies the related rows, and
		// "write" after "did not" is the verb, not a writer's name.
		{"How many writers did not write any book with format 'ebook'",
			"SELECT COUNT(*) FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id AND b.format = 'ebook')"},
		{"writers without books in ebook format",
			"SELECT name FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id AND b.format = 'ebook')"},
		// The columns listed are shown together, one row per book ranked.
		{"Return the id and title of the book with the most chapters",
			"SELECT b.book_id, b.title FROM books b JOIN chapters c ON c.book_id = b.book_id GROUP BY b.book_id, b.title ORDER BY COUNT(*) DESC LIMIT 1"},
		// "per book" after an average of a book's own column is the
		// average over books, not one group per book.
		{"average pages per book", "SELECT AVG(pages) FROM books"},
		// A negated relation is never read with its rows joined too.
		{"how many writers have never written a book",
			"SELECT COUNT(*) FROM writers w WHERE NOT EXISTS (SELECT 1 FROM books b WHERE b.writer_id = w.writer_id)"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			if top, ok := topReading(t, e, wh, tc.question, tc.gold); !ok {
				t.Errorf("the likeliest reading (%.2f) is not what the words say:\n%s", top.Prior, top.SQL)
			}
		})
	}
}

// topReading is the likeliest reading of a question and whether its
// result is the gold's (in order when the gold orders).
func topReading(t *testing.T, e *offline.Engine, wh *warehouse.DB, question, gold string) (dialog.Candidate, bool) {
	t.Helper()
	ctx := context.Background()
	p, err := e.Candidates(ctx, dialog.Request{Question: question})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("%s: no readings: %v", question, err)
	}
	want, err := wh.Query(ctx, gold, warehouse.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	top := p.Candidates[0]
	got, err := wh.Query(ctx, top.SQL, warehouse.Limits{})
	return top, err == nil && eval.Match(got, want, strings.Contains(gold, "ORDER BY"))
}

// A verb that is also a stored status of the related rows ("never
// published a book", 'published' a stage) reads first as the relation,
// and the status stays a reading to ask about.
func TestVerbOfARelationKeepsTheStatusAsAnOption(t *testing.T) {
	ctx := context.Background()
	e, _ := engineOn(t, pressDump())
	p, err := e.Candidates(ctx, dialog.Request{Question: "how many writers have never published a book"})
	if err != nil || len(p.Candidates) < 2 {
		t.Fatalf("readings: %v %v", p, err)
	}
	if top := p.Candidates[0]; strings.Contains(top.SQL, "'published'") || !strings.Contains(top.SQL, "NOT EXISTS") || top.Prior >= 0.8 {
		t.Errorf("the relation should come first, below the asking threshold (%.2f):\n%s", top.Prior, top.SQL)
	}
	found := false
	for _, c := range p.Candidates {
		found = found || strings.Contains(c.SQL, "NOT EXISTS") && strings.Contains(c.SQL, "books.stage = 'published'")
	}
	if !found {
		t.Error("the stored stage 'published' is no longer a reading")
	}
}

// A sort key no column matches is no reason to sort by something else:
// the reading does not sort and says which words it left out.
func TestUnknownSortKeyIsSaid(t *testing.T) {
	e, _ := engineOn(t, pressDump())
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "list the names of writers sorted by shoe size"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings: %v", err)
	}
	top := p.Candidates[0]
	if strings.Contains(top.SQL, "ORDER BY") || !strings.Contains(strings.Join(top.Unused, " "), "shoe size") {
		t.Errorf("sorted by something else, or silently:\n%s\nunused %v", top.SQL, top.Unused)
	}
}

// A singular noun said again after "the" is the thing already named ("for
// each book … the title of the book"): no second book to leave out.
func TestNounSaidAgainIsTheSameThing(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	for _, tc := range []struct{ question, gold string }{
		{"For each book, return the number of chapters and the title of the book",
			"SELECT COUNT(*), b.title FROM books b JOIN chapters c ON c.book_id = b.book_id GROUP BY b.book_id, b.title"},
		{"Which writer has the most books? Give me the name of the writer",
			"SELECT w.name FROM writers w JOIN books b ON b.writer_id = w.writer_id GROUP BY w.writer_id, w.name ORDER BY COUNT(*) DESC LIMIT 1"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("words left out: %v", top.Unused)
			}
		})
	}
}

// clinicNotesDump: patients and their visits, each visit summed up in a
// line of text; two of Ann's visits have the same summary.
func clinicNotesDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE patients (patient_id INT PRIMARY KEY, full_name VARCHAR(40));
CREATE TABLE doctors (doctor_id INT PRIMARY KEY, doctor_name VARCHAR(40));
CREATE TABLE visits (visit_id INT PRIMARY KEY, patient_id INT, doctor_id INT, summary VARCHAR(80),
  FOREIGN KEY (patient_id) REFERENCES patients(patient_id), FOREIGN KEY (doctor_id) REFERENCES doctors(doctor_id));
INSERT INTO patients VALUES (1, 'Ann Lee'), (2, 'Bo Ruiz'), (3, 'Cy Oats');
INSERT INTO doctors VALUES (1, 'Dr Moss'), (2, 'Dr Nagy');
`)
	for i := 1; i <= 12; i++ {
		summary := fmt.Sprintf("Follow-up %d, stable", i)
		if i == 1 || i == 4 {
			summary = "Routine check, no findings"
		}
		fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, %d, '%s');\n", i, 1+(i-1)%3, 1+i%2, summary)
	}
	return b.String()
}

// Rows of a table each joined to one row of another are not repeated by
// the join: listing them keeps two equal ones (two visits summed up the
// same way are two visits); rows a join repeats are shown once.
func TestRowsNoJoinRepeatsAreKept(t *testing.T) {
	e, wh := engineOn(t, clinicNotesDump())
	for _, tc := range []struct{ question, gold string }{
		{"Show all visit summaries for the patient 'Ann Lee'",
			"SELECT v.summary FROM visits v JOIN patients p ON p.patient_id = v.patient_id WHERE p.full_name = 'Ann Lee'"},
		{"which patients had a visit with summary 'Routine check, no findings'",
			"SELECT DISTINCT p.full_name FROM visits v JOIN patients p ON p.patient_id = v.patient_id WHERE v.summary = 'Routine check, no findings'"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			if top, ok := topReading(t, e, wh, tc.question, tc.gold); !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
		})
	}
}

// Two values of one column of related rows are things with related rows
// of each value, not one row holding both.
func TestRelatedRowsOfEachValue(t *testing.T) {
	e, wh := engineOn(t, clinicNotesDump())
	for _, tc := range []struct{ question, gold string }{
		{"Show the patient names with visit summary 'Follow-up 2, stable' and 'Follow-up 5, stable'",
			"SELECT p.full_name FROM patients p WHERE EXISTS (SELECT 1 FROM visits v WHERE v.patient_id = p.patient_id AND v.summary = 'Follow-up 2, stable') AND EXISTS (SELECT 1 FROM visits v WHERE v.patient_id = p.patient_id AND v.summary = 'Follow-up 5, stable')"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if !strings.Contains(top.SQL, "GROUP BY patients.patient_id") {
				t.Errorf("each patient is grouped by key:\n%s", top.SQL)
			}
		})
	}
}

// A table's noun right before one of its columns, or before a value of
// one, says whose column it is ("book format ebook", "the writer name"):
// no second book left out.
func TestTableNounQualifiesColumn(t *testing.T) {
	e, wh := engineOn(t, pressDump())
	for _, tc := range []struct{ question, gold string }{
		{"How many books have book format ebook?", "SELECT COUNT(*) FROM books WHERE format = 'ebook'"},
		{"Show book ids, page counts, and book formats for all books.", "SELECT book_id, pages, format FROM books"},
		{"List the book titles of books with book format 'ebook'", "SELECT title FROM books WHERE format = 'ebook'"},
	} {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok {
				t.Errorf("likeliest reading:\n%s", top.SQL)
			}
			if len(top.Unused) > 0 {
				t.Errorf("words left out: %v", top.Unused)
			}
		})
	}
}

// wardsDump: wards named by a code, and beds that refer to their ward by
// that code (the beds' only text column).
func wardsDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE wards (ward_code VARCHAR(8) PRIMARY KEY, description VARCHAR(40));
CREATE TABLE beds (bed_id INT PRIMARY KEY, ward_code VARCHAR(8), floor INT,
  FOREIGN KEY (ward_code) REFERENCES wards(ward_code));
INSERT INTO wards VALUES ('MAT', 'Maternity'), ('ICU', 'Intensive care'), ('ORT', 'Orthopaedics');
`)
	codes := []string{"MAT", "ICU", "ORT", "MAT", "MAT", "ORT", "MAT", "ICU", "ORT", "MAT"}
	for i, c := range codes {
		fmt.Fprintf(&b, "INSERT INTO beds VALUES (%d, '%s', %d);\n", i+1, c, 1+i%3)
	}
	return b.String()
}

// A ranked column that refers to another table's rows is what the groups
// are, even when it is the only text naming its own rows: "which ward
// code is used by the most beds" counts beds per code.
func TestRankedReferenceColumnGroups(t *testing.T) {
	e, wh := engineOn(t, wardsDump())
	top, ok := topReading(t, e, wh, "Which ward code is used by the most beds?",
		"SELECT ward_code FROM beds GROUP BY ward_code ORDER BY COUNT(*) DESC LIMIT 1")
	if !ok {
		t.Errorf("likeliest reading:\n%s", top.SQL)
	}
}
