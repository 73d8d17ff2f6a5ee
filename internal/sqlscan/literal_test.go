package sqlscan

import (
	"slices"
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	// '_' marks a blanked byte.
	masked := func(src string, mode Mode) string {
		b := Mask(src, mode)
		for k := range b {
			if b[k] != src[k] {
				b[k] = '_'
			}
		}
		return string(b)
	}
	checkDrawings(t, "mask", masked, []drawing{
		{"strings and comments", "f('a', \"b\") -- c\nx # d\ny /* e */ z", MySQL, "f(___, ___) __ _\nx _ _\ny __ _ __ z"},
		{"names are kept", "`a'b`(x), `c``d`", MySQL, "`a'b`(x), `c``d`"},
		{"line feeds are kept", "'a\nb' /* c\nd */ e", MySQL, "__\n__ __ _\n_ __ e"},
		{"doubled quote", "'it''s' x", MySQL, "_______ x"},
		{"escaped quote", `'it\'s' x`, MySQL, "_______ x"},
		{"no escapes without the mode", `'it\'s' x`, Quotes, "_____s_ _"},
		{"unterminated string", "x 'a, f (y)", MySQL, "x ___ _ ___"},
		{"unterminated comment", "x /* f (y)", MySQL, "x __ _ ___"},
		{"dashes before a control character", "x --\x0bf (y)\nz", MySQL, "x ____ ___\nz"},
		{"dashes before a letter", "x --f (y)", MySQL, "x --f (y)"},
		{"double quotes as names", `"a" 'b'`, SingleQuote | Backquote, `"a" ___`},
		{"empty", "", MySQL, ""},
	})
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		i         int
		mode      Mode
		value     string
		end       int
	}{
		{"plain", "x = 'abc' AND y", 4, MySQL, "abc", 9},
		{"double quotes", `"abc", 'd'`, 0, MySQL, "abc", 5},
		{"empty", "'' x", 0, MySQL, "", 2},
		{"doubled quote", "'it''s' x", 0, MySQL, "it's", 7},
		{"doubled quote at the start", "'''a' x", 0, MySQL, "'a", 5},
		{"doubled quote at the end", "'a''' x", 0, MySQL, "a'", 5},
		{"the other quote inside", `'say "hi"'`, 0, MySQL, `say "hi"`, 10},
		{"doubled double quote", `"a""b"`, 0, MySQL, `a"b`, 6},
		{"escaped quote", `'it\'s' x`, 0, MySQL, "it's", 7},
		{"escaped backslash ends the string", `'a\\' x`, 0, MySQL, `a\`, 5},
		// As MariaDB 10.11 reads it: SELECT HEX('\0\'\"\b\n\r\t\Z\\\%\_\x\é').
		{"every escape", `'\0\'\"\b\n\r\t\Z\\\%\_\x\é'`, 0, MySQL, "\x00'\"\b\n\r\t\x1a\\\\%\\_xé", 29},
		{"no escapes without the mode", `'a\' x`, 0, Quotes, `a\`, 4},
		{"unterminated", "'abc", 0, MySQL, "abc", 4},
		{"unterminated after a backslash", `'a\`, 0, MySQL, `a\`, 3},
		{"unterminated after a doubled quote", "'a''b", 0, MySQL, "a'b", 5},
		{"not a string: a name", "`a`", 0, MySQL, "", 0},
		{"not a string: code", "abc", 1, MySQL, "", 1},
		{"not a string: the mode knows no double quotes", `"a"`, 0, SingleQuote, "", 0},
		{"past the end", "'a'", 3, MySQL, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value, end := String(tc.src, tc.i, tc.mode)
			if value != tc.value || end != tc.end {
				t.Errorf("String(%q, %d) = %q, %d; want %q, %d", tc.src, tc.i, value, end, tc.value, tc.end)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		mode      Mode
		want      []string
	}{
		{"in order", `SELECT 'a', "b" FROM t WHERE c = 'd'`, MySQL, []string{"a", "b", "d"}},
		{"empty literal", "x = ''", MySQL, []string{""}},
		{"doubled quote is one literal", "x IN ('it''s', 'b')", MySQL, []string{"it's", "b"}},
		{"escaped quote is one literal", `x IN ('it\'s', 'b')`, MySQL, []string{"it's", "b"}},
		{"names are not literals", "SELECT `o'neil` FROM t WHERE a = 'x'", MySQL, []string{"x"}},
		{"comments are not literals", "SELECT 1 -- it's\n, 'x' /* 'y' */ # 'z'", MySQL, []string{"x"}},
		{"unterminated", "x = 'ab", MySQL, []string{"ab"}},
		{"none", "SELECT 1", MySQL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := slices.Collect(Strings(tc.src, tc.mode)); !slices.Equal(got, tc.want) {
				t.Errorf("Strings(%q) = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// quoteValue writes v as a literal the way a careful client would: quotes
// doubled and, with Backslash, backslashes escaped.
func quoteValue(v string, mode Mode) string {
	if mode&Backslash != 0 {
		v = strings.ReplaceAll(v, `\`, `\\`)
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a", "it's", `a\`, `\%_`, "''", "\x00\n"} {
		f.Add(s, uint16(MySQL))
		f.Add(s, uint16(Quotes))
	}
	f.Fuzz(func(t *testing.T, v string, m uint16) {
		mode := Mode(m) | SingleQuote
		lit := quoteValue(v, mode)
		src := lit + ", 'x'"
		if got, end := String(src, 0, mode); got != v || end != len(lit) {
			t.Fatalf("String(%q) = %q, %d; want %q, %d", src, got, end, v, len(lit))
		}
		masked := Mask(src, mode)
		if len(masked) != len(src) {
			t.Fatalf("Mask(%q) has %d bytes, not %d", src, len(masked), len(src))
		}
		for k := range masked {
			if masked[k] != ' ' && masked[k] != src[k] || src[k] == '\n' && masked[k] != '\n' {
				t.Fatalf("Mask(%q) = %q changes byte %d", src, masked, k)
			}
		}
		if got := string(masked[len(lit):]); got != ",    " {
			t.Fatalf("Mask(%q) ends %q, want the comma alone", src, got)
		}
	})
}
