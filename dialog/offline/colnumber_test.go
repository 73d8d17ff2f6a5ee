package offline_test

import (
	"fmt"
	"strings"
	"testing"
)

// hostelDump is a hostel of our own: beds in dormitories on floors.
func hostelDump() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE beds (bed_id INT PRIMARY KEY, dorm VARCHAR(10), floor INT, nightly_price DECIMAL(6,2));\n")
	dorms := []string{"Oak", "Ash", "Elm"}
	for i := 1; i <= 18; i++ {
		fmt.Fprintf(&b, "INSERT INTO beds VALUES (%d, '%s', %d, %d.00);\n", i, dorms[i%3], 1+i%3, 15+i%4*5)
	}
	return b.String()
}

// TestColumnAndNumber: a number column's name followed by a number is a
// condition on the column ("on floor 2"), in every shape that takes one; a
// sign between them says which ("nightly price > 20").
func TestColumnAndNumber(t *testing.T) {
	e, _ := engineOn(t, hostelDump())
	for _, c := range []struct{ question, want string }{
		{"how many beds are on floor 2", "WHERE beds.floor = 2"},
		{"list the dorms of the beds on floor 3", "WHERE beds.floor = 3"},
		{"average nightly price of beds on floor 1", "WHERE beds.floor = 1"},
		{"how many beds have a nightly price > 20", "WHERE beds.nightly_price > 20"},
		{"list the dorms of beds with floor != 2", "WHERE beds.floor <> 2"},
	} {
		first := proposal(t, e, c.question).Candidates[0]
		if !strings.Contains(first.SQL, c.want) || len(first.Unused) > 0 {
			t.Errorf("%q: want %q and every word used; got (unused %v)\n%s", c.question, c.want, first.Unused, first.SQL)
		}
	}
}
