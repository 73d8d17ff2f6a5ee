package offline_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
)

// clinicDump is a small clinic the engine was never tuned on: a visit is
// billed as a whole (billed_amount), and lists the procedures done in it,
// each with its own fee; procedures belong to specialties. Patients have
// visits; doctors see them. Keys are declared.
func clinicDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE specialties (specialty_id INT PRIMARY KEY, title VARCHAR(40));
CREATE TABLE procedures (procedure_id INT PRIMARY KEY, title VARCHAR(60), specialty_id INT, list_fee DECIMAL(8,2),
  FOREIGN KEY (specialty_id) REFERENCES specialties(specialty_id));
CREATE TABLE patients (patient_id INT PRIMARY KEY, full_name VARCHAR(60), town VARCHAR(40));
CREATE TABLE doctors (doctor_id INT PRIMARY KEY, doctor_name VARCHAR(60));
CREATE TABLE visits (visit_id INT PRIMARY KEY, patient_id INT, doctor_id INT, visited_on DATE,
  billed_amount DECIMAL(10,2) COMMENT 'Amount billed for the whole visit, after the insurance discount',
  FOREIGN KEY (patient_id) REFERENCES patients(patient_id), FOREIGN KEY (doctor_id) REFERENCES doctors(doctor_id));
CREATE TABLE visit_procedures (line_id INT PRIMARY KEY, visit_id INT, procedure_id INT, units INT,
  fee_amount DECIMAL(10,2) COMMENT 'Fee charged for this procedure in the visit',
  FOREIGN KEY (visit_id) REFERENCES visits(visit_id), FOREIGN KEY (procedure_id) REFERENCES procedures(procedure_id));
`)
	specialties := []string{"Cardiology", "Dermatology", "Radiology"}
	for i, s := range specialties {
		fmt.Fprintf(&b, "INSERT INTO specialties VALUES (%d, '%s');\n", i+1, s)
	}
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "INSERT INTO procedures VALUES (%d, 'Procedure %c', %d, %d.50);\n", i, 'A'+rune(i), 1+i%3, 40+i*15)
	}
	towns := []string{"Ashby", "Brill", "Cole"}
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "INSERT INTO patients VALUES (%d, 'Patient %02d', '%s');\n", i, i, towns[i%3])
	}
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "INSERT INTO doctors VALUES (%d, 'Dr %c');\n", i, 'K'+rune(i))
	}
	line := 0
	for v := 1; v <= 60; v++ {
		var fees float64
		n := 1 + v%4 // one to four procedures per visit
		var lines []string
		for k := 0; k < n; k++ {
			line++
			fee := float64(30 + (v*7+k*11)%90)
			fees += fee
			lines = append(lines, fmt.Sprintf("INSERT INTO visit_procedures VALUES (%d, %d, %d, %d, %.2f);\n", line, v, 1+(v+k*2)%9, 1+k%2, fee))
		}
		fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, %d, '2024-%02d-%02d', %.2f);\n", v, 1+v%20, 1+v%4, 1+v%12, 1+v%27, fees*0.9)
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	return b.String()
}

// tripsDump is a delivery fleet: a trip is one vehicle's day out with a
// fuel cost for the whole trip; its stops each deliver parcels. Depots
// own vehicles. No foreign keys are declared: joins come from names.
func tripsDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE depots (depot_id INT PRIMARY KEY, depot_name VARCHAR(40), region VARCHAR(20));
CREATE TABLE vehicles (vehicle_id INT PRIMARY KEY, plate VARCHAR(12), depot_id INT, model VARCHAR(30));
CREATE TABLE trips (trip_id INT PRIMARY KEY, vehicle_id INT, trip_date DATE, fuel_cost DECIMAL(8,2), distance_km INT);
CREATE TABLE trip_stops (stop_id INT PRIMARY KEY, trip_id INT, customer_town VARCHAR(30), parcels INT, stop_charge DECIMAL(8,2));
`)
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "INSERT INTO depots VALUES (%d, 'Depot %d', '%s');\n", i, i, []string{"North", "South", "West"}[i-1])
	}
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "INSERT INTO vehicles VALUES (%d, 'PL%03d', %d, '%s');\n", i, i, 1+i%3, []string{"Van", "Truck"}[i%2])
	}
	stop := 0
	for t := 1; t <= 50; t++ {
		fmt.Fprintf(&b, "INSERT INTO trips VALUES (%d, %d, '2025-%02d-%02d', %d.25, %d);\n", t, 1+t%8, 1+t%12, 1+t%25, 20+t%37, 40+t*3%90)
		for k := 0; k < 1+t%5; k++ {
			stop++
			fmt.Fprintf(&b, "INSERT INTO trip_stops VALUES (%d, %d, '%s', %d, %d.00);\n", stop, t, []string{"Ashby", "Brill", "Cole", "Dunn"}[(t+k)%4], 1+(t*k)%6, 5+(t+k)%9)
		}
	}
	return b.String()
}

