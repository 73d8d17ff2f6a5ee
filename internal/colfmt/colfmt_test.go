package colfmt

import (
	"strconv"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		col  Column
		want Format
	}{
		{"count of anything is a number", Column{Name: "revenue_count", Type: "BIGINT", Agg: "COUNT", Expr: "COUNT(orders.net_amount)", Comment: "Net revenue in USD"}, Format{Kind: Number}},
		{"sum of a column whose comment says revenue", Column{Name: "total", Type: "DECIMAL", Agg: "SUM", Source: "x1", Comment: "Net revenue after discounts"}, Format{Kind: Money}},
		{"comment names US dollars", Column{Name: "list_price", Type: "DECIMAL", Source: "list_price", Comment: "Current catalogue price per unit in US dollars"}, Format{Kind: Money, Currency: "$"}},
		{"euro in the comment of an oddly named column", Column{Name: "betrag", Type: "DECIMAL", Source: "betrag", Comment: "Rechnungsbetrag in EUR"}, Format{Kind: Money, Currency: "€"}},
		{"dollar sign in the comment", Column{Name: "val", Type: "DOUBLE", Comment: "Value ($)"}, Format{Kind: Money, Currency: "$"}},
		{"camel-case name says cost", Column{Name: "unitCost", Type: "FLOAT"}, Format{Kind: Money}},
		{"money word but text type", Column{Name: "price_band", Type: "VARCHAR"}, Format{Kind: Text}},
		{"comment says number of", Column{Name: "sales", Type: "INT", Source: "sales", Comment: "Number of sales made that day"}, Format{Kind: Number}},
		{"percent in the name", Column{Name: "discount_pct", Type: "DECIMAL"}, Format{Kind: Percent}},
		{"percent sign and fraction in the comment", Column{Name: "churn", Type: "DOUBLE", Comment: "Churn % as a fraction (0-1)"}, Format{Kind: Percent, Fraction: true}},
		{"identifier", Column{Name: "customer_id", Type: "INT"}, Format{Kind: ID}},
		{"camel-case identifier", Column{Name: "customerID", Type: "BIGINT"}, Format{Kind: ID}},
		{"zip code", Column{Name: "zip", Type: "INT"}, Format{Kind: ID}},
		{"plain measure", Column{Name: "quantity", Type: "INT"}, Format{Kind: Number}},
		{"DATE type", Column{Name: "ordered_at", Type: "DATE"}, Format{Kind: Date}},
		{"DATETIME type", Column{Name: "created", Type: "DATETIME"}, Format{Kind: DateTime}},
		{"DATE() of a datetime", Column{Name: "day", Type: "DATETIME", Expr: "DATE(events.at)"}, Format{Kind: Date}},
		{"YEAR()", Column{Name: "y", Type: "INT", Expr: "YEAR(orders.ordered_at)"}, Format{Kind: Year}},
		{"MONTH()", Column{Name: "month", Type: "INT", Expr: "MONTH(orders.ordered_at)"}, Format{Kind: Month}},
		{"QUARTER()", Column{Name: "q", Type: "BIGINT", Expr: "quarter(orders.ordered_at)"}, Format{Kind: Quarter}},
		{"DATE_FORMAT()", Column{Name: "ym", Type: "VARCHAR", Expr: "DATE_FORMAT(orders.ordered_at, '%Y-%m')"}, Format{Kind: Period}},
		{"alias year without expression", Column{Name: "order_year", Type: "BIGINT"}, Format{Kind: Year}},
		{"alias month as text", Column{Name: "month", Type: "VARCHAR"}, Format{Kind: Period}},
		{"text", Column{Name: "name", Type: "VARCHAR"}, Format{Kind: Text}},
		{"unknown type, numeric source", Column{Name: "amount", Source: "amount", SourceType: "decimal", Comment: "Amount refunded to the customer"}, Format{Kind: Money}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(tt.col); got != tt.want {
				t.Errorf("Detect(%+v) = %+v, want %+v", tt.col, got, tt.want)
			}
		})
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		v    any
		want string
	}{
		{"null", Format{Kind: Money}, nil, "NULL"},
		{"money decimal kept exact", Format{Kind: Money}, "7055650.75", "7,055,650.75"},
		{"money with symbol", Format{Kind: Money, Currency: "$"}, "1234567.5", "$1,234,567.50"},
		{"negative money", Format{Kind: Money, Currency: "$"}, "-12345.678", "-$12,345.68"},
		{"money rounds up across digits", Format{Kind: Money}, "99999.999", "100,000.00"},
		{"money from float", Format{Kind: Money, Currency: "€"}, 30.081234, "€30.08"},
		{"money from integer", Format{Kind: Money}, int64(42), "42.00"},
		{"tiny negative money is zero", Format{Kind: Money}, "-0.001", "0.00"},
		{"percent points", Format{Kind: Percent}, "12.345", "12.3%"},
		{"percent fraction", Format{Kind: Percent, Fraction: true}, 0.256, "25.6%"},
		{"number separators", Format{Kind: Number}, int64(1234567), "1,234,567"},
		{"four digits get a separator too", Format{Kind: Number}, int64(1613), "1,613"},
		{"three digits need none", Format{Kind: Number}, int64(766), "766"},
		{"exact decimal of two places kept", Format{Kind: Number}, "12345.50", "12,345.50"},
		{"long decimal to a sensible precision", Format{Kind: Number}, "2.456789", "2.46"},
		{"large average to one decimal", Format{Kind: Number}, 12345.678, "12,345.7"},
		{"small fraction keeps four decimals", Format{Kind: Number}, 0.030512, "0.0305"},
		{"decimal trailing zeros of an average trimmed", Format{Kind: Number}, "78.500000", "78.5"},
		{"percent with separators", Format{Kind: Percent}, 12345.67, "12,345.7%"},
		{"negative number", Format{Kind: Number}, int64(-98765), "-98,765"},
		{"float noise trimmed", Format{Kind: Number}, 2.0 / 3.0, "0.6667"},
		{"float with a tail", Format{Kind: Number}, 1.0 / 3.0 * 10, "3.33"},
		{"id without separators", Format{Kind: ID}, int64(1234567), "1234567"},
		{"year without separators", Format{Kind: Year}, int64(2024), "2024"},
		{"date without midnight", Format{Kind: Date}, "2024-03-01 00:00:00", "2024-03-01"},
		{"date kept", Format{Kind: Date}, "2024-03-01", "2024-03-01"},
		{"datetime keeps time", Format{Kind: DateTime}, "2024-03-01 13:45:00", "2024-03-01 13:45:00"},
		{"text as is", Format{Kind: Text}, "Texas", "Texas"},
		{"non-numeric money text as is", Format{Kind: Money}, "n/a", "n/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Value(tt.v); got != tt.want {
				t.Errorf("%v.Value(%#v) = %q, want %q", tt.f.Kind, tt.v, got, tt.want)
			}
		})
	}
}

