package offline

import (
	"fmt"
	"github.com/clarify-bot/clarify/ontology"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// colAlt is one column a phrase may mean.
type colAlt struct {
	table, column string
	weight        float64
	// expr is set for a computed measure (an age, a duration): its SQL
	// over table's columns; column then names it for aliases.
	expr string
}

// valueMention is a phrase that names stored values.
type valueMention struct {
	phrase string
	at     int // first token
	alts   []valueAlt
	// negated: "without", "not", "excluding" before it.
	negated bool
	// optional: the words also name a column, so ignoring the value is a reading too.
	optional bool
	// weak: an everyday word matched to a name without corroboration; not
	// filtering is the likelier reading (spurious.go).
	weak bool
	// named: the question names the value's column next to it ("the
	// department of Computer Science"), which corroborates it.
	named bool
}

type valueAlt struct {
	table, column, value string
	weight               float64
}

type entityMention struct {
	phrase string
	at     int
	tables []*tableInfo
}

type colMention struct {
	phrase  string
	at, end int
	alts    []colAlt
	clause  int
	// role is set as the interpreter decides what the column is for.
	role string
}

// timeMention is a date condition: [from, to) as YYYY-MM-DD, either open.
type timeMention struct {
	phrase   string
	from, to string
	year     string // set when the range is exactly one calendar year
	// days is set for a window ending now ("the last 90 days").
	days   int
	at     int
	clause int
}

// windowUnit reads the unit of "the last N days/weeks/months/years".
func windowUnit(w string) string {
	switch singularOf(w) {
	case "day", "week", "month", "year":
		return singularOf(w)
	}
	return ""
}

type compMention struct {
	phrase string
	op     string
	value  float64
	upper  float64 // the second bound of "between"
	at     int
	// target words before (or after) the comparison.
	target string
	// keyOf is set for "shop with ID 1": the named table, whose key
	// (or a column referring to it) equals the value.
	keyOf *tableInfo
}

type superMention struct {
	phrase string
	desc   bool
	limit  int
	hint   string // "size", "length", "height", "population", "date", "value", "" (any measure)
	noun   string // words after the superlative ("revenue" in "highest revenue")
	nounAt int
	at     int
	// explicitLimit is true for "top 5", "3 largest".
	explicitLimit bool
}

type groupMention struct {
	phrase   string
	at       int
	timeUnit string // "month", "year", "quarter", "week", "day" for time buckets
}

type analysis struct {
	toks     []tok
	values   []*valueMention
	entities []*entityMention
	columns  []*colMention
	times    []*timeMention
	comps    []*compMention
	count    bool
	// countKinds: "how many kinds of / different X" counts distinct values.
	countKinds bool
	countAt    int
	agg        string
	aggAt      int
	sup        *superMention
	// supCol is a superlative inside a column name ("highest point").
	supCol *superMention
	// nested is a superlative naming a related thing: a condition.
	nested *nestedMention
	// share asks for each group's part of the total; change for each
	// period's change from the one before.
	share  *span
	change *changeMention
	groups []*groupMention
	// linked are the defined phrases linked to their columns (defined.go).
	linked []linkedFact
	howAdj string // "big", "long", "high", "old" in "how big is…"
	// order is an ordering clause ("sorted from highest to lowest").
	order *orderMention
	// likes are text patterns ("whose name starts with 'J'").
	likes   []*likeMention
	where   bool // "where is…"
	removes []string
	// about maps a feedback clause to the phrase it answered ("active").
	about map[int]string
	// typed are the typed meanings of the request, and typedMeasures the
	// computed measures built into readings (typed.go).
	typed         []typedDef
	typedMeasures []typedMeasure
	typedMarkers  []string
}

var superlatives = map[string]struct {
	desc bool
	hint string
}{
	"most": {true, ""}, "highest": {true, "height"}, "largest": {true, "size"}, "biggest": {true, "size"}, "greatest": {true, "size"},
	"best": {true, "value"}, "longest": {true, "length"}, "tallest": {true, "height"}, "maximum": {true, ""}, "busiest": {true, "value"},
	"richest": {true, "value"}, "top": {true, "value"}, "latest": {true, "date"}, "newest": {true, "date"}, "last": {true, "date"},
	"least": {false, ""}, "lowest": {false, "height"}, "smallest": {false, "size"}, "fewest": {false, ""}, "shortest": {false, "length"},
	"worst": {false, "value"}, "minimum": {false, ""}, "first": {false, "date"}, "earliest": {false, "date"}, "oldest": {false, "date"},
	"cheapest": {false, "price"}, "priciest": {true, "price"}, "poorest": {false, "value"},
}

var hintStems = map[string][]string{
	"size":       {"area", "population", "size", "capacity", "volume", "length"},
	"population": {"population"},
	"length":     {"length", "distance", "duration"},
	"height":     {"elevation", "height", "altitude"},
	"price":      {"price", "cost"},
	"value":      {"amount", "revenue", "sales", "total", "value", "price", "profit", "income"},
}

// how-adjectives: "how big is alaska" asks for a measure.
var howAdjectives = map[string]string{"big": "size", "large": "size", "long": "length", "high": "height", "tall": "height", "populous": "population", "expensive": "price", "deep": "height"}

var monthNames = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

func (a *analysis) word(i int) string {
	if i < 0 || i >= len(a.toks) {
		return ""
	}
	return a.toks[i].low
}

func (a *analysis) seq(i int, words ...string) bool {
	for k, w := range words {
		if a.word(i+k) != w {
			return false
		}
	}
	return true
}

func (a *analysis) phrase(from, to int) string {
	var parts []string
	for i := from; i < to && i < len(a.toks); i++ {
		parts = append(parts, a.toks[i].raw)
	}
	return strings.Join(parts, " ")
}

// analyse runs the recognisers over the question and its feedback.
func (e *Engine) analyse(question string, feedback []dialog.Feedback, facts []ontology.Fact, now time.Time) *analysis {
	a := &analysis{countAt: -1, aggAt: -1, about: map[int]string{}, typed: typedDefs(feedback, facts)}
	a.toks = numberWords(lex(question, 0))
	for i, f := range feedback {
		if f.Term != nil {
			continue // read by the dialog already; built as typed (typed.go)
		}
		a.toks = append(a.toks, numberWords(lex(f.Text, i+1))...)
		if f.About != "" {
			a.about[i+1] = strings.ToLower(f.About)
		}
	}
	a.findRemovals()
	a.findTimes(now)
	a.findComparisons()
	a.findUnits()
	a.findOrdering()
	a.findPatterns()
	e.protectColumnNames(a)
	e.protectStoredValues(a)
	a.findIntents()
	e.findDefinedPhrases(a, facts)
	a.findShares()
	e.findKeyEquals(a)
	e.findKeyColumns(a)
	e.findNamedValues(a)
	e.findValues(a)
	e.protectColumnPhrases(a)
	e.findEntities(a)
	e.findColumns(a)
	e.findListItems(a)
	e.superlativeOfColumn(a)
	e.bindNamedColumns(a)
	e.findRelatedEntities(a)
	e.preferNamedTable(a)
	e.findComputed(a)
	e.findRatio(a)
	return a
}

// preferNamedTable reads "refund amount" as the amount of refunds: a
// column named right after a table's name is first looked for there.
func (e *Engine) preferNamedTable(a *analysis) {
	for _, cm := range a.columns {
		for _, em := range a.entities {
			if em.at+len(strings.Fields(em.phrase)) != cm.at {
				continue
			}
			named := false
			for i := range cm.alts {
				for _, t := range em.tables {
					named = named || strings.EqualFold(cm.alts[i].table, t.name)
				}
			}
			for i := range cm.alts {
				w := 0.6 // another table's column leaves the table's name unused
				if !named {
					w = 1
				}
				for _, t := range em.tables {
					if strings.EqualFold(cm.alts[i].table, t.name) {
						w = 1.5
					}
				}
				cm.alts[i].weight *= w
			}
			sort.SliceStable(cm.alts, func(i, j int) bool { return cm.alts[i].weight > cm.alts[j].weight })
		}
	}
}

// protectColumnNames keeps phrases that are column names from being read as
// intents: "highest point" and "lowest elevation" name columns of a
// geography schema, they do not ask for a ranking.
func (e *Engine) protectColumnNames(a *analysis) {
	for i := 0; i+1 < len(a.toks); i++ {
		// "names" may already be read as a sort key's word.
		if _, ok := superlatives[a.toks[i].low]; !ok || a.toks[i].used || a.toks[i+1].used && singularOf(a.toks[i+1].low) != "name" {
			continue
		}
		phrase := a.toks[i].low + " " + a.toks[i+1].low
		want := strings.Join(e.m.cat.NameTerms(phrase), " ")
		closed := a.toks[i].low + singularOf(a.toks[i+1].low) // "lastname"
		for _, h := range append(e.m.cat.SearchColumns(phrase, 5), e.m.cat.SearchColumns(closed, 5)...) {
			if strings.Join(e.m.cat.NameTerms(h.Column), " ") == want || strings.ToLower(strings.ReplaceAll(h.Column, "_", "")) == closed {
				e.addColumnMention(a, i, i+2)
				// Remember the superlative it carries: "the highest point in
				// the us" ranks; "the highest point in Wyoming" does not.
				// "first name", "last name" rank nothing.
				if cm := a.columns[len(a.columns)-1]; cm.at == i && singularOf(a.toks[i+1].low) != "name" {
					s := superlatives[a.toks[i].low]
					a.supCol = &superMention{phrase: a.toks[i].raw, desc: s.desc, limit: 1, hint: s.hint, at: i, nounAt: i}
				}
				break
			}
		}
	}
}

// findNamedValues reads "the colorado river", "mount whitney", "lake
// erie": a value next to the name of its table is looked for in that
// table first, and the table word is taken as the entity.
func (e *Engine) findNamedValues(a *analysis) {
	for i := range a.toks {
		t := a.toks[i]
		if t.used || t.isNum || stopWords[t.low] {
			continue
		}
		tables := e.m.byTerm[strings.Join(e.m.cat.Terms(t.raw), " ")]
		if len(tables) == 0 {
			// a word the lexicon relates to a one-word table name (a
			// shortened or derived form of it) names the table too.
			tables = e.relatedTables(t.low)
		}
		if len(tables) == 0 {
			continue
		}
		for _, span := range [][2]int{{i - 1, i}, {i - 2, i}, {i + 1, i + 2}, {i + 1, i + 3}} {
			from, to := span[0], span[1]
			if from < 0 || to > len(a.toks) || from >= to {
				continue
			}
			ok := true
			for k := from; k < to; k++ {
				if a.toks[k].used || a.toks[k].isNum || stopWords[a.toks[k].low] {
					ok = false
				}
			}
			if !ok {
				continue
			}
			vm := e.valueMention(a, from, to, false)
			if vm == nil {
				continue
			}
			var in []valueAlt
			for _, al := range vm.alts {
				for _, tb := range tables {
					if strings.EqualFold(al.table, tb.name) {
						al.weight *= 2
						in = append(in, al)
					}
				}
			}
			if len(in) == 0 {
				continue
			}
			vm.alts, vm.optional = in, false
			// Remembered as "colorado river", not "colorado": the state of
			// Colorado is another question.
			if i >= to {
				vm.phrase = a.phrase(from, i+1)
			} else {
				vm.phrase = a.phrase(i, to)
			}
			a.values = append(a.values, vm)
			for k := from; k < to; k++ {
				a.toks[k].used = true
			}
			a.entities = append(a.entities, &entityMention{phrase: t.raw, at: i, tables: tables})
			a.toks[i].used = true
			break
		}
	}
}

// findRemovals notes "drop/remove/without the X column" feedback.
func (a *analysis) findRemovals() {
	for i, t := range a.toks {
		if t.clause == 0 {
			continue
		}
		switch t.low {
		case "drop", "remove", "hide":
			j := i + 1
			for a.word(j) == "the" {
				j++
			}
			var words []string
			for ; j < len(a.toks) && a.toks[j].clause == t.clause && a.word(j) != "column" && a.word(j) != "columns" && a.word(j) != "field"; j++ {
				words = append(words, a.toks[j].low)
				a.toks[j].used = true
			}
			a.toks[i].used = true
			if a.word(j) == "column" || a.word(j) == "columns" || a.word(j) == "field" {
				a.toks[j].used = true
			}
			if len(words) > 0 {
				a.removes = append(a.removes, strings.Join(words, " "))
			}
		}
	}
}

func ymd(y, m, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }

func yearRange(y int) (string, string) { return ymd(y, 1, 1), ymd(y+1, 1, 1) }

// findTimes recognises years, ranges and relative periods.
func (a *analysis) findTimes(now time.Time) {
	add := func(at, clause int, phrase, from, to string) {
		tm := &timeMention{phrase: phrase, from: from, to: to, at: at, clause: clause}
		if len(from) == 10 && len(to) == 10 && from[4:] == "-01-01" && to[4:] == "-01-01" {
			fy, _ := strconv.Atoi(from[:4])
			ty, _ := strconv.Atoi(to[:4])
			if ty == fy+1 {
				tm.year = from[:4]
			}
		}
		a.times = append(a.times, tm)
	}
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		switch {
		case t.low == "between" && a.toks[min(i+1, len(a.toks)-1)].isYear() && a.word(i+2) == "and" && i+3 < len(a.toks) && a.toks[i+3].isYear():
			y1, y2 := int(a.toks[i+1].num), int(a.toks[i+3].num)
			from, _ := yearRange(min(y1, y2))
			_, to := yearRange(max(y1, y2))
			add(i, t.clause, a.phrase(i, i+4), from, to)
			for k := i; k <= i+3; k++ {
				a.toks[k].used = true
			}
		case (t.low == "last" || t.low == "past" || t.low == "previous") && i+2 < len(a.toks) && a.toks[i+1].isNum && a.toks[i+1].num >= 1 && windowUnit(a.word(i+2+windowFiller(a, i+2))) != "":
			n := int(a.toks[i+1].num)
			start := now
			// "the past 6 calendar months": a filler word before the unit.
			st := i
			if f := windowFiller(a, i+2); f > 0 {
				a.toks[i+2].used = true
				i += f
			}
			switch windowUnit(a.word(i + 2)) {
			case "day":
				start = now.AddDate(0, 0, -n)
			case "week":
				start = now.AddDate(0, 0, -7*n)
			case "month":
				start = now.AddDate(0, -n, 0)
			case "year":
				start = now.AddDate(-n, 0, 0)
			}
			add(st, t.clause, a.phrase(st, i+3), start.Format("2006-01-02"), "")
			a.times[len(a.times)-1].days = int(now.Sub(start).Hours() / 24)
			a.toks[st].used, a.toks[st+1].used, a.toks[i+2].used = true, true, true
			i += 2
		case t.low == "past" && a.word(i+1) == "week":
			// "the past week": the seven days up to today, as "the past 7 days".
			start := now.AddDate(0, 0, -7)
			add(i, t.clause, a.phrase(i, i+2), start.Format("2006-01-02"), "")
			a.times[len(a.times)-1].days = 7
			a.toks[i].used, a.toks[i+1].used = true, true
			i++
		case (t.low == "last" || t.low == "this" || t.low == "past" || t.low == "previous") && (a.word(i+1) == "year" || a.word(i+1) == "month" || a.word(i+1) == "quarter"):
			y, mo := now.Year(), int(now.Month())
			var from, to string
			switch a.word(i + 1) {
			case "year":
				if t.low == "this" {
					from, to = yearRange(y)
				} else {
					from, to = yearRange(y - 1)
				}
			case "month":
				start := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
				if t.low != "this" {
					start = start.AddDate(0, -1, 0)
				}
				from, to = start.Format("2006-01-02"), start.AddDate(0, 1, 0).Format("2006-01-02")
			case "quarter":
				q := (mo - 1) / 3
				start := time.Date(y, time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC)
				if t.low != "this" {
					start = start.AddDate(0, -3, 0)
				}
				from, to = start.Format("2006-01-02"), start.AddDate(0, 3, 0).Format("2006-01-02")
			}
			add(i, t.clause, a.phrase(i, i+2), from, to)
			a.toks[i].used, a.toks[i+1].used = true, true
		case a.seq(i, "year", "to", "date") || a.seq(i, "month", "to", "date") || a.seq(i, "quarter", "to", "date") || t.low == "ytd" || t.low == "mtd" || t.low == "qtd":
			// From the start of the period to now.
			y, mo := now.Year(), int(now.Month())
			start := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			switch {
			case t.low == "month" || t.low == "mtd":
				start = time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
			case t.low == "quarter" || t.low == "qtd":
				start = time.Date(y, time.Month((mo-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC)
			}
			end := i + 1
			if !strings.HasSuffix(t.low, "td") {
				end = i + 3
			}
			add(i, t.clause, a.phrase(i, end), start.Format("2006-01-02"), "")
			a.markUsed(i, end)
			i = end - 1
		case t.isYear() && !comparedNumber(a.word(i-1)):
			y := int(t.num)
			prev := a.word(i - 1)
			if mo, ok := monthNames[prev]; ok && !(prev == "may" && i >= 2 && a.word(i-2) == "i") {
				start := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
				from, to := start.Format("2006-01-02"), start.AddDate(0, 1, 0).Format("2006-01-02")
				at := i - 1
				switch a.word(i - 2) {
				case "since", "from":
					to, at = "", i-2 // "since March 2024": open-ended
				case "after":
					from, at = to, i-2
					to = ""
				case "before", "until", "till":
					from, to, at = "", from, i-2
				}
				add(at, t.clause, a.phrase(at, i+1), from, to)
				a.markUsed(at, i)
			} else {
				from, to := yearRange(y)
				switch prev {
				case "since", "from":
					to = ""
				case "after":
					from, to = ymd(y+1, 1, 1), ""
				case "before", "until", "till":
					from, to = "", ymd(y, 1, 1)
				}
				add(i, t.clause, a.phrase(max(i-1, 0), i+1), from, to)
			}
			a.toks[i].used = true
		}
	}
}

var compPhrases = []struct {
	words []string
	op    string
}{
	{[]string{"more", "than"}, ">"}, {[]string{"greater", "than"}, ">"}, {[]string{"higher", "than"}, ">"}, {[]string{"larger", "than"}, ">"},
	{[]string{"bigger", "than"}, ">"}, {[]string{"over"}, ">"}, {[]string{"above"}, ">"}, {[]string{"exceeding"}, ">"}, {[]string{"exceeds"}, ">"},
	{[]string{"at", "least"}, ">="}, {[]string{"less", "than"}, "<"}, {[]string{"fewer", "than"}, "<"}, {[]string{"lower", "than"}, "<"},
	{[]string{"smaller", "than"}, "<"}, {[]string{"under"}, "<"}, {[]string{"below"}, "<"}, {[]string{"at", "most"}, "<="},
	{[]string{"exactly"}, "="}, {[]string{"equal", "to"}, "="}, {[]string{"only"}, "="}, {[]string{"just"}, "="},
}

// findComparisons recognises "more than 100", "over 500", "at least 3".
func (a *analysis) findComparisons() {
	for i := 0; i < len(a.toks); i++ {
		for _, cp := range compPhrases {
			n := len(cp.words)
			if !a.seq(i, cp.words...) || i+n >= len(a.toks) || !a.toks[i+n].isNum || a.toks[i+n].used {
				continue
			}
			c := &compMention{phrase: a.phrase(i, i+n+1), op: cp.op, value: a.toks[i+n].num, at: i}
			c.target = a.comparisonTarget(i, i+n+1)
			a.comps = append(a.comps, c)
			for k := i; k <= i+n; k++ {
				a.toks[k].used = true
			}
			break
		}
	}
	// "between 100 and 200", both included as in SQL.
	for i := 0; i+3 < len(a.toks); i++ {
		if a.word(i) != "between" || !a.toks[i+1].isNum || a.word(i+2) != "and" || !a.toks[i+3].isNum || a.toks[i+1].used || a.toks[i+3].used {
			continue
		}
		lo, hi := a.toks[i+1].num, a.toks[i+3].num
		if lo > hi {
			lo, hi = hi, lo
		}
		target := a.comparisonTarget(i, i+4)
		phrase := a.phrase(i, i+4)
		a.comps = append(a.comps, &compMention{phrase: phrase, op: "between", value: lo, upper: hi, at: i, target: target})
		for k := i; k < i+4; k++ {
			a.toks[k].used = true
		}
	}
	a.findOrMore()
}

// comparisonTarget finds the words a comparison at [i, end) is about:
// content words just before ("population over 100000"), else just after
// ("over 500 in revenue", "more than 10 orders").
func (a *analysis) comparisonTarget(i, end int) string {
	var before []string
	start := i - 1
	if a.word(start) == "of" {
		start-- // "a cruising speed of over 200 mph"
	}
	for j := start; j >= 0 && j >= start-2; j-- {
		w := a.word(j)
		if w == "with" || w == "whose" || w == "that" || w == "have" || w == "has" || w == "is" || w == "are" || w == "of" || a.toks[j].used {
			break
		}
		if !stopWords[w] {
			before = append([]string{a.toks[j].low}, before...)
		}
	}
	var after []string
	for j := end; j < len(a.toks) && j <= end+2; j++ {
		w := a.word(j)
		if a.toks[j].used || a.toks[j].isNum {
			break
		}
		if stopWords[w] && len(after) > 0 {
			break
		}
		if !stopWords[w] {
			after = append(after, a.toks[j].low)
		}
	}
	if len(after) > 0 && (len(before) == 0 || a.word(i-1) == "with" || a.word(i-1) == "have" || a.word(i-1) == "has") {
		return strings.Join(after, " ")
	}
	return strings.Join(before, " ")
}

// findOrMore reads "N or more" / "N or less".
func (a *analysis) findOrMore() {
	for i := 0; i+2 < len(a.toks); i++ {
		if a.toks[i].isNum && !a.toks[i].used && a.word(i+1) == "or" && (a.word(i+2) == "more" || a.word(i+2) == "less" || a.word(i+2) == "fewer") {
			op := ">="
			if a.word(i+2) != "more" {
				op = "<="
			}
			target := ""
			if i+3 < len(a.toks) {
				target = a.toks[i+3].low
			}
			a.comps = append(a.comps, &compMention{phrase: a.phrase(i, i+3), op: op, value: a.toks[i].num, at: i, target: target})
			a.toks[i].used, a.toks[i+1].used, a.toks[i+2].used = true, true, true
		}
	}
}

// findIntents recognises counting, aggregates, superlatives, grouping and
// how-adjectives.
func (a *analysis) findIntents() {
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		switch {
		case a.seq(i, "how", "many"):
			a.count, a.countAt = true, i
			a.toks[i].used, a.toks[i+1].used = true, true
			a.findCountKinds(i + 2)
		case a.seq(i, "number", "of") || a.seq(i, "count", "of") || t.low == "count" && i == 0:
			// The first count asks; a later one ("… Give the id and the
			// number of X") lists what to show.
			if !a.count {
				a.count, a.countAt = true, i
			}
			a.toks[i].used = true
			if a.word(i+1) == "of" {
				a.toks[i+1].used = true
			}
		case a.seq(i, "how", "much"):
			a.agg, a.aggAt = "SUM", i
			a.toks[i].used, a.toks[i+1].used = true, true
		case t.low == "total" || t.low == "sum" || t.low == "overall" || t.low == "combined" || t.low == "altogether":
			if a.agg == "" {
				a.agg, a.aggAt = "SUM", i
			}
			a.toks[i].used = true
		case t.low == "average" || t.low == "avg" || t.low == "mean":
			a.agg, a.aggAt = "AVG", i
			a.toks[i].used = true
		case a.word(i-1) == "how" && howAdjectives[t.low] != "":
			a.howAdj = howAdjectives[t.low]
			a.toks[i].used, a.toks[i-1].used = true, true
		case t.low == "where" && (a.word(i+1) == "is" || a.word(i+1) == "are"):
			a.where = true
			a.toks[i].used = true
		}
	}
	// Superlatives and top-k.
	for i := 0; i < len(a.toks) && a.sup == nil; i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		s, ok := superlatives[t.low]
		limit, explicit := 1, false
		start := i
		if t.isNum && !t.used && t.num >= 1 && t.num <= 1000 && t.num == math.Trunc(t.num) && i+1 < len(a.toks) {
			if s2, ok2 := superlatives[a.word(i+1)]; ok2 {
				s, ok, limit, explicit = s2, true, int(t.num), true
				a.toks[i].used = true
				i++
			}
		}
		if !ok {
			continue
		}
		// "first/last" only rank when they qualify a noun, not in "first 2024"…
		if (t.low == "max" || t.low == "maximum" || t.low == "minimum") && a.agg == "" && a.word(i+1) == "of" {
			continue
		}
		if i+1 < len(a.toks) && a.toks[i+1].isNum && !a.toks[i+1].isYear() && !a.toks[i+1].used {
			limit, explicit = int(a.toks[i+1].num), true
			a.toks[i+1].used = true
		}
		sm := &superMention{phrase: a.toks[i].raw, desc: s.desc, limit: limit, hint: s.hint, at: start, explicitLimit: explicit}
		a.toks[i].used = true
		// "most populous", "least expensive": the adjective sets the measure.
		if (a.toks[i].low == "most" || a.toks[i].low == "least") && howAdjectives[a.word(i+1)] != "" {
			sm.hint = howAdjectives[a.word(i+1)]
			sm.phrase += " " + a.toks[i+1].raw
			a.toks[i+1].used = true
			i++
		}
		// "top 2 most frequently used device types": how often, not a column.
		for k := i + 1; k < len(a.toks) && k <= i+4 && !a.toks[k].used; k++ {
			if w := a.word(k); w != "most" && w != "least" {
				if !commonWords[w] {
					break
				}
				a.toks[k].used = true
			}
		}
		// The noun it ranks by: "highest revenue", "most orders", "top 5 products by units sold".
		j := i + 1
		for j < len(a.toks) && (a.word(j) == "the" || a.word(j) == "a") {
			j++
		}
		sm.nounAt = j
		if by := a.indexOf("by", i+1); by >= 0 && by+1 < len(a.toks) {
			sm.nounAt = by + 1
			a.toks[by].used = true
		} else if at, s2 := a.rankedWith(j); at > 0 {
			// "top 3 shops with the highest ratings": the second
			// superlative says what ranks them, and which way.
			sm.nounAt, sm.desc = at+1, s2.desc
			sm.phrase += " " + a.toks[at].raw
			a.toks[at].used = true
		}
		a.sup = sm
	}
	// Grouping.
	for i := 0; i < len(a.toks); i++ {
		t := a.toks[i]
		if t.used {
			continue
		}
		switch t.low {
		case "monthly", "yearly", "annually", "annual", "quarterly", "weekly", "daily":
			unit := map[string]string{"monthly": "month", "yearly": "year", "annually": "year", "annual": "year", "quarterly": "quarter", "weekly": "week", "daily": "day"}[t.low]
			a.groups = append(a.groups, &groupMention{phrase: t.raw, at: i, timeUnit: unit})
			a.toks[i].used = true
			continue
		}
		var at int
		switch {
		case t.low == "per" && a.indexOf("ratio", max(i-5, 0)) >= 0 && a.indexOf("ratio", max(i-5, 0)) < i:
			continue // "the ratio of population per area": a quotient
		case t.low == "by" && passiveAgent(a.word(i-1)):
			continue // "references cited by publications": who did it, not a grouping
		case t.low == "per" || t.low == "by" && !a.toks[min(i+1, len(a.toks)-1)].isNum:
			at = i + 1
		case a.seq(i, "for", "each") || a.seq(i, "for", "every"):
			at = i + 2
			a.toks[i+1].used = true
		case t.low == "each" || t.low == "every":
			at = i + 1
		case t.low == "across" && (a.word(i+1) == "different" || a.word(i+1) == "all" || a.word(i+1) == "the" || a.word(i-1) == "vary" || a.word(i-1) == "varies"):
			// "how does X vary across (different) manufacturers"
			at = i + 1
			if a.word(at) == "different" || a.word(at) == "all" {
				a.toks[at].used = true
				at++
			}
		default:
			continue
		}
		for at < len(a.toks) && (a.word(at) == "the" || a.word(at) == "a" || a.word(at) == "each") {
			at++
		}
		if at >= len(a.toks) || a.toks[at].used || a.toks[at].isNum {
			continue
		}
		a.toks[i].used = true
		g := &groupMention{phrase: a.toks[at].raw, at: at}
		switch singularOf(a.word(at)) {
		case "month", "year", "quarter", "week", "day":
			g.timeUnit = singularOf(a.word(at))
			a.toks[at].used = true
		}
		a.groups = append(a.groups, g)
	}
}

