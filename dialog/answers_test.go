package dialog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// A small lending library: a schema in no evaluation set, for the rules
// of how answers read.
const libraryDump = `
CREATE TABLE members (
  id INT PRIMARY KEY COMMENT 'Member id',
  name VARCHAR(80) COMMENT 'Full name of the member',
  city VARCHAR(40) COMMENT 'City the member lives in',
  joined_on DATE COMMENT 'Date the member joined'
);
INSERT INTO members VALUES (1, 'Ada Lovelace', 'Leeds', '2021-03-01'), (2, 'Grace Hopper', 'York', '2022-05-10'),
  (3, 'Alan Turing', 'Leeds', '2023-01-15'), (4, 'Edsger Dijkstra', 'York', '2024-07-04'), (5, 'Barbara Liskov', 'Hull', '2024-09-09');
CREATE TABLE books (
  id INT PRIMARY KEY COMMENT 'Book id',
  title VARCHAR(120) COMMENT 'Title of the book',
  genre VARCHAR(30) COMMENT 'Genre: fiction, history or science',
  price DECIMAL(8,2) COMMENT 'Replacement price in euros'
);
INSERT INTO books VALUES (1, 'Dune', 'fiction', 12.50), (2, 'SPQR', 'history', 18.00), (3, 'Cosmos', 'science', 15.25), (4, 'Emma', 'fiction', 9.99);
CREATE TABLE loans (
  id INT PRIMARY KEY COMMENT 'Loan number',
  book_id INT COMMENT 'Book lent',
  member_id INT COMMENT 'Member who borrowed the book',
  loaned_on DATE COMMENT 'Date the book was lent',
  late_fee DECIMAL(8,2) COMMENT 'Late fee charged when the book came back'
);
INSERT INTO loans VALUES (1, 1, 1, '2025-01-05', 0.00), (2, 2, 1, '2025-02-11', 1250.50), (3, 3, 1, '2025-03-20', 0.00),
  (4, 1, 2, '2025-01-08', 2.00), (5, 4, 2, '2025-04-02', 0.00), (6, 2, 3, '2025-02-14', 3.75), (7, 3, 3, '2025-05-30', 0.00),
  (8, 4, 4, '2025-06-01', 1.25);
`

// libraryManager is a manager with the offline engine over the library.
func libraryManager(t *testing.T, cfg dialog.Config) *dialog.Manager {
	t.Helper()
	wh := testwh.NewDatabase(t, testwh.Targets()[0], libraryDump).Open(t, warehouse.Config{})
	snap, err := wh.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	facts, convs := dialogtest.Stores(t)
	cat := catalog.New(snap, catalog.Options{})
	cfg.Warehouse = "library"
	cfg.Now = dialogtest.Now
	m, err := dialog.New(cfg, dialog.Deps{Engine: offline.New(cat, offline.Options{Now: dialogtest.Now}), Exec: wh, Catalog: cat, Facts: facts, Admin: facts, States: convs})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// converse asks a question and takes the first option of every
// clarification until an answer or a notice comes.
func converse(t *testing.T, m *dialog.Manager, conv, q, locale string) dialog.Reply {
	t.Helper()
	who := dialog.Who{Platform: "test", Workspace: "lib", Channel: "c", User: "ana"}
	replies, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: q, Locale: locale})
	for turn := 0; err == nil; turn++ {
		last := replies[len(replies)-1]
		if last.Kind != dialog.ReplyClarification || turn == 6 {
			return last
		}
		replies, err = m.Handle(context.Background(), dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: who, Target: last.Clarification.ID, Locale: locale})
	}
	t.Fatalf("%s: %v", q, err)
	return dialog.Reply{}
}

func send(t *testing.T, m *dialog.Manager, ev dialog.Event) dialog.Reply {
	t.Helper()
	ev.Who = dialog.Who{Platform: "test", Workspace: "lib", Channel: "c", User: "ana"}
	replies, err := m.Handle(context.Background(), ev)
	if err != nil || len(replies) == 0 {
		t.Fatalf("%+v: %v %v", ev, replies, err)
	}
	return replies[len(replies)-1]
}

