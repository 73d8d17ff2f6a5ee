package sqlscan

import (
	"iter"
	"strings"
)

// isString says whether c opens a string literal in mode: a single or
// double quote the mode knows. A backquote opens a name, not a string.
func (m Mode) isString(c byte) bool {
	return c == '\'' && m&SingleQuote != 0 || c == '"' && m&DoubleQuote != 0
}

// Mask is src with its string literals and comments blanked: each of
// their bytes but a line feed becomes a space, so offsets and line numbers
// stay where they were. Code and quoted names (`…`) are kept, so what is
// left is what the server reads as code and names.
func Mask(src string, mode Mode) []byte {
	b := []byte(src)
	for t := range Tokens(src, mode) {
		if t.Kind == Comment || t.Kind == Quoted && mode.isString(src[t.Start]) {
			for k := t.Start; k < t.End; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
		}
	}
	return b
}

// String reads the string literal whose opening quote is src[i]: its
// value and the offset after its closing quote. A quote written twice
// stands for one quote of the value; with Backslash, MySQL's escapes
// are decoded: \0 \b \n \r \t \Z stand for their control characters, \%
// and \_ keep their backslash (LIKE reads them), and any other escaped
// byte stands for itself. An unterminated literal runs to the end of src.
// When src[i] opens no string in mode, the value is empty and the offset i.
func String(src string, i int, mode Mode) (value string, end int) {
	if i >= len(src) || !mode.isString(src[i]) {
		return "", i
	}
	s := &Scanner{Src: src, Mode: mode}
	q := src[i]
	var b strings.Builder
	for end = i; ; {
		next, terminated := s.quoteEnd(end)
		body := src[end+1 : next]
		if terminated {
			body = body[:len(body)-1]
		}
		unescape(&b, body, mode)
		end = next
		// A quote right after the closing one is a quote inside the value.
		if !terminated || end == len(src) || src[end] != q {
			return b.String(), end
		}
		b.WriteByte(q)
	}
}

// unescape writes body, the text between a literal's quotes, decoded.
func unescape(b *strings.Builder, body string, mode Mode) {
	if mode&Backslash == 0 {
		b.WriteString(body)
		return
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		if c != '\\' || k+1 == len(body) {
			b.WriteByte(c)
			continue
		}
		k++
		switch c = body[k]; c {
		case '0':
			b.WriteByte(0)
		case 'b':
			b.WriteByte('\b')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'Z':
			b.WriteByte(0x1a)
		case '%', '_':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

// Strings yields the value of each string literal of src, in order (see
// String); quoted names and comments are not literals.
func Strings(src string, mode Mode) iter.Seq[string] {
	return func(yield func(string) bool) {
		s := &Scanner{Src: src, Mode: mode}
		for t := range s.All() {
			if t.Kind != Quoted || !mode.isString(src[t.Start]) {
				continue
			}
			v, end := String(src, t.Start, mode)
			if !yield(v) {
				return
			}
			s.Pos = end
		}
	}
}