// rankedWith finds "with/having/has the highest" within a few words after
// from: the superlative that names what a top-N ranks by.
func (a *analysis) rankedWith(from int) (int, struct {
	desc bool
	hint string
}) {
	for k := from; k < from+5 && k < len(a.toks); k++ {
		switch a.word(k) {
		case "with", "having", "has", "have", "had":
			j := k + 1
			for a.word(j) == "the" || a.word(j) == "received" || a.word(j) == "got" {
				j++
			}
			if s, ok := superlatives[a.word(j)]; ok && !a.toks[j].used {
				return j, s
			}
		}
	}
	return -1, superlatives["top"]
}

// stopWord is a stop word written as one: "US" in capitals is a country,
// not "us".
func stopWord(t tok) bool {
	return stopWords[t.low] && !(len(t.raw) >= 2 && t.raw == strings.ToUpper(t.raw) && t.raw != t.low)
}

// passiveAgent says whether "by" after w introduces who did something
// ("written by", "sent by", "taken by") rather than a grouping ("grouped
// by", "split by").
func passiveAgent(w string) bool {
	switch w {
	case "grouped", "split", "broken", "segmented", "partitioned", "bucketed", "categorized", "categorised", "sorted", "ordered", "ranked", "organized", "organised":
		return false
	}
	return len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) || w == "sent" || w == "made" || w == "held" || w == "sold" || w == "built" || w == "paid" || w == "taught" || w == "bought" || w == "won" || w == "led"
}

