// Package token reads the text the offline engine is given: it
// splits a question (and each piece of feedback typed after it) into
// tokens — words with inner apostrophes and hyphens, numbers ("100,000",
// "$1.5", "20%", "two hundred fifty"), quoted strings kept whole — and
// records the punctuation after each, so later stages never read raw text.
//
// It is the first stage of the pipeline described in package offline.
package token

import (
	"strconv"
	"strings"
	"unicode"
)

// Token is one word, number or quoted string of the question.
type Token struct {
	Raw    string // as typed
	Low    string // lower-case
	Num    float64
	IsNum  bool
	Quoted bool
	// Clause is 0 for the question and i for the i-th piece of feedback.
	Clause int
	Used   bool
	// Break is the punctuation right after the token (',', '.', '?', ';',
	// '(', ')'…), 0 for none: phrases do not span it, lists are split at it.
	Break rune
	// Sign is a comparison sign typed right after the token: "rating > 4.5"
	// gives "rating" the sign ">".
	Sign string
}

// Lex splits text into tokens: words (with inner apostrophes and hyphens),
// numbers ("100,000", "$1.5", "20%"), and quoted strings kept whole.
func Lex(text string, clause int) []Token {
	l := lexer{rs: []rune(text), clause: clause}
	for l.i < len(l.rs) {
		r := l.rs[l.i]
		switch {
		case opensQuote(l.rs, l.i):
			l.quoted()
		case unicode.IsDigit(r) || (r == '$' && l.i+1 < len(l.rs) && unicode.IsDigit(l.rs[l.i+1])):
			l.number()
		case unicode.IsLetter(r):
			l.word()
		default:
			l.punctuation(r)
		}
	}
	return l.out
}

// lexer is Lex's position in the text and the tokens read so far.
type lexer struct {
	rs     []rune
	i      int
	clause int
	out    []Token
}

// opensQuote: a double quote, a curly one, or an apostrophe that does not
// follow a letter (so "member's" stays one word).
func opensQuote(rs []rune, i int) bool {
	r := rs[i]
	return r == '"' || r == '“' || r == '”' || (r == '\'' && (i == 0 || !unicode.IsLetter(rs[i-1])))
}

// quoted reads a quoted string whole; a quote that never closes, or
// closes at once, is skipped.
func (l *lexer) quoted() {
	rs, i := l.rs, l.i
	closeWith := rs[i]
	if closeWith == '“' {
		closeWith = '”'
	}
	j := i + 1
	for j < len(rs) && rs[j] != closeWith && !(closeWith == '"' && rs[j] == '”') {
		j++
	}
	if j < len(rs) && j > i+1 {
		s := string(rs[i+1 : j])
		l.out = append(l.out, Token{Raw: s, Low: strings.ToLower(s), Quoted: true, Clause: l.clause})
		l.i = j + 1
		return
	}
	l.i++
}

// number reads "100,000", "$1.5", "20%" and "5k"; letters run on after a
// number ("2024s", "5th") belong to it.
func (l *lexer) number() {
	rs, i := l.rs, l.i
	j := i
	if rs[i] == '$' {
		j++
	}
	for j < len(rs) && (unicode.IsDigit(rs[j]) || (rs[j] == ',' || rs[j] == '.') && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
		j++
	}
	raw := string(rs[i:j])
	clean := strings.ReplaceAll(strings.TrimPrefix(raw, "$"), ",", "")
	f, err := strconv.ParseFloat(clean, 64)
	mult := 1.0
	if j < len(rs) && (rs[j] == 'k' || rs[j] == 'K') && (j+1 == len(rs) || !unicode.IsLetter(rs[j+1])) {
		mult, j = 1000, j+1
	} else if j < len(rs) && rs[j] == '%' {
		j++
	}
	if err == nil {
		l.out = append(l.out, Token{Raw: raw, Low: clean, Num: f * mult, IsNum: true, Clause: l.clause})
	}
	for j < len(rs) && unicode.IsLetter(rs[j]) {
		j++
	}
	l.i = j
}

// word reads letters and digits, with inner apostrophes ("member's") and
// the dots of an abbreviation in capitals ("U.S").
func (l *lexer) word() {
	rs, i := l.rs, l.i
	j := i
	for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || innerMark(rs, i, j)) {
		j++
	}
	raw := strings.ReplaceAll(string(rs[i:j]), "’", "'")
	l.out = append(l.out, Token{Raw: raw, Low: strings.ToLower(raw), Clause: l.clause})
	l.i = j
}

// innerMark: an apostrophe, or a dot after a capital, with a letter after it.
func innerMark(rs []rune, i, j int) bool {
	r := rs[j]
	return (r == '\'' || r == '’' || r == '.' && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) && j > i && unicode.IsUpper(rs[j-1])) &&
		j+1 < len(rs) && unicode.IsLetter(rs[j+1])
}

// punctuation records the strongest break after the last token.
func (l *lexer) punctuation(r rune) {
	n := len(l.out)
	switch {
	case n > 0 && strings.ContainsRune("<>=≤≥≠", r), n > 0 && r == '!' && l.i+1 < len(l.rs) && l.rs[l.i+1] == '=':
		l.out[n-1].Sign += string(r)
	case n > 0 && strings.ContainsRune(",.?!;:()", r) && BreakRank(r) > BreakRank(l.out[n-1].Break):
		l.out[n-1].Break = r
	}
	l.i++
}

// BreakRank orders punctuation by how strongly it separates: a sentence
// end outranks a comma.
func BreakRank(r rune) int {
	switch r {
	case 0:
		return 0
	case ',', '(', ')':
		return 1
	case ';', ':':
		return 2
	}
	return 3
}

// Unbroken says whether a phrase may run over tokens from..to-1: no
// punctuation inside it.
func Unbroken(toks []Token, from, to int) bool {
	for k := from; k < to-1; k++ {
		if toks[k].Break != 0 {
			return false
		}
	}
	return true
}

// IsYear: a whole number a question would use as a calendar year.
func (t Token) IsYear() bool {
	return t.IsNum && t.Num >= 1900 && t.Num <= 2100 && t.Num == float64(int(t.Num)) && !strings.ContainsAny(t.Raw, ",.$")
}