// TestRankingShowsItsFigure: a superlative's answer shows the figure it
// is ranked by beside the name, says it in a sentence, and keeps the
// reading's own result for what was asked.
func TestRankingShowsItsFigure(t *testing.T) {
	t.Parallel()
	m := libraryManager(t, dialog.Config{})
	r := converse(t, m, "most", "which member has the most loans?", "")
	a := mustAnswer(t, r)
	if a.Headline != "Ada Lovelace, with 3 loans." {
		t.Fatalf("headline %q\n%s", a.Headline, r.Text)
	}
	if got := a.Columns[len(a.Columns)-1]; got != "Loans" || len(a.Rows) != 1 || a.Rows[0][len(a.Rows[0])-1] != "3" {
		t.Fatalf("the figure should be the last column: %v %v", a.Columns, a.Rows)
	}
	if a.Added != 1 || len(a.Reading().Columns) != len(a.Result.Columns)-1 || len(a.Reading().Rows[0]) != len(a.Result.Columns)-1 {
		t.Fatalf("the reading's own result should leave the figure out: added %d, %v", a.Added, a.Reading().Columns)
	}
	if !strings.Contains(r.Text, "Ada Lovelace, with 3 loans.") {
		t.Fatalf("the plain text should say it too:\n%s", r.Text)
	}
	sql := send(t, m, dialog.Event{Kind: dialog.EventShowSQL, Conversation: "most", Target: a.ID})
	if !strings.Contains(sql.SQL, "COUNT(*) AS ") {
		t.Fatalf("show SQL should show the statement that ran:\n%s", sql.SQL)
	}

	// Money: the figure in the warehouse's currency (the books' prices say
	// euros; the fees do not), in the sentence as in the table.
	r = converse(t, m, "fee", "which member paid the highest total late fee?", "")
	a = mustAnswer(t, r)
	if a.Headline != "Ada Lovelace, with €1,250.50 in late fee." {
		t.Fatalf("headline %q\n%s", a.Headline, r.Text)
	}
	// The asker's locale writes the same figure their way.
	r = converse(t, m, "fee-de", "which member paid the highest total late fee?", "de-DE")
	if a = mustAnswer(t, r); a.Headline != "Ada Lovelace, with €1.250,50 in late fee." {
		t.Fatalf("de-DE headline %q", a.Headline)
	}
}

// TestPlainHeadings: headings come from the select list and the catalog,
// never the SQL; no heading holds a bracket or a dot.
func TestPlainHeadings(t *testing.T) {
	t.Parallel()
	m := libraryManager(t, dialog.Config{})
	cases := []struct {
		q    string
		want []string
	}{
		{"how many loans are there?", []string{"Loans"}},
		{"total late fee per city", []string{"City", "Late fee"}},
		{"average price of books per genre", []string{"Genre", "Average replacement price"}},
		{"list the members", []string{"Member"}},
	}
	for _, tc := range cases {
		t.Run(tc.q, func(t *testing.T) {
			a := mustAnswer(t, converse(t, m, tc.q, tc.q, ""))
			for _, w := range tc.want {
				found := false
				for _, h := range a.Columns {
					found = found || h == w
				}
				if !found {
					t.Errorf("headings %q lack %q (%s)", a.Columns, w, a.SQL)
				}
			}
			for i, h := range a.Columns {
				if strings.ContainsAny(h, "(._") || h == a.Result.Columns[i].Name && strings.ContainsAny(h, "_(") {
					t.Errorf("heading %q reads as SQL", h)
				}
			}
		})
	}
}

