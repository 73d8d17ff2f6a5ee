package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Text patterns: "authors whose names begin with the letter 'J'",
// "surname contains 'ley'", "titles containing 'night'", "depots
// with a name beginning with "North"". They filter a text column with
// LIKE; the column is the one named just before the verb, else the
// label of the table the question is about.

// likeMention is one pattern condition.
type likeMention struct {
	phrase  string
	at      int // the verb
	pattern string
	// target is the first token of the words before the verb that may
	// name the column, -1 for none.
	target int
	// table and column, when set, are the column the pattern is read in.
	table, column string
	// owner is the token of the noun before "whose" ("journals whose
	// names start with…"), -1 for none.
	owner int
}

// patternVerbs place a text at the start or end of a value ("starts
// with", before "with") or anywhere in it ("contains").
var patternVerbs = words.Map("pattern")

// patternVerb returns how a verb places its text: "%s%" for contains,
// "%s" + "%" for starts, "%" + "%s" for ends.
func patternVerb(a *analysis, i int) (prefix, suffix string, ok bool) {
	w := a.word(i)
	next := a.word(i + 1)
	switch {
	case patternVerbs[w] == "start" && next == "with":
		return "", "%", true
	case patternVerbs[w] == "end" && next == "with":
		return "%", "", true
	case patternVerbs[w] == "contain":
		return "%", "%", true
	case (w == "has" || w == "have" || w == "having" || w == "with") && patternNounAfter(a, i+1):
		// "whose title has the word harbour", "with the substring 'ta'".
		return "%", "%", true
	}
	return "", "", false
}

// patternNouns name a piece of text looked for inside a value.
var patternNouns = words.Set("patternnoun")

// patternNounAfter says whether an article and a pattern noun start at
// token j ("the word", "a substring").
func patternNounAfter(a *analysis, j int) bool {
	if a.word(j) == "the" || a.word(j) == "a" {
		j++
	}
	return patternNouns[a.word(j)]
}

// findPatterns reads text patterns whose text is quoted or a single
// letter; their words are then no value to look up.
func (a *analysis) findPatterns() {
	for i := range a.toks {
		if a.toks[i].Clause != 0 {
			continue
		}
		prefix, suffix, ok := patternVerb(a, i)
		if !ok {
			continue
		}
		j := i + 1
		if a.word(j) == "with" {
			j++
		}
		for a.word(j) == "the" || a.word(j) == "a" || a.word(j) == "letter" || a.word(j) == "letters" || a.word(j) == "word" || a.word(j) == "string" || a.word(j) == "text" || a.word(j) == "prefix" || a.word(j) == "substring" {
			j++
		}
		if j >= len(a.toks) {
			continue
		}
		t := a.toks[j]
		single := len([]rune(t.Raw)) == 1 && !t.IsNum
		// "the word harbour": the noun says a piece of text follows.
		named := false
		for k := i + 1; k < j; k++ {
			named = named || patternNouns[a.word(k)]
		}
		named = named && !t.IsNum && t.Clause == 0
		if !t.Quoted && !single && !named {
			continue
		}
		text := strings.NewReplacer("%", `\%`, "_", `\_`).Replace(t.Raw)
		lm := &likeMention{phrase: a.phrase(i, j+1), at: i, pattern: prefix + text + suffix, target: -1, owner: -1}
		// The words naming the column: up to four before the verb,
		// after "whose/that/which/with".
		for k := i - 1; k >= 0 && k >= i-4; k-- {
			if w := a.word(k); w == "whose" || w == "that" || w == "which" || w == "where" || w == "with" || w == "have" || w == "has" || a.toks[k].Break != 0 && k < i-1 {
				break
			}
			lm.target = k
		}
		if lm.target > 1 && (a.word(lm.target-1) == "whose" || a.word(lm.target-1) == "with") {
			lm.owner = lm.target - 2
		}
		a.markUsed(i, j+1)
		a.likes = append(a.likes, lm)
	}
}

