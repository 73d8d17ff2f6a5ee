package warehouse

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Condition is the join's ON condition as plain SQL text, for prompts
// and descriptions: "a.x = b.y", with a typed join's restriction.
func (j Join) Condition() string {
	s := j.FromTable + "." + j.FromColumn + " = " + j.ToTable + "." + j.ToColumn
	if w := j.When; w != nil {
		v := w.Value
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			v = quoteString(v)
		}
		s += " AND " + j.FromTable + "." + w.Column + " = " + v
	}
	return s
}

// InferTypedJoins proposes the joins of polymorphic references: a column
// <role>_id whose rows point at one table or another as a sibling column
// <role>_type says, with the codes explained in that column's comment
// ("0 for user, 1 for merchant", "U = users; M = merchants"). Each code
// that names a table gives a join restricted to the rows holding it.
func InferTypedJoins(s *Schema) []Join {
	have := map[string]bool{}
	for _, j := range s.Joins {
		have[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
	}
	byName := tablesByNameForm(s)
	var out []Join
	for ti := range s.Tables {
		t := &s.Tables[ti]
		for _, c := range t.Columns {
			lc := strings.ToLower(c.Name)
			role, ok := strings.CutSuffix(lc, "id")
			role = strings.TrimSuffix(role, "_")
			if !ok || role == "" || have[strings.ToLower(t.Name+"."+c.Name)] || len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
				continue
			}
			typ := roleTypeColumn(t, role)
			if typ == nil {
				continue
			}
			for _, cv := range commentCodes(typ.Comment) {
				var target *Table
				for _, w := range cv.words {
					if target == nil {
						target = byName[w]
					}
				}
				if target == nil || target == t {
					continue
				}
				key := singleKey(target)
				if key == nil || !compatible(c, *key) {
					continue
				}
				out = append(out, Join{FromTable: t.Name, FromColumn: c.Name, ToTable: target.Name, ToColumn: key.Name, Confidence: 0.85,
					Reason: fmt.Sprintf("%s.%s is a %s where %s is %s (%q)", t.Name, c.Name, target.Name, typ.Name, cv.code, typ.Comment),
					When:   &JoinCondition{Column: typ.Name, Value: cv.code}})
			}
		}
	}
	return out
}

// roleTypeColumn is the column that says what kind of row <role>_id
// points at: <role>_type, <role>_kind or <role>_class.
func roleTypeColumn(t *Table, role string) *Column {
	for _, suffix := range []string{"_type", "_kind", "_class", "type"} {
		if c := t.Column(role + suffix); c != nil && c.Comment != "" {
			return c
		}
	}
	return nil
}

// codeValue is one code a comment explains: the stored code and the
// lower-case words it may stand for, the likeliest first ("merchant
// account" → merchant_account, merchant).
type codeValue struct {
	code  string
	words []string
}

// commentCodes reads the codes a column comment explains, one per
// comma- or semicolon-separated part: "0 for user", "1 = merchant",
// "M: merchant", "merchant = 1". A code is a number or a short token.
func commentCodes(comment string) []codeValue {
	var out []codeValue
	for _, part := range strings.FieldsFunc(comment, func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		part = strings.NewReplacer("=", " = ", ":", " = ").Replace(part)
		raw := strings.FieldsFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '=' })
		if len(raw) < 3 {
			continue
		}
		toks := make([]string, len(raw))
		for i, w := range raw {
			toks[i] = strings.ToLower(w)
		}
		isCode := func(w string) bool { return isNumber(w) || len(w) <= 2 }
		switch {
		case isCode(toks[0]) && (toks[1] == "for" || toks[1] == "=" || toks[1] == "means" || toks[1] == "is"):
			rest := toks[2:]
			for len(rest) > 1 && (rest[0] == "a" || rest[0] == "an" || rest[0] == "the") {
				rest = rest[1:]
			}
			words := []string{strings.Join(rest, "_")}
			if len(rest) > 1 {
				words = append(words, rest[0])
			}
			out = append(out, codeValue{code: raw[0], words: words})
		case len(toks) == 3 && toks[1] == "=" && isCode(toks[2]):
			out = append(out, codeValue{code: raw[2], words: []string{toks[0]}})
		}
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}
