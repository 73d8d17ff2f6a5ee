package offline_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// vanFleetDump is a van fleet of its own: makers, the van models they
// produce (with a production run), trips driven in each model, and depots
// in districts, each with a manager, an owner and the size of its fleet.
// Most tables are named van_…, the schema's own subject.
func vanFleetDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE makers (maker_id INT PRIMARY KEY, maker_name VARCHAR(40), country VARCHAR(20));
CREATE TABLE van_models (model_id INT PRIMARY KEY, model VARCHAR(40), maker_id INT, production INT,
  FOREIGN KEY (maker_id) REFERENCES makers(maker_id));
CREATE TABLE van_trips (trip_id INT PRIMARY KEY, model_id INT, miles INT, tot_depot_amt INT, outcome VARCHAR(20), FOREIGN KEY (model_id) REFERENCES van_models(model_id));
CREATE TABLE van_depots (depot_id INT PRIMARY KEY, depot_name VARCHAR(40), district VARCHAR(20), manager_name VARCHAR(40), owner VARCHAR(40) COMMENT 'Company that leases the depot out', fleet_size INT, number_bays INT, notes VARCHAR(60));
`)
	makers := []string{"Kestrel", "Osprey", "Merlin", "Harrier"}
	countries := []string{"Norway", "Chile", "Kenya"}
	for i, m := range makers {
		fmt.Fprintf(&b, "INSERT INTO makers VALUES (%d, '%s Motors', '%s');\n", i+1, m, countries[i%3])
	}
	for i := 1; i <= 14; i++ {
		fmt.Fprintf(&b, "INSERT INTO van_models VALUES (%d, 'schema.Model %c%d', %d, %d);\n", i, 'A'+rune(i%5), i, 1+(i*3)%4, 100*i)
	}
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "INSERT INTO van_trips VALUES (%d, %d, %d, %d, '%s');\n", i, 1+(i*7)%14, 20+(i*37)%400, 3+(i*13)%20, []string{"Completed", "Cancelled", "Diverted"}[i%3])
	}
	districts := []string{"North", "South", "Harbour"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO van_depots VALUES (%d, 'Depot %02d', '%s', 'Manager %02d', 'Owner %d', %d, %d, '%s');\n", i, i, districts[i%3], i, i%4, 5+(i*11)%40, 2+(i*5)%9,
			[]string{"Vans offered for weekend hire", "Closed on holidays", "Night parking offered"}[i%3])
	}
	return b.String()
}

// TestWordsAccountedForByTheReading: each case is a word the likeliest
// reading (the one with the SQL given) takes into account, by a rule of its
// own, and must not report; or a word it leaves out and must report.
func TestWordsAccountedForByTheReading(t *testing.T) {
	e, _ := engineOn(t, vanFleetDump())
	cases := []struct {
		name, question string
		sql            string   // in the reading checked (the likeliest with it)
		notUnused      []string // words it must account for
		unused         []string // words it must report (read somewhere, not shown)
	}{
		// "produced", which the lexicon links to the production column,
		// names the one join from models to makers instead.
		{"a verb naming the join", "how many van models are produced by each maker?",
			"JOIN van_models", []string{"produced"}, nil},
		// …never a thing's own column: "with model id 3" is the trip's.
		{"a verb before the thing's own column", "what is the longest trip produced with model id 3?", "van_trips.trip_id", nil, []string{"produced"}},
		// A verb between a thing and a value of its own column says how
		// it has that value; stranded after a column it does too.
		{"a verb before its own column's value", "which depots are run by the Harbour district?", "van_depots.district = 'Harbour'", []string{"run"}, nil},
		{"a verb and a value of its own column", "which depots hold the North district?", "van_depots.district = 'North'", []string{"hold"}, nil},
		// …with a particle and a copula between.
		{"a verb, a particle and its own column's value", "How many trips ended up being 'Diverted'?", "van_trips.outcome = 'Diverted'", []string{"ended"}, nil},
		// A noun for rows in general after a table's noun is its rows.
		{"the thing's events", "What are the miles of the trip events with outcome 'Diverted'?", "van_trips.outcome = 'Diverted'", []string{"events"}, nil},
		// An instruction to compare text whole, where the reading does.
		{"matching exactly", "Who owns 'Depot 03'? Match names exactly.", "van_depots.depot_name = 'Depot 03'", []string{"Match", "exactly"}, nil},
		{"matching exactly, by a pattern", "Which depots have a name containing '0'? Match strings exactly.", "LIKE", nil, []string{"exactly"}},
		// A verb found only in a column's texts (depot notes) is a word
		// like any other: here it says how models have their maker.
		{"a verb of the texts, before the key of a thing referred to", "Which van models are offered by maker with ID 2?", "WHERE van_models.maker_id = 2", []string{"offered"}, nil},
		// …or only in what a comment says of a column (owner: "leases").
		{"a verb of a comment, before the key of a thing referred to", "Which van models are leased by maker with ID 2?", "WHERE van_models.maker_id = 2", []string{"leased"}, nil},
		// …but a verb a comment of the thing's own table uses (owner:
		// "leases") may mean that column: left out, it is reported.
		{"a verb of a comment of the thing's own table", "Which depots are leased in the North district?", "SELECT van_depots.depot_name", nil, []string{"leased"}},
		// …or a count of its own ("number of bays" → number_bays), after
		// "that", which right after the thing is no article.
		{"a verb and a count of its own", "Who owns the depot that offers the largest number of bays?", "MAX(van_depots.number_bays)", []string{"offers"}, nil},
		// A table's noun and the word after it may name one column of
		// another table together ("depot amount" → tot_depot_amt).
		{"a column named across a table's noun", "What is the total depot amount of all trips?", "SUM(van_trips.tot_depot_amt)", []string{"depot", "amount"}, nil},
		// A later sentence saying what to show names the same things.
		{"the things named again", "What are the production figures for models made by Kestrel Motors? Show both models and production.", "van_models.model, van_models.production",
			[]string{"models"}, nil},
		// …and the columns it asks for count only when shown.
		{"a column asked for and not shown", "How many depots does Owner 1 have in the North district? Return the district.", "COUNT(*)", nil, []string{"district"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			i := slices.IndexFunc(p.Candidates, func(c dialog.Candidate) bool { return strings.Contains(c.SQL, tc.sql) })
			if i < 0 {
				t.Fatalf("no reading with %s; likeliest:\n%s", tc.sql, p.Candidates[0].SQL)
			}
			c := p.Candidates[i]
			unused := " " + strings.Join(c.Unused, " ") + " "
			for _, w := range tc.notUnused {
				if strings.Contains(unused, " "+w+" ") {
					t.Errorf("reports %q as left out (unused %v):\n%s", w, c.Unused, c.SQL)
				}
			}
			for _, w := range tc.unused {
				if !strings.Contains(unused, " "+w+" ") {
					t.Errorf("%q is neither read nor reported (unused %v):\n%s", w, c.Unused, c.SQL)
				}
			}
		})
	}
}

// TestLaterSentencesSayWhatToShow: "Show the X" after a question about
// things shows the things and X; "the model id and name" is the model's
// name; a name asked for and not shown is reported.
func TestLaterSentencesSayWhatToShow(t *testing.T) {
	e, _ := engineOn(t, vanFleetDump())
	cases := []struct{ question, want string }{
		{"Which depots have the largest fleet size? Show the district.", "SELECT van_depots.depot_name, van_depots.district"},
		{"Which depots are in the North district? Show the owner.", "SELECT van_depots.depot_name, van_depots.owner"},
		{"List the trips in models made by Kestrel Motors. Give me the miles, model id and name.", "model_id, van_models.model\n"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			if got := p.Candidates[0].SQL; !strings.Contains(got, tc.want) {
				t.Errorf("likeliest reading:\n%s\nwant it to contain %s", got, tc.want)
			}
		})
	}
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "List the trips in models made by Kestrel Motors. Give me the miles, trip id and name."})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Candidates {
		if !strings.Contains(c.SQL, "_name") && !strings.Contains(c.SQL, "van_models.model") && !slices.Contains(c.Unused, "name") {
			t.Errorf("shows no name and does not say so (unused %v):\n%s", c.Unused, c.SQL)
		}
	}
}

// TestCountingTheLabelCountsTheRows: "how many bike models" names the
// label column of the table whose rows the reading counts; counting the
// rows counts the models, with nothing left out.
func TestCountingTheLabelCountsTheRows(t *testing.T) {
	e, _ := engineOn(t, `CREATE TABLE bike_shops (shop_id INT PRIMARY KEY, shop_name VARCHAR(40), town VARCHAR(20));
