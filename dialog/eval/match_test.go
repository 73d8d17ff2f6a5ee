package eval

import (
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

func res(rows ...[]any) *warehouse.Result {
	r := &warehouse.Result{Rows: rows}
	if len(rows) > 0 {
		r.Columns = make([]warehouse.ResultColumn, len(rows[0]))
	}
	return r
}

func row(v ...any) []any { return v }

func TestEvalMatch(t *testing.T) {
	cases := []struct {
		name    string
		pred    *warehouse.Result
		gold    *warehouse.Result
		ordered bool
		want    bool
	}{
		{"identical", res(row("a", int64(1))), res(row("a", int64(1))), false, true},
		{"row order ignored", res(row("a"), row("b")), res(row("b"), row("a")), false, true},
		{"row order matters when ordered", res(row("a"), row("b")), res(row("b"), row("a")), true, false},
		{"ordered same order", res(row("a"), row("b")), res(row("a"), row("b")), true, true},
		{"duplicates count", res(row("a"), row("a"), row("b")), res(row("a"), row("b"), row("b")), false, false},
		{"duplicates equal", res(row("a"), row("a"), row("b")), res(row("a"), row("b"), row("a")), false, true},
		{"missing duplicate", res(row("a"), row("b")), res(row("a"), row("a"), row("b")), false, false},
		{"column order ignored", res(row(int64(3), "x")), res(row("x", int64(3))), false, true},
		{"column order ignored in ordered rows", res(row(int64(1), "x"), row(int64(2), "y")), res(row("x", int64(1)), row("y", int64(2))), true, true},
		{"values are not swapped across rows", res(row("a", int64(1)), row("b", int64(2))), res(row("a", int64(2)), row("b", int64(1))), false, false},
		{"extra column", res(row("a", int64(1))), res(row("a")), false, false},
		{"float noise", res(row(0.1 + 0.2)), res(row(0.3)), false, true},
		{"relative tolerance", res(row(1_000_000.0000001)), res(row(1_000_000.0)), false, true},
		{"beyond tolerance", res(row(1.0001)), res(row(1.0)), false, false},
		{"absolute tolerance near zero", res(row(1e-12)), res(row(0.0)), false, true},
		{"small but distinct", res(row(1e-6)), res(row(0.0)), false, false},
		{"int equals float", res(row(int64(2))), res(row(2.0)), false, true},
		{"uint equals int", res(row(uint64(7))), res(row(int64(7))), false, true},
		{"decimal string equals float", res(row("1.50")), res(row(1.5)), false, true},
		{"decimal string equals decimal string", res(row("2.000")), res(row("2")), false, true},
		{"decimal average", res(row("1204.5000")), res(row(1204.49999999999)), false, true},
		{"text is not a number", res(row("1.5x")), res(row(1.5)), false, false},
		{"text case matters", res(row("Northfield")), res(row("northfield")), false, false},
		{"null equals null", res(row(nil, "a")), res(row("a", nil)), false, true},
		{"null is not zero", res(row(nil)), res(row(int64(0))), false, false},
		{"null is not empty text", res(row(nil)), res(row("")), false, false},
		{"empty equals empty", res(), res(), false, true},
		{"empty result with columns equals empty", &warehouse.Result{Columns: make([]warehouse.ResultColumn, 2)}, res(), false, true},
		{"empty vs one row", res(), res(row("a")), false, false},
		{"nil prediction", nil, res(), false, false},
		{"rows that sort apart by float noise", res(row(1.0000001, "b"), row(1.0, "a")), res(row(1.0, "b"), row(1.0000001, "a")), false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Match(tc.pred, tc.gold, tc.ordered); got != tc.want {
				t.Fatalf("Match = %v, want %v", got, tc.want)
			}
			if tc.pred != nil {
				if got := Match(tc.gold, tc.pred, tc.ordered); got != tc.want {
					t.Fatalf("Match is not symmetric: reversed = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestEvalMatchAny(t *testing.T) {
	golds := []*warehouse.Result{res(row("a", int64(1))), res(row("a"))}
	cases := []struct {
		name string
		pred *warehouse.Result
		want bool
	}{
		{"first gold", res(row(int64(1), "a")), true},
		{"alternative gold", res(row("a")), true},
		{"neither", res(row("b")), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatchAny(tc.pred, golds, false); got != tc.want {
				t.Fatalf("MatchAny = %v, want %v", got, tc.want)
			}
		})
	}
	if MatchAny(res(row("a")), nil, false) {
		t.Fatal("no gold must match nothing")
	}
}

func BenchmarkEvalMatch(b *testing.B) {
	const n = 2000
	// The same rows, reversed, with the columns in another order.
	var pr, gr [][]any
	for i := range n {
		pr = append(pr, row(int64(i), "name", float64(i)/3))
		j := n - 1 - i
		gr = append(gr, row(float64(j)/3, int64(j), "name"))
	}
	pred, gold := res(pr...), res(gr...)
	b.ReportAllocs()
	for b.Loop() {
		if !Match(pred, gold, false) {
			b.Fatal("should match")
		}
	}
	b.ReportMetric(float64(n), "rows/op")
}
