package catalog

import (
	"reflect"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"shipped_at", []string{"shipped", "at"}},
		{"customerID", []string{"customer", "id"}},
		{"lastLoginAt", []string{"last", "login", "at"}},
		{"HTTPServer", []string{"http", "server"}},
		{"address_line2", []string{"address", "line", "2"}},
		{"Gross revenue: before discounts!", []string{"gross", "revenue", "before", "discounts"}},
		{"Id", []string{"id"}},
		{"ÄrzteZürich", []string{"ärzte", "zürich"}},
		{"🙂 --- ", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := splitWords(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStemConflates(t *testing.T) {
	tests := []struct{ a, b string }{
		{"orders", "order"},
		{"ordered", "order"},
		{"shipped", "ship"},
		{"shipping", "ship"},
		{"categories", "category"},
		{"addresses", "address"},
		{"prices", "price"},
		{"priced", "price"},
		{"dates", "date"},
		{"created", "create"},
		{"ids", "id"},
		{"billing", "bill"},
	}
	for _, tt := range tests {
		t.Run(tt.a, func(t *testing.T) {
			if x, y := stem(tt.a), stem(tt.b); x != y {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want equal", tt.a, x, tt.b, y)
			}
		})
	}
}

func TestStemKeepsApart(t *testing.T) {
	tests := []struct{ a, b string }{
		{"status", "state"},
		{"address", "addres"},
		{"string", "str"},
		{"order", "ordinal"},
	}
	for _, tt := range tests {
		t.Run(tt.a, func(t *testing.T) {
			if x, y := stem(tt.a), stem(tt.b); x == y {
				t.Errorf("stem(%q) = stem(%q) = %q; want different", tt.a, tt.b, x)
			}
		})
	}
}

func TestQueryWords(t *testing.T) {
	a := newAnalyzer()
	tests := []struct {
		in   string
		want []string
	}{
		{"What is the revenue of the orders?", []string{"revenu", "order"}},
		{"show me orders, ORDERS and order", []string{"order"}},
		{"when did it ship", []string{"when", "ship"}},
		{"which is the", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got []string
			for _, w := range a.queryWords(tt.in) {
				got = append(got, w.term)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("queryWords(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
