package dialog

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Free text typed under Other… is read as a meaning of the thing asked,
// in the typed forms the readings are made of: a measure, or one measure
// minus (plus) another ("net revenue minus the amount refunded"), a
// ranking ("highest total net amount"), a date column ("the ship date"),
// a condition defining a word ("status is placed or shipped", "ordered
// in the last 90 days", "has at least one refund", "has no orders"), or
// the columns to show ("id, name and email"). Names are looked up in the
// catalog (column names, comments, synonyms), values among the stored
// values. What is read is said back in plain words before the answer, and
// the answer uses exactly that (typed.go); what cannot be read this way
// goes to the engine as feedback, and is declined when it changes nothing.

// typedMeaning is what was understood from an answer typed under Other….
type typedMeaning struct {
	// Key is the slot the meaning decides when it is not the question's
	// own: a total typed for "what should I show?" is a measure.
	Key  sqlshape.SlotKey
	Term ontology.Term
	// Plain words the meaning for the confirmation: "total net revenue
	// after discounts minus total amount refunded to the customer".
	Plain string
}

// understand reads text as a meaning of the pending question's slot.
func (m *Manager) understand(ctx context.Context, st *convState, q *pendingQ, text string) (typedMeaning, bool) {
	if phrase, meaning, ok := definesPhrase(text); ok && strings.EqualFold(phrase, q.Phrase) {
		text = meaning // "active means they ordered in the last 90 days"
	}
	t := cleanTyped(text)
	if t == "" || q.Engine {
		return typedMeaning{}, false
	}
	switch q.Key.Name {
	case sqlshape.SlotMeasure:
		return m.readMeasure(t, optionFn(q))
	case sqlshape.SlotOrder:
		return m.readOrdering(t, optionFn(q))
	case sqlshape.SlotFilterOn:
		return m.readFilterColumn(t, q)
	case sqlshape.SlotDefine:
		subject := m.defineSubject(st, q)
		if subject == "" {
			return typedMeaning{}, false
		}
		if tm, ok, tried := m.readDefinition(ctx, subject, t); tried {
			return tm, ok
		}
		return m.readCondition(t, subject)
	case sqlshape.SlotOutput:
		// "the sum of net amount": a total, not columns to list.
		if slices.ContainsFunc(fnWords, func(w struct{ words, fn string }) bool { return strings.HasPrefix(t, w.words+" ") }) {
			if tm, ok := m.readMeasure(t, "SUM"); ok && tm.Term.Kind == ontology.TermMeasure {
				tm.Key = sqlshape.Key(sqlshape.SlotMeasure)
				return tm, true
			}
		}
		return m.readColumns(t, q)
	}
	return typedMeaning{}, false
}

// fillers are words that frame a typed answer without meaning anything:
// "I mean the ship date", "use net revenue", "it's the total".
var fillers = []string{"i mean", "i meant", "i want", "it's", "it is", "that's", "that is", "means", "mean", "use", "please", "by", "just"}

// cleanTyped lower-cases a typed answer, drops punctuation but for the
// marks inside words and numbers, and the framing words before it.
func cleanTyped(text string) string {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '+', r == '\'', r == '_', r == ',', r == '&':
			return r
		}
		return ' '
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	for changed := true; changed; {
		changed = false
		for _, f := range fillers {
			if rest, ok := strings.CutPrefix(t, f+" "); ok {
				t, changed = rest, true
			}
		}
	}
	return t
}

// --- measures and rankings ---

// fnWords open a measure: "total net amount", "average of fees", "number
// of orders".
var fnWords = []struct{ words, fn string }{
	{"number of distinct", "COUNT DISTINCT"}, {"count of distinct", "COUNT DISTINCT"},
	{"number of", "COUNT"}, {"count of", "COUNT"}, {"how many", "COUNT"}, {"count", "COUNT"},
	{"sum of", "SUM"}, {"sum", "SUM"}, {"total of", "SUM"}, {"total", "SUM"},
	{"average of", "AVG"}, {"average", "AVG"}, {"avg", "AVG"}, {"mean of", "AVG"}, {"mean", "AVG"},
	{"maximum of", "MAX"}, {"maximum", "MAX"}, {"max", "MAX"},
	{"minimum of", "MIN"}, {"minimum", "MIN"}, {"min", "MIN"},
}

