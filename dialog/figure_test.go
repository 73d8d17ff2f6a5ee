package dialog

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/colfmt"
)

// TestFigureSQL: the figure a ranking is ordered by is added to its select
// list, as written, only where that cannot change the rows (a fleet's
// vehicles and trips: a schema in no evaluation set).
func TestFigureSQL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, sql, want string
	}{
		{"most trips per vehicle",
			"SELECT vehicles.plate\nFROM trips\nJOIN vehicles ON trips.vehicle_id = vehicles.id\nGROUP BY vehicles.id, vehicles.plate\nORDER BY COUNT(*) DESC\nLIMIT 1",
			"SELECT vehicles.plate, COUNT(*) AS number_of_rows\nFROM trips\nJOIN vehicles ON trips.vehicle_id = vehicles.id\nGROUP BY vehicles.id, vehicles.plate\nORDER BY COUNT(*) DESC\nLIMIT 1"},
		{"top 3 by total distance",
			"SELECT v.plate FROM vehicles v JOIN trips t ON t.vehicle_id = v.id GROUP BY v.id, v.plate ORDER BY SUM(t.km) desc LIMIT 3",
			"SELECT v.plate, SUM(t.km) AS total_km FROM vehicles v JOIN trips t ON t.vehicle_id = v.id GROUP BY v.id, v.plate ORDER BY SUM(t.km) desc LIMIT 3"},
		{"a row superlative: the column it is ordered by",
			"SELECT plate FROM vehicles ORDER BY mileage DESC LIMIT 1",
			"SELECT plate, mileage AS mileage FROM vehicles ORDER BY mileage DESC LIMIT 1"},
		{"groups ordered by an aggregate without a limit",
			"SELECT depot FROM vehicles GROUP BY depot ORDER BY AVG(mileage)",
			"SELECT depot, AVG(mileage) AS average_mileage FROM vehicles GROUP BY depot ORDER BY AVG(mileage)"},
		{"the alias is not taken twice",
			"SELECT depot AS total_km FROM trips GROUP BY depot ORDER BY SUM(km) DESC LIMIT 2",
			"SELECT depot AS total_km, SUM(km) AS total_km_2 FROM trips GROUP BY depot ORDER BY SUM(km) DESC LIMIT 2"},
		{"shown already", "SELECT plate, COUNT(*) FROM trips GROUP BY plate ORDER BY COUNT(*) DESC LIMIT 1", ""},
		{"ordered by the alias of a shown item", "SELECT plate, COUNT(*) AS n FROM trips GROUP BY plate ORDER BY n DESC LIMIT 1", ""},
		{"ordered by position", "SELECT plate, COUNT(*) FROM trips GROUP BY plate ORDER BY 2 DESC LIMIT 1", ""},
		{"DISTINCT would change the rows", "SELECT DISTINCT plate FROM trips ORDER BY km DESC LIMIT 3", ""},
		{"a plain sorted list is not a ranking", "SELECT plate FROM vehicles ORDER BY mileage DESC", ""},
		{"every column shown", "SELECT * FROM vehicles ORDER BY mileage DESC LIMIT 1", ""},
		{"a subquery in the order", "SELECT plate FROM vehicles v ORDER BY (SELECT COUNT(*) FROM trips t WHERE t.vehicle_id = v.id) DESC LIMIT 1", ""},
		{"no order", "SELECT plate FROM vehicles LIMIT 5", ""},
		{"a set operation", "SELECT plate FROM vehicles UNION SELECT plate FROM trips ORDER BY plate LIMIT 1", ""},
		{"a total of a column's share is named after the column",
			"SELECT plate FROM trips JOIN legs ON legs.trip_id = trips.id GROUP BY plate ORDER BY SUM(trips.km * legs.share / NULLIF(legs.total, 0)) DESC LIMIT 3",
			"SELECT plate, SUM(trips.km * legs.share / NULLIF(legs.total, 0)) AS total_km FROM trips JOIN legs ON legs.trip_id = trips.id GROUP BY plate ORDER BY SUM(trips.km * legs.share / NULLIF(legs.total, 0)) DESC LIMIT 3"},
		{"text with a comma and a quote in the order", "SELECT plate FROM trips GROUP BY plate ORDER BY SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) DESC LIMIT 1",
			"SELECT plate, SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) AS ranked_by FROM trips GROUP BY plate ORDER BY SUM(CASE WHEN note = 'a, b' THEN km ELSE 0 END) DESC LIMIT 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := figureSQL(tc.sql)
			if ok != (tc.want != "") || got != tc.want {
				t.Fatalf("figureSQL:\n got %q (%v)\nwant %q", got, ok, tc.want)
			}
		})
	}
}

