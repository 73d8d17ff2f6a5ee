package glossary

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitLiterals: an IN list's pieces, and the values (or the problem)
// a filter reads from them. Rows marked "was" show what the hand-written
// splitter gave, which knew only single quotes, each one toggling.
func TestSplitLiterals(t *testing.T) {
	for _, tc := range []struct {
		name, list string
		pieces     []string
		values     []string // nil when the filter is refused
	}{
		{"plain", "'placed', 'shipped'", []string{"'placed'", " 'shipped'"}, []string{"placed", "shipped"}},
		{"comma inside quotes", "'a,b', 'c'", []string{"'a,b'", " 'c'"}, []string{"a,b", "c"}},
		{"doubled quote", "'it''s', 'x'", []string{"'it''s'", " 'x'"}, []string{"it's", "x"}},
		{"empty literal", "'', 'x'", []string{"''", " 'x'"}, []string{"", "x"}},
		{"empty list", "", []string{""}, nil},
		{"escaped backslash", `'a\\', 'b'`, []string{`'a\\'`, " 'b'"}, []string{`a\\`, "b"}},
		// was `'it\'s`, ` here', 'x'`
		{"escaped quote", `'it\'s, here', 'x'`, []string{`'it\'s, here'`, " 'x'"}, nil},
		// was `'a\'`, ` 'b'`, read as the values a\ and b, which the
		// server reads as one string: a', then b'
		{"backslash before the closing quote", `'a\', 'b'`, []string{`'a\', 'b'`}, nil},
		// was "'a'", " f(1", " 2)"
		{"commas inside a call", "'a', f(1, 2)", []string{"'a'", " f(1, 2)"}, nil},
		// was `"a`, `b"`, ` 'c'`
		{"double quotes", `"a,b", 'c'`, []string{`"a,b"`, " 'c'"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitLiterals(tc.list); !slices.Equal(got, tc.pieces) {
				t.Errorf("splitLiterals(%q) = %q, want %q", tc.list, got, tc.pieces)
			}
			where := "orders.status IN (" + tc.list + ")"
			term, err := predicate(Filter{Where: where}, "orders")
			switch {
			case tc.values == nil && err == nil:
				t.Errorf("%s read as %q, want a problem", where, term.Values)
			case tc.values == nil && !strings.Contains(err.Error(), "IN lists only quoted values"):
				t.Errorf("%s: %v, want a problem with the IN list", where, err)
			case tc.values != nil && err != nil:
				t.Errorf("%s: %v", where, err)
			case tc.values != nil && !slices.Equal(term.Values, tc.values):
				t.Errorf("%s read as %q, want %q", where, term.Values, tc.values)
			}
		})
	}
}