// reMinus and rePlus split a computed measure into its parts.
var (
	// reAndMeasure splits "sum of x and average of y" before each
	// measure word.
	reAndMeasure = regexp.MustCompile(`\s+and\s+(?:the\s+)?((?:sum|total|average|avg|mean|count|number|maximum|max|minimum|min)\b)`)
	reMinus      = regexp.MustCompile(`\s+(?:minus|less|subtract|subtracting|take away|-)\s+`)
	rePlus       = regexp.MustCompile(`\s+(?:plus|\+)\s+`)
)

// optionFn is the aggregate every option of a measure question uses, the
// default for a typed measure that names none ("net amount" asked about
// averages is the average of it); a total otherwise.
func optionFn(q *pendingQ) string {
	fns := map[string]bool{}
	for _, o := range q.Options {
		for _, p := range o.Value.Parts {
			fn := p.Fn
			if fn == "" {
				fn, _ = sqlshape.SplitAggregate(p.Expr)
			}
			if fn != "" {
				fns[fn] = true
			}
		}
	}
	if len(fns) == 1 {
		for fn := range fns {
			if fn != "COUNT" {
				return fn
			}
		}
	}
	return "SUM"
}

// readMeasure reads one measure, or several joined by minus or plus.
func (m *Manager) readMeasure(t, defaultFn string) (typedMeaning, bool) {
	op := ""
	parts := []string{t}
	switch {
	case reMinus.MatchString(t):
		op, parts = "-", reMinus.Split(t, -1)
	case rePlus.MatchString(t):
		op, parts = "+", rePlus.Split(t, -1)
	}
	if op == "" {
		// "average of tx limit daily and average of tx limit monthly":
		// several measures, each its own.
		if ps := splitMeasures(t); len(ps) > 1 {
			var items, plains []string
			for _, p := range ps {
				term, plain, ok := m.readOneMeasure(p, defaultFn)
				if !ok {
					return typedMeaning{}, false
				}
				items = append(items, strings.ToLower(term.SQL()))
				plains = append(plains, plain)
			}
			return typedMeaning{Term: ontology.ListTerm(items...), Plain: sqlshape.JoinAnd(plains)}, true
		}
	}
	var items, plains []string
	var single ontology.Term
	for _, p := range parts {
		term, plain, ok := m.readOneMeasure(p, defaultFn)
		if !ok {
			return typedMeaning{}, false
		}
		single = term
		items = append(items, term.SQL())
		plains = append(plains, plain)
	}
	if op == "" {
		return typedMeaning{Term: single, Plain: plains[0]}, true
	}
	word := " minus "
	if op == "+" {
		word = " plus "
	}
	return typedMeaning{Term: ontology.Term{Kind: ontology.TermComputed, Op: op, Items: items}, Plain: strings.Join(plains, word)}, true
}

// readOneMeasure reads "sum of net amount", "the amount refunded",
// "number of orders".
func (m *Manager) readOneMeasure(p, defaultFn string) (ontology.Term, string, bool) {
	p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "the "))
	for _, w := range rankWords {
		// "the highest total net amount" asked about a ranking's measure.
		if rest, ok := strings.CutPrefix(p, w.word+" "); ok {
			p = rest
			break
		}
	}
	fn := ""
	for _, w := range fnWords {
		if rest, ok := strings.CutPrefix(p, w.words+" "); ok {
			fn, p = w.fn, strings.TrimPrefix(strings.TrimSpace(rest), "the ")
			break
		}
	}
	if fn == "COUNT" {
		if table := m.namedTable(p); table != "" {
			return ontology.Term{Kind: ontology.TermMeasure, Fn: "COUNT", Expr: "*"}, "number of " + m.labels.Table(table), true
		}
	}
	tc, ok := m.findColumn(p, func(tc string) bool {
		return fn == "COUNT DISTINCT" || m.labels.Kind(tc) == warehouse.KindNumber && !m.labels.IsKey(tc) && !strings.HasSuffix(strings.ToLower(tc), "_id")
	})
	if !ok {
		return ontology.Term{}, "", false
	}
	if fn == "" {
		fn = defaultFn
	}
	words := map[string]string{"SUM": "total", "AVG": "average", "MAX": "highest", "MIN": "lowest", "COUNT": "number of", "COUNT DISTINCT": "number of distinct"}
	term := ontology.Term{Kind: ontology.TermMeasure, Fn: fn, Expr: tc}
	if fn == "COUNT DISTINCT" {
		term.Fn, term.Distinct = "COUNT", true
	}
	return term, words[fn] + " " + m.labels.Column(tc), true
}

