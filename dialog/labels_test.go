package dialog

import "testing"

func TestCommentsThatNameTheColumn(t *testing.T) {
	for _, tc := range []struct {
		comment string
		names   bool
	}{
		{"Date the loan was returned", true},
		{"Gross revenue: order lines plus shipping", true},
		{"Possible values: active, inactive, expired", false},
		{"0 for member, 1 for staff", false},
		{"NULL if the loan is still open", false},
		{"e.g. 'Main branch'", false},
		{"One of: paperback, hardback", false},
		{"", false},
	} {
		if got := namesColumn(tc.comment); got != tc.names {
			t.Errorf("%q: names the column %v, want %v", tc.comment, got, tc.names)
		}
	}
}
