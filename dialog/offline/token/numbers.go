package token

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Numbers in words: "under a hundred thousand loans", "top five",
// "more than ten times", "1.5 million". They become one number token, so
// every shape that reads numbers reads these too.

var smallNumbers = words.Numbers("number")

var numberScales = words.Numbers("scale")

// oneIsNumber: after these words "one" counts ("at least one", "only
// one"); elsewhere it is a pronoun ("the one with…").
var oneIsNumber = words.Set("oneisnumber")

// JoinNumbers joins number words (and a numeral followed by a scale word)
// into number tokens.
func JoinNumbers(toks []Token) []Token {
	out := make([]Token, 0, len(toks))
	for i := 0; i < len(toks); {
		value, end := ReadNumber(toks, i)
		if end == i {
			out = append(out, toks[i])
			i++
			continue
		}
		raw := make([]string, 0, end-i)
		for k := i; k < end; k++ {
			raw = append(raw, toks[k].Raw)
		}
		out = append(out, Token{Raw: strings.Join(raw, " "), Low: strconv.FormatFloat(value, 'f', -1, 64), Num: value, IsNum: true,
			Clause: toks[i].Clause, Break: toks[end-1].Break})
		i = end
	}
	return out
}

// ReadNumber reads a number written in words from toks[i:]; end == i
// when there is none.
func ReadNumber(toks []Token, i int) (value float64, end int) {
	t := toks[i]
	if t.Quoted {
		return 0, i
	}
	var total, group float64
	k := i
	switch {
	case t.IsNum && i+1 < len(toks) && numberScales[toks[i+1].Low] > 0 && t.Break == 0:
		// "1.5 million"
		group, k = t.Num, i+1
	case (t.Low == "a" || t.Low == "one") && i+1 < len(toks) && numberScales[toks[i+1].Low] > 0 && t.Break == 0:
		group, k = 1, i+1
	case t.Low == "one" && i > 0 && oneIsNumber[toks[i-1].Low]:
		return 1, i + 1
	case smallNumbers[t.Low] > 0 || t.Low == "zero":
		group, k = smallNumbers[t.Low], i+1
	default:
		return 0, i
	}
	for k < len(toks) && toks[k-1].Break == 0 {
		w := toks[k].Low
		switch {
		case numberScales[w] == 100:
			group *= 100
		case numberScales[w] > 0:
			total += group * numberScales[w]
			group = 0
		case smallNumbers[w] > 0 && group >= 20 && int(group)%10 == 0 && smallNumbers[w] < 10 && int(group)%100 != 0:
			// "twenty five"
			group += smallNumbers[w]
		case smallNumbers[w] > 0 && group >= 100 && int(group)%100 == 0:
			// "two hundred fifty"
			group += smallNumbers[w]
		case w == "and" && k+1 < len(toks) && smallNumbers[toks[k+1].Low] > 0 && group >= 100:
			// "one hundred and five"
		default:
			return total + group, k
		}
		k++
	}
	return total + group, k
}
