package offline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// playersDump is a people table whose free-text columns hold ordinary
// English words among the names, as real ones do.
func playersDump() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE player (player_id INT PRIMARY KEY, name_first VARCHAR(40), name_last VARCHAR(40), birth_city VARCHAR(40), weight INT, bats CHAR(1));\n")
	lasts := []string{"Pounds", "League", "Young", "Black", "Green", "Short", "Long", "Best"}
	cities := []string{"Payson", "Denver", "Austin", "Boston", "Dallas"}
	for i := 1; i <= 80; i++ {
		last := fmt.Sprintf("Surname%02d", i)
		if i <= len(lasts) {
			last = lasts[i-1]
		}
		fmt.Fprintf(&b, "INSERT INTO player VALUES (%d, 'First%02d', '%s', '%s%d', %d, '%c');\n", i, i, last, cities[i%len(cities)], i, 160+i, "LRB"[i%3])
	}
	return b.String()
}

func TestEverydayWordsAreNotSilentFilters(t *testing.T) {
	e, _ := engineOn(t, playersDump())
	filters := func(sql, pred string) bool { return strings.Contains(strings.ToLower(sql), pred) }
	tests := []struct {
		question, filter string
		// wantLikeliest says whether the likeliest reading filters on it.
		wantLikeliest bool
		// leftOut is the word the reading without the filter must say it did not use.
		leftOut string
	}{
		// "pounds" after a number is a unit, not a player's name: the
		// likeliest reading names no player.
		{"How many players weigh over 200 pounds?", "name_last = 'pounds'", false, ""},
		// An everyday word without a unit's place: not filtering is likelier, and said.
		{"How many players have pounds?", "name_last = 'pounds'", false, "pounds"},
		// The column's own word next to it corroborates the name, lower case as it is.
		{"how many players named pounds are there?", "name_last = 'pounds'", true, ""},
		// Quoted, it is meant.
		{`How many players are called "League"?`, "name_last = 'league'", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.question, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{Question: tc.question})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("%v %+v", err, p)
			}
			if got := filters(p.Candidates[0].SQL, tc.filter); got != tc.wantLikeliest {
				t.Fatalf("likeliest reading filters on %q: %v, want %v\n%s", tc.filter, got, tc.wantLikeliest, p.Candidates[0].SQL)
			}
			if tc.leftOut != "" {
				// Not silent: the reading without the filter says what it left out.
				if un := p.Candidates[0].Unused; !strings.Contains(strings.Join(un, " "), tc.leftOut) {
					t.Fatalf("the reading without the filter should say it left %q out: %v", tc.leftOut, un)
				}
			}
		})
	}
}