// patternElements filter on the patterns: the column the words before the
// verb name, else the subject's label, else any text column of the head.
func (r *reader) patternElements() []*element {
	type option struct {
		x     expr
		table string
		w     float64
	}
	var each [][]option
	for _, lm := range r.a.likes {
		var opts []option
		add := func(table, column string, w float64) {
			c := r.e.m.Column(table, column)
			if c == nil || c.Kind() != warehouse.KindText {
				return
			}
			opts = append(opts, option{x: cmp(col(table, column), "LIKE", strLit(lm.pattern)), table: table, w: w})
		}
		if lm.column != "" {
			add(lm.table, lm.column, 2)
		}
		if lm.target >= 0 {
			for _, cm := range r.a.columns {
				if cm.at >= lm.target && cm.at < lm.at && cm.clause == 0 {
					r.usedCols[cm] = true
					for _, al := range cm.alts {
						add(al.table, al.column, al.weight*2)
					}
				}
			}
			for _, em := range r.a.entities {
				if em.at >= lm.target && em.at < lm.at && em.tables[0].Label != nil {
					add(em.tables[0].Name, em.tables[0].Label.Name, 1.5)
				}
			}
		}
		if len(opts) == 0 && lm.owner >= 0 {
			// "authors whose names begin with 'J'": the label of the
			// thing named before "whose".
			if em := r.entityAt(lm.owner); em != nil && em.tables[0].Label != nil {
				add(em.tables[0].Name, em.tables[0].Label.Name, 1.8)
			}
		}
		if len(opts) == 0 && lm.target < 0 {
			// "the notes of the events which have the substring 'East'":
			// nothing before the verb names the column, so a text column the
			// question names before the pattern does, before the label of
			// the thing asked about.
			for _, cm := range r.a.columns {
				if cm.at < lm.at && cm.clause == 0 {
					for _, al := range cm.alts {
						if !al.computed() {
							add(al.table, al.column, al.weight)
						}
					}
				}
			}
		}
		if len(opts) == 0 && r.h.t != nil && r.h.t.Label != nil {
			add(r.h.t.Name, r.h.t.Label.Name, 1)
		}
		each = append(each, opts)
	}
	var els []*element
	for i := 0; i < len(each); i++ {
		if len(each[i]) == 0 {
			continue
		}
		el := &element{name: "pattern"}
		// "title starts with 'A' or publisher contains 'ley'": either.
		if i+1 < len(each) && len(each[i+1]) > 0 && r.joinedByOr(r.a.likes[i], r.a.likes[i+1]) {
			for _, a := range each[i] {
				for _, b := range each[i+1] {
					el.add(a.w*b.w, func(p *plan) {
						p.filters = append(p.filters, cond{x: paren{X: cmp(a.x, "OR", b.x)}})
						p.use(a.table, b.table)
					})
				}
			}
			els = append(els, el)
			i++
			continue
		}
		for _, a := range each[i] {
			el.add(a.w, func(p *plan) {
				p.filters = append(p.filters, cond{x: a.x})
				p.use(a.table)
			})
		}
		els = append(els, el)
	}
	return els
}

// joinedByOr says whether "or" joins two patterns: it stands between the
// first one's verb and the second one's.
func (r *reader) joinedByOr(a, b *likeMention) bool {
	for k := a.at + 1; k < b.at; k++ {
		if r.a.word(k) == "or" {
			return true
		}
	}
	return false
}

// findListItems reads "trains that run on Mondays and Wednesdays"
// where a text column stores short codes in delimited lists ("mon,wed"):
// a word that one of the codes begins ("Mondays", "mon") is a condition
// that the list contains the code. A word already read as another column
// gives way; one read as a stored value does not.
func (e *Engine) findListItems(a *analysis) {
	lists := e.listColumns()
	if len(lists) == 0 {
		return
	}
	var drop []*colMention
	for i, t := range a.toks {
		if t.Clause != 0 || t.IsNum || t.Quoted || isFunctionWord(t) || len([]rune(t.Low)) < 3 {
			continue
		}
		cm := columnCovering(a, i)
		if t.Used && (cm == nil || cm.end-cm.at != 1) {
			continue
		}
		for _, lc := range lists {
			code := lc.codeOf(t.Low)
			if code == "" {
				continue
			}
			text := strings.NewReplacer("%", `\%`, "_", `\_`).Replace(code)
			a.likes = append(a.likes, &likeMention{phrase: t.Raw, at: i, pattern: "%" + text + "%", target: -1, table: lc.table, column: lc.column})
			a.toks[i].Used = true
			if cm != nil {
				drop = append(drop, cm)
			}
			break
		}
	}
	if len(drop) > 0 {
		var kept []*colMention
		for _, cm := range a.columns {
			if !slices.Contains(drop, cm) {
				kept = append(kept, cm)
			}
		}
		a.columns = kept
	}
}

// listColumn is a text column whose values are delimited lists of short
// codes, and the codes.
type listColumn struct {
	table, column string
	codes         []string
}

// codeOf is the code a word begins with ("mondays" → "mon"), the longest.
func (lc listColumn) codeOf(word string) string {
	best := ""
	for _, c := range lc.codes {
		if len(c) > len(best) && strings.HasPrefix(word, c) {
			best = c
		}
	}
	return best
}

// listColumns finds the text columns whose complete values are mostly
// comma-separated lists of a few distinct short codes.
func (e *Engine) listColumns() []listColumn {
	var out []listColumn
	for _, t := range e.m.Tables {
		for _, c := range t.Texts {
			p := e.m.Profile(t.Name, c.Name)
			if p == nil || !p.ValuesComplete || len(p.Values) < 2 {
				continue
			}
			lists := 0
			codes := map[string]bool{}
			for _, v := range p.Values {
				parts := strings.Split(strings.ToLower(v), ",")
				if len(parts) > 1 {
					lists++
				}
				for _, part := range parts {
					if part = strings.TrimSpace(part); part != "" {
						codes[part] = true
					}
				}
			}
			if lists == 0 || len(codes) > 40 {
				continue
			}
			short := true
			for c := range codes {
				short = short && len([]rune(c)) <= 5 && !strings.Contains(c, " ")
			}
			if short {
				out = append(out, listColumn{table: t.Name, column: c.Name, codes: sortedNames(codes)})
			}
		}
	}
	return out
}