// TestPagingThroughAnAnswer: 'more' shows the next rows of the kept
// result, 'all' the rest, 'csv' all of them as a file with plain headings
// and raw values; past the end it says so. Without the kept result the
// answer's statement runs again, and the reply says so.
func TestPagingThroughAnAnswer(t *testing.T) {
	t.Parallel()
	for _, kept := range []int{0, -1} {
		m := libraryManager(t, dialog.Config{DisplayRows: 2, KeptCells: kept})
		a := mustAnswer(t, converse(t, m, "loans", "list the loans", ""))
		if len(a.Rows) != 2 || a.RowCount != 8 || a.More() != 6 {
			t.Fatalf("first page %v of %d", a.Rows, a.RowCount)
		}
		p := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "loans", Text: "show more"})
		if p.Kind != dialog.ReplyRows || p.Answer.Offset != 2 || len(p.Answer.Rows) != 2 || p.Answer.ID != a.ID {
			t.Fatalf("more: %v %+v", p.Kind, p.Answer)
		}
		if fmtRow(p.Answer.Rows[0]) != fmtRow(formatted(a, 2)) {
			t.Fatalf("row 3 is %v, want %v", p.Answer.Rows[0], formatted(a, 2))
		}
		if rerun := strings.Contains(p.Text, "ran the answer's query again"); rerun != (kept < 0) {
			t.Fatalf("kept=%d: the rerun note is wrong:\n%s", kept, p.Text)
		}
		// A button says how far its message showed.
		p = send(t, m, dialog.Event{Kind: dialog.EventMore, Conversation: "loans", Target: a.ID, Option: 5})
		if p.Answer.Offset != 5 || len(p.Answer.Rows) != 2 {
			t.Fatalf("more from 5: %+v", p.Answer)
		}
		p = send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "loans", Text: "all"})
		if p.Answer.Offset != 7 || len(p.Answer.Rows) != 1 || !strings.Contains(p.Text, "that is all of them") {
			t.Fatalf("all: %+v\n%s", p.Answer, p.Text)
		}
		if n := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "loans", Text: "more"}); n.Kind != dialog.ReplyNotice || !strings.Contains(n.Text, "That's all of them: the answer has 8 rows.") {
			t.Fatalf("past the end: %s", n.Text)
		}
		f := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "loans", Text: "csv"})
		if f.Kind != dialog.ReplyFile || f.File.Rows != 8 || !strings.HasSuffix(f.File.Name, ".csv") {
			t.Fatalf("csv: %+v", f)
		}
		lines := strings.Split(strings.TrimSpace(string(f.File.Data)), "\n")
		if len(lines) != 9 || strings.ContainsAny(lines[0], "_(") || strings.ContainsAny(string(f.File.Data), "€") {
			t.Fatalf("the CSV should hold plain headings and raw values:\n%s", f.File.Data)
		}
	}
	// Nothing answered yet: the words are not a question.
	m := libraryManager(t, dialog.Config{})
	if n := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "none", Text: "more"}); n.Kind != dialog.ReplyNotice || !strings.Contains(n.Text, "no answer here") {
		t.Fatalf("more before any answer: %s", n.Text)
	}
}

func formatted(a *dialog.Answer, row int) []string {
	out := make([]string, len(a.Result.Rows[row]))
	for j, v := range a.Result.Rows[row] {
		out[j] = a.Formats[j].Value(v)
	}
	return out
}

func fmtRow(r []string) string { return strings.Join(r, "|") }

// TestQuestionsAboutTheData: what the warehouse holds, what to ask and
// what a word means are answered from the catalog, generically.
func TestQuestionsAboutTheData(t *testing.T) {
	t.Parallel()
	m := libraryManager(t, dialog.Config{})
	for _, q := range []string{"what tables are there?", "What can I ask?", "what data do you have", "examples"} {
		r := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "about", Text: q})
		for _, want := range []string{"This warehouse holds 3 subjects", "• Loans — 8 rows: count them, add up late fee", "• Members — 5 rows: count them, by city", "Try: \"how many loans were there in 2025?\"", "\"late fee by month in 2025\"", " by late fee\""} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("%q: the overview lacks %q:\n%s", q, want, r.Text)
			}
		}
	}
	help := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "about", Text: "help"})
	if !strings.Contains(help.Text, "\"more\" shows the next rows") || !strings.Contains(help.Text, "This warehouse holds 3 subjects") {
		t.Errorf("help should show the commands and the data:\n%s", help.Text)
	}
	cases := []struct{ q, want string }{
		{"what does late fee mean?", "In the data, 'late fee' is late fee charged when the book came back (loans)."},
		{"define genre", "In the data, 'genre' is genre: fiction, history or science (books)."},
		{"what does Leeds mean", "'Leeds' is a city of members (city the member lives in)."},
		{"what does wibble mean?", "I don't know 'wibble' from the data or the team's definitions."},
	}
	for _, tc := range cases {
		r := send(t, m, dialog.Event{Kind: dialog.EventMessage, Conversation: "about", Text: tc.q})
		if !strings.Contains(r.Text, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.q, tc.want, r.Text)
		}
	}
	// A question that only starts like one is still a question.
	r := converse(t, m, "q", "what does each member owe in late fees?", "")
	if strings.Contains(r.Text, "I don't know") {
		t.Errorf("a question was taken for a question about a word:\n%s", r.Text)
	}
}