// rankWords open a ranking: the most or the least of a measure.
var rankWords = []struct {
	word string
	desc bool
}{
	{"highest", true}, {"most", true}, {"largest", true}, {"biggest", true}, {"greatest", true}, {"top", true}, {"best", true}, {"max", true},
	{"lowest", false}, {"least", false}, {"smallest", false}, {"fewest", false}, {"min", false},
}

// readOrdering reads a ranking: "highest total net amount", "most orders".
func (m *Manager) readOrdering(t, defaultFn string) (typedMeaning, bool) {
	desc, dir := true, "highest"
	for _, w := range rankWords {
		if rest, ok := strings.CutPrefix(t, w.word+" "); ok {
			t, desc = rest, w.desc
			if !desc {
				dir = "lowest"
			}
			break
		}
	}
	if table := m.namedTable(t); table != "" {
		// "most orders": the number of them.
		term := ontology.Term{Kind: ontology.TermOrdering, Expr: "COUNT(*)", Desc: desc}
		return typedMeaning{Term: term, Plain: dir + " number of " + m.labels.Table(table)}, true
	}
	mt, ok := m.readMeasure(t, defaultFn)
	if !ok || mt.Term.Kind != ontology.TermMeasure {
		return typedMeaning{}, false
	}
	return typedMeaning{Term: ontology.Term{Kind: ontology.TermOrdering, Expr: mt.Term.SQL(), Desc: desc}, Plain: dir + " " + mt.Plain}, true
}

// --- columns ---

// findColumn is the column a phrase names best among those accept keeps:
// the catalog's ranking over names, comments and synonyms, provided the
// column matched most of the phrase's words.
func (m *Manager) findColumn(phrase string, accept func(tc string) bool) (string, bool) {
	content := m.deps.Catalog.Terms(phrase)
	if len(content) == 0 {
		return "", false
	}
	for _, h := range m.deps.Catalog.SearchColumns(phrase, 12) {
		tc := strings.ToLower(h.Table + "." + h.Column)
		if !accept(tc) {
			continue
		}
		if 2*len(m.deps.Catalog.Terms(strings.Join(h.Matched, " "))) < len(content) {
			continue
		}
		return tc, true
	}
	return "", false
}

// namedTable is the table a phrase names by itself ("orders", "the
// refunds"), or "".
func (m *Manager) namedTable(phrase string) string {
	want := strings.Join(m.deps.Catalog.Terms(phrase), " ")
	if want == "" {
		return ""
	}
	snap := m.deps.Catalog.Snapshot()
	if snap == nil {
		return ""
	}
	for _, t := range snap.Schema.Tables {
		if strings.Join(m.deps.Catalog.Terms(t.Name), " ") == want {
			return strings.ToLower(t.Name)
		}
	}
	return ""
}

// readFilterColumn reads which column a value or a date is about: "the
// ship date", "the customer's state".
func (m *Manager) readFilterColumn(t string, q *pendingQ) (typedMeaning, bool) {
	dates := false
	for _, o := range q.Options {
		for _, p := range o.Value.Parts {
			dates = dates || p.Op == "year"
		}
	}
	tc, ok := m.findColumn(t, func(tc string) bool { return !dates || m.labels.Kind(tc) == warehouse.KindTime })
	if !ok {
		return typedMeaning{}, false
	}
	return typedMeaning{Term: ontology.ColumnTerm(tc), Plain: m.labels.Column(tc)}, true
}

