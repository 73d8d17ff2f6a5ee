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
}

// Lex splits text into tokens: words (with inner apostrophes and hyphens),
// numbers ("100,000", "$1.5", "20%"), and quoted strings kept whole.
func Lex(text string, clause int) []Token {
	var out []Token
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '"' || r == '“' || r == '”' || (r == '\'' && (i == 0 || !unicode.IsLetter(rs[i-1]))):
			closeWith := r
			if r == '“' {
				closeWith = '”'
			}
			j := i + 1
			for j < len(rs) && rs[j] != closeWith && !(closeWith == '"' && rs[j] == '”') {
				j++
			}
			if j < len(rs) && j > i+1 {
				s := string(rs[i+1 : j])
				out = append(out, Token{Raw: s, Low: strings.ToLower(s), Quoted: true, Clause: clause})
				i = j + 1
				continue
			}
			i++
		case unicode.IsDigit(r) || (r == '$' && i+1 < len(rs) && unicode.IsDigit(rs[i+1])):
			j := i
			if r == '$' {
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
				out = append(out, Token{Raw: raw, Low: clean, Num: f * mult, IsNum: true, Clause: clause})
			}
			// "2024s", "5th": the letters belong to the number.
			for j < len(rs) && unicode.IsLetter(rs[j]) {
				j++
			}
			i = j
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) ||
				(rs[j] == '\'' || rs[j] == '’' || rs[j] == '.' && j+1 < len(rs) && unicode.IsLetter(rs[j+1]) && j > i && unicode.IsUpper(rs[j-1])) && j+1 < len(rs) && unicode.IsLetter(rs[j+1])) {
				j++
			}
			raw := string(rs[i:j])
			raw = strings.ReplaceAll(raw, "’", "'")
			out = append(out, Token{Raw: raw, Low: strings.ToLower(raw), Clause: clause})
			i = j
		default:
			if len(out) > 0 && strings.ContainsRune(",.?!;:()", r) && BreakRank(r) > BreakRank(out[len(out)-1].Break) {
				out[len(out)-1].Break = r
			}
			i++
		}
	}
	return out
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
