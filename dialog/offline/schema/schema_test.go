package schema

import (
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// library is a small schema of our own: members borrow copies of books at
// branches; fines are kept per day; branches declare no key but their
// codes are profiled unique.
func library(t *testing.T) *Model {
	t.Helper()
	cols := testwh.Columns
	snap := &warehouse.Snapshot{
		Schema: warehouse.Schema{
			Tables: []warehouse.Table{
				{Name: "members", PrimaryKey: []string{"member_id"}, RowCount: 40,
					Columns: cols("members", "member_id", "int", "member_name", "varchar", "email", "varchar", "joined_on", "date", "birth_year", "int")},
				{Name: "loans", PrimaryKey: []string{"loan_id"}, RowCount: 300,
					Columns: cols("loans", "loan_id", "int", "member_id", "int", "branch_code", "varchar", "loan_number", "int", "amount_paid", "decimal", "order", "int")},
				{Name: "fines_daily", RowCount: 90,
					Columns: cols("fines_daily", "member_id", "int", "fine_amount", "decimal", "day", "date")},
				{Name: "branches", RowCount: 3,
					Columns: cols("branches", "branch_code", "varchar", "city", "varchar", "state_code", "varchar", "state_name", "varchar")},
			},
			Joins: []warehouse.Join{
				{FromTable: "loans", FromColumn: "member_id", ToTable: "members", ToColumn: "member_id", Declared: true, Confidence: 1},
				{FromTable: "loans", FromColumn: "branch_code", ToTable: "branches", ToColumn: "branch_code", Declared: true, Confidence: 1},
				{FromTable: "fines_daily", FromColumn: "member_id", ToTable: "members", ToColumn: "member_id", Declared: true, Confidence: 1},
			},
		},
		Profiles: []warehouse.Profile{
			{Table: "branches", Column: "branch_code", Rows: 3, Distinct: 3},
			{Table: "branches", Column: "city", Rows: 3, Distinct: 2},
			{Table: "members", Column: "email", Rows: 40, Distinct: 40},
			{Table: "loans", Column: "amount_paid", Rows: 100, Distinct: 100, Sampled: true},
		},
		Aliases: []warehouse.ValueAlias{{Table: "branches", CodeColumn: "state_code", NameColumn: "state_name", Code: "VT", Name: "Vermont"}},
	}
	return New(catalog.New(snap, catalog.Options{}))
}

func names(cs []*warehouse.Column) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestClassify(t *testing.T) {
	m := library(t)
	cases := []struct {
		table             string
		label, key        string
		measures, details []string
	}{
		// The name column labels a row; e-mail is a detail; a year is no measure.
		{"members", "member_name", "member_id", nil, []string{"member_id", "member_name", "email"}},
		// "loan_number" names a loan, "amount_paid" ends in "id" but is money,
		// a column named after a reserved word is still a measure.
		{"loans", "loan_number", "loan_id", []string{"amount_paid", "order"}, []string{"loan_id", "loan_number"}},
		// No key declared and none named after the table.
		{"fines_daily", "", "", []string{"fine_amount"}, nil},
		// No key declared: the code named after the table, unique in every
		// row, is the key; a name column labels the row.
		{"branches", "state_name", "branch_code", nil, []string{"branch_code", "state_name"}},
	}
	for _, tc := range cases {
		t.Run(tc.table, func(t *testing.T) {
			info := m.ByName[tc.table]
			if info == nil {
				t.Fatalf("no table %s", tc.table)
			}
			var label, key string
			if info.Label != nil {
				label = info.Label.Name
			}
			if info.Key != nil {
				key = info.Key.Name
			}
			if label != tc.label || key != tc.key {
				t.Errorf("label %q key %q, want %q %q", label, key, tc.label, tc.key)
			}
			if got := names(info.Measures); !slices.Equal(got, tc.measures) {
				t.Errorf("measures %v, want %v", got, tc.measures)
			}
			if got := names(info.Details); !slices.Equal(got, tc.details) {
				t.Errorf("details %v, want %v", got, tc.details)
			}
		})
	}
}

func TestTermsAndNameWords(t *testing.T) {
	m := library(t)
	// A storage qualifier ("_daily") is not what people call the rows.
	term := strings.Join(m.Cat.NameTerms("fines"), " ")
	if got := m.ByTerm[term]; len(got) != 1 || got[0].Name != "fines_daily" {
		t.Errorf("term %q → %v, want fines_daily", term, got)
	}
	for name, want := range map[string]string{"fines_daily": "fines", "members": "members", "loan_items": "", "map": "", "neighbour_info": "neighbour"} {
		if got := NameWord(name); got != want {
			t.Errorf("NameWord(%q) = %q, want %q", name, got, want)
		}
	}
	var named []string
	for _, n := range m.Named {
		named = append(named, n.Word)
	}
	if !slices.Equal(named, []string{"members", "loans", "fines", "branches"}) {
		t.Errorf("named tables %v", named)
	}
}

func TestLinksAndValues(t *testing.T) {
	m := library(t)
	if !m.Refs["loans"]["members"] || !m.Refs["loans"]["branches"] || m.Refs["members"]["loans"] {
		t.Errorf("refs %v: loans refer to members and branches, not the other way", m.Refs)
	}
	if m.ByName["loans"].Refs != 2 || m.ByName["members"].Refs != 0 {
		t.Errorf("join counts loans %d members %d", m.ByName["loans"].Refs, m.ByName["members"].Refs)
	}
	if !m.JoinCols["loans.member_id"] || m.JoinCols["loans.amount_paid"] {
		t.Error("join columns")
	}
	if got := m.Canon("VT"); got != "vermont" {
		t.Errorf("Canon(VT) = %q: a code reads as the name it stands for", got)
	}
	if !m.AliasTables["branches"] {
		t.Error("branches hold code/name pairs")
	}
	for _, tc := range []struct {
		table, column string
		want          bool
	}{
		{"members", "member_id", true},    // primary key
		{"branches", "branch_code", true}, // profiled: a value of its own in every row
		{"branches", "city", false},       // two branches share a city
		{"loans", "amount_paid", false},   // sampled: cannot tell
		{"members", "member_name", false}, // not profiled
		{"nowhere", "member_id", false},   // no such table
	} {
		if got := m.Unique(tc.table, tc.column); got != tc.want {
			t.Errorf("Unique(%s.%s) = %v, want %v", tc.table, tc.column, got, tc.want)
		}
	}
}

func TestIdent(t *testing.T) {
	m := library(t)
	for in, want := range map[string]string{
		"title":       "title",
		"order":       "`order`",
		"fine amount": "`fine amount`",
		"2nd_copy":    "`2nd_copy`",
		"odd`name":    "`odd``name`",
	} {
		if got := m.Ident(in); got != want {
			t.Errorf("Ident(%q) = %s, want %s", in, got, want)
		}
	}
	if got := m.Col("loans", "order"); got != "loans.`order`" {
		t.Errorf("Col = %s", got)
	}
}