// kindWords ask for distinct values: "how many kinds of", "different".
var kindWords = map[string]bool{"kinds": true, "kind": true, "types": true, "type": true, "sorts": true, "sort": true,
	"different": true, "distinct": true, "unique": true, "varieties": true, "variety": true}

// findCountKinds reads "kinds of", "different" right after "how many".
func (a *analysis) findCountKinds(j int) {
	for j < len(a.toks) && kindWords[a.word(j)] {
		a.countKinds = true
		a.toks[j].used = true
		j++
	}
	if a.countKinds && a.word(j) == "of" {
		a.toks[j].used = true
	}
}

func (a *analysis) indexOf(w string, from int) int {
	for i := from; i < len(a.toks); i++ {
		if a.toks[i].low == w && !a.toks[i].used {
			return i
		}
	}
	return -1
}

// findValues links phrases to stored values, longest phrases first.
func (e *Engine) findValues(a *analysis) {
	for i := range a.toks {
		if a.toks[i].quoted && !a.toks[i].used {
			if vm := e.valueMention(a, i, i+1, true); vm != nil {
				a.values = append(a.values, vm)
			}
			a.toks[i].used = true
		}
	}
	for n := 4; n >= 1; n-- {
		for i := 0; i+n <= len(a.toks); i++ {
			ok := true
			content := 0
			for k := i; k < i+n; k++ {
				t := a.toks[k]
				if t.used || t.isNum || t.quoted || t.clause != a.toks[i].clause {
					ok = false
					break
				}
				if !stopWord(t) {
					content++
				}
			}
			if !ok || content == 0 || stopWord(a.toks[i]) || stopWord(a.toks[i+n-1]) || !spans(a.toks, i, i+n) {
				continue
			}
			vm := e.valueMention(a, i, i+n, false)
			if nv := e.valueOfNamedColumn(a, i, i+n); nv != nil {
				if vm != nil {
					nv.alts = append(nv.alts, vm.alts...)
				}
				vm = nv
			}
			if vm == nil {
				continue
			}
			a.values = append(a.values, vm)
			if !vm.optional {
				for k := i; k < i+n; k++ {
					a.toks[k].used = true
				}
			}
		}
	}
	sort.SliceStable(a.values, func(i, j int) bool { return a.values[i].at < a.values[j].at })
	a.mergeParenthesised()
}

