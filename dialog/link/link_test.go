package link

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/lexicon"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// library is a small lending library of our own.
func library(t *testing.T) *Linker {
	t.Helper()
	col := func(table, name, typ, comment string) warehouse.Column {
		return warehouse.Column{Table: table, Name: name, DataType: typ, Comment: comment}
	}
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{
		{Name: "patrons", Comment: "People with a library card", Columns: []warehouse.Column{
			col("patrons", "id", "int", ""), col("patrons", "name", "varchar", "Full name"), col("patrons", "city", "varchar", "Place of residence")}},
		{Name: "books", Comment: "Titles in the catalogue", Columns: []warehouse.Column{
			col("books", "id", "int", ""), col("books", "title", "varchar", ""), col("books", "genre", "varchar", "Genre such as Poetry")}},
		{Name: "loans", Comment: "Books lent to patrons", Columns: []warehouse.Column{
			col("loans", "id", "int", ""), col("loans", "book_id", "int", ""), col("loans", "patron_id", "int", ""),
			col("loans", "branch", "varchar", "Branch that lent the book"), col("loans", "lent_on", "date", ""), col("loans", "fine_amount", "decimal", "")}},
		{Name: "librarians", Comment: "Staff members", Columns: []warehouse.Column{
			col("librarians", "id", "int", ""), col("librarians", "name", "varchar", "")}},
		{Name: "vehicles", Comment: "The library's mobile branches", Columns: []warehouse.Column{
			col("vehicles", "id", "int", ""), col("vehicles", "plate", "varchar", "")}},
	}}, Profiles: []warehouse.Profile{
		{Table: "books", Column: "genre", Rows: 100, Distinct: 3, Top: []warehouse.ValueCount{{Value: "Poetry", Count: 40}, {Value: "Mystery", Count: 30}, {Value: "History", Count: 30}}},
		{Table: "loans", Column: "branch", Rows: 1000, Distinct: 4, Top: []warehouse.ValueCount{{Value: "Eastside", Count: 400}, {Value: "Harbor", Count: 600}}},
		{Table: "patrons", Column: "city", Rows: 200, Distinct: 150},
	}}
	lex, err := lexicon.Default()
	if err != nil {
		t.Fatal(err)
	}
	return New(catalog.New(snap, catalog.Options{}), lex)
}

func TestSpanEvidence(t *testing.T) {
	l := library(t)
	tests := []struct {
		span     string
		vocab    []Word
		want     string
		evidence Evidence
	}{
		{"books", nil, "books", Exact},
		{"book", nil, "books", Inflection},
		{"patron", nil, "patrons", Inflection},
		{"volumes", nil, "books", Synonym}, // WordNet: book, volume
		{"lending", nil, "loans", Synonym}, // WordNet: loan, lending
		{"poetry", nil, "books.genre = Poetry", Value},
		{"readers", []Word{{Word: "reader", Element: Element{Kind: "table", Table: "patrons"}}}, "patrons", Vocabulary},
		{"readers", []Word{{Word: "readers", Element: Element{Kind: "table", Table: "patrons"}, Team: true}}, "patrons", Glossary},
		{"residence", nil, "patrons.city", Comment},
		{"trucks", nil, "vehicles", Hypernym}, // WordNet: a truck is a kind of vehicle
		{"fines", nil, "loans.fine_amount", Part},
		{"conveyances", nil, "vehicles", Hyponym}, // WordNet: a vehicle is a kind of conveyance
	}
	for _, tt := range tests {
		lk := l.Span(tt.span, tt.vocab)
		if len(lk.Candidates) == 0 {
			t.Errorf("%q: no candidates", tt.span)
			continue
		}
		c := lk.Candidates[0]
		if c.Element.Name() != tt.want || c.Evidence != tt.evidence {
			t.Errorf("%q: best %s by %s (%v), want %s by %s", tt.span, c.Element.Name(), c.Evidence, lk.Candidates, tt.want, tt.evidence)
		}
	}
}

// A word of a key column's name is not that column: "patron" is the
// patrons table, never loans.patron_id.
func TestPartSkipsKeys(t *testing.T) {
	l := library(t)
	for _, c := range l.Span("patron", nil).Candidates {
		if c.Element.Column == "patron_id" {
			t.Errorf("patron links to %s by %s", c.Element.Name(), c.Evidence)
		}
	}
	if lk := l.Span("fine", nil); lk.Confident() {
		t.Errorf("a word of a longer name settles the word: %v", lk.Candidates)
	}
}

