package offline_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// courierFleetDump is a delivery fleet of its own: trucks at depots, and
// deliveries each handed to one carrier, with a status and a date.
func courierFleetDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE trucks (truck_id INT PRIMARY KEY, plate VARCHAR(12), depot VARCHAR(20));
CREATE TABLE deliveries (delivery_id INT PRIMARY KEY, truck_id INT, carrier VARCHAR(20), status VARCHAR(20), shipped_on DATE, weight_kg INT, price_charged INT, carrier_cost INT,
  FOREIGN KEY (truck_id) REFERENCES trucks(truck_id));
`)
	depots := []string{"Harbor", "Ridge", "Mill"}
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "INSERT INTO trucks VALUES (%d, 'TR-%03d', '%s');\n", i, i*7, depots[i%3])
	}
	carriers := []string{"UPS", "FedEx", "DHL", "Postline"}
	statuses := []string{"delivered", "in transit", "returned"}
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "INSERT INTO deliveries VALUES (%d, %d, '%s', '%s', '%d-%02d-%02d', %d, %d, %d);\n", i, 1+i%9, carriers[(i*5)%4%(1+i%4)], statuses[i%3], 2024+i%2, 1+i%12, 1+i%27, 5+(i*13)%70, 40+(i*17)%60, 20+(i*11)%50)
	}
	return b.String()
}

// TestValuesJoinedByOrAreOneCondition: values of one column joined by
// "or", "either … or" or a comma list are one IN condition, whatever the
// words around them; and no reading that compares one column of a row
// with two different values (which no row can meet) is ever proposed.
func TestValuesJoinedByOrAreOneCondition(t *testing.T) {
	e, wh := engineOn(t, courierFleetDump())
	cases := []struct {
		question string
		in       []string // the values of the one IN condition on carrier
		gold     string
	}{
		{"how many deliveries were shipped by either UPS or FedEx?", []string{"UPS", "FedEx"},
			"SELECT COUNT(*) FROM deliveries WHERE carrier IN ('UPS', 'FedEx')"},
		{"how many deliveries were shipped by UPS, FedEx or DHL?", []string{"UPS", "FedEx", "DHL"},
			"SELECT COUNT(*) FROM deliveries WHERE carrier IN ('UPS', 'FedEx', 'DHL')"},
		{"how many deliveries went by UPS, DHL, or Postline in 2024?", []string{"UPS", "DHL", "Postline"},
			"SELECT COUNT(*) FROM deliveries WHERE carrier IN ('UPS', 'DHL', 'Postline') AND YEAR(shipped_on) = 2024"},
		{"list the plates of trucks whose deliveries were carried by either DHL or Postline", []string{"DHL", "Postline"},
			"SELECT DISTINCT t.plate FROM trucks t JOIN deliveries d ON d.truck_id = t.truck_id WHERE d.carrier IN ('DHL', 'Postline')"},
	}
	ctx := context.Background()
	twoValues := regexp.MustCompile(`(?i)(\w+\.carrier) = '[^']*'.*AND\s+(\w+\.carrier) = '[^']*'`)
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading: %v", err)
			}
			for _, c := range p.Candidates {
				flat := strings.Join(strings.Fields(c.SQL), " ")
				if m := twoValues.FindStringSubmatch(flat); m != nil && m[1] == m[2] {
					t.Errorf("a reading no row can meet was proposed:\n%s", c.SQL)
				}
			}
			top := p.Candidates[0]
			quoted := make([]string, len(tc.in))
			for i, v := range tc.in {
				quoted[i] = "'" + v + "'"
			}
			if !strings.Contains(top.SQL, ".carrier IN ("+strings.Join(quoted, ", ")+")") {
				t.Fatalf("the likeliest reading should compare the carrier with %v at once:\n%s", tc.in, top.SQL)
			}
			gold, err := wh.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := wh.Query(ctx, top.SQL, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.Rows) != fmt.Sprint(gold.Rows) && len(got.Rows) != len(gold.Rows) {
				t.Fatalf("got %v, want %v\n%s", got.Rows, gold.Rows, top.SQL)
			}
		})
	}
}

// TestReadingsNoRowCanMeetAreNeverProposed: "UPS and FedEx" of one
// delivery, two years of one date: whatever else is read, no reading
// says a row has both (every reading here returns rows).
func TestReadingsNoRowCanMeetAreNeverProposed(t *testing.T) {
	e, wh := engineOn(t, courierFleetDump())
	ctx := context.Background()
	for _, q := range []string{
		"how many deliveries were shipped by UPS and FedEx?",
		"list deliveries by DHL and Postline",
		"how many deliveries were shipped in 2024 and 2025?",
	} {
		t.Run(q, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: q})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Candidates {
				res, err := wh.Query(ctx, c.SQL, warehouse.Limits{})
				if err != nil {
					t.Fatalf("%v\n%s", err, c.SQL)
				}
				if len(res.Rows) == 0 || len(res.Rows) == 1 && len(res.Rows[0]) == 1 && fmt.Sprint(res.Rows[0][0]) == "0" {
					t.Errorf("a reading that returns nothing by construction was proposed:\n%s", c.SQL)
				}
			}
		})
	}
}

// TestDifferenceOfTwoNumbers: "price charged minus carrier cost" is one
// number of each delivery, compared, averaged or totalled as a column.
func TestDifferenceOfTwoNumbers(t *testing.T) {
	e, wh := engineOn(t, courierFleetDump())
	ctx := context.Background()
	cases := []struct{ question, gold string }{
		{"how many deliveries have price charged minus carrier cost above 20?", "SELECT COUNT(*) FROM deliveries WHERE price_charged - carrier_cost > 20"},
		{"list deliveries whose price charged minus carrier cost is less than 0", "SELECT delivery_id FROM deliveries WHERE price_charged - carrier_cost < 0"},
		{"what is the average price charged minus carrier cost of deliveries?", "SELECT AVG(price_charged - carrier_cost) FROM deliveries"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p := proposal(t, e, tc.question)
			top := p.Candidates[0]
			if !strings.Contains(top.SQL, "deliveries.price_charged - deliveries.carrier_cost") || len(top.Unused) > 0 {
				t.Fatalf("the likeliest reading should use the difference (unused %v):\n%s", top.Unused, top.SQL)
			}
			gold, err := wh.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := wh.Query(ctx, top.SQL, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != len(gold.Rows) || len(gold.Rows) == 0 || len(gold.Rows) == 1 && fmt.Sprint(got.Rows[0][0]) != fmt.Sprint(gold.Rows[0][0]) {
				t.Fatalf("got %v, want %v\n%s", got.Rows, gold.Rows, top.SQL)
			}
		})
	}
}
