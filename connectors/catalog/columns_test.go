package catalog

import (
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"slices"
	"strings"
	"testing"
)

func hitNames(hits []ColumnHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Table + "." + h.Column
	}
	return out
}

func TestSearchColumns(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		name   string
		phrase string
		// wantTop must be the first hits, in any order.
		wantTop []string
		// wantNot must not be among the hits.
		wantNot []string
	}{
		{"synonym and comment", "revenue", []string{"orders.gross_amount", "orders.net_amount", "order_lines.line_amount"}, nil},
		{"stemmed name and comment", "ship date", []string{"orders.shipped_at"}, nil},
		{"column and table name", "customer email", []string{"customers.email"}, nil},
		{"camelCase split", "last login", []string{"customers.lastLoginAt"}, nil},
		{"question words dropped", "when was the order placed", []string{"orders.ordered_at"}, nil},
		{"plural and table", "customer states", []string{"customers.state"}, nil},
		{"sample values", "Oregon", []string{"customers.state"}, []string{"customers.email"}},
		{"closed compound of a name's words", "lastlogin", []string{"customers.lastLoginAt"}, nil},
		{"abbreviation synonym", "qty", []string{"order_lines.quantity"}, nil},
		{"categories plural", "categories", []string{"categories.name", "categories.id", "products.category_id"}, nil},
		{"miss", "zebra giraffe", nil, []string{"orders.id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := c.SearchColumns(tt.phrase, 10)
			names := hitNames(hits)
			if len(names) < len(tt.wantTop) {
				t.Fatalf("SearchColumns(%q) = %v, want %v first", tt.phrase, names, tt.wantTop)
			}
			top := slices.Clone(names[:len(tt.wantTop)])
			want := slices.Clone(tt.wantTop)
			slices.Sort(top)
			slices.Sort(want)
			if !slices.Equal(top, want) {
				t.Errorf("SearchColumns(%q) = %v, want %v first", tt.phrase, names, tt.wantTop)
			}
			for _, n := range tt.wantNot {
				if slices.Contains(names, n) {
					t.Errorf("SearchColumns(%q) = %v, must not contain %s", tt.phrase, names, n)
				}
			}
			for i, h := range hits {
				if h.Score <= 0 {
					t.Errorf("hit %d has score %v", i, h.Score)
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("hits not sorted: %v", hits)
				}
				if len(h.Matched) == 0 {
					t.Errorf("hit %v matched no word", h)
				}
			}
		})
	}
}

func TestSearchColumnsMatched(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		phrase, column string
		want           []string
	}{
		{"customer email", "customers.email", []string{"customer", "email"}},
		{"Show me the SALES", "orders.gross_amount", []string{"sales"}},
		{"ship date", "orders.shipped_at", []string{"ship", "date"}},
		{"ship date", "orders.ordered_at", []string{"date"}},
	}
	for _, tt := range tests {
		t.Run(tt.phrase+"/"+tt.column, func(t *testing.T) {
			for _, h := range c.SearchColumns(tt.phrase, 20) {
				if h.Table+"."+h.Column == tt.column {
					if !slices.Equal(h.Matched, tt.want) {
						t.Errorf("Matched = %q, want %q", h.Matched, tt.want)
					}
					return
				}
			}
			t.Errorf("%s not found for %q", tt.column, tt.phrase)
		})
	}
}