// mergeParenthesised reads "Los Angeles (LAX)" as one value: the name and
// its code in brackets are the same thing, either may be what is stored.
func (a *analysis) mergeParenthesised() {
	var out []*valueMention
	for _, vm := range a.values {
		if n := len(out); n > 0 {
			prev := out[n-1]
			end := a.spanOf(prev.at, prev.phrase)
			if vm.at == end && end > 0 && a.toks[end-1].brk == '(' {
				vm.alts = append(vm.alts, prev.alts...)
				vm.at, vm.phrase = prev.at, prev.phrase+" ("+vm.phrase+")"
				vm.negated = vm.negated || prev.negated
				out[n-1] = vm
				continue
			}
		}
		out = append(out, vm)
	}
	a.values = out
}

// valueOfNamedColumn reads "chinese food" as the value 'chinese' of the
// column the last word names (food_type), beside any stored value that is
// the whole phrase (a shop called "Green Grocer").
func (e *Engine) valueOfNamedColumn(a *analysis, from, to int) *valueMention {
	if to-from < 2 {
		return nil
	}
	word := e.m.cat.Terms(a.toks[to-1].raw)
	if len(word) != 1 {
		return nil
	}
	// "all transaction types": every value, none in particular.
	if w := a.word(from - 1); (w == "all" || w == "every" || w == "any") && singularOf(a.toks[to-1].low) != a.toks[to-1].low {
		return nil
	}
	var alts []valueAlt
	var values []catalog.ValueHit
	for _, h := range e.m.cat.SearchColumns(a.toks[to-1].raw, 5) {
		if !slices.Contains(e.m.cat.NameTerms(h.Column), word[0]) {
			continue
		}
		if values == nil {
			values = e.m.cat.SearchValues(a.phrase(from, to-1), 24)
		}
		for _, v := range values {
			if (v.Match == catalog.Exact || v.Match == catalog.CaseInsensitive) && strings.EqualFold(v.Table, h.Table) && strings.EqualFold(v.Column, h.Column) {
				alts = append(alts, valueAlt{table: v.Table, column: v.Column, value: v.Value, weight: 1.2})
			}
		}
	}
	if len(alts) == 0 {
		return nil
	}
	return &valueMention{phrase: a.phrase(from, to), at: from, alts: alts}
}

