package llmengine

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// phrases maps the decision slots of sql to the words of the question they
// came from, using what linked each column and value to the question:
// the measure → "revenue" when the measure is over a column "revenue"
// linked to; filteron:texas → "texas". Only words that occur in the
// question or its feedback are used, so clarifications quote the person.
func (e *Engine) phrases(sql string, l *linked, text string) map[sqlshape.SlotKey]string {
	out := map[sqlshape.SlotKey]string{}
	sh, err := sqlshape.Parse(sql, e.labels.TableOf)
	if err != nil {
		return out
	}
	for key, val := range sh.Slots(e.canon) {
		if val.IsEmpty() {
			continue
		}
		switch key.Name {
		case sqlshape.SlotMeasure, sqlshape.SlotOutput, sqlshape.SlotGroup, sqlshape.SlotOrder:
			var refs []string
			for _, p := range val.Parts {
				refs = append(refs, p.Columns()...)
			}
			if p := l.phraseOf(refs, text); p != "" {
				out[key] = p
			}
		case sqlshape.SlotWhere:
			if p := l.phraseOf(sqlshape.ColumnRefs(key.Arg), text); p != "" {
				out[key] = p
			}
		}
	}
	// The words that named each filter's literals.
	for _, f := range sh.Filters {
		if f.Depth != 0 || f.Op == "expr" || len(f.Values) == 0 || f.Values[0] == "(subquery)" {
			continue
		}
		key := sqlshape.FilterOnKey(f.Values, e.canon)
		if _, done := out[key]; done {
			continue
		}
		if p := e.literalPhrase(f.Values, l, text); p != "" {
			out[key] = p
		}
	}
	return out
}

// literalPhrase is the words of text that name one of the literals: the
// literal itself, or a phrase linked to a stored value of that form.
func (e *Engine) literalPhrase(literals []string, l *linked, text string) string {
	for _, lit := range literals {
		v := e.canon(lit)
		if inText(text, v) {
			return v
		}
		for _, vl := range l.values {
			if e.canon(strings.ToLower(vl.hit.Value)) == v && inText(text, vl.phrase) {
				return vl.phrase
			}
		}
	}
	return ""
}

// phraseOf is the linking phrase of the first of refs that has one in text.
func (l *linked) phraseOf(refs []string, text string) string {
	for _, ref := range refs {
		if p := l.phrase[ref]; inText(text, p) {
			return p
		}
	}
	return ""
}
