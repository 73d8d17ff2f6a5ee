package token

import (
	"fmt"
	"strings"
	"testing"
)

// show renders tokens compactly: words as typed, numbers as #value,
// quoted strings in «», the break after a token after a slash.
func show(toks []Token) string {
	var parts []string
	for _, t := range toks {
		s := t.Raw
		switch {
		case t.IsNum:
			s = fmt.Sprintf("#%g", t.Num)
		case t.Quoted:
			s = "«" + t.Raw + "»"
		}
		if t.Break != 0 {
			s += "/" + string(t.Break)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestLex(t *testing.T) {
	cases := []struct{ in, want string }{
		{"loans over $1,500.50 in 2024", "loans over #1500.5 in #2024"},
		{"fines above 5k, or 20% of them", "fines above #5000/, or #20 of them"},
		{"the 1990s and the 5th branch", "the #1990 and the #5 branch"},
		{`books titled "War and Peace"`, "books titled «War and Peace»"},
		{"books titled “Emma” please", "books titled «Emma» please"},
		{"the member's loans; and the members’ fines", "the member's loans/; and the members fines"},
		{"branches in the U.S. (by city)?", "branches in the U.S/. by city/?"},
		{"an 'unclosed quote", "an unclosed quote"},
		{`two quotes "" side by side`, "two quotes side by side"},
		{"first, then; last.", "first/, then/; last/."},
	}
	for _, tc := range cases {
		if got := show(Lex(tc.in, 0)); got != tc.want {
			t.Errorf("Lex(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{"rating > 4.5": ">", "rating >= 4.5": ">=", "rating != 4": "!=", "rating ≤ 4": "≤", "rating 4!": ""} {
		if got := Lex(in, 0)[0].Sign; got != want {
			t.Errorf("Lex(%q): sign %q after the first word, want %q", in, got, want)
		}
	}
	if toks := Lex("a b", 3); toks[0].Clause != 3 || toks[1].Clause != 3 {
		t.Error("tokens carry the clause they were read in")
	}
	if !Unbroken(Lex("the late fines", 0), 0, 3) || Unbroken(Lex("late, fines", 0), 0, 2) {
		t.Error("a phrase does not span punctuation")
	}
	for in, want := range map[string]bool{"2024": true, "1850": false, "2,024": false, "20.5": false} {
		if got := Lex(in, 0)[0].IsYear(); got != want {
			t.Errorf("IsYear(%s) = %v", in, got)
		}
	}
}
