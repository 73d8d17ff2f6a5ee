package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// TestStatedMeaning: a word the schema does not name, defined in words the
// dialog could not read as a typed term ("by 'regular' I mean …"), is read
// from the clause itself: rows related to the subject (negated when the
// clause says so), or rows within a number of days of their date.
func TestStatedMeaning(t *testing.T) {
	e, _ := libraryEngine(t)
	cases := []struct {
		name, about, text string
		want, not         []string
	}{
		{"related rows", "regular", "members with loans",
			[]string{"EXISTS (SELECT", "FROM loans"}, []string{"NOT EXISTS"}},
		{"no related rows", "regular", "members without any loans",
			[]string{"NOT EXISTS (SELECT", "FROM loans"}, nil},
		{"within days", "regular", "joined in the last 30 days",
			[]string{"members.joined_on >="}, []string{"loans"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.Candidates(context.Background(), dialog.Request{
				Question: "how many " + tc.about + " members are there?",
				Feedback: []dialog.Feedback{{Text: tc.text, About: tc.about}},
			})
			if err != nil || len(p.Candidates) == 0 {
				t.Fatalf("no reading (%v)", err)
			}
			c := p.Candidates[0]
			for _, w := range tc.want {
				if !strings.Contains(c.SQL, w) {
					t.Errorf("likeliest reading lacks %q:\n%s", w, c.SQL)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(c.SQL, w) {
					t.Errorf("likeliest reading has %q:\n%s", w, c.SQL)
				}
			}
		})
	}
}
