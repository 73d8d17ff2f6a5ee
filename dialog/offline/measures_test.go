package offline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
)

// bakeryDump is a bakery's sales: each sale line sells a quantity of a
// bake at an amount; a bake has a unit cost and a kind.
func bakeryDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE kinds (kind_id INT PRIMARY KEY, kind_name VARCHAR(20));
CREATE TABLE bakes (bake_id INT PRIMARY KEY, bake_name VARCHAR(30), kind_id INT, shelf_price DECIMAL(6,2), unit_cost DECIMAL(6,2),
  FOREIGN KEY (kind_id) REFERENCES kinds(kind_id));
CREATE TABLE tills (till_id INT PRIMARY KEY, sold_on DATE);
CREATE TABLE sale_lines (line_id INT PRIMARY KEY, till_id INT, bake_id INT, quantity INT, line_amount DECIMAL(8,2),
  FOREIGN KEY (till_id) REFERENCES tills(till_id), FOREIGN KEY (bake_id) REFERENCES bakes(bake_id));
INSERT INTO kinds VALUES (1, 'Bread'), (2, 'Cake');
`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO bakes VALUES (%d, 'Bake %d', %d, %d.50, %d.10);\n", i, i, 1+i%2, 2+i, 1+i/2)
	}
	line := 0
	for t := 1; t <= 30; t++ {
		fmt.Fprintf(&b, "INSERT INTO tills VALUES (%d, '2024-%02d-%02d');\n", t, 1+t%12, 1+t%27)
		for k := 0; k < 1+t%3; k++ {
			line++
			bake, qty := 1+(t+k)%6, 1+(t*k)%4
			fmt.Fprintf(&b, "INSERT INTO sale_lines VALUES (%d, %d, %d, %d, %d.00);\n", line, t, bake, qty, qty*(3+bake))
		}
	}
	return b.String()
}

// TestComputedMeasuresPeopleAskFor: spans between events, conditional
// shares, averages of per-thing totals and profit on what was sold, each
// on a schema the engine was never tuned on; one of the likeliest
// readings computes the hand-written answer.
func TestComputedMeasuresPeopleAskFor(t *testing.T) {
	ctx := context.Background()
	lending, lendingWH := engineOn(t, lendingDump())
	clinic, clinicWH := engineOn(t, clinicDump())
	bakery, bakeryWH := engineOn(t, bakeryDump())
	cases := []struct {
		name string
		e    interface {
			Candidates(context.Context, dialog.Request) (*dialog.Proposal, error)
		}
		wh       *warehouse.DB
		question string
		gold     string
		top      int // the right reading is among the first top
	}{
		{"span: an event's time", lending, lendingWH, "What is the average return time per courier?",
			"SELECT courier, AVG(DATEDIFF(returned_on, borrowed_on)) FROM loans GROUP BY courier", 1},
		{"span: from one event to another", lending, lendingWH, "What is the average time from borrowing to return?",
			"SELECT AVG(DATEDIFF(returned_on, borrowed_on)) FROM loans", 1},
		{"conditional share of rows", lending, lendingWH, "What percentage of loans were returned?",
			"SELECT 100.0 * SUM(status = 'returned') / COUNT(*) FROM loans", 1},
		{"conditional share of a measure", clinic, clinicWH, "What share of the billed amount came from Ashby?",
			"SELECT 100.0 * SUM(CASE WHEN p.town = 'Ashby' THEN v.billed_amount END) / SUM(v.billed_amount) FROM visits v JOIN patients p ON p.patient_id = v.patient_id", 2},
		{"average of per-thing counts", clinic, clinicWH, "What is the average number of procedures per visit?",
			"SELECT AVG(n) FROM (SELECT visit_id, COUNT(*) AS n FROM visit_procedures GROUP BY visit_id) t", 2},
		{"average of per-thing totals, on average", clinic, clinicWH, "How many visits per patient on average?",
			"SELECT AVG(n) FROM (SELECT patient_id, COUNT(*) AS n FROM visits GROUP BY patient_id) t", 1},
		{"profit on what was sold", bakery, bakeryWH, "What is the profit by kind?",
			"SELECT k.kind_name, SUM(l.line_amount - l.quantity * b.unit_cost) FROM sale_lines l JOIN bakes b ON b.bake_id = l.bake_id JOIN kinds k ON k.kind_id = b.kind_id GROUP BY k.kind_name", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no readings: %v", err)
			}
			gold, err := tc.wh.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var tried []string
			for i, c := range p.Candidates {
				if i >= tc.top {
					break
				}
				got, err := tc.wh.Query(ctx, c.SQL, warehouse.Limits{})
				if err == nil && eval.Match(got, gold, false) {
					if len(c.Unused) > 0 {
						t.Errorf("the right reading leaves %q out", c.Unused)
					}
					return
				}
				tried = append(tried, c.SQL)
			}
			t.Errorf("none of the first %d readings computes it:\n%s", tc.top, strings.Join(tried, "\n--\n"))
		})
	}
}

// TestWhereIsShowsTheLocation: "where is X" shows every location column
// of the thing X names (its city and country, or its coordinates); each
// alone stays a reading for the output question.
func TestWhereIsShowsTheLocation(t *testing.T) {
	dump := `CREATE TABLE stations (station_id INT PRIMARY KEY, station_name VARCHAR(30), city VARCHAR(30), country VARCHAR(30), elevation_m INT);
