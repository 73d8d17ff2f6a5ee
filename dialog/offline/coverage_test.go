package offline_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
)

// atlasDump is a small atlas the engine was never tuned on: countries, the
// pairs of countries that neighbour each other (a relation of a table to
// itself, named after its column), and products with measures whose ranges
// differ by orders of magnitude.
func atlasDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE country (country_name VARCHAR(40) PRIMARY KEY, population INT, area INT);
CREATE TABLE neighbour_info (country_name VARCHAR(40), neighbour VARCHAR(40),
  FOREIGN KEY (country_name) REFERENCES country (country_name), FOREIGN KEY (neighbour) REFERENCES country (country_name));
CREATE TABLE town (town_name VARCHAR(40) PRIMARY KEY, country_name VARCHAR(40), inhabitants INT, FOREIGN KEY (country_name) REFERENCES country (country_name));
CREATE TABLE club (club_id INT PRIMARY KEY, club_name VARCHAR(40), town_name VARCHAR(40), FOREIGN KEY (town_name) REFERENCES town (town_name));
CREATE TABLE product (product_id INT PRIMARY KEY, product_name VARCHAR(40), unit_price DECIMAL(8,2), units_in_stock INT, reorder_level INT, unit_cost DECIMAL(8,2));
`)
	countries := []string{"Arland", "Borvia", "Celmar", "Dunmore", "Estova", "Fenwick"}
	for i, c := range countries {
		fmt.Fprintf(&b, "INSERT INTO country VALUES ('%s', %d, %d);\n", c, 1_000_000*(i+1), 50_000*(6-i))
	}
	for _, pair := range [][2]int{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}} {
		a, c := countries[pair[0]], countries[pair[1]]
		fmt.Fprintf(&b, "INSERT INTO neighbour_info VALUES ('%s', '%s'), ('%s', '%s');\n", a, c, c, a)
	}
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&b, "INSERT INTO town VALUES ('Town %02d', '%s', %d);\n", i, countries[(i*5)%len(countries)], 2_000+(i*7919)%90_000)
	}
	for i := 1; i <= 10; i++ {
		town := "NULL"
		if i%3 != 0 {
			town = fmt.Sprintf("'Town %02d'", i)
		}
		fmt.Fprintf(&b, "INSERT INTO club VALUES (%d, 'Club %02d', %s);\n", i, i, town)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO product VALUES (%d, 'Item %02d', %d.50, %d, 10, %d.25);\n", i, i, 1+i%40, 100+(i*173)%4900, i%7)
	}
	return b.String()
}

// TestReadingsUseEveryWord: a reading that leaves a word of the question
// out is less likely than one that uses it; numbers written in words are
// numbers; a comparison goes to the column whose stored values the
// threshold falls among.
func TestReadingsUseEveryWord(t *testing.T) {
	ctx := context.Background()
	e, wh := engineOn(t, atlasDump())
	cases := []struct {
		name, question, gold string
		// rank is the place the gold's interpretation must reach: 0 is the
		// likeliest; 1 where the question is ambiguous for another reason
		// ("largest": by area or by population).
		rank int
	}{
		{"a verb naming a relation column", "How many countries neighbour Celmar?",
			"SELECT COUNT(*) FROM neighbour_info WHERE country_name = 'Celmar'", 0},
		{"the largest of the related rows", "What is the largest country that neighbours Dunmore?",
			"SELECT country_name FROM country WHERE area = (SELECT MAX(c.area) FROM country c JOIN neighbour_info n ON n.neighbour = c.country_name WHERE n.country_name = 'Dunmore') AND country_name IN (SELECT neighbour FROM neighbour_info WHERE country_name = 'Dunmore')", 1},
		{"nested: a count in the top related thing", "How many towns are in the country with the largest population?",
			"SELECT COUNT(*) FROM town WHERE country_name = (SELECT country_name FROM country ORDER BY population DESC LIMIT 1)", 0},
		{"nested: a superlative within another", "What is the largest town in the smallest country?",
			"SELECT town_name FROM town WHERE inhabitants = (SELECT MAX(inhabitants) FROM town WHERE country_name = (SELECT country_name FROM country ORDER BY area LIMIT 1))", 1},
		{"per-group extreme: the group is a thing", "What is the largest town in each country?",
			"SELECT t.country_name, t.town_name FROM town t WHERE t.inhabitants = (SELECT MAX(inhabitants) FROM town WHERE country_name = t.country_name)", 1},
		{"computed: a margin of price over cost", "What is the average margin of products?",
			"SELECT AVG(unit_price - unit_cost) FROM product", 0},
		{"computed: the difference between two columns", "What is the difference between the units in stock and the reorder level of each product?",
			"SELECT product_name, units_in_stock - reorder_level FROM product", 1},
		{"exists: none of the thing the rows point at", "Which clubs are not in any town?",
			"SELECT club_name FROM club WHERE town_name IS NULL", 0},
		{"computed: a ratio between the rows two values name", "What is the ratio of the population of Borvia to the population of Estova?",
			"SELECT (SELECT population FROM country WHERE country_name = 'Borvia') / (SELECT population FROM country WHERE country_name = 'Estova')", 0},
		{"numbers in words", "Which countries have a population of more than three million?",
			"SELECT country_name FROM country WHERE population > 3000000", 0},
		{"a threshold among the stored values", "Which products are below five hundred?",
			"SELECT product_name FROM product WHERE units_in_stock < 500", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gold, err := wh.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatalf("gold: %v", err)
			}
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("%q: no reading (%v)", tc.question, err)
			}
			// Readings with equal results are one interpretation, as in the
			// dialog; interpretations are ranked by their summed priors.
			type interpretation struct {
				res   *warehouse.Result
				prior float64
				sql   string
			}
			var groups []*interpretation
			var all []string
		next:
			for _, c := range p.Candidates {
				all = append(all, fmt.Sprintf("%.3f %v %s", c.Prior, c.Unused, c.SQL))
				res, err := wh.Query(ctx, c.SQL, warehouse.Limits{})
				if err != nil {
					t.Fatalf("a reading fails: %v\n%s", err, c.SQL)
				}
				for _, g := range groups {
					if eval.Match(res, g.res, false) {
						g.prior += c.Prior
						continue next
					}
				}
				groups = append(groups, &interpretation{res: res, prior: c.Prior, sql: c.SQL})
			}
			sort.SliceStable(groups, func(i, j int) bool { return groups[i].prior > groups[j].prior })
			for rank, g := range groups {
				if eval.Match(g.res, gold, false) {
					if rank > tc.rank {
						t.Fatalf("%q: the right interpretation ranks %d (%.3f), want ≤ %d:\n%s", tc.question, rank, g.prior, tc.rank, strings.Join(all, "\n--\n"))
					}
					return
				}
			}
			t.Fatalf("%q: no reading computes %s:\n%s", tc.question, tc.gold, strings.Join(all, "\n--\n"))
		})
	}
}