// schemaWord says whether a phrase names a table or a column outright.
func (e *Engine) schemaWord(phrase string) (table, column bool) {
	terms := e.m.cat.Terms(phrase)
	if len(terms) == 0 {
		return false, false
	}
	key := strings.Join(terms, " ")
	if len(e.m.byTerm[key]) > 0 {
		return true, false
	}
	for _, h := range e.m.cat.SearchColumns(phrase, 3) {
		ct := e.m.cat.NameTerms(h.Column)
		if strings.Join(ct, " ") == key || len(terms) == 1 && slices.Contains(ct, terms[0]) {
			return false, true
		}
		// "placed" in "the date the order was placed": a word the schema
		// uses to describe a column, not only a stored status.
		// But not when the comment only cites one of the column's own
		// values ("full state name, such as Texas"): then it is a value.
		if c := e.m.column(h.Table, h.Column); c != nil && len(terms) == 1 && slices.Contains(e.m.cat.Terms(c.Comment), terms[0]) && !e.storedIn(phrase, h.Table, h.Column) {
			return false, true
		}
	}
	return false, false
}

// storedIn says whether phrase is one of the column's stored values.
func (e *Engine) storedIn(phrase, table, column string) bool {
	for _, h := range e.m.cat.SearchValues(phrase, 24) {
		if (h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive) && strings.EqualFold(h.Table, table) && strings.EqualFold(h.Column, column) {
			return true
		}
	}
	return false
}