func TestTick(t *testing.T) {
	tests := []struct {
		f    Format
		x    float64
		want string
	}{
		{Format{Kind: Money, Currency: "$"}, 2500000, "$2.5M"},
		{Format{Kind: Money, Currency: "$"}, -35000, "-$35k"},
		{Format{Kind: Number}, 1500, "1500"},
		{Format{Kind: Number}, 1.25e9, "1.2B"},
		{Format{Kind: Number}, 0.5, "0.5"},
		{Format{Kind: Percent, Fraction: true}, 0.25, "25%"},
	}
	for _, tt := range tests {
		if got := tt.f.Tick(tt.x); got != tt.want {
			t.Errorf("%v.Tick(%v) = %q, want %q", tt.f.Kind, tt.x, got, tt.want)
		}
	}
}

func TestLocale(t *testing.T) {
	tests := []struct {
		tag  string
		f    Format
		v    any
		want string
	}{
		{"", Format{Kind: Money, Currency: "$"}, "1234567.5", "$1,234,567.50"},
		{"en-US", Format{Kind: Number}, int64(8979), "8,979"},
		{"de-DE", Format{Kind: Money, Currency: "€"}, "1234567.5", "€1.234.567,50"},
		{"de", Format{Kind: Number}, 1234.5678, "1.234,6"},
		{"fr", Format{Kind: Number}, int64(17454), "17\u00a0454"},
		{"pt_BR", Format{Kind: Percent, Fraction: true}, 0.0305, "3,05%"},
		{"de-CH", Format{Kind: Number}, int64(1000000), "1’000’000"},
		{"not a tag!", Format{Kind: Number}, int64(1000), "1,000"},
		{"de-DE", Format{Kind: Year}, int64(2024), "2024"},
		{"de-DE", Format{Kind: ID}, int64(123456), "123456"},
	}
	for _, tt := range tests {
		t.Run(tt.tag+"/"+tt.want, func(t *testing.T) {
			want := strings.ReplaceAll(tt.want, "\\u00a0", "\u00a0")
			loc := LocaleFor(tt.tag)
			got := tt.f.ValueIn(tt.v, loc)
			if got != want {
				t.Fatalf("ValueIn(%v, %q) = %q, want %q", tt.v, tt.tag, got, want)
			}
			if tt.f.IsMeasure() {
				back, ok := loc.Parse(got)
				if !ok {
					t.Fatalf("Parse(%q) in %q failed", got, tt.tag)
				}
				if _, err := strconv.ParseFloat(back, 64); err != nil {
					t.Errorf("Parse(%q) = %q, not a number", got, back)
				}
			}
		})
	}
	if got := LocaleFor("de-DE").Int(181000); got != "181.000" {
		t.Errorf("Int in de-DE = %q", got)
	}
	if got := (Locale{}).Int(-1613); got != "-1,613" {
		t.Errorf("Int(-1613) = %q", got)
	}
}