// readColumns reads the columns to show: "id, name and email".
func (m *Manager) readColumns(t string, q *pendingQ) (typedMeaning, bool) {
	tables := map[string]bool{}
	for _, o := range q.Options {
		for _, p := range o.Value.Parts {
			for _, c := range p.Columns() {
				tables[strings.ToLower(tableOfTC(c))] = true
			}
		}
	}
	var items, plains []string
	for _, piece := range regexp.MustCompile(`\s*(?:,|\band\b|&|\+)\s*`).Split(t, -1) {
		piece = strings.TrimPrefix(strings.TrimSpace(piece), "the ")
		if piece == "" {
			continue
		}
		tc, ok := m.findColumn(piece, func(tc string) bool { return len(tables) == 0 || tables[tableOfTC(tc)] })
		if !ok {
			return typedMeaning{}, false
		}
		if !slices.Contains(items, tc) {
			items = append(items, tc)
			plains = append(plains, m.labels.Column(tc))
		}
	}
	if len(items) == 0 {
		return typedMeaning{}, false
	}
	return typedMeaning{Term: ontology.ListTerm(items...), Plain: sqlshape.JoinAnd(plains)}, true
}

// --- conditions defining a word ---

// defineSubject is the table the readings of a defined word qualify.
func (m *Manager) defineSubject(st *convState, q *pendingQ) string {
	for _, c := range st.Candidates {
		for _, d := range c.Defines {
			if strings.EqualFold(d.Phrase, q.Key.Arg) && d.Term.Subject != "" {
				return strings.ToLower(d.Term.Subject)
			}
		}
	}
	return ""
}

var (
	reWindow = regexp.MustCompile(`\b(?:in|within|during|over) the (?:last|past|previous) (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve) (day|week|month|year)s?\b`)
	reNeg    = regexp.MustCompile(`\b(?:no|not|never|without|none|zero|isn't|aren't|hasn't|haven't|doesn't|don't|except|excluding|other than)\b`)
	reHas    = regexp.MustCompile(`\b(?:has|have|had|with|having|any|some|at least one|placed|made)\b`)
)

// connectives join the words of a typed condition; alone they are no
// stored value.
var connectives = map[string]bool{"or": true, "and": true, "is": true, "are": true, "not": true, "no": true, "the": true, "a": true, "an": true,
	"of": true, "in": true, "on": true, "at": true, "to": true, "by": true, "with": true, "has": true, "have": true, "for": true, "it": true,
	"be": true, "was": true, "were": true, "either": true, "nor": true, "but": true}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}

var unitDays = map[string]int{"day": 1, "week": 7, "month": 30, "year": 365}

