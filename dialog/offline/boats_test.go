package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// boatDump is a boatyard register whose tables are mostly named after its
// subject (boat_builders, boat_names, boats_data): builders, the models
// they build, the names boats are sold under and each boat's data.
func boatDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE harbours (harbour_id INT PRIMARY KEY, harbour_name VARCHAR(40));
CREATE TABLE boat_builders (builder_id INT PRIMARY KEY, builder VARCHAR(20), full_name VARCHAR(40), harbour_id INT,
  FOREIGN KEY (harbour_id) REFERENCES harbours(harbour_id));
CREATE TABLE model_list (model_id INT PRIMARY KEY, builder_id INT, model VARCHAR(30), FOREIGN KEY (builder_id) REFERENCES boat_builders(builder_id));
CREATE TABLE boat_names (name_id INT PRIMARY KEY, hull VARCHAR(30), make VARCHAR(40));
CREATE TABLE boats_data (id INT PRIMARY KEY, length_m DOUBLE, launched INT, FOREIGN KEY (id) REFERENCES boat_names(name_id));
CREATE TABLE owners (owner_id INT PRIMARY KEY, owner_name VARCHAR(40));
`)
	for i, h := range []string{"Kirkwall", "Lerwick", "Oban"} {
		fmt.Fprintf(&b, "INSERT INTO harbours VALUES (%d, '%s');\n", i+1, h)
	}
	builders := []string{"nordsea", "tidewell", "saltmere", "gannet"}
	for i, n := range builders {
		fmt.Fprintf(&b, "INSERT INTO boat_builders VALUES (%d, '%s', '%s Yachts', %d);\n", i+1, n, strings.ToUpper(n[:1])+n[1:], 1+i%3)
	}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO model_list VALUES (%d, %d, 'hull%02d');\n", i, 1+(i*3)%4, i)
		fmt.Fprintf(&b, "INSERT INTO boat_names VALUES (%d, 'H-%02d', 'Hull %02d Cruiser');\n", i, i, i)
		fmt.Fprintf(&b, "INSERT INTO boats_data VALUES (%d, %d.5, %d);\n", i, 6+i%9, 1990+i)
	}
	return b.String()
}

// TestTheSchemasOwnSubject: "boat" names what the whole register is about;
// before another thing's noun ("boat models", "the boat builder") it adds
// nothing to a reading of model_list and boat_builders. "harbour" names
// one table, left out.
func TestTheSchemasOwnSubject(t *testing.T) {
	e, _ := engineOn(t, boatDump())
	cases := []struct{ question, sql, unused string }{
		{"How many boat models are built by each builder?", "COUNT(*) AS count\nFROM boat_builders\nJOIN model_list", ""},
		{"How many boat models were built by the boat builder with full name Tidewell Yachts?", "COUNT(*) AS count\nFROM boat_builders\nJOIN model_list", ""},
		// One table's noun is no subject of the whole schema.
		{"How many harbour models are built by each builder?", "COUNT(*) AS count\nFROM boat_builders\nJOIN model_list", "harbour models"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			i := slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, tc.sql) })
			if i < 0 {
				t.Fatalf("no reading with %s; likeliest:\n%s", tc.sql, p.Candidates[0].SQL)
			}
			if c := p.Candidates[i]; strings.Join(c.Unused, " ") != tc.unused {
				t.Fatalf("unused %v, want %q:\n%s", c.Unused, tc.unused, c.SQL)
			}
		})
	}
}

// TestIdentifiersAreNoQuantities: a reading that compares "more than 2"
// with a key ("builders that built more than 2 models" as builder_id > 2)
// reports the comparison; where the question names the id, it is used.
func TestIdentifiersAreNoQuantities(t *testing.T) {
	e, _ := engineOn(t, boatDump())
	cases := []struct{ question, sql, unused string }{
		{"Which builders built more than 2 models?", "boat_builders.builder_id > 2", "more than 2"},
		{"Which builders have a builder id over 2?", "boat_builders.builder_id > 2", ""},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, tc.sql) })
			if i < 0 {
				t.Fatalf("no reading with %s", tc.sql)
			}
			if c := p.Candidates[i]; !strings.Contains(" "+strings.Join(c.Unused, " ")+" ", " "+tc.unused+" ") || tc.unused == "" && len(c.Unused) > 0 {
				t.Fatalf("unused %v, want %q:\n%s", c.Unused, tc.unused, c.SQL)
			}
		})
	}
}

// TestHowManyEachHasByLabel: "builders that built more than 2 models"
// counts each builder's rows of model_list, named by its label column
// (past the schema's subject, "boat models"), and shows the builders.
func TestHowManyEachHasByLabel(t *testing.T) {
	e, _ := engineOn(t, boatDump())
	for _, q := range []string{
		"Which builders built more than 2 models?",
		"Which builders designed more than 3 boat models? Show the full name of each.",
	} {
		t.Run(q, func(t *testing.T) {
			p := proposal(t, e, q)
			c := p.Candidates[0]
			if !strings.HasPrefix(c.SQL, "SELECT boat_builders.") || !strings.Contains(c.SQL, "FROM model_list GROUP BY model_list.builder_id HAVING COUNT(*) >") || len(c.Unused) > 0 {
				t.Fatalf("likeliest reading (unused %v):\n%s", c.Unused, c.SQL)
			}
		})
	}
}
