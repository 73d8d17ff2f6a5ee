package dialog

import "testing"

// TestLooksLikeSQL: a statement the SQL parser reads, or an injection
// fragment, is SQL typed into the chat; requests that start with a SQL
// keyword ("drop the city column", "with the largest amount") are not.
func TestLooksLikeSQL(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"SELECT name FROM patients", true},
		{"drop table visits", true},
		{"update visits set fee = 0", true},
		{"with x as (select 1) select * from x", true},
		{"the ward' --", true},
		{"north; drop table visits", true},
		{"drop the city column", false},
		{"with the largest amount", false},
		{"select the wards with most visits", false},
		{"delete", false},
		{"only 2024", false},
	} {
		if got := looksLikeSQL(c.text); got != c.want {
			t.Errorf("looksLikeSQL(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