func (e *Engine) valueMention(a *analysis, from, to int, quoted bool) *valueMention {
	phrase := a.phrase(from, to)
	if len([]rune(phrase)) < 2 {
		return nil
	}
	isTable, isColumn := false, false
	if !quoted {
		isTable, isColumn = e.schemaWord(phrase)
		if isTable {
			return nil
		}
	}
	hits := e.m.cat.SearchValues(phrase, 24)
	vm := &valueMention{phrase: phrase, at: from, optional: isColumn}
	byCol := map[string]*valueAlt{}
	for _, h := range hits {
		w := 0.0
		switch h.Match {
		case catalog.Exact, catalog.CaseInsensitive:
			w = 1
		case catalog.Abbreviation:
			w = 0.9
		case catalog.Prefix:
			if quoted || len([]rune(phrase)) >= 4 && !isColumn {
				w = 0.25
			}
		case catalog.Typo:
			if quoted || len([]rune(phrase)) >= 5 && !isColumn {
				w = 0.2
			}
		}
		if w == 0 {
			continue
		}
		if c := e.m.column(h.Table, h.Column); c == nil || c.Kind() != warehouse.KindText {
			continue
		}
		k := strings.ToLower(h.Table + "." + h.Column)
		if prev, ok := byCol[k]; ok {
			if w <= prev.weight {
				continue
			}
		}
		byCol[k] = &valueAlt{table: h.Table, column: h.Column, value: h.Value, weight: w}
	}
	if len(byCol) == 0 {
		return nil
	}
	best := 0.0
	for _, v := range byCol {
		best = math.Max(best, v.weight)
	}
	for _, v := range byCol {
		// Keep only matches as good as the best kind found: an exact
		// 'Texas' makes a typo 'Texos' noise.
		if v.weight >= best*0.9 {
			vm.alts = append(vm.alts, *v)
		}
	}
	sort.Slice(vm.alts, func(i, j int) bool {
		if vm.alts[i].weight != vm.alts[j].weight {
			return vm.alts[i].weight > vm.alts[j].weight
		}
		return vm.alts[i].table+"."+vm.alts[i].column < vm.alts[j].table+"."+vm.alts[j].column
	})
	if from > 0 {
		switch a.word(from - 1) {
		case "not", "without", "excluding", "except", "exclude", "non":
			vm.negated = true
			a.toks[from-1].used = true
		}
	}
	return vm
}