CREATE TABLE model_range (range_id INT PRIMARY KEY, model VARCHAR(30), shop_id INT, FOREIGN KEY (shop_id) REFERENCES bike_shops(shop_id));
INSERT INTO bike_shops VALUES (1,'Spoke Hub','Ashby'),(2,'Chain Gang','Brill'),(3,'Gear Up','Cole');
INSERT INTO model_range VALUES (1,'Trail 1',1),(2,'Road 2',1),(3,'City 3',2),(4,'Gravel 4',3),(5,'Trail 5',3),(6,'Road 6',3);
`)
	for _, q := range []string{"how many bike models are stocked by each shop?", "how many bike models are there in Brill?"} {
		p, err := e.Candidates(context.Background(), dialog.Request{Question: q})
		if err != nil || len(p.Candidates) == 0 {
			t.Fatalf("%s: no reading (%v)", q, err)
		}
		if c := p.Candidates[0]; !strings.Contains(c.SQL, "COUNT(") || len(c.Unused) > 0 {
			t.Errorf("%s: likeliest reading leaves out %v:\n%s", q, c.Unused, c.SQL)
		}
	}
}

// TestRankedByTwoMeasures: "top 2 makers by number of models and average
// production" ranks by the first and breaks its ties by the second; a
// measure only asked to be shown orders nothing.
func TestRankedByTwoMeasures(t *testing.T) {
	e, _ := engineOn(t, vanFleetDump())
	cases := []struct{ question, order string }{
		{"What are the top 2 makers by number of van models and average production? Return the maker name, number of models and average production.",
			"ORDER BY COUNT(DISTINCT van_models.model_id) DESC, AVG(van_models.production) DESC\nLIMIT 2"},
		{"What are the top 2 makers by number of van models? Return the maker name, number of models and average production.",
			"ORDER BY COUNT(DISTINCT van_models.model_id) DESC\nLIMIT 2"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			if c := p.Candidates[0]; !strings.Contains(c.SQL, tc.order) {
				t.Fatalf("likeliest reading does not end %q:\n%s", tc.order, c.SQL)
			}
		})
	}
}

// TestBothRowsOfOneThing: "both depots … and depots …" are two depots,
// each with its own condition, sharing what is shown; read as one depot
// with both conditions the answer would be an empty list. The likeliest
// reading must give what a hand-written query gives, and leave no word out.
func TestBothRowsOfOneThing(t *testing.T) {
	e, wh := engineOn(t, vanFleetDump())
	cases := []struct{ question, gold string }{
		{"Which owners have both depots in the North district and depots in the South district?",
			"SELECT DISTINCT owner FROM van_depots WHERE district = 'North' AND owner IN (SELECT owner FROM van_depots WHERE district = 'South')"},
		{"Which districts have both depots with a fleet size over 30 and depots with a fleet size under 10?",
			"SELECT DISTINCT district FROM van_depots WHERE fleet_size > 30 AND district IN (SELECT district FROM van_depots WHERE fleet_size < 10)"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			top, ok := topReading(t, e, wh, tc.question, tc.gold)
			if !ok || len(top.Unused) > 0 {
				t.Fatalf("likeliest reading (unused %v) differs from %s:\n%s", top.Unused, tc.gold, top.SQL)
			}
		})
	}
}