// TestFigureStatement: the figure statement reads past the reading's
// limit, so that rows tied at it are there too.
func TestFigureStatement(t *testing.T) {
	t.Parallel()
	cases := []struct{ sql, want string }{
		{"SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 3",
			"SELECT plate, SUM(km) AS total_km FROM trips GROUP BY plate ORDER BY SUM(km) DESC\nLIMIT 203"},
		{"SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 10, 5",
			"SELECT plate, SUM(km) AS total_km FROM trips GROUP BY plate ORDER BY SUM(km) DESC\nLIMIT 215"},
		{"SELECT plate FROM trips GROUP BY plate ORDER BY SUM(km) DESC LIMIT 5 OFFSET 10",
			"SELECT plate, SUM(km) AS total_km FROM trips GROUP BY plate ORDER BY SUM(km) DESC\nLIMIT 215"},
		{"SELECT depot FROM vehicles GROUP BY depot ORDER BY COUNT(*)",
			"SELECT depot, COUNT(*) AS number_of_rows FROM vehicles GROUP BY depot ORDER BY COUNT(*)"},
	}
	for _, tc := range cases {
		if got, ok := figureStatement(tc.sql); !ok || got != tc.want {
			t.Errorf("figureStatement(%q):\n got %q (%v)\nwant %q", tc.sql, got, ok, tc.want)
		}
	}
}

// TestAttachFigure: each row of the reading takes the figure of its equal
// in the figure statement's rows, rows that look the same in order; a row
// without one leaves the answer without figures.
func TestAttachFigure(t *testing.T) {
	t.Parallel()
	cols := func(names ...string) []warehouse.ResultColumn {
		var out []warehouse.ResultColumn
		for _, n := range names {
			out = append(out, warehouse.ResultColumn{Name: n})
		}
		return out
	}
	// The server broke a tie at LIMIT 2 one way for the reading…
	reading := &warehouse.Result{Columns: cols("depot"), Rows: [][]any{{"North"}, {"West"}}}
	// …and another way for the figure statement, which reads past it.
	fig := &warehouse.Result{Columns: cols("depot", "trips"), Rows: [][]any{{"North", int64(9)}, {"East", int64(4)}, {"West", int64(4)}, {"South", int64(1)}}}
	got, ok := attachFigure(reading, fig)
	if !ok || len(got.Columns) != 2 || got.Rows[0][1] != int64(9) || got.Rows[1][0] != "West" || got.Rows[1][1] != int64(4) {
		t.Fatalf("attached %+v (%v)", got, ok)
	}
	if len(reading.Rows[0]) != 1 {
		t.Fatal("the reading's result must not change")
	}
	// Two depots named alike (grouped by id, shown by name) meet their
	// own figures in order.
	reading = &warehouse.Result{Columns: cols("depot"), Rows: [][]any{{"Central"}, {"Central"}}}
	fig = &warehouse.Result{Columns: cols("depot", "km"), Rows: [][]any{{"Central", 500.0}, {"Central", 300.0}}}
	if got, ok = attachFigure(reading, fig); !ok || got.Rows[0][1] != 500.0 || got.Rows[1][1] != 300.0 {
		t.Fatalf("same-looking rows: %+v", got)
	}
	// A row past the figure statement's rows: no figures at all.
	reading = &warehouse.Result{Columns: cols("depot"), Rows: [][]any{{"North"}, {"Harbour"}}}
	if _, ok = attachFigure(reading, fig); ok {
		t.Fatal("a row without its figure must leave the answer without figures")
	}
}

func TestAnswerReading(t *testing.T) {
	t.Parallel()
	res := &warehouse.Result{Columns: []warehouse.ResultColumn{{Name: "plate"}, {Name: "n"}}, Rows: [][]any{{"AB-12", int64(4)}, {"CD-34", int64(2)}}}
	a := &Answer{Result: res, Added: 1}
	r := a.Reading()
	if len(r.Columns) != 1 || r.Columns[0].Name != "plate" || len(r.Rows) != 2 || len(r.Rows[0]) != 1 || r.Rows[1][0] != "CD-34" {
		t.Fatalf("reading %+v", r)
	}
	if len(res.Rows[0]) != 2 {
		t.Fatal("the answer's own result must not change")
	}
	if (&Answer{Result: res}).Reading() != res {
		t.Fatal("nothing added: the result is the reading's")
	}
}