// TestMeasuresAddUpAcrossGroups is the fan-out property: for every reading
// the engine proposes that adds up a measure per group of a related
// table, the groups add up to one of the measures' own totals (no
// filter). A measure summed over a join that repeats its rows would add up
// to more.
func TestMeasuresAddUpAcrossGroups(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		schema    string
		dump      func() string
		questions []string
		// totals are the measures' own totals, each a query.
		totals []string
	}{
		{"clinic", clinicDump, []string{
			"total billed amount by specialty",
			"billed amount per procedure",
			"total fee amount by specialty",
			"billed amount by doctor",
			"billed amount by patient town",
		}, []string{"SELECT SUM(billed_amount) FROM visits", "SELECT SUM(fee_amount) FROM visit_procedures", "SELECT SUM(list_fee) FROM procedures"}},
		{"fleet", tripsDump, []string{
			"total fuel cost by customer town",
			"fuel cost per depot",
			"total stop charge by depot",
			"fuel cost by vehicle model",
			"distance by customer town",
		}, []string{"SELECT SUM(fuel_cost) FROM trips", "SELECT SUM(stop_charge) FROM trip_stops", "SELECT SUM(distance_km) FROM trips", "SELECT SUM(parcels) FROM trip_stops"}},
	}
	for _, tc := range cases {
		t.Run(tc.schema, func(t *testing.T) {
			e, wh := engineOn(t, tc.dump())
			var totals []float64
			for _, q := range tc.totals {
				totals = append(totals, scalar(t, wh, q))
			}
			checked := 0
			for _, q := range tc.questions {
				p, err := e.Candidates(ctx, dialog.Request{Question: q})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range p.Candidates {
					if !strings.Contains(c.SQL, "GROUP BY") || !strings.Contains(c.SQL, "SUM(") || strings.Contains(c.SQL, "LIMIT") || strings.Contains(c.SQL, "WHERE") {
						continue
					}
					res, err := wh.Query(ctx, c.SQL, warehouse.Limits{})
					if err != nil {
						t.Fatalf("%q: %v\n%s", q, err, c.SQL)
					}
					sum := 0.0
					col := sumColumn(res)
					if col < 0 {
						continue
					}
					for _, row := range res.Rows {
						if f, err := strconv.ParseFloat(fmt.Sprint(row[col]), 64); err == nil {
							sum += f
						}
					}
					ok := false
					for _, total := range totals {
						ok = ok || math.Abs(sum-total) < 0.01*math.Max(1, total)
					}
					if !ok {
						t.Errorf("%q: the groups add up to %.2f, none of the measures' totals %v:\n%s", q, sum, totals, c.SQL)
					}
					checked++
				}
			}
			if checked < len(tc.questions) {
				t.Fatalf("only %d grouped readings checked for %d questions", checked, len(tc.questions))
			}
		})
	}
}

