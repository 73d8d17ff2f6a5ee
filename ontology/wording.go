package ontology

import (
	"regexp"
	"strings"
	"unicode"
)

// A fact is shown to people ("Using your earlier choice: 'revenue' = net
// revenue after discounts") and listed for admins by its Meaning, the
// label of the option the person chose. An option whose label came out as
// SQL, was cut short or is unbalanced says nothing a person chose; such
// options are not offered, and facts worded that way are not kept.

var (
	// reCall is an identifier directly followed by "(": a function call.
	reCall = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\(`)
	// reQualified is table.column.
	reQualified = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\b`)
	// reSQLWord is an SQL keyword in capitals, as SQL text has them.
	reSQLWord = regexp.MustCompile(`\b(SELECT|FROM|WHERE|GROUP BY|ORDER BY|JOIN|DISTINCT|CASE WHEN|INTERVAL|COALESCE)\b`)
)

// maxMeaningWords is the longest wording an option may have.
const maxMeaningWords = 30

// BadWording says why a meaning's wording is not fit to show people, or
// "" when it is: empty, SQL text (a function call, table.column, an SQL
// keyword, backquotes), cut short ("…"), unbalanced brackets or quotes,
// or too long to read as one option.
func BadWording(meaning string) string {
	m := strings.TrimSpace(meaning)
	letters := 0
	for _, r := range m {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	switch {
	case letters < 2:
		return "no words"
	case strings.ContainsAny(m, "`;"):
		return "SQL punctuation"
	case reCall.MatchString(m):
		return "an SQL function call"
	case reQualified.MatchString(m) && !onlyAbbreviations(m):
		return "a table.column name"
	case reSQLWord.MatchString(m):
		return "an SQL keyword"
	case strings.Contains(m, "…") || strings.HasSuffix(m, "..."):
		return "cut short"
	case !balanced(m):
		return "unbalanced brackets or quotes"
	case len(strings.Fields(m)) > maxMeaningWords:
		return "too long"
	}
	return ""
}

// onlyAbbreviations excuses dots that are no table.column: "e.g.",
// "U.S.", an email address or a web name.
func onlyAbbreviations(m string) bool {
	for _, loc := range reQualified.FindAllStringIndex(m, -1) {
		q := m[loc[0]:loc[1]]
		l, r, _ := strings.Cut(q, ".")
		switch {
		case strings.EqualFold(q, "e.g"), strings.EqualFold(q, "i.e"):
		case loc[0] > 0 && (m[loc[0]-1] == '@' || m[loc[0]-1] == '.'):
		case loc[1] < len(m) && m[loc[1]] == '.':
		case len(l) == 1 || len(r) == 1:
		case strings.Contains(m[:loc[0]], "@"):
		default:
			return false
		}
	}
	return true
}

func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	if depth != 0 {
		return false
	}
	// Straight double quotes come in pairs; apostrophes do not
	// ("customer's"), nor do curly quotes reliably.
	return strings.Count(s, `"`)%2 == 0
}

// negationWords open phrases that can name no column, value or date: a
// "never placed" is a condition, not a column.
var negationWords = map[string]bool{"never": true, "not": true, "no": true, "without": true, "non": true, "none": true}

// JunkFact says why a learned fact should not have been kept, or "": its
// meaning is badly worded (BadWording), or its phrase is a negation taken
// as a column, value, date, output, order or join. Glossary facts and
// verified queries are never junk: people decided them.
func JunkFact(f Fact) string {
	if f.FromGlossary() || f.Kind == KindQuery {
		return ""
	}
	if why := BadWording(f.Meaning); why != "" && f.Meaning != "" {
		return "meaning is " + why
	}
	switch f.Kind {
	case KindColumn, KindValue, KindTime, KindOutput, KindOrder, KindJoin, KindAggregate:
		if w := strings.Fields(f.Phrase); len(w) > 0 && negationWords[w[0]] {
			return "a negated phrase taken as a " + string(f.Kind)
		}
	}
	return ""
}