// readCondition reads a condition on subject's rows: stored values of one
// of its columns, a recent window on a date, or related rows (some, none,
// recent).
func (m *Manager) readCondition(t, subject string) (typedMeaning, bool) {
	days := 0
	rest := t
	if w := reWindow.FindStringSubmatch(t); w != nil {
		n, err := strconv.Atoi(w[1])
		if err != nil {
			n = numberWords[w[1]]
		}
		days = n * unitDays[w[2]]
		rest = strings.TrimSpace(strings.Replace(t, w[0], " ", 1))
	}
	negated := reNeg.MatchString(rest)
	// Related rows: "has at least one refund", "has no orders", "orders in
	// the last 90 days".
	for _, word := range strings.Fields(rest) {
		rel := m.namedTable(word)
		if rel == "" || rel == subject {
			continue
		}
		j, ok := m.joinTo(rel, subject)
		if !ok {
			continue
		}
		if !reHas.MatchString(rest) && days == 0 && !negated {
			continue
		}
		term := ontology.Term{Kind: ontology.TermPredicate, Subject: subject, Related: rel, Op: "exists",
			Joins: []ontology.Join{{Left: strings.ToLower(j.FromTable + "." + j.FromColumn), Right: strings.ToLower(j.ToTable + "." + j.ToColumn)}}}
		plain := "has at least one " + singularWord(m.labels.Table(rel))
		if negated {
			term.Op, plain = "not exists", "has no "+m.labels.Table(rel)
		}
		if days > 0 {
			dc := m.dateColumnOf(rel, rest)
			if dc == "" {
				return typedMeaning{}, false
			}
			term.Column, term.Days = dc, days
			plain += " in the last " + strconv.Itoa(days) + " days"
		}
		return typedMeaning{Term: term, Plain: plain}, true
	}
	// A window on the subject's own date: "ordered in the last 90 days".
	if days > 0 {
		dc := m.dateColumnOf(subject, rest)
		if dc == "" {
			return typedMeaning{}, false
		}
		term := ontology.Term{Kind: ontology.TermPredicate, Subject: subject, Column: dc, Op: "within", Days: days}
		return typedMeaning{Term: term, Plain: upperFirst(m.labels.Column(dc)) + " in the last " + strconv.Itoa(days) + " days"}, true
	}
	// Stored values of one of the subject's columns: "placed or shipped",
	// "status is not cancelled".
	byColumn := map[string][]string{}
	var order []string
	words := strings.Fields(rest)
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			phrase := strings.Join(words[i:i+n], " ")
			if n == 1 && connectives[phrase] {
				continue // "placed or shipped": 'or' is no state code here
			}
			for _, h := range m.deps.Catalog.SearchValues(phrase, 24) {
				if !strings.EqualFold(h.Table, subject) || h.Match != catalog.Exact && h.Match != catalog.CaseInsensitive {
					continue
				}
				tc := strings.ToLower(h.Table + "." + h.Column)
				if !slices.Contains(byColumn[tc], h.Value) {
					if len(byColumn[tc]) == 0 {
						order = append(order, tc)
					}
					byColumn[tc] = append(byColumn[tc], h.Value)
				}
			}
		}
	}
	best := ""
	for _, tc := range order {
		if best == "" || len(byColumn[tc]) > len(byColumn[best]) {
			best = tc
		}
	}
	if best == "" {
		return typedMeaning{}, false
	}
	values := byColumn[best]
	slices.Sort(values)
	term := ontology.Term{Kind: ontology.TermValues, Subject: subject, Column: best, Op: "in", Values: values}
	if len(values) == 1 {
		term.Op = "="
	}
	verb := " is "
	if negated {
		verb = " is not "
		term.Op = "not in"
	}
	return typedMeaning{Term: term, Plain: upperFirst(m.labels.Column(best)) + verb + strings.Join(values, " or ")}, true
}

// dateColumnOf is the date column of table a phrase names ("ordered",
// "signed up"), or the table's only date column.
func (m *Manager) dateColumnOf(table, phrase string) string {
	isDate := func(tc string) bool {
		return strings.EqualFold(tableOfTC(tc), table) && m.labels.Kind(tc) == warehouse.KindTime
	}
	if tc, ok := m.findColumn(phrase, isDate); ok {
		return tc
	}
	var dates []string
	if t, ok := m.labels.tables[table]; ok {
		for _, c := range t.Columns {
			if tc := strings.ToLower(t.Name + "." + c.Name); isDate(tc) {
				dates = append(dates, tc)
			}
		}
	}
	if len(dates) == 1 {
		return dates[0]
	}
	return ""
}

// joinTo is the join by which related's rows point at subject's.
func (m *Manager) joinTo(related, subject string) (warehouse.Join, bool) {
	snap := m.deps.Catalog.Snapshot()
	if snap == nil {
		return warehouse.Join{}, false
	}
	for _, j := range snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, related) && strings.EqualFold(j.ToTable, subject) && j.When == nil {
			return j, true
		}
	}
	return warehouse.Join{}, false
}

// singularWord is a plural noun phrase's last word made singular, plainly.
func singularWord(s string) string {
	switch {
	case strings.HasSuffix(s, "ies"):
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "ses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss"):
		return s[:len(s)-1]
	}
	return s
}

// splitMeasures splits "sum of x and average of y" into its measures,
// each keeping its own function word.
func splitMeasures(t string) []string {
	var out []string
	start := 0
	for _, m := range reAndMeasure.FindAllStringSubmatchIndex(t, -1) {
		out = append(out, strings.TrimSpace(t[start:m[0]]))
		start = m[2]
	}
	return append(out, strings.TrimSpace(t[start:]))
}