INSERT INTO stations VALUES (1, 'North Ridge', 'Tromso', 'Norway', 120), (2, 'Salt Flat', 'Uyuni', 'Bolivia', 3650), (3, 'Delta Point', 'Tromso', 'Norway', 15);`
	e, wh := engineOn(t, dump)
	ctx := context.Background()
	p, err := e.Candidates(ctx, dialog.Request{Question: "Where is Salt Flat?"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings: %v", err)
	}
	gold, _ := wh.Query(ctx, "SELECT city, country FROM stations WHERE station_name = 'Salt Flat'", warehouse.Limits{})
	got, err := wh.Query(ctx, p.Candidates[0].SQL, warehouse.Limits{})
	if err != nil || !eval.Match(got, gold, false) {
		t.Fatalf("the likeliest reading is not the location:\n%s", p.Candidates[0].SQL)
	}
	single := false
	for _, c := range p.Candidates[1:] {
		single = single || strings.Contains(c.SQL, "SELECT DISTINCT stations.city\n")
	}
	if !single {
		t.Error("the city alone is no longer a reading")
	}
}

// TestStoredValuesReadWhole: a stored value spelled across punctuation
// ("Seeded Loaf, Large") is one value, not its first words and another
// value matching the rest ("Large Tin").
func TestStoredValuesReadWhole(t *testing.T) {
	dump := `CREATE TABLE bakes (bake_id INT PRIMARY KEY, bake_name VARCHAR(40), weight_g INT);
INSERT INTO bakes VALUES (1, 'Seeded Loaf, Large', 800), (2, 'Seeded Loaf, Small', 400), (3, 'Large Tin', 900), (4, 'Rye Round', 600);`
	e, wh := engineOn(t, dump)
	ctx := context.Background()
	p, err := e.Candidates(ctx, dialog.Request{Question: "What is the weight of Seeded Loaf, Large?"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("no readings: %v", err)
	}
	top := p.Candidates[0]
	if !strings.Contains(top.SQL, "'Seeded Loaf, Large'") || strings.Contains(top.SQL, "'Large Tin'") || len(top.Unused) > 0 {
		t.Fatalf("the value is not read whole (unused %q):\n%s", top.Unused, top.SQL)
	}
	got, err := wh.Query(ctx, top.SQL, warehouse.Limits{})
	if err != nil || len(got.Rows) != 1 || fmt.Sprint(got.Rows[0][0]) != "800" {
		t.Fatalf("rows %v, err %v", got, err)
	}
}

// TestCompoundsAndEach: "loan status" is the status of loans; "how many
// of each" groups by the things named before it; two table nouns where
// the first refers to the second ("tool kind") name the second.
func TestCompoundsAndEach(t *testing.T) {
	dump := `CREATE TABLE kinds (kind_id INT PRIMARY KEY, kind_name VARCHAR(20));
CREATE TABLE tools (tool_id INT PRIMARY KEY, tool_name VARCHAR(30), kind_id INT, FOREIGN KEY (kind_id) REFERENCES kinds(kind_id));
CREATE TABLE loans (loan_id INT PRIMARY KEY, tool_id INT, status VARCHAR(12), FOREIGN KEY (tool_id) REFERENCES tools(tool_id));
INSERT INTO kinds VALUES (1, 'Saw'), (2, 'Drill'), (3, 'Ladder');
INSERT INTO tools VALUES (1, 'Bow saw', 1), (2, 'Tenon saw', 1), (3, 'Hammer drill', 2), (4, 'Step ladder', 3), (5, 'Fret saw', 1);
INSERT INTO loans VALUES (1, 1, 'out'), (2, 2, 'back'), (3, 3, 'out'), (4, 1, 'back'), (5, 4, 'late'), (6, 5, 'back');`
	e, wh := engineOn(t, dump)
	ctx := context.Background()
	cases := []struct{ question, gold string }{
		{"What are the loan statuses and how many of each?", "SELECT status, COUNT(*) FROM loans GROUP BY status"},
		{"Which tool kind has the most tools?", "SELECT k.kind_name FROM kinds k JOIN tools t ON t.kind_id = k.kind_id GROUP BY k.kind_id, k.kind_name ORDER BY COUNT(*) DESC LIMIT 1"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no readings: %v", err)
			}
			gold, _ := wh.Query(ctx, tc.gold, warehouse.Limits{})
			got, err := wh.Query(ctx, p.Candidates[0].SQL, warehouse.Limits{})
			if err != nil || !eval.Match(got, gold, false) || len(p.Candidates[0].Unused) > 0 {
				t.Fatalf("the likeliest reading (unused %q) is not it:\n%s", p.Candidates[0].Unused, p.Candidates[0].SQL)
			}
		})
	}
}