func TestRefine(t *testing.T) {
	tests := []struct {
		name   string
		col    Column
		values []any
		want   Format
	}{
		{"ratio of fractions", Column{Name: "cancel_rate", Type: "DOUBLE"}, []any{0.0305, nil, 0.12}, Format{Kind: Percent, Fraction: true}},
		{"share as decimal strings", Column{Name: "share", Type: "DECIMAL"}, []any{"0.25", "0.75"}, Format{Kind: Percent, Fraction: true}},
		{"ratio above one stays a number", Column{Name: "size_ratio", Type: "DOUBLE"}, []any{0.5, 3.2}, Format{Kind: Number}},
		{"no share word", Column{Name: "avg_score", Type: "DOUBLE"}, []any{0.5}, Format{Kind: Number}},
		{"only zeros and ones say nothing", Column{Name: "rate", Type: "INT"}, []any{int64(0), int64(1)}, Format{Kind: Number}},
		{"a count is a count", Column{Name: "rate_count", Type: "BIGINT", Agg: "COUNT"}, []any{0.5}, Format{Kind: Number}},
		{"money rate stays money", Column{Name: "hourly_rate", Type: "DECIMAL", Comment: "Hourly rate in USD"}, []any{"0.50"}, Format{Kind: Money, Currency: "$"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Refine(Detect(tt.col), tt.col, tt.values); got != tt.want {
				t.Errorf("Refine = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCurrency(t *testing.T) {
	cols := []Column{
		{Name: "list_price", Type: "DECIMAL", Source: "list_price", Comment: "Current catalogue price per unit in US dollars"},
		{Name: "net_amount", Type: "DECIMAL", Source: "net_amount", Comment: "Net revenue after discounts"},
		{Name: "name", Type: "VARCHAR"},
	}
	if got := SchemaCurrency(cols); got != "$" {
		t.Fatalf("SchemaCurrency = %q, want $", got)
	}
	mixed := append(cols, Column{Name: "fee_eur", Type: "DECIMAL", Comment: "Fee in euros"})
	if got := SchemaCurrency(mixed); got != "" {
		t.Errorf("SchemaCurrency of dollars and euros = %q, want none", got)
	}
	fs := []Format{{Kind: Money}, {Kind: Number}, {Kind: Money, Currency: "£"}}
	Consistent(fs, "$")
	if fs[0].Currency != "£" || fs[1].Currency != "" {
		t.Errorf("Consistent with a pound column = %+v", fs)
	}
	fs = []Format{{Kind: Money}, {Kind: Money}}
	Consistent(fs, "$")
	if fs[0].Currency != "$" || fs[1].Currency != "$" {
		t.Errorf("Consistent with the warehouse's dollars = %+v", fs)
	}
	fs = []Format{{Kind: Money, Currency: "€"}, {Kind: Money, Currency: "$"}, {Kind: Money}}
	Consistent(fs, "$")
	if fs[2].Currency != "" {
		t.Errorf("an answer in two currencies guesses none for the third: %+v", fs)
	}
}

// TestExact: figures as stored for checking (bot sql): no rounding,
// separators on measures only.
func TestExact(t *testing.T) {
	tests := []struct {
		col  Column
		v    any
		want string
	}{
		{Column{Name: "total", Type: "DECIMAL"}, "316507.02", "316,507.02"},
		{Column{Name: "total", Type: "DOUBLE"}, 104306.63, "104,306.63"},
		{Column{Name: "avg_fee", Type: "DECIMAL"}, "384.145550", "384.145550"},
		{Column{Name: "n", Type: "BIGINT"}, int64(1234567), "1,234,567"},
		{Column{Name: "YEAR(borrowed_on)", Type: "BIGINT", Expr: "YEAR(borrowed_on)"}, int64(2022), "2022"},
		{Column{Name: "loan_id", Type: "INT"}, int64(100001), "100001"},
		{Column{Name: "late_fee", Type: "DECIMAL"}, nil, "NULL"},
	}
	for _, tt := range tests {
		if got := Detect(tt.col).Exact(tt.v); got != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.col.Name, tt.v, got, tt.want)
		}
	}
}

// TestMonthNames: a month of the year reads as its name; other month
// values ("2024-03") and bot sql's exact figures keep their digits.
func TestMonthNames(t *testing.T) {
	f := Detect(Column{Name: "MONTH(borrowed_on)", Type: "BIGINT", Expr: "MONTH(borrowed_on)"})
	for v, want := range map[any]string{int64(1): "Jan", int64(12): "Dec", "2024-03": "2024-03", int64(13): "13"} {
		if got := f.Value(v); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
	if got := f.Exact(int64(3)); got != "3" {
		t.Errorf("exact month: %q", got)
	}
	if got := (Format{Kind: Number, Null: "–"}).Value(nil); got != "–" {
		t.Errorf("a NULL meaning none: %q", got)
	}
}