func TestPageCommand(t *testing.T) {
	t.Parallel()
	cases := map[string]EventKind{
		"more": EventMore, "Show more": EventMore, "next page.": EventMore, "please show more rows": EventMore,
		"all": EventAllRows, "show all rows": EventAllRows, "the rest": EventAllRows,
		"csv": EventCSV, "Download CSV": EventCSV, "export": EventCSV,
		"more customers in Ohio": 0, "show all customers": 0, "what is more expensive": 0, "": 0,
	}
	for text, want := range cases {
		if got := PageCommand(text); got != want {
			t.Errorf("PageCommand(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestAboutQuestion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		kind aboutKind
		term string
	}{
		{"what tables are there?", aboutOverview, ""},
		{"What can I ask?", aboutOverview, ""},
		{"ok what data do you have", aboutOverview, ""},
		{"list the tables", aboutOverview, ""},
		{"what does revenue mean?", aboutTerm, "revenue"},
		{"What does 'late fee' mean", aboutTerm, "late fee"},
		{"define the mileage", aboutTerm, "mileage"},
		{"how is utilisation calculated?", aboutTerm, "utilisation"},
		{"what do you mean by depot", aboutTerm, "depot"},
		{"what does each depot spend on fuel?", aboutNone, ""},
		{"how is the fleet doing in 2024", aboutNone, ""},
		{"how is that calculated?", aboutNone, ""},
		{"what does the longest trip per vehicle per month in the north mean", aboutNone, ""},
		{"how many vehicles are there", aboutNone, ""},
	}
	for _, tc := range cases {
		kind, term := aboutQuestion(tc.text)
		if kind != tc.kind || term != tc.term {
			t.Errorf("aboutQuestion(%q) = %v %q, want %v %q", tc.text, kind, term, tc.kind, tc.term)
		}
	}
}

func TestKeptResults(t *testing.T) {
	t.Parallel()
	res := func(rows int) *warehouse.Result {
		r := &warehouse.Result{Columns: []warehouse.ResultColumn{{Name: "a"}, {Name: "b"}}}
		for i := range rows {
			r.Rows = append(r.Rows, []any{int64(i), int64(i)})
		}
		return r
	}
	k := newKeptResults(100) // cells
	k.put("a", res(20))      // 40 cells
	k.put("b", res(20))      // 80
	if k.get("a") == nil {   // a is now the most recent
		t.Fatal("a should be kept")
	}
	k.put("c", res(20)) // 120 > 100: the least recently used (b) goes
	if k.get("b") != nil || k.get("a") == nil || k.get("c") == nil {
		t.Fatalf("want a and c kept, b dropped")
	}
	k.put("huge", res(60)) // larger than the whole budget: not kept, nothing dropped
	if k.get("huge") != nil || k.get("a") == nil {
		t.Fatal("a result over the budget must not evict the others")
	}
	if k.used > k.budget {
		t.Fatalf("used %d of %d", k.used, k.budget)
	}
	none := newKeptResults(-1)
	none.put("a", res(1))
	if none.get("a") != nil {
		t.Fatal("a negative budget keeps nothing")
	}
}

func TestHeadingWords(t *testing.T) {
	t.Parallel()
	heads := map[string]string{
		"Net revenue after discounts (excludes shipping)":   "Net revenue",
		"Gross revenue: order lines plus shipping":          "Gross revenue",
		"Odometer reading in kilometres, such as 120000":    "Odometer reading in kilometres",
		"Fuel cost per litre in euros":                      "Fuel cost",
		"Depot of the vehicle":                              "Depot",
		"Depot of the vehicle's home base":                  "Depot",
		"Purchase price in US dollars":                      "Purchase price",
		"Driver's name - as on the licence":                 "Driver's name",
		"Date the trip started, local time":                 "Date the trip started",
		"Number of passengers (the driver is not counted).": "Number of passengers",
	}
	for in, want := range heads {
		if got := commentHead(in); got != want {
			t.Errorf("commentHead(%q) = %q, want %q", in, got, want)
		}
	}
	words := []struct{ one, many string }{{"vehicle", "vehicles"}, {"trip leg", "trip legs"}, {"depot city", "depot cities"}, {"bus", "buses"}, {"status", "statuses"}, {"day", "days"}}
	for _, w := range words {
		if got := plural(w.one); got != w.many {
			t.Errorf("plural(%q) = %q, want %q", w.one, got, w.many)
		}
		if got := singular(w.many); got != w.one && !(w.one == "status" || w.one == "bus") {
			t.Errorf("singular(%q) = %q, want %q", w.many, got, w.one)
		}
	}
	for _, h := range []string{"SUM(trips.km)", "trips.km", "number_of_rows"} {
		if c := cleanHeading(humanize(h)); strings.ContainsAny(c, "(.") {
			t.Errorf("cleanHeading(%q) = %q", h, c)
		}
	}
}

// BenchmarkFormatPage measures writing a page of a kept 10,000-row result
// for people (what "more" costs besides the lookup), per row.
func BenchmarkFormatPage(b *testing.B) {
	rows := make([][]any, 10_000)
	for i := range rows {
		rows[i] = []any{"AB-" + strconv.Itoa(i), "1234567.50", int64(i * 37), 0.0305}
	}
	formats := []colfmt.Format{{Kind: colfmt.Text}, {Kind: colfmt.Money, Currency: "€"}, {Kind: colfmt.Number}, {Kind: colfmt.Percent, Fraction: true}}
	loc := colfmt.LocaleFor("de-DE")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		formatRows(rows, formats, loc, (i*20)%len(rows), 20)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*20), "ns/row")
}

// BenchmarkFigureSQL measures reading a ranking and adding its figure.
func BenchmarkFigureSQL(b *testing.B) {
	sql := "SELECT vehicles.plate\nFROM trips\nJOIN vehicles ON trips.vehicle_id = vehicles.id\nWHERE trips.started_at >= '2025-01-01'\nGROUP BY vehicles.id, vehicles.plate\nORDER BY SUM(trips.km) DESC\nLIMIT 5"
	for range b.N {
		if _, ok := figureSQL(sql); !ok {
			b.Fatal("no figure")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/answer")
}
