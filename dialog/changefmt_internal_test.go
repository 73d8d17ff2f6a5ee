package dialog

import (
	"fmt"
	"testing"

	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// TestMonthOverMonthReads: a month-over-month answer shows month names,
// its change as money like the figure it changes and as a percentage, and
// "–" (not NULL) for the first month, which has none before it.
func TestMonthOverMonthReads(t *testing.T) {
	t.Parallel()
	res := &sqlresult.Result{
		Columns: []sqlresult.Column{{Name: "MONTH(borrowed_on)", Type: "BIGINT"}, {Name: "late_fees", Type: "DECIMAL"}, {Name: "change_from_previous", Type: "DECIMAL"}, {Name: "change_percent", Type: "DOUBLE"}},
		Rows:    [][]any{{int64(1), "18723.81", nil, nil}, {int64(2), "14327.76", "-4396.05", -23.478}},
	}
	formats := []colfmt.Format{{Kind: colfmt.Month}, {Kind: colfmt.Money, Currency: "$"}, colfmt.Detect(colfmt.Column{Name: "change_from_previous", Type: "DECIMAL"}), colfmt.Detect(colfmt.Column{Name: "change_percent", Type: "DOUBLE"})}
	changeFormats(res, formats)
	got := fmt.Sprint(formatRows(res.Rows, formats, colfmt.Locale{}, 0, 0))
	if want := "[[Jan $18,723.81 – –] [Feb $14,327.76 -$4,396.05 -23.5%]]"; got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
}

func TestDurationUnit(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		"AVG(DATEDIFF(shipments.delivered_at, shipments.shipped_at))": "days",
		"AVG(TIMESTAMPDIFF(HOUR, visits.arrived_at, visits.left_at))": "hours",
		"SUM(trips.distance_km)":  "",
		"YEAR(loans.borrowed_on)": "",
	} {
		if got := durationUnit(expr); got != want {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}