// findEntities links words to tables ("customers", "sales reps").
func (e *Engine) findEntities(a *analysis) {
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(a.toks); i++ {
			ok := !stopWords[a.toks[i].low] && !stopWords[a.toks[i+n-1].low] && spans(a.toks, i, i+n) && !listVerbs[a.toks[i].low]
			for k := i; ok && k < i+n; k++ {
				if a.toks[k].used || a.toks[k].isNum {
					ok = false
				}
			}
			if !ok {
				continue
			}
			// "books printed by the publisher": a participle with its
			// agent is a verb of the clause, not part of the noun.
			if n > 1 && a.word(i+n) == "by" && passiveAgent(a.word(i+n-1)) {
				continue
			}
			terms := e.m.cat.Terms(a.phrase(i, i+n))
			if len(terms) == 0 {
				continue
			}
			tables := e.m.byTerm[strings.Join(terms, " ")]
			if len(tables) == 0 {
				continue
			}
			a.entities = append(a.entities, &entityMention{phrase: a.phrase(i, i+n), at: i, tables: tables})
			for k := i; k < i+n; k++ {
				a.toks[k].used = true
			}
		}
	}
	sort.SliceStable(a.entities, func(i, j int) bool { return a.entities[i].at < a.entities[j].at })
}

// findColumns links the remaining content words to columns, a run of
// adjacent words at a time.
func (e *Engine) findColumns(a *analysis) {
	e.findSpelledColumns(a)
	i := 0
	for i < len(a.toks) {
		if a.toks[i].used || a.toks[i].isNum || stopWords[a.toks[i].low] {
			i++
			continue
		}
		j := i
		for j < len(a.toks) && j-i < 3 && !a.toks[j].used && !a.toks[j].isNum && !stopWords[a.toks[j].low] && a.toks[j].clause == a.toks[i].clause {
			j++
			if a.toks[j-1].brk != 0 {
				break
			}
		}
		e.addColumnMention(a, i, j)
		i = j
	}
	sortMentions(a)
}

// findSpelledColumns links phrases that spell a column's name word for
// word, small words included ("units in stock" → units_in_stock, "date of
// birth" → date_of_birth), before runs of words are split at those small
// words.
func (e *Engine) findSpelledColumns(a *analysis) {
	for i := range a.toks {
		for n := 5; n >= 3; n-- {
			if i+n > len(a.toks) || !spans(a.toks, i, i+n) {
				continue
			}
			free := true
			words := make([]string, n)
			for k := i; k < i+n; k++ {
				free = free && !a.toks[k].used && !a.toks[k].isNum && !a.toks[k].quoted && a.toks[k].clause == 0
				words[k-i] = a.toks[k].low
			}
			if !free || stopWords[words[0]] || stopWords[words[n-1]] {
				continue
			}
			alts := append([]colAlt(nil), e.m.byColumn[strings.Join(words, "_")]...)
			if len(alts) == 0 {
				continue
			}
			a.columns = append(a.columns, &colMention{phrase: a.phrase(i, i+n), at: i, end: i + n, alts: alts})
			a.markUsed(i, i+n)
			break
		}
	}
}

func (e *Engine) addColumnMention(a *analysis, from, to int) {
	phrase := a.phrase(from, to)
	hits := e.m.cat.SearchColumns(phrase, 8)
	if len(hits) == 0 && to-from > 1 {
		// No column for the run: try each word alone.
		for k := from; k < to; k++ {
			e.addColumnMention(a, k, k+1)
		}
		return
	}
	if len(hits) == 0 {
		return
	}
	cm := &colMention{phrase: phrase, at: from, end: to, clause: a.toks[from].clause}
	top := hits[0].Score
	wantsID := strings.Contains(" "+strings.ToLower(phrase)+" ", " id ") || strings.Contains(strings.ToLower(phrase), "number")
	for _, h := range hits {
		if h.Score < top*0.7 {
			break
		}
		if c := e.m.column(h.Table, h.Column); c != nil && !wantsID {
			if t := e.m.byName[strings.ToLower(h.Table)]; t != nil && t.key == c && c.Kind() == warehouse.KindNumber {
				continue // a bare id is never what a word like "revenue" means
			}
		}
		cm.alts = append(cm.alts, colAlt{table: h.Table, column: h.Column, weight: h.Score / top})
	}
	a.columns = append(a.columns, cm)
	for k := from; k < to; k++ {
		a.toks[k].used = true
	}
}

// findKeyEquals reads "shop with ID 1", "the user ID 42": the row of
// the named table whose key is the number.
func (e *Engine) findKeyEquals(a *analysis) {
	for i := 2; i < len(a.toks); i++ {
		if !a.toks[i].isNum || a.toks[i].used || a.toks[i].num != math.Trunc(a.toks[i].num) || a.word(i-1) != "id" || a.toks[i-1].used {
			continue
		}
		j := i - 2
		if w := a.word(j); w == "with" || w == "whose" || w == "having" || w == "of" || w == "the" || w == "an" || w == "a" {
			j--
		}
		if j >= 0 && a.word(j) == "the" && a.word(j+1) != "the" {
			j--
		}
		if j < 0 || a.toks[j].used || a.toks[j].isNum || a.toks[j].brk != 0 {
			continue
		}
		ts := e.m.byTerm[strings.Join(e.m.cat.Terms(a.toks[j].raw), " ")]
		if len(ts) == 0 || ts[0].key == nil || ts[0].key.Kind() != warehouse.KindNumber {
			continue
		}
		a.comps = append(a.comps, &compMention{phrase: a.phrase(j, i+1), op: "=", value: a.toks[i].num, at: j, target: a.toks[j].low + " id", keyOf: ts[0]})
		a.markUsed(j, i+1)
	}
}

