package llmengine

import (
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

func TestWordAccounting(t *testing.T) {
	f := newFixture(t, Options{}, false)
	account := func(question, sql string) ([]string, []string) {
		r := &run{e: f.eng, req: dialog.Request{Question: question}, text: question}
		r.link = f.eng.link(question, nil)
		return r.account(sql)
	}
	tests := []struct {
		name, question, sql string
		unused, notUnused   []string
		unlinked            []string
		notUnlinked         []string
	}{
		{
			name:     "the reading uses every word",
			question: "what was net revenue in 2024?", sql: netSQL,
			notUnused: []string{"net", "revenue", "2024", "what"},
		},
		{
			name:     "a dropped filter leaves its number out",
			question: "what was net revenue in 2024?", sql: "SELECT SUM(net_amount) FROM orders",
			unused: []string{"2024"}, notUnused: []string{"net", "revenue"},
		},
		{
			name:     "another column: the word is left out, the column is named by none",
			question: "what was net revenue in 2024?", sql: "SELECT SUM(shipping_fee) FROM orders WHERE YEAR(ordered_at) = 2024",
			unused: []string{"net"}, unlinked: []string{"orders.shipping_fee"},
		},
		{
			name:     "a ranking the wrong way round",
			question: "which customer placed the most orders?",
			sql:      "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY COUNT(*) ASC LIMIT 1",
			unused:   []string{"most"}, notUnused: []string{"customer", "orders"},
		},
		{
			name:      "at most is a comparison",
			question:  "customers with at most 3 orders",
			sql:       "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name HAVING COUNT(*) <= 3",
			notUnused: []string{"most", "3", "customers"},
		},
		{
			name:        "keys and join columns need no word",
			question:    "names of customers who placed orders",
			sql:         "SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.id",
			notUnlinked: []string{"customers.id", "orders.customer_id", "customers.name"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unused, unlinked := account(tc.question, tc.sql)
			for _, w := range tc.unused {
				if !slices.Contains(unused, w) {
					t.Errorf("unused %v lacks %q", unused, w)
				}
			}
			for _, w := range tc.notUnused {
				if slices.Contains(unused, w) {
					t.Errorf("unused %v has %q", unused, w)
				}
			}
			for _, c := range tc.unlinked {
				if !slices.Contains(unlinked, c) {
					t.Errorf("unlinked %v lacks %q", unlinked, c)
				}
			}
			for _, c := range tc.notUnlinked {
				if slices.Contains(unlinked, c) {
					t.Errorf("unlinked %v has %q", unlinked, c)
				}
			}
		})
	}
}

func TestPromptListsWhatItShows(t *testing.T) {
	f := newFixture(t, Options{}, false)
	l := f.eng.link("what was net revenue in texas in 2024?", nil)
	shown := l.shown()
	for _, want := range []string{"orders.net_amount", "orders.ordered_at", "customers.state"} {
		if !slices.Contains(shown, want) {
			t.Errorf("shown %v lacks %s", shown, want)
		}
	}
	// Every table and column listed is in the rendered schema.
	for _, c := range shown {
		tbl, col, _ := cut(c)
		if !containsWord(l.schema, "CREATE TABLE "+tbl) || !containsWord(l.schema, "  "+col+" ") {
			t.Errorf("%s is listed but not shown", c)
		}
	}
}

func cut(tc string) (string, string, bool) {
	i := strings.LastIndexByte(tc, '.')
	if i < 0 {
		return "", tc, false
	}
	return tc[:i], tc[i+1:], true
}

func containsWord(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// TestLiteralsOf: the string values a reading holds, read as the server
// reads the statement. Rows marked "was" show what the hand-written
// scanner listed before, over the statement with its line feeds folded.
func TestLiteralsOf(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		want      []string
	}{
		{"in order, lower-cased", `SELECT * FROM t WHERE a = 'Ashby' OR b = "North Yard"`, []string{"ashby", "north yard"}},
		{"empty literals are left out", "SELECT * FROM t WHERE a = '' OR b = 'x'", []string{"x"}},
		{"unterminated", "SELECT * FROM t WHERE a = 'abc", []string{"abc"}},
		// was "o", "brien"
		{"doubled quote", "SELECT * FROM t WHERE a = 'O''Brien'", []string{"o'brien"}},
		// was `o\`, " or b = "
		{"escaped quote", `SELECT * FROM t WHERE a = 'O\'Brien' OR b = 'x'`, []string{"o'brien", "x"}},
		// was "neil` from t where x = "
		{"quoted names hold none", "SELECT `o'neil` FROM t WHERE x = 'a'", []string{"a"}},
		// was "x", "t from t where y = "
		{"comments hold none", "SELECT 'x' -- isn't\nFROM t WHERE y = 'Z'", []string{"x", "z"}},
		{"none", "SELECT name FROM t", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := literalsOf(tc.sql); !slices.Equal(got, tc.want) {
				t.Errorf("literalsOf(%q) = %q, want %q", tc.sql, got, tc.want)
			}
		})
	}
}