func TestSearchColumnsSynonymOption(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"without", Options{}, nil},
		{"one way", Options{Synonyms: map[string][]string{"ltv": {"lifetime value"}}}, []string{"customers.lifetime_value"}},
		{"other way", Options{Synonyms: map[string][]string{"lifetime value": {"ltv"}}}, []string{"customers.lifetime_value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCatalog(t, tt.opts)
			got := hitNames(c.SearchColumns("LTV", 1))
			if !slices.Equal(got, tt.want) {
				t.Errorf("SearchColumns(LTV) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSearchColumnsLimitsAndJunk(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		name   string
		phrase string
		limit  int
		want   int
	}{
		{"limit respected", "revenue", 2, 2},
		{"zero limit", "revenue", 0, 0},
		{"negative limit", "revenue", -1, 0},
		{"empty", "", 10, 0},
		{"whitespace", " \t\n ", 10, 0},
		{"only stop words", "what is the", 10, 0},
		{"emoji", "🙂🙂 🚀", 10, 0},
		{"punctuation", "?!.,;:'\"", 10, 0},
		{"10 kB of noise", strings.Repeat("xq", 5000), 10, 0},
		{"10 kB of words stays bounded", strings.Repeat("revenue date customer ", 500), 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.SearchColumns(tt.phrase, tt.limit); len(got) != tt.want {
				t.Errorf("got %d hits %v, want %d", len(got), hitNames(got), tt.want)
			}
		})
	}
}

// TestSearchColumnsByInitials: names abbreviate a word to its initial
// (Fname, LName); "first name" finds Fname and "last name" LName.
func TestSearchColumnsByInitials(t *testing.T) {
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Tables: []warehouse.Table{{Name: "wardens", Columns: []warehouse.Column{
		col("wardens", "WardenID", "int", ""), col("wardens", "Fname", "varchar", ""), col("wardens", "LName", "varchar", ""), col("wardens", "post_name", "varchar", ""),
	}}}}}
	c := New(snap, Options{})
	for phrase, want := range map[string]string{"first name": "wardens.Fname", "last name": "wardens.LName", "first names": "wardens.Fname"} {
		hits := c.SearchColumns(phrase, 3)
		if len(hits) == 0 || hitNames(hits)[0] != want {
			t.Errorf("%q: hits %v, want %s first", phrase, hitNames(hits), want)
		}
	}
}

// TestSearchColumnsSynonymsSkipValues: a synonym of a phrase word finds
// columns by their names and comments, never by their sample values alone
// ("sells" is no sign of a department column holding 'Sales'); the word itself
// still finds the values, and the hit says it matched only those.
func TestSearchColumnsSynonymsSkipValues(t *testing.T) {
	snap := &warehouse.Snapshot{
		Schema: warehouse.Schema{Tables: []warehouse.Table{
			{Name: "nurses", Columns: []warehouse.Column{col("nurses", "nurse_id", "int", ""), col("nurses", "department", "text", "")}},
			{Name: "pharmacy", Columns: []warehouse.Column{col("pharmacy", "shop_id", "int", ""), col("pharmacy", "sales_total", "int", "")}},
		}},
		Profiles: []warehouse.Profile{{Table: "nurses", Column: "department", Samples: []string{"Sales", "Wards", "Theatre"}}},
	}
	c := New(snap, Options{})
	if hits := c.SearchColumns("sales", 10); len(hits) == 0 || !slices.ContainsFunc(hits, func(h ColumnHit) bool { return h.Column == "sales_total" && h.ByName && !h.ValuesOnly }) {
		t.Errorf("SearchColumns(sales) = %+v, want sales_total found by its name", hits)
	}
	for _, h := range c.SearchColumns("theatre", 10) {
		if want := h.Table == "nurses"; h.ValuesOnly != want || h.ByName == want {
			t.Errorf("SearchColumns(theatre): %s.%s ValuesOnly = %v, ByName = %v, want %v and %v", h.Table, h.Column, h.ValuesOnly, h.ByName, want, !want)
		}
	}
	tests := []struct {
		phrase  string
		want    []string
		wantNot []string
	}{
		{"sells", []string{"pharmacy.sales_total"}, []string{"nurses.department"}},
		{"sales", []string{"nurses.department"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.phrase, func(t *testing.T) {
			names := hitNames(c.SearchColumns(tt.phrase, 10))
			for _, n := range tt.want {
				if !slices.Contains(names, n) {
					t.Errorf("SearchColumns(%q) = %v, want %s", tt.phrase, names, n)
				}
			}
			for _, n := range tt.wantNot {
				if slices.Contains(names, n) {
					t.Errorf("SearchColumns(%q) = %v, must not contain %s", tt.phrase, names, n)
				}
			}
		})
	}
}