// findKeyColumns links "<thing> ID(s)", "<thing> code", "<thing> number"
// to the identifying column of the thing ("member IDs" →
// members.member_id, "supplier IDs" → suppliers.sup_id, "branch code" →
// branch.branch_code) before the thing alone is read as its table,
// which would leave the identifier unlinked.
func (e *Engine) findKeyColumns(a *analysis) {
	for i := 1; i < len(a.toks); i++ {
		ident := singularOf(a.toks[i].low)
		if ident == "ids" {
			ident = "id"
		}
		if ident != "id" && ident != "code" && ident != "number" {
			continue
		}
		prev := a.toks[i-1]
		if prev.used || prev.isNum || stopWords[prev.low] || a.toks[i].used || prev.brk != 0 {
			continue
		}
		named := e.m.byTerm[strings.Join(e.m.cat.Terms(prev.low), " ")]
		// isNamed: the word names the table itself ("loan" → loan,
		// not order_item, whose name only contains it).
		term := strings.Join(e.m.cat.Terms(prev.low), " ")
		isNamed := func(table string) bool {
			return strings.Join(e.m.cat.NameTerms(table), " ") == term
		}
		isKey := func(table, column string) bool {
			t := e.m.byName[strings.ToLower(table)]
			return t != nil && t.key != nil && strings.EqualFold(t.key.Name, column)
		}
		cm := &colMention{phrase: a.phrase(i-1, i+1), at: i - 1, end: i + 1, clause: prev.clause}
		seen := map[string]bool{}
		if ident == "id" {
			for _, t := range named {
				if t.key != nil && isNamed(t.name) {
					cm.alts = append(cm.alts, colAlt{table: t.name, column: t.key.Name, weight: 1})
					seen[strings.ToLower(t.name+"."+t.key.Name)] = true
				}
			}
		}
		var hits []catalog.ColumnHit
		if len(cm.alts) == 0 {
			hits = e.m.cat.SearchColumns(prev.low+" "+ident, 8)
		}
		for _, h := range hits {
			col := strings.ToLower(h.Column)
			if h.Score < hits[0].Score*0.7 || seen[strings.ToLower(h.Table+"."+h.Column)] || !strings.Contains(col, ident) ||
				!strings.Contains(col, singularOf(prev.low)) && !(isNamed(h.Table) && isKey(h.Table, h.Column)) {
				continue
			}
			w := h.Score / hits[0].Score
			if isNamed(h.Table) {
				w *= 1.5
			}
			cm.alts = append(cm.alts, colAlt{table: h.Table, column: h.Column, weight: w})
		}
		if len(cm.alts) == 0 || ident == "number" && len(named) == 0 {
			continue
		}
		sort.SliceStable(cm.alts, func(x, y int) bool { return cm.alts[x].weight > cm.alts[y].weight })
		a.columns = append(a.columns, cm)
		a.toks[i-1].used, a.toks[i].used = true, true
	}
}

// findRelatedEntities links a word left unlinked to a table or column
// whose name is one word it is related to in the lexicon ("which states
// adjoin alabama" → border): the same lemma, a synonym or a derived form.
func (e *Engine) findRelatedEntities(a *analysis) {
	if e.words == nil {
		return
	}
	for i, t := range a.toks {
		// Only verbs ("adjoin", "surrounding"): a noun related through
		// one of its verb senses ("places" → rating) would mislead, and
		// the word after a superlative belongs to it ("most populated").
		if t.used || t.isNum || t.quoted || isFunctionWord(t) || len(t.low) < 4 || !e.words.MostlyVerb(t.low) ||
			a.sup != nil && i == a.sup.nounAt {
			continue
		}
		cm := &colMention{phrase: t.raw, at: i, end: i + 1, clause: t.clause}
		var tables []*tableInfo
		for _, info := range e.m.tables {
			if w := nameWord(info.name); w != "" && e.words.RelatedTo(t.low, w) {
				tables = append(tables, info)
			}
			for _, c := range info.t.Columns {
				if w := nameWord(c.Name); w != "" && !e.m.isKeyish(info.t, &c) && e.words.RelatedTo(t.low, w) {
					cm.alts = append(cm.alts, colAlt{table: info.name, column: c.Name, weight: 0.8})
				}
			}
		}
		// A column of that name is the more specific link (neighbour_info.neighbour).
		switch {
		case len(cm.alts) > 0:
			a.columns = append(a.columns, cm)
		case len(tables) > 0:
			a.entities = append(a.entities, &entityMention{phrase: t.raw, at: i, tables: tables})
		default:
			continue
		}
		a.toks[i].used = true
	}
	sort.SliceStable(a.entities, func(i, j int) bool { return a.entities[i].at < a.entities[j].at })
	sort.SliceStable(a.columns, func(i, j int) bool { return a.columns[i].at < a.columns[j].at })
}

// nameWord is the one word a table or column name consists of, leaving
// out storage qualifiers (neighbour_info → neighbour), or "".
func nameWord(name string) string {
	var words []string
	for _, w := range strings.Split(strings.ToLower(name), "_") {
		if w != "" && !tableQualifiers[w] {
			words = append(words, w)
		}
	}
	if len(words) != 1 || len(words[0]) < 4 {
		return ""
	}
	return words[0]
}

// comparedNumber says whether a number after this word is compared with
// ("of over 2010", "more than 2000"), which makes it no calendar year.
func comparedNumber(prev string) bool {
	switch prev {
	case "over", "above", "under", "below", "than", "least", "exceeding", "exceeds":
		return true
	}
	return false
}

// windowFiller is 1 when the word at i only qualifies the time unit after
// it ("calendar months", "full weeks"), else 0.
func windowFiller(a *analysis, i int) int {
	switch a.word(i) {
	case "calendar", "full", "complete", "whole", "entire":
		return 1
	}
	return 0
}

// relatedTables are the tables with a one-word name the lexicon relates
// to word (a synonym or derived form).
func (e *Engine) relatedTables(word string) []*tableInfo {
	if e.words == nil || len(word) < 2 {
		return nil
	}
	if e.words.MostlyVerb(word) || strings.HasSuffix(word, "ing") {
		return nil
	}
	var out []*tableInfo
	for _, n := range e.m.named {
		if !inflectionOf(word, n.word) && e.words.RelatedTo(word, n.word) {
			out = append(out, n.t)
		}
	}
	return out
}

// inflectionOf says whether word is base itself with an inflection
// ("borders", "bordered" of "border"): those name the table only through
// the catalog's own terms, not as synonyms.
func inflectionOf(word, base string) bool {
	for _, suffix := range []string{"", "s", "es", "ed", "d", "ing", "er", "ers"} {
		if word == base+suffix {
			return true
		}
	}
	return false
}
