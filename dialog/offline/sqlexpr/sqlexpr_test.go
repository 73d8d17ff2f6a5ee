package sqlexpr

import (
	"strings"
	"testing"
)

// namer quotes like MySQL: names that are not plain words, and reserved
// words, go in backquotes.
type namer struct{ reserved map[string]bool }

func (q namer) Ident(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && !q.reserved[strings.ToLower(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func (q namer) Col(table, column string) string { return q.Ident(table) + "." + q.Ident(column) }

var _ Namer = namer{}

var library = namer{reserved: map[string]bool{"order": true, "key": true}}

func TestRender(t *testing.T) {
	title := Col("books", "title")
	due := Col("loans", "due_on")
	member := Col("members", "member_id")
	loansOfMember := Cmp(Col("loans", "member_id"), "=", member)
	for _, tc := range []struct {
		name string
		x    Expr
		want string
	}{
		{"column", title, "books.title"},
		{"quoted column", Col("shelf order", "key"), "`shelf order`.`key`"},
		{"count of rows", CountAll, "COUNT(*)"},
		{"distinct count", Agg{Fn: "COUNT", Distinct: true, Arg: member}, "COUNT(DISTINCT members.member_id)"},
		{"sum", AggOver("SUM", Col("fines", "amount")), "SUM(fines.amount)"},
		{"call", Fn("DATEDIFF", due, Col("loans", "returned_on")), "DATEDIFF(loans.due_on, loans.returned_on)"},
		{"call with a keyword", Fn("TIMESTAMPDIFF", Keyword("DAY"), due, Col("loans", "returned_on")), "TIMESTAMPDIFF(DAY, loans.due_on, loans.returned_on)"},
		{"comparison", Cmp(Col("books", "pages"), ">", Num("300")), "books.pages > 300"},
		{"string with quotes", Cmp(title, "=", Str(`Dr. O'Neil's \ notes`)), `books.title = 'Dr. O''Neil''s \\ notes'`},
		{"parenthesised", Cmp(Paren{X: Cmp(Col("visits", "fee"), "-", Col("visits", "discount"))}, "*", Num("2")), "(visits.fee - visits.discount) * 2"},
		{"negation", Prefix{Op: "NOT", X: Cmp(Col("patients", "insured"), "=", Num("1"))}, "NOT patients.insured = 1"},
		{"is null", IsNull{X: Col("visits", "diagnosis")}, "visits.diagnosis IS NULL"},
		{"is not null", IsNull{X: Col("visits", "diagnosis"), Not: true}, "visits.diagnosis IS NOT NULL"},
		{"between", Between{X: Col("trips", "km"), Lo: Num("10"), Hi: Num("20")}, "trips.km BETWEEN 10 AND 20"},
		{"case", AggOver("SUM", CaseWhen{Cond: Cmp(Col("trips", "late"), "=", Num("1")), Then: Num("1")}), "SUM(CASE WHEN trips.late = 1 THEN 1 END)"},
		{"scalar subquery", Cmp(Col("trips", "km"), ">", ScalarSub{X: AggOver("AVG", Col("trips", "km")), Table: "trips"}), "trips.km > (SELECT AVG(trips.km) FROM trips)"},
		{"in list", InList{X: Col("vehicles", "kind"), Vals: []Expr{Str("van"), Str("truck")}}, "vehicles.kind IN ('van', 'truck')"},
		{"unqualified", Unqualified("order"), "`order`"},
		{"aliased", Aliased{X: CountAll, Name: "total"}, "COUNT(*) AS total"},
		{"conjunction", And(Cmp(due, "<", Str("2026-01-01")), nil, IsNull{X: Col("loans", "returned_on")}), "loans.due_on < '2026-01-01' AND loans.returned_on IS NULL"},
		{"exists", Exists{Sub: Select{Selects: []Expr{Num("1")}, From: From{First: Source{Table: "loans"}}, Where: []Expr{loansOfMember}}},
			"EXISTS (SELECT 1 FROM loans WHERE loans.member_id = members.member_id)"},
		{"not exists through a join", Exists{Not: true, Sub: Select{
			Selects: []Expr{Num("1")},
			From:    From{First: Source{Table: "loans"}, Joins: []Join{{To: Source{Table: "books"}, On: Cmp(Col("loans", "book_id"), "=", Col("books", "book_id"))}}},
			Where:   []Expr{loansOfMember, Cmp(Col("books", "genre"), "=", Str("poetry"))},
		}}, "NOT EXISTS (SELECT 1 FROM loans JOIN books ON loans.book_id = books.book_id WHERE loans.member_id = members.member_id AND books.genre = 'poetry')"},
		{"correlated subquery", Fn("COALESCE", Subquery{Q: Select{
			Selects: []Expr{AggOver("SUM", Col("fines", "amount"))},
			From:    From{First: Source{Table: "fines"}},
			Where:   []Expr{Cmp(Col("fines", "loan_id"), "=", Col("loans", "loan_id"))},
		}, Cols: []ColRef{Col("loans", "loan_id")}}, Num("0")), "COALESCE((SELECT SUM(fines.amount) FROM fines WHERE fines.loan_id = loans.loan_id), 0)"},
		{"window over all rows", Cmp(Cmp(Col("totals", "fines"), "*", Num("100e0")), "/", Over{X: AggOver("SUM", Col("totals", "fines"))}),
			"totals.fines * 100e0 / SUM(totals.fines) OVER ()"},
		{"window in order", Over{X: Fn("LAG", Col("totals", "fines")), OrderBy: []Order{{X: Col("totals", "month")}, {X: Col("totals", "key"), Desc: true}}},
			"LAG(totals.fines) OVER (ORDER BY totals.month, totals.`key` DESC)"},
		{"row in a subquery's rows", Cmp(Tuple{Xs: []Expr{Col("books", "genre"), Col("books", "pages")}}, "IN", Subquery{Q: Select{
			Selects: []Expr{Col("books", "genre"), AggOver("MAX", Col("books", "pages"))},
			From:    From{First: Source{Table: "books"}},
			GroupBy: []Expr{Col("books", "genre")},
		}}), "(books.genre, books.pages) IN (SELECT books.genre, MAX(books.pages) FROM books GROUP BY books.genre)"},
		{"subquery in order with a limit", Subquery{Q: Select{
			Selects: []Expr{Col("loans", "loan_id")},
			From:    From{First: Source{Table: "loans"}},
			OrderBy: []Order{{X: Col("loans", "due_on"), Desc: true}, {X: Col("loans", "loan_id")}},
			Limit:   1,
		}}, "(SELECT loans.loan_id FROM loans ORDER BY loans.due_on DESC, loans.loan_id LIMIT 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.Render(library); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestStatement writes a query on its own: a line for each clause, join
// and condition of WHERE, and a derived table's query on lines of its own
// between its parentheses; the same query inside another is one line.
func TestStatement(t *testing.T) {
	genre := Col("books", "genre")
	loans := Select{
		Distinct: true,
		Selects:  []Expr{genre, Aliased{X: CountAll, Name: "loans"}},
		From:     From{First: Source{Table: "books"}, Joins: []Join{{To: Source{Table: "loans"}, On: Cmp(Col("loans", "book_id"), "=", Col("books", "book_id"))}}},
		Where:    []Expr{Cmp(Col("loans", "due_on"), ">=", Str("2026-01-01")), IsNull{X: Col("loans", "returned_on")}},
		GroupBy:  []Expr{genre},
		Having:   []Expr{Cmp(CountAll, ">", Num("2")), Cmp(CountAll, "<", Num("9"))},
		OrderBy:  []Order{{X: CountAll, Desc: true}, {X: genre}},
		Limit:    5,
	}
	if got, want := loans.Statement(library), "SELECT DISTINCT books.genre, COUNT(*) AS loans\nFROM books\nJOIN loans ON loans.book_id = books.book_id"+
		"\nWHERE loans.due_on >= '2026-01-01'\n  AND loans.returned_on IS NULL\nGROUP BY books.genre\nHAVING COUNT(*) > 2 AND COUNT(*) < 9"+
		"\nORDER BY COUNT(*) DESC, books.genre\nLIMIT 5"; got != want {
		t.Errorf("statement:\ngot  %q\nwant %q", got, want)
	}
	if got, want := loans.Render(library), "SELECT DISTINCT books.genre, COUNT(*) AS loans FROM books JOIN loans ON loans.book_id = books.book_id"+
		" WHERE loans.due_on >= '2026-01-01' AND loans.returned_on IS NULL GROUP BY books.genre HAVING COUNT(*) > 2 AND COUNT(*) < 9"+
		" ORDER BY COUNT(*) DESC, books.genre LIMIT 5"; got != want {
		t.Errorf("inline:\ngot  %q\nwant %q", got, want)
	}
	inner := Select{Selects: []Expr{genre, Aliased{X: CountAll, Name: "loans"}}, From: From{First: Source{Table: "books"}}, GroupBy: []Expr{genre}}
	loaned := Col("grouped", "loans")
	around := Select{
		Selects: []Expr{Col("grouped", "genre"), Aliased{X: Cmp(loaned, "-", Over{X: Fn("LAG", loaned), OrderBy: []Order{{X: Col("grouped", "genre")}}}), Name: "change"}},
		From:    From{First: Source{Sub: &inner, Alias: "grouped", Lines: true}},
		OrderBy: []Order{{X: Col("grouped", "genre")}},
	}
	if got, want := around.Statement(library), "SELECT grouped.genre, grouped.loans - LAG(grouped.loans) OVER (ORDER BY grouped.genre) AS change"+
		"\nFROM (\nSELECT books.genre, COUNT(*) AS loans\nFROM books\nGROUP BY books.genre\n) AS grouped\nORDER BY grouped.genre"; got != want {
		t.Errorf("around a derived table:\ngot  %q\nwant %q", got, want)
	}
	if got, want := (Select{Selects: []Expr{CountAll}, From: From{First: Source{Table: "books"}}}).Statement(library), "SELECT COUNT(*)\nFROM books"; got != want {
		t.Errorf("no clauses but FROM: got %q, want %q", got, want)
	}
}

// TestRenderFrom renders FROM lists with grouped and distinct subqueries
// joined under their names.
func TestRenderFrom(t *testing.T) {
	key := Col("trips", "vehicle_id")
	busy := Select{Selects: []Expr{key}, From: From{First: Source{Table: "trips"}}, Where: []Expr{Cmp(Col("trips", "night"), "=", Num("1"))},
		GroupBy: []Expr{key}, Having: []Expr{Cmp(CountAll, ">=", Num("3"))}}
	totals := Select{Selects: []Expr{key, Aliased{X: AggOver("SUM", Col("trips", "km")), Name: "total"}}, From: From{First: Source{Table: "trips"}}, GroupBy: []Expr{key}}
	for _, tc := range []struct {
		name string
		f    From
		sep  string
		want string
	}{
		{"one table", From{First: Source{Table: "vehicles"}}, "\n", "vehicles"},
		{"a table under another name", From{First: Source{Table: "vehicles", Alias: "v"}}, " ", "vehicles AS v"},
		{"joins on their lines", From{First: Source{Table: "vehicles"}, Joins: []Join{
			{To: Source{Table: "trips"}, On: And(Cmp(Col("trips", "vehicle_id"), "=", Col("vehicles", "vehicle_id")), Cmp(Col("trips", "kind"), "=", Num("2")))},
		}}, "\n", "vehicles\nJOIN trips ON trips.vehicle_id = vehicles.vehicle_id AND trips.kind = 2"},
		{"grouped table kept or left", From{First: Source{Table: "vehicles"}, Joins: []Join{
			{To: Source{Sub: &busy, Alias: "counted"}, On: Cmp(Col("counted", "vehicle_id"), "=", Col("vehicles", "vehicle_id"))},
			{Left: true, To: Source{Sub: &totals, Alias: "shares"}, On: Cmp(Col("shares", "vehicle_id"), "=", Col("vehicles", "vehicle_id"))},
		}}, " ", "vehicles JOIN (SELECT trips.vehicle_id FROM trips WHERE trips.night = 1 GROUP BY trips.vehicle_id HAVING COUNT(*) >= 3) AS counted ON counted.vehicle_id = vehicles.vehicle_id" +
			" LEFT JOIN (SELECT trips.vehicle_id, SUM(trips.km) AS total FROM trips GROUP BY trips.vehicle_id) AS shares ON shares.vehicle_id = vehicles.vehicle_id"},
		{"distinct rows under the table's name", From{First: Source{Sub: &Select{Distinct: true, Selects: []Expr{Unqualified("vehicle_id"), Unqualified("driver_id")}, From: From{First: Source{Table: "trips"}}}, Alias: "trips"}},
			" ", "(SELECT DISTINCT vehicle_id, driver_id FROM trips) AS trips"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.Render(library, tc.sep); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestReplace: a table read as its distinct rows takes the place of the
// first source that names it, whether the first or a join.
func TestReplace(t *testing.T) {
	on := Cmp(Col("trips", "vehicle_id"), "=", Col("vehicles", "vehicle_id"))
	distinct := Source{Sub: &Select{Distinct: true, Selects: []Expr{Unqualified("vehicle_id")}, From: From{First: Source{Table: "trips"}}}, Alias: "trips"}
	f := From{First: Source{Table: "vehicles"}, Joins: []Join{{To: Source{Table: "trips"}, On: on}}}
	f.Replace("trips", distinct)
	if got, want := f.Render(library, " "), "vehicles JOIN (SELECT DISTINCT vehicle_id FROM trips) AS trips ON trips.vehicle_id = vehicles.vehicle_id"; got != want {
		t.Errorf("joined: got %q, want %q", got, want)
	}
	g := From{First: Source{Table: "trips"}}
	g.Replace("drivers", distinct)
	if got := g.Render(library, " "); got != "trips" {
		t.Errorf("a table not in the list: got %q", got)
	}
	g.Replace("trips", distinct)
	if got := g.Render(library, " "); got != "(SELECT DISTINCT vehicle_id FROM trips) AS trips" {
		t.Errorf("first: got %q", got)
	}
}

func TestEqual(t *testing.T) {
	fee := Col("visits", "fee")
	sub := func(where ...Expr) Select {
		return Select{Selects: []Expr{Num("1")}, From: From{First: Source{Table: "visits"}}, Where: where}
	}
	ofPatient := Cmp(Col("visits", "patient_id"), "=", Col("patients", "patient_id"))
	ordered := func(desc bool, limit int) Select {
		q := sub()
		q.OrderBy, q.Limit = []Order{{X: fee, Desc: desc}}, limit
		return q
	}
	derived := func(lines bool) Select {
		q := sub()
		q.From.First = Source{Sub: &Select{Selects: []Expr{fee}, From: From{First: Source{Table: "visits"}}}, Alias: "v", Lines: lines}
		return q
	}
	for _, tc := range []struct {
		name string
		a, b Expr
		want bool
	}{
		{"same column", Col("visits", "fee"), fee, true},
		{"another column", fee, Col("visits", "discount"), false},
		{"another table", fee, Col("refunds", "fee"), false},
		{"names differ in case", fee, Col("Visits", "fee"), false},
		{"both missing", nil, nil, true},
		{"one missing", fee, nil, false},
		{"same sum", AggOver("SUM", fee), AggOver("SUM", Col("visits", "fee")), true},
		{"sum and average", AggOver("SUM", fee), AggOver("AVG", fee), false},
		{"count and distinct count", Agg{Fn: "COUNT", Arg: fee}, Agg{Fn: "COUNT", Distinct: true, Arg: fee}, false},
		{"call without arguments", Call{Fn: "NOW"}, Call{Fn: "NOW", Args: []Expr{}}, true},
		{"calls of other arguments", Fn("YEAR", Col("visits", "seen_on")), Fn("YEAR", Col("visits", "booked_on")), false},
		{"same arithmetic", Cmp(fee, "-", Num("5")), Cmp(Col("visits", "fee"), "-", Num("5")), true},
		{"operands swapped", Cmp(fee, "-", Num("5")), Cmp(Num("5"), "-", fee), false},
		{"number and text", Num("5"), Str("5"), false},
		{"number and keyword", Num("5"), Keyword("5"), false},
		{"parenthesised or not", Paren{X: fee}, fee, false},
		{"null and not null", IsNull{X: fee}, IsNull{X: fee, Not: true}, false},
		{"same list", InList{X: fee, Vals: []Expr{Num("1"), Num("2")}}, InList{X: fee, Vals: []Expr{Num("1"), Num("2")}}, true},
		{"shorter list", InList{X: fee, Vals: []Expr{Num("1"), Num("2")}}, InList{X: fee, Vals: []Expr{Num("1")}}, false},
		{"same exists", Exists{Sub: sub(ofPatient)}, Exists{Sub: sub(ofPatient), Tables: []string{"visits"}}, true},
		{"exists and not", Exists{Sub: sub(ofPatient)}, Exists{Not: true, Sub: sub(ofPatient)}, false},
		{"exists with a further condition", Exists{Sub: sub(ofPatient)}, Exists{Sub: sub(ofPatient, Cmp(fee, ">", Num("0")))}, false},
		{"same subquery", Subquery{Q: sub(ofPatient)}, Subquery{Q: sub(ofPatient)}, true},
		{"subquery over another table", Subquery{Q: sub(ofPatient)}, Subquery{Q: Select{Selects: []Expr{Num("1")}, From: From{First: Source{Table: "refunds"}}, Where: []Expr{ofPatient}}}, false},
		{"same case", CaseWhen{Cond: Cmp(fee, ">", Num("0")), Then: Num("1")}, CaseWhen{Cond: Cmp(fee, ">", Num("0")), Then: Num("1")}, true},
		{"same window", Over{X: Fn("LAG", fee), OrderBy: []Order{{X: Col("visits", "seen_on")}}}, Over{X: Fn("LAG", fee), OrderBy: []Order{{X: Col("visits", "seen_on")}}}, true},
		{"window and its call", Over{X: AggOver("SUM", fee)}, AggOver("SUM", fee), false},
		{"window in another order", Over{X: Fn("LAG", fee), OrderBy: []Order{{X: Col("visits", "seen_on")}}}, Over{X: Fn("LAG", fee), OrderBy: []Order{{X: Col("visits", "seen_on"), Desc: true}}}, false},
		{"window in order or over all", Over{X: Fn("LAG", fee), OrderBy: []Order{{X: Col("visits", "seen_on")}}}, Over{X: Fn("LAG", fee)}, false},
		{"same tuple", Tuple{Xs: []Expr{fee, Num("1")}}, Tuple{Xs: []Expr{fee, Num("1")}}, true},
		{"tuple and a value in parentheses", Tuple{Xs: []Expr{fee}}, Paren{X: fee}, false},
		{"longer tuple", Tuple{Xs: []Expr{fee}}, Tuple{Xs: []Expr{fee, Num("1")}}, false},
		{"tuple of other values", Tuple{Xs: []Expr{fee, Num("1")}}, Tuple{Xs: []Expr{fee, Num("2")}}, false},
		{"subquery in another order", Subquery{Q: ordered(false, 0)}, Subquery{Q: ordered(true, 0)}, false},
		{"subquery in order or not", Subquery{Q: ordered(false, 0)}, Subquery{Q: sub()}, false},
		{"subquery with a limit", Subquery{Q: ordered(false, 0)}, Subquery{Q: ordered(false, 1)}, false},
		{"same subquery in order", Subquery{Q: ordered(true, 2)}, Subquery{Q: ordered(true, 2)}, true},
		{"derived table on its lines or not", Exists{Sub: derived(false)}, Exists{Sub: derived(true)}, false},
		{"scalar subqueries of two tables", ScalarSub{X: AggOver("AVG", fee), Table: "visits"}, ScalarSub{X: AggOver("AVG", fee), Table: "refunds"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Equal(tc.a, tc.b); got != tc.want {
				t.Errorf("Equal = %v, want %v", got, tc.want)
			}
			if got := Equal(tc.b, tc.a); got != tc.want {
				t.Errorf("Equal reversed = %v, want %v", got, tc.want)
			}
			// Equal parts render alike.
			if tc.want && tc.a != nil && tc.a.Render(library) != tc.b.Render(library) {
				t.Errorf("equal parts render apart: %s, %s", tc.a.Render(library), tc.b.Render(library))
			}
		})
	}
}

func TestParts(t *testing.T) {
	ratio := Cmp(AggOver("SUM", Col("trips", "km")), "/", AggOver("SUM", Col("trips", "hours")))
	sub := Subquery{Q: Select{Selects: []Expr{AggOver("SUM", Col("fuel", "litres"))}, From: From{First: Source{Table: "fuel"}},
		Where: []Expr{Cmp(Col("fuel", "vehicle_id"), "=", Col("vehicles", "vehicle_id"))}}, Cols: []ColRef{Col("vehicles", "vehicle_id")}}
	x := Cmp(Col("vehicles", "tank"), "-", sub)
	if got := Columns(x); len(got) != 2 || got[0] != Col("vehicles", "tank") || got[1] != Col("vehicles", "vehicle_id") {
		t.Errorf("Columns = %v: the column and the subquery's column of the row", got)
	}
	if got := OuterColumns(x); len(got) != 1 || got[0] != Col("vehicles", "tank") {
		t.Errorf("OuterColumns = %v, want only the row's own column", got)
	}
	if !Aggregates(ratio) || Aggregates(Col("trips", "km")) {
		t.Error("a ratio of totals aggregates; a column does not")
	}
	if !Arithmetic(Cmp(Col("trips", "km"), "*", Num("1000"))) || Arithmetic(Fn("ROUND", Col("trips", "km"))) {
		t.Error("arithmetic is columns and numbers under operators, no calls")
	}
	if ArithmeticNoCall(x) || !ArithmeticNoCall(Cmp(Col("trips", "km"), "+", Num("1"))) {
		t.Error("a subquery is no value of the row written without calls")
	}
	if !AggregatesOver(Fn("YEAR", Col("trips", "started")), Col("trips", "started")) || AggregatesOver(Agg{Fn: "COUNT", Distinct: true, Arg: Col("trips", "driver_id")}, Col("trips", "driver_id")) {
		t.Error("YEAR(x) applies a function to x; COUNT(DISTINCT x) is not counted as one")
	}
	if got := Literals(And(Cmp(Col("trips", "km"), ">", Num("5")), InList{X: Col("trips", "kind"), Vals: []Expr{Str("night")}})); len(got) != 2 || got[0] != Num("5") || got[1] != Str("night") {
		t.Errorf("Literals = %v", got)
	}
	if !IsCount(CountAll) || IsCount(AggOver("SUM", Col("trips", "km"))) {
		t.Error("COUNT(*) is a count, SUM is not")
	}
	if !IsAnd(And(Num("1"), Num("2"))) || IsAnd(And(Num("1"))) || And() != nil {
		t.Error("And of one part is the part, of none nil")
	}
	month := Col("totals", "month")
	window := Cmp(Col("totals", "fines"), "-", Over{X: Fn("LAG", Col("totals", "fines")), OrderBy: []Order{{X: month, Desc: true}}})
	if got := Columns(window); len(got) != 3 || got[1] != Col("totals", "fines") || got[2] != month {
		t.Errorf("Columns of a window = %v: its call's column and the column it is ordered by", got)
	}
	if got := Parts(Tuple{Xs: []Expr{month, Num("1")}}); len(got) != 2 || got[0] != month || got[1] != Num("1") {
		t.Errorf("Parts of a tuple = %v", got)
	}
	if !Aggregates(Over{X: AggOver("SUM", month)}) || Aggregates(Over{X: Fn("LAG", month), OrderBy: []Order{{X: month}}}) {
		t.Error("a window over a total holds an aggregate; LAG does not")
	}
	var seen []string
	Walk(ratio, func(e Expr) bool {
		seen = append(seen, e.Render(library))
		_, agg := e.(Agg)
		return !agg // not into the totals
	})
	if strings.Join(seen, " | ") != "SUM(trips.km) / SUM(trips.hours) | SUM(trips.km) | SUM(trips.hours)" {
		t.Errorf("Walk visited %q", seen)
	}
}
