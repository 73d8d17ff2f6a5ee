package colfmt

import (
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	xnumber "golang.org/x/text/number"
)

// Locale is how one reader writes numbers: the thousands separator and
// the decimal mark. The zero Locale is en-US (1,234.5), the default where
// a platform does not say where its user is.
type Locale struct {
	// Tag is the BCP 47 tag the locale was made from ("de-DE"), "" for the default.
	Tag string
	// Group and Decimal are the separators; "" means "," and ".".
	Group, Decimal string
}

// LocaleFor reads a platform's locale tag ("de-DE", "fr", "pt_BR", Slack's
// "en-US", Discord's "es-ES"). The separators come from the Unicode CLDR
// data of golang.org/x/text; an empty or unknown tag is the default. It
// costs a few microseconds: callers keep the result for an answer.
func LocaleFor(tag string) Locale {
	tag = strings.TrimSpace(strings.ReplaceAll(tag, "_", "-"))
	if tag == "" {
		return Locale{}
	}
	t, err := language.Parse(tag)
	if err != nil || t == language.Und {
		return Locale{}
	}
	// CLDR separators as the library writes them: 1234567.5 in that locale.
	s := message.NewPrinter(t).Sprint(xnumber.Decimal(1234567.5, xnumber.MinFractionDigits(1)))
	group, decimal := separatorsOf(s)
	if group == "" || decimal == "" || group == decimal {
		return Locale{}
	}
	loc := Locale{Tag: t.String(), Group: group, Decimal: decimal}
	if loc.Group == "," && loc.Decimal == "." {
		loc.Group, loc.Decimal = "", ""
	}
	return loc
}

// separatorsOf reads the separators from "1.234.567,5" or "12,34,567.5":
// the last non-digit is the decimal mark, the one before it the group.
func separatorsOf(s string) (group, decimal string) {
	var seps []string
	var cur strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if cur.Len() > 0 {
				seps = append(seps, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if len(seps) < 2 {
		return "", ""
	}
	return seps[len(seps)-2], seps[len(seps)-1]
}

func (l Locale) groupSep() string {
	if l.Group == "" {
		return ","
	}
	return l.Group
}

func (l Locale) decimalMark() string {
	if l.Decimal == "" {
		return "."
	}
	return l.Decimal
}

// group writes a plain decimal number ("-1234567.50") with the locale's
// separators, grouping the whole part in threes always.
func (l Locale) group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	lead := len(intPart) % 3
	if lead == 0 && len(intPart) > 0 {
		lead = 3
	}
	b.WriteString(intPart[:min(lead, len(intPart))])
	for i := lead; i < len(intPart); i += 3 {
		b.WriteString(l.groupSep())
		b.WriteString(intPart[i : i+3])
	}
	if frac != "" || strings.HasSuffix(s, ".") {
		b.WriteString(l.decimalMark())
		b.WriteString(frac)
	}
	return b.String()
}

// Int writes a count of rows or things ("1,613 rows") in the locale.
func (l Locale) Int(n int) string {
	if n < 0 {
		return "-" + l.group(strconv.Itoa(-n))
	}
	return l.group(strconv.Itoa(n))
}

// Parse reads back a number written by this package in locale l
// ("$1,234.50", "12.5%", "1.234,5") as a plain decimal string, for tests
// and for tools that check what was shown; ok is false for other text.
func (l Locale) Parse(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "%")
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for _, c := range currencies {
		s = strings.TrimPrefix(s, c.sym)
	}
	if s == "" {
		return "", false
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	g, d := l.groupSep(), l.decimalMark()
	for len(s) > 0 {
		switch {
		case s[0] >= '0' && s[0] <= '9':
			b.WriteByte(s[0])
			s = s[1:]
		case strings.HasPrefix(s, g):
			s = s[len(g):]
		case strings.HasPrefix(s, d):
			b.WriteByte('.')
			s = s[len(d):]
		default:
			return "", false
		}
	}
	return b.String(), true
}
