package offline

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// tok is one word, number or quoted string of the question.
type tok struct {
	raw    string // as typed
	low    string // lower-case
	num    float64
	isNum  bool
	quoted bool
	// clause is 0 for the question and i for the i-th piece of feedback.
	clause int
	used   bool
	// brk is the punctuation right after the token (',', '.', '?', ';',
	// '(', ')'…), 0 for none: phrases do not span it, lists are split at it.
	brk rune
}

// lex splits text into tokens: words (with inner apostrophes and hyphens),
// numbers ("100,000", "$1.5", "20%"), and quoted strings kept whole.
func lex(text string, clause int) []tok {
	var out []tok
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
				out = append(out, tok{raw: s, low: strings.ToLower(s), quoted: true, clause: clause})
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
				out = append(out, tok{raw: raw, low: clean, num: f * mult, isNum: true, clause: clause})
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
			out = append(out, tok{raw: raw, low: strings.ToLower(raw), clause: clause})
			i = j
		default:
			if len(out) > 0 && strings.ContainsRune(",.?!;:()", r) && breakRank(r) > breakRank(out[len(out)-1].brk) {
				out[len(out)-1].brk = r
			}
			i++
		}
	}
	return out
}

// breakRank orders punctuation by how strongly it separates: a sentence
// end outranks a comma.
func breakRank(r rune) int {
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

// spans says whether a phrase may run over tokens from..to-1: no
// punctuation inside it.
func spans(toks []tok, from, to int) bool {
	for k := from; k < to-1; k++ {
		if toks[k].brk != 0 {
			return false
		}
	}
	return true
}

// isYear: a whole number a question would use as a calendar year.
func (t tok) isYear() bool {
	return t.isNum && t.num >= 1900 && t.num <= 2100 && t.num == float64(int(t.num)) && !strings.ContainsAny(t.raw, ",.$")
}

// stopWords carry no meaning for linking.
var stopWords = words.Set("stop")