func TestMeasure(t *testing.T) {
	l := library(t)
	for span, want := range map[string]bool{"month": true, "weekends": true, "kilometers": true, "integer": true, "borrowers": false, "outlet": false, "volumes": false} {
		if got := l.Measure(span); got != want {
			t.Errorf("Measure(%q) = %v, want %v", span, got, want)
		}
	}
}

func TestQuestionUnknownWords(t *testing.T) {
	l := library(t)
	links := l.Question("how many volumes did each borrower take at every outlet?", nil)
	var unknown []string
	for _, lk := range Unknown(links) {
		unknown = append(unknown, lk.Span)
	}
	// "volumes" is only a lexicon synonym: not settled, but offered first.
	want := []string{"volumes", "borrower", "take", "outlet"}
	if len(unknown) != len(want) {
		t.Fatalf("unknown %v, want %v", unknown, want)
	}
	for i := range want {
		if unknown[i] != want[i] {
			t.Fatalf("unknown %v, want %v", unknown, want)
		}
	}
	if got := l.Suggest(Unknown(links)[0], links, 3); len(got) == 0 || got[0].Element.Table != "books" {
		t.Errorf("suggestions for volumes: %v", got)
	}
}

func TestSuggestFromContext(t *testing.T) {
	l := library(t)
	links := l.Question("how many loans did each outlet make?", nil)
	var outlet Link
	for _, lk := range links {
		if lk.Span == "outlet" {
			outlet = lk
		}
	}
	got := l.Suggest(outlet, links, 3)
	if len(got) == 0 || got[0].Element.Name() != "loans.branch" || got[0].Evidence != Context {
		t.Fatalf("suggestions for outlet beside loans: %v, want loans.branch by context first", got)
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string]string{"patron_id": "patron id", "shippedAt": "shipped at", "Sales Reps": "sales reps"} {
		if got := Split(in); got != want {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNounIn: a word that is mostly a verb ("mark", "charge") names a
// thing after an adjective ("the lowest mark", "how many charges"), not
// elsewhere; a word with no noun sense never does.
func TestNounIn(t *testing.T) {
	l := library(t)
	for _, c := range []struct {
		question, span string
		want, noun     bool // noun: Noun alone says so
	}{
		{"what is the lowest mark?", "mark", true, false},
		{"how many charges were made?", "charges", true, false},
		{"mark the books as lost", "mark", false, false},
		{"which patrons were charged most", "charged", false, false},
		{"list the books", "books", true, true},
		{"how many active patrons are there", "active", false, false},
		{"how many lost books are there", "lost", false, false},
	} {
		if l.Noun(c.span) != c.noun {
			t.Errorf("Noun(%q) = %v, want %v", c.span, !c.noun, c.noun)
		}
		if got := l.NounIn(c.question, c.span); got != c.want {
			t.Errorf("NounIn(%q, %q) = %v, want %v (Noun alone: %v)", c.question, c.span, got, c.want, l.Noun(c.span))
		}
	}
}

// TestCompoundHead: a word the lexicon relates to a compound ("farmhand"
// → "farm worker") names what the compound's last word names: a kind of
// worker is in the workers table.
func TestCompoundHead(t *testing.T) {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{
		{Name: "workers", Columns: []warehouse.Column{{Table: "workers", Name: "id", DataType: "int"}, {Table: "workers", Name: "name", DataType: "varchar"}}},
		{Name: "fields", Columns: []warehouse.Column{{Table: "fields", Name: "id", DataType: "int"}, {Table: "fields", Name: "hectares", DataType: "decimal"}}},
	}}}
	lex, err := lexicon.Default()
	if err != nil {
		t.Fatal(err)
	}
	l := New(catalog.New(snap, catalog.Options{}), lex)
	lk := l.Span("farmhands", nil)
	if len(lk.Candidates) == 0 || lk.Candidates[0].Element.Name() != "workers" || lk.Candidates[0].Evidence != Hypernym {
		t.Errorf("farmhands: %v, want workers by hypernym", lk.Candidates)
	}
}
