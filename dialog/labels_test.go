package dialog

import (
	"testing"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

func TestCommentsThatNameTheColumn(t *testing.T) {
	t.Parallel()
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

// Leaving out a stored value that is also a verb's participle reads as
// the event ("returned" loans), not as a bare "don't filter".
func TestNoFilterOptionNamesTheEvent(t *testing.T) {
	t.Parallel()
	l := NewLabels(nil)
	for _, tc := range []struct{ word, want string }{
		{"returned", "'returned' as what happened (no filter on a stored 'returned')"},
		{"overdue", "Don't filter on 'overdue'"},
		{"red", "Don't filter on 'red'"},
		{"cancelled", "'cancelled' as what happened (no filter on a stored 'cancelled')"},
		{"need", "Don't filter on 'need'"},
	} {
		key := sqlshape.SlotKey{Name: sqlshape.SlotFilterOn, Arg: tc.word}
		if got := l.optionLabel(key, sqlshape.SlotValue{}, nil, false, "", "").Label; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.word, got, tc.want)
		}
	}
}
