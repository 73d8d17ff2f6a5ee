package read_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// clinic is a small schema of our own: patients are seen in visits on
// wards; a visit has a fee.
func clinic(t *testing.T) *links.Reader {
	t.Helper()
	cols := testwh.Columns
	var names []string
	for i := 1; i <= 12; i++ {
		names = append(names, fmt.Sprintf("Guest %02d", i))
	}
	snap := &warehouse.Snapshot{
		Schema: warehouse.Schema{
			Tables: []warehouse.Table{
				{Name: "patients", PrimaryKey: []string{"patient_id"}, RowCount: 200,
					Columns: cols("patients", "patient_id", "int", "patient_name", "varchar", "city", "varchar", "birth_date", "date")},
				{Name: "wards", PrimaryKey: []string{"ward_id"}, RowCount: 4,
					Columns: cols("wards", "ward_id", "int", "ward_name", "varchar", "floor", "int")},
				{Name: "visits", PrimaryKey: []string{"visit_id"}, RowCount: 900,
					Columns: cols("visits", "visit_id", "int", "patient_id", "int", "ward_id", "int", "fee", "decimal", "visited_on", "date")},
			},
			Joins: []warehouse.Join{
				{FromTable: "visits", FromColumn: "patient_id", ToTable: "patients", ToColumn: "patient_id", Declared: true, Confidence: 1},
				{FromTable: "visits", FromColumn: "ward_id", ToTable: "wards", ToColumn: "ward_id", Declared: true, Confidence: 1},
			},
		},
		Profiles: []warehouse.Profile{
			{Table: "patients", Column: "city", Rows: 200, Distinct: 3, Values: []string{"Leeds", "York", "Hull"}, ValuesComplete: true},
			{Table: "wards", Column: "ward_name", Rows: 4, Distinct: 4, Values: []string{"Intensive Care", "Maternity", "Oncology", "Surgery"}, ValuesComplete: true},
			{Table: "visits", Column: "fee", Rows: 900, Distinct: 300, Min: "5", Max: "900"},
			{Table: "patients", Column: "patient_name", Rows: 12, Distinct: 12, Values: names, ValuesComplete: true},
		},
	}
	return links.NewReader(schema.New(catalog.New(snap, catalog.Options{})), nil)
}

// TestAnalyse: the reader links a question's words to the schema and
// finds the elements it asks for, and marks the words it took.
func TestAnalyse(t *testing.T) {
	r := clinic(t)
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		question string
		feedback []dialog.Feedback
		check    func(t *testing.T, a *links.Analysis)
	}{
		{"a stored value links to its column and is taken", "how many patients live in Leeds?", nil, func(t *testing.T, a *links.Analysis) {
			if !a.Count {
				t.Error("no count found")
			}
			if len(a.Values) != 1 || a.Values[0].Phrase != "Leeds" || a.Values[0].Alts[0].Table != "patients" || a.Values[0].Alts[0].Column != "city" {
				t.Fatalf("values %+v, want Leeds in patients.city", a.Values)
			}
			if !a.Toks[a.Values[0].At].Used {
				t.Error("the value's word is not marked used")
			}
		}},
		{"a two-word value is one mention, with the column named after it", "visits on the Intensive Care ward", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Values) != 1 || a.Values[0].Phrase != "Intensive Care ward" || len(a.Values[0].Alts) != 1 ||
				a.Values[0].Alts[0].Value != "Intensive Care" || a.Values[0].Alts[0].Column != "ward_name" {
				t.Fatalf("values %+v, want Intensive Care in wards.ward_name", *a.Values[0])
			}
		}},
		{"a table by a plural noun", "list the wards", nil, func(t *testing.T, a *links.Analysis) {
			if !slices.ContainsFunc(a.Entities, func(em *links.EntityMention) bool { return em.Tables[0].Name == "wards" }) {
				t.Errorf("entities %+v, want wards", a.Entities)
			}
		}},
		{"a window ending now", "visits in the last 30 days", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Times) != 1 || a.Times[0].Days != 30 {
				t.Errorf("times %+v, want a 30-day window", a.Times)
			}
		}},
		{"a comparison of a number", "visits with a fee of more than 20", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Comps) != 1 || a.Comps[0].Op != ">" || a.Comps[0].Value != 20 {
				t.Errorf("comparisons %+v, want > 20", a.Comps)
			}
		}},
		{"an aggregate per group", "average fee per ward", nil, func(t *testing.T, a *links.Analysis) {
			if a.Agg != "AVG" {
				t.Errorf("aggregate %q, want AVG", a.Agg)
			}
			if len(a.Groups) != 1 || a.Groups[0].Phrase != "ward" {
				t.Errorf("groups %+v, want ward", a.Groups)
			}
		}},
		{"a superlative keeps a number of rows", "the three oldest patients", nil, func(t *testing.T, a *links.Analysis) {
			if a.Sup == nil || a.Sup.Limit != 3 {
				t.Errorf("superlative %+v, want one keeping 3 rows", a.Sup)
			}
		}},
		{"a name with a number is one value", "show the patient named Guest 07", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Values) != 1 || len(a.Values[0].Alts) != 1 || a.Values[0].Alts[0].Value != "Guest 07" {
				t.Fatalf("values %v, want Guest 07 alone", a.Mentions())
			}
			if !a.Toks[len(a.Toks)-1].Used {
				t.Error("the number is not taken with the name")
			}
		}},
		{"a number column's name and a number are a condition", "which wards are on floor 2", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Comps) != 1 || a.Comps[0].Op != "=" || a.Comps[0].Value != 2 || a.Comps[0].Target != "floor" {
				t.Fatalf("comparisons %v, want floor = 2", a.Mentions())
			}
		}},
		{"a comparison typed as a sign", "visits with a fee >= 20", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Comps) != 1 || a.Comps[0].Op != ">=" || a.Comps[0].Value != 20 || a.Comps[0].Target != "fee" {
				t.Fatalf("comparisons %v, want fee >= 20", a.Mentions())
			}
		}},
		{"a text column's name and a number are not", "which wards named Ward 2", nil, func(t *testing.T, a *links.Analysis) {
			if len(a.Comps) != 0 {
				t.Fatalf("comparisons %v, want none", a.Mentions())
			}
		}},
		{"feedback is read after the question, in its own clause", "how many visits?", []dialog.Feedback{{Text: "only in York"}}, func(t *testing.T, a *links.Analysis) {
			if len(a.Values) != 1 || a.Values[0].Phrase != "York" || a.Toks[a.Values[0].At].Clause != 1 {
				t.Errorf("values %+v, want York from the feedback's clause", a.Values)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, read.Analyse(r, c.question, c.feedback, nil, now))
		})
	}
}
