package sqlscan

import (
	"slices"
	"strings"
	"testing"
)

// code is src with every byte outside code replaced by '_', and the depth
// after each code byte: a picture of what a Scanner reads.
func code(src string, mode Mode) (string, []int) {
	b := []byte(strings.Repeat("_", len(src)))
	var depths []int
	for t := range Tokens(src, mode) {
		if t.Kind == Code {
			b[t.Start] = src[t.Start]
			depths = append(depths, t.Depth)
		}
	}
	return string(b), depths
}

// drawing is a row of a table test: a reading of src in mode, drawn as
// text.
type drawing struct {
	name, src string
	mode      Mode
	want      string
}

// checkDrawings draws each row's src and compares.
func checkDrawings(t *testing.T, what string, draw func(string, Mode) string, rows []drawing) {
	t.Helper()
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			if got := draw(tc.src, tc.mode); got != tc.want {
				t.Errorf("%s of %q\n got %q\nwant %q", what, tc.src, got, tc.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	codeOf := func(src string, mode Mode) string {
		s, _ := code(src, mode)
		return s
	}
	checkDrawings(t, "code", codeOf, []drawing{
		{"plain", "SELECT a, b FROM t", MySQL, "SELECT a, b FROM t"},
		{"single quotes", "a = 'x, y' AND b", MySQL, "a = ______ AND b"},
		{"double quotes", `a = "x; y";`, MySQL, "a = ______;"},
		{"backquotes", "`a b`.c", MySQL, "_____.c"},
		{"doubled quote", "'it''s, here', x", MySQL, "_____________, x"},
		{"doubled backquote", "`a``b`, x", MySQL, "______, x"},
		{"backslash-escaped quote", `'it\'s, here', x`, MySQL, "_____________, x"},
		{"escaped backslash ends the string", `'a\\', x`, MySQL, "_____, x"},
		{"escaped double quote", `"say \"hi\", ok", x`, MySQL, "________________, x"},
		{"no escapes in backquotes", "`a\\`, x", MySQL, "____, x"},
		{"backslash without the mode", `'it\'s, here', x`, Quotes, `_____s, here____`},
		{"unterminated quote", "a, 'b, c", MySQL, "a, _____"},
		{"hash comment", "a # b, c\nd", MySQL, "a ______\nd"},
		{"dash comment", "a -- b, c\nd", MySQL, "a _______\nd"},
		{"dash comment at the end", "a --", MySQL, "a __"},
		{"dashes without a space are minus signs", "a --1, c", MySQL, "a --1, c"},
		{"dashes before a control character", "a --\x01b, c\nd", MySQL, "a _______\nd"},
		{"dashes before delete", "a --\x7fb\nd", MySQL, "a ____\nd"},
		{"any dashes", "a --1, c\nd", Quotes | AnyDashComment, "a ______\nd"},
		{"block comment", "a /* b, ' c */, d", MySQL, "a ____________, d"},
		{"block comment needs its own star", "a /*/ b */ c", MySQL, "a ________ c"},
		{"unterminated block comment", "a /* b", MySQL, "a ____"},
		{"quote inside a comment", "a -- it's\nb, 'c'", MySQL, "a _______\nb, ___"},
		{"comment inside a quote", "'a -- b', c", MySQL, "________, c"},
		{"no comments without the mode", "a # b -- c /* d */", Quotes, "a # b -- c /* d */"},
		{"only single quotes", "'a', \"b\", `c`", SingleQuote, "___, \"b\", `c`"},
		{"nothing", "'a' # b", 0, "'a' # b"},
	})
}

func TestDepth(t *testing.T) {
	_, got := code("f(a, (b)) ')' x)", MySQL)
	want := []int{0, 1, 1, 1, 1, 2, 2, 1, 0, 0, 0, 0, -1}
	if !slices.Equal(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
}

func TestTerminated(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"'a'", true}, {"'a", false}, {`'a\'`, false}, {"/* a */", true}, {"/* a", false}, {"# a", true}, {"-- a\n", true},
	} {
		tok, ok := (&Scanner{Src: tc.src, Mode: MySQL}).Next()
		if !ok || tok.Terminated != tc.want {
			t.Errorf("%q: Terminated %v, want %v", tc.src, tok.Terminated, tc.want)
		}
	}
}

func TestBalanced(t *testing.T) {
	for _, tc := range []struct {
		src  string
		mode Mode
		want bool
	}{
		{"f(a, (b))", MySQL, true},
		{"f(a", MySQL, false},
		{")(", MySQL, false},
		{"f(')')", MySQL, true},
		{"f(')')", 0, false},
		{"a -- (\n", MySQL, true},
		{"", MySQL, true},
	} {
		if got := Balanced(tc.src, tc.mode); got != tc.want {
			t.Errorf("Balanced(%q, %b) = %v, want %v", tc.src, tc.mode, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		src  string
		sep  byte
		mode Mode
		want []string
	}{
		{"a, b", ',', MySQL, []string{"a", " b"}},
		{"f(a, b), 'c, d', `e,f`", ',', MySQL, []string{"f(a, b)", " 'c, d'", " `e,f`"}},
		{`'it\'s, here', x`, ',', Quotes | Backslash, []string{`'it\'s, here'`, " x"}},
		{"`db.x`.t", '.', Quotes, []string{"`db.x`", "t"}},
		{"", ',', MySQL, []string{""}},
		{"a,", ',', MySQL, []string{"a", ""}},
	} {
		if got := Split(tc.src, tc.sep, tc.mode); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestSeek(t *testing.T) {
	// A caller that reads a word moves Pos past it and goes on.
	s := &Scanner{Src: "abc, 'd'", Mode: MySQL}
	var kinds []Kind
	for tok := range s.All() {
		kinds = append(kinds, tok.Kind)
		if tok.Start == 0 {
			s.Pos = 3
		}
	}
	if want := []Kind{Code, Code, Code, Quoted}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
}

// toggled is the oldest reading of quotes: each quote byte opens or closes,
// nothing escapes. Without Backslash or comments a Scanner must agree.
func toggled(src string) string {
	b := []byte(src)
	var q byte
	for i, c := range b {
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
			b[i] = '_'
		case c == '\'' || c == '"' || c == '`':
			q = c
			b[i] = '_'
		}
	}
	return string(b)
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"SELECT a, b FROM t WHERE c = 'x' ORDER BY 1 LIMIT 2",
		`'it\'s', "a""b", ` + "`c``d`",
		"a -- b\n# c\n/* d */ e --1",
		"f(a, (b)) ')' x)",
		`'a\`,
		"/*/",
		"--",
		"'",
		"\\",
	} {
		f.Add(s, uint16(MySQL))
		f.Add(s, uint16(Quotes|AnyDashComment))
		f.Add(s, uint16(0))
	}
	f.Fuzz(func(t *testing.T, src string, m uint16) {
		mode := Mode(m)
		pos, depth := 0, 0
		for tok := range Tokens(src, mode) {
			if tok.Start != pos || tok.End <= tok.Start || tok.End > len(src) {
				t.Fatalf("token %+v does not follow offset %d in %q", tok, pos, src)
			}
			pos = tok.End
			text := src[tok.Start:tok.End]
			want := depth
			switch tok.Kind {
			case Code:
				if len(text) != 1 {
					t.Fatalf("code token %q is not one byte", text)
				}
				switch text {
				case "(":
					want++
				case ")":
					want--
				}
			case Quoted:
				q := text[0]
				if !strings.ContainsRune("'\"`", rune(q)) {
					t.Fatalf("quoted token %q does not start with a quote", text)
				}
				if tok.Terminated && (len(text) < 2 || text[len(text)-1] != q) {
					t.Fatalf("terminated quoted token %q does not end with its quote", text)
				}
			case Comment:
				switch {
				case strings.HasPrefix(text, "/*"):
					if tok.Terminated && (len(text) < 4 || !strings.HasSuffix(text, "*/")) {
						t.Fatalf("block comment %q", text)
					}
				case strings.HasPrefix(text, "#"), strings.HasPrefix(text, "--"):
					if strings.Contains(text, "\n") {
						t.Fatalf("line comment %q holds a line feed", text)
					}
				default:
					t.Fatalf("comment token %q", text)
				}
			}
			if tok.Depth != want {
				t.Fatalf("depth %d after %q, want %d", tok.Depth, text, want)
			}
			depth = tok.Depth
		}
		if pos != len(src) {
			t.Fatalf("tokens stop at %d of %d", pos, len(src))
		}
		if mode&(Quotes|HashComment|DashComment|AnyDashComment|BlockComment) == 0 {
			if got, _ := code(src, mode); got != src {
				t.Fatalf("with no delimiters the code is %q, not the text %q", got, src)
			}
		}
		if got, _ := code(src, Quotes); got != toggled(src) {
			t.Fatalf("code of %q with Quotes is %q, toggling quotes gives %q", src, got, toggled(src))
		}
		if Balanced(src, mode) != (depthNeverNegative(src, mode) && depth == 0) {
			t.Fatalf("Balanced(%q) disagrees with the depths", src)
		}
		if got := strings.Join(Split(src, ',', mode), ","); got != src {
			t.Fatalf("Split pieces of %q join to %q", src, got)
		}
	})
}

func depthNeverNegative(src string, mode Mode) bool {
	for t := range Tokens(src, mode) {
		if t.Depth < 0 {
			return false
		}
	}
	return true
}
