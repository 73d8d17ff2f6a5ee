package llmengine

import (
	"regexp"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

var colRefRe = regexp.MustCompile(`[a-z_][a-z0-9_$]*\.[a-z_][a-z0-9_$]*`)

// columnRefs lists the table.column references in a canonical expression
// or a fact target.
func columnRefs(s string) []string { return colRefRe.FindAllString(strings.ToLower(s), -1) }

// phrases maps the decision slots of sql to the words of the question they
// came from, using what linked each column and value to the question:
// "measure" → "revenue" when the measure is over a column "revenue"
// linked to; "filteron:texas" → "texas". Only words that occur in the
// question or its feedback are used, so clarifications quote the person.
func (e *Engine) phrases(sql string, l *linked, text string) map[string]string {
	out := map[string]string{}
	sh, err := sqlshape.Parse(sql, e.labels.TableOf)
	if err != nil {
		return out
	}
	for key, val := range sh.Slots(e.canon) {
		if val == "" {
			continue
		}
		switch sqlshape.SlotName(key) {
		case sqlshape.SlotMeasure, sqlshape.SlotOutput, sqlshape.SlotGroup, sqlshape.SlotOrder:
			if p := l.phraseOf(columnRefs(val), text); p != "" {
				out[key] = p
			}
		case sqlshape.SlotWhere:
			if p := l.phraseOf(columnRefs(sqlshape.SlotArg(key)), text); p != "" {
				out[key] = p
			}
		case sqlshape.SlotFilterOn:
			for _, v := range strings.Split(sqlshape.SlotArg(key), ",") {
				if inText(text, v) {
					out[key] = v
					break
				}
				for _, vl := range l.values {
					if e.canon(strings.ToLower(vl.hit.Value)) == v && inText(text, vl.phrase) {
						out[key] = vl.phrase
						break
					}
				}
				if out[key] != "" {
					break
				}
			}
		}
	}
	return out
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
