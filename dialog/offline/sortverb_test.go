package offline_test

import (
	"fmt"
	"strings"
	"testing"
)

// pantryDump is a kitchen's supplies of our own: each is ordered from a
// town on a date, at a cost.
func pantryDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE supplies (supply_id INT PRIMARY KEY, item VARCHAR(20), town VARCHAR(20), ordered_on DATE COMMENT 'Date the supply was ordered', cost DECIMAL(6,2));
`)
	items := []string{"flour", "sugar", "yeast", "salt", "butter", "oats"}
	towns := []string{"Leeds", "Ripon", "Selby"}
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&b, "INSERT INTO supplies VALUES (%d, '%s', '%s', '%d-%02d-11', %d.50);\n", i, items[i%6], towns[i%3], 2023+i%3, 1+i%12, 3+i*2)
	}
	return b.String()
}

// TestSortVerbOfAnEvent: "ordered" and "sorted" followed by "in" or
// "from" ask for a sort only when the clause says how (a key, a
// direction, alphabetically); otherwise the verb names what happened
// ("ordered in 2024", "ordered from Leeds") and no ORDER BY is added.
func TestSortVerbOfAnEvent(t *testing.T) {
	e, _ := engineOn(t, pantryDump())
	cases := []struct {
		question string
		want     []string
		not      string
	}{
		{"which items were ordered in 2024", []string{"supplies.ordered_on >= '2024-01-01'"}, "ORDER BY"},
		{"list the supplies ordered from Leeds", []string{"supplies.town = 'Leeds'"}, "ORDER BY"},
		{"list the items sorted in descending order of cost", []string{"ORDER BY supplies.cost DESC"}, ""},
		{"list the items sorted from lowest to highest", []string{"ORDER BY"}, ""},
		{"list the items ordered by cost", []string{"ORDER BY supplies.cost"}, ""},
	}
	for _, c := range cases {
		t.Run(c.question, func(t *testing.T) {
			sql := proposal(t, e, c.question).Candidates[0].SQL
			for _, w := range c.want {
				if !strings.Contains(sql, w) {
					t.Errorf("want %q in the likeliest reading:\n%s", w, sql)
				}
			}
			if c.not != "" && strings.Contains(sql, c.not) {
				t.Errorf("want no %q in the likeliest reading:\n%s", c.not, sql)
			}
		})
	}
}
