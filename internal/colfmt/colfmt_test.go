package colfmt

import "testing"

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
		{"four digits read fine", Format{Kind: Number}, int64(1613), "1613"},
		{"negative number", Format{Kind: Number}, int64(-98765), "-98,765"},
		{"float noise trimmed", Format{Kind: Number}, 2.0 / 3.0, "0.6667"},
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