// TestFanoutReadingsAreMeasuredOnce: the readings of questions whose
// natural SQL multiplies a measure — a header's amount grouped by its
// detail rows, or filtered through them — compute the measure once per
// thing.
func TestFanoutReadingsAreMeasuredOnce(t *testing.T) {
	ctx := context.Background()
	e, wh := engineOn(t, clinicDump())
	cases := []struct {
		question string
		// gold is one of the likeliest readings' result.
		gold string
	}{
		// Filtered through the detail rows: each visit counted once.
		{"total billed amount of visits with Procedure B",
			"SELECT SUM(billed_amount) FROM visits v WHERE EXISTS (SELECT 1 FROM visit_procedures vp JOIN procedures p ON p.procedure_id = vp.procedure_id WHERE vp.visit_id = v.visit_id AND p.title = 'Procedure B')"},
		// Grouped by the detail rows: the visit's amount split by fee.
		{"billed amount by specialty",
			"SELECT s.title, SUM(v.billed_amount * vp.fee_amount / t.total) FROM visits v JOIN visit_procedures vp ON vp.visit_id = v.visit_id JOIN procedures p ON p.procedure_id = vp.procedure_id JOIN specialties s ON s.specialty_id = p.specialty_id JOIN (SELECT visit_id, SUM(fee_amount) AS total FROM visit_procedures GROUP BY visit_id) t ON t.visit_id = v.visit_id GROUP BY s.title"},
		// The detail rows' own measure per group.
		{"total fee amount by specialty",
			"SELECT s.title, SUM(vp.fee_amount) FROM visit_procedures vp JOIN procedures p ON p.procedure_id = vp.procedure_id JOIN specialties s ON s.specialty_id = p.specialty_id GROUP BY s.title"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(ctx, dialog.Request{Question: tc.question})
			if err != nil {
				t.Fatal(err)
			}
			want, err := wh.Query(ctx, tc.gold, warehouse.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range p.Candidates {
				if i >= 4 {
					break
				}
				got, err := wh.Query(ctx, c.SQL, warehouse.Limits{})
				if err == nil && eval.Match(got, want, false) {
					return
				}
			}
			var sqls []string
			for _, c := range p.Candidates[:min(4, len(p.Candidates))] {
				sqls = append(sqls, c.SQL)
			}
			t.Errorf("no likely reading computes the measure once per thing:\n%s", strings.Join(sqls, "\n--\n"))
		})
	}
}

// scalar runs a one-value query.
func scalar(t *testing.T, wh *warehouse.DB, q string) float64 {
	t.Helper()
	res, err := wh.Query(context.Background(), q, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%s: %v", q, err)
	}
	f, err := strconv.ParseFloat(fmt.Sprint(res.Rows[0][0]), 64)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return f
}

// sumColumn is the last numeric column of a grouped result: the measure.
func sumColumn(res *warehouse.Result) int {
	for i := len(res.Columns) - 1; i >= 0; i-- {
		if res.Columns[i].Kind() == warehouse.KindNumber {
			return i
		}
	}
	return -1
}

// A measure split across detail rows is still that measure: its column
// is named after it (a header "Total billed amount"), never after the
// arithmetic that splits it.
func TestSplitMeasureKeepsItsName(t *testing.T) {
	ctx := context.Background()
	e, _ := engineOn(t, clinicDump())
	p, err := e.Candidates(ctx, dialog.Request{Question: "top 2 specialties by billed amount"})
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for _, c := range p.Candidates {
		head, _, _ := strings.Cut(c.SQL, "\nFROM")
		if !strings.Contains(head, "NULLIF(shares.total") {
			continue // the split figure is not shown
		}
		split++
		if !strings.Contains(c.SQL, "AS total_billed_amount") {
			t.Errorf("split measure without its name:\n%s", c.SQL)
		}
	}
	if split == 0 {
		t.Fatal("no reading shows the visit's amount split across its procedures")
	}
}
