package offline

import (
	"strconv"
	"strings"
)

// Every word of a question is used by a reading, a function word, or
// reported: a reading that leaves a content word out must say so rather
// than answer a different question silently. The recognisers mark the
// words they consume; a reading explains a mention's words only when its
// SQL carries what the mention stands for (the column, the value, the
// table, the count). What is left is reported per reading.

// functionWords carry no meaning of their own in a question about data:
// closed-class words (articles, pronouns, prepositions, conjunctions,
// auxiliaries, question words) and the verbs of asking.
var functionWords = setOf(`a an the of in on at for to from by with and or is are was were be been being
	do does did done what which who whom whose how many much me us we our i my you your show list give tell
	find get all each every per there that this these those it its have has had as than into through their
	they them please can could would should let see about any some also just then so if up out where when why
	whats what's one ones like same other else use using instead meant mean rather s
	return returns display displayed provide output include including included want need know calculate compute determine vary varies differ convert converted
	am will shall may might must whether both either neither such own
	data database table tables record records row rows entry entries value values info information details
	result results answer answers overall respective respectively currently present
	give gives given listed list show shown`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// isFunctionWord says whether a token needs no explaining.
func isFunctionWord(t tok) bool {
	return t.isNum && !t.quoted || functionWords[t.low] || stopWords[t.low] || len([]rune(t.low)) < 2
}

// spanOf is where a mention's phrase ends when it starts at token at.
func (a *analysis) spanOf(at int, phrase string) int {
	for end := at + 1; end <= len(a.toks); end++ {
		if a.phrase(at, end) == phrase {
			return end
		}
	}
	return at + 1
}

// unexplained lists the words of the question (not the feedback) that the
// reading with this SQL does not account for, adjacent words joined into
// one phrase, in question order.
func (e *Engine) unexplained(a *analysis, p *plan, sql string) []string {
	low := strings.ToLower(sql)
	explained := make([]bool, len(a.toks))
	mark := func(from, to int) {
		for k := max(from, 0); k < to && k < len(explained); k++ {
			explained[k] = true
		}
	}
	// A consumed word belongs to some recogniser; those with a mention are
	// checked below, the rest (connectives of intents) count as explained
	// unless a mention claims them and is not realised.
	claimed := make([]bool, len(a.toks))
	claim := func(from, to int, realised bool) {
		for k := max(from, 0); k < to && k < len(claimed); k++ {
			claimed[k] = true
		}
		if realised {
			mark(from, to)
		}
	}
	for _, vm := range a.values {
		realised := false
		for _, al := range vm.alts {
			realised = realised || strings.Contains(low, strings.ToLower(quote(al.value))) || strings.Contains(low, "'%"+strings.ToLower(likeEscape(al.value))+"%'")
		}
		claim(vm.at, a.spanOf(vm.at, vm.phrase), realised)
	}
	// "states that border states that border texas": each mention of a
	// table beyond the first needs another instance of it in the reading
	// (the table read again, or a column referring to it).
	type mentionKey struct {
		t    *tableInfo
		noun string
	}
	mentioned := map[mentionKey]int{}
	for _, em := range a.entities {
		realised := false
		for _, t := range em.tables {
			// The join tree may bring the table in ("lent" → loans).
			realised = realised || p.tables[strings.ToLower(t.name)] || joinsTable(low, strings.ToLower(e.m.ident(t.name)))
		}
		if len(em.tables) > 0 {
			k := mentionKey{em.tables[0], singularOf(strings.ToLower(em.phrase))}
			mentioned[k]++
			realised = realised && mentioned[k] <= e.instances(low, k.t)
		}
		claim(em.at, a.spanOf(em.at, em.phrase), realised)
	}
	for _, cm := range a.columns {
		realised := false
		for _, al := range cm.alts {
			sql := al.exprOf().render(e.m)
			// A column that refers to other rows names the relation itself
			// ("countries neighbour Spain" → neighbour_info.neighbour): reading its
			// table through the join uses it.
			relation := !al.computed() && e.m.joinCols[strings.ToLower(al.table+"."+al.column)] && strings.Contains(low, "\njoin ") && joinsTable(low, strings.ToLower(e.m.ident(al.table)))
			realised = realised || relation || strings.Contains(low, strings.ToLower(sql))
		}
		claim(cm.at, cm.end, realised)
	}
	if om := a.order; om != nil {
		claim(om.at, a.spanOf(om.at, om.phrase), strings.Contains(low, "order by"))
	}
	for _, lm := range a.likes {
		claim(lm.at, a.spanOf(lm.at, lm.phrase), strings.Contains(low, strings.ToLower(quote(lm.pattern))))
	}
	for _, tm := range a.times {
		realised := tm.from != "" && strings.Contains(low, "'"+tm.from+"'") || tm.to != "" && strings.Contains(low, "'"+tm.to+"'") ||
			tm.year != "" && strings.Contains(low, "= "+tm.year)
		claim(tm.at, a.spanOf(tm.at, tm.phrase), realised)
	}
	for _, cp := range a.comps {
		claim(cp.at, a.spanOf(cp.at, cp.phrase), strings.Contains(low, strconv.FormatFloat(cp.value, 'f', -1, 64)))
	}
	if a.count && a.countAt >= 0 {
		claim(a.countAt, a.countAt+2, strings.Contains(low, "count("))
	}
	if a.agg != "" && a.aggAt >= 0 {
		claim(a.aggAt, a.aggAt+1, strings.Contains(low, strings.ToLower(a.agg)+"("))
	}
	if sp := a.share; sp != nil {
		claim(sp.at, sp.end, strings.Contains(low, "share_of_total"))
	}
	if c := a.change; c != nil {
		claim(c.at, c.end, strings.Contains(low, "change_from_previous"))
	}
	if s := a.sup; s != nil {
		realised := strings.Contains(low, "order by") || strings.Contains(low, "max(") || strings.Contains(low, "min(")
		claim(s.at, a.spanOf(s.at, s.phrase), realised)
	}
	// "in each year": a period is no function word when it groups.
	period := map[int]bool{}
	for _, g := range a.groups {
		claim(g.at, a.spanOf(g.at, g.phrase), strings.Contains(low, "group by"))
		if g.timeUnit != "" {
			period[g.at] = true
		}
	}
	// "and their counts": the reading shows a count.
	if strings.Contains(low, "count(") {
		for i, t := range a.toks {
			if t.low == "count" || t.low == "counts" {
				mark(i, i+1)
			}
		}
	}
	// "sent by users": the role of a typed join the reading takes.
	for _, j := range e.m.snap.Schema.Joins {
		if j.When == nil || !strings.Contains(low, strings.ToLower(e.m.col(j.FromTable, j.FromColumn))) {
			continue
		}
		for i, t := range a.toks {
			if e.roleToken(t, roleWord(j.FromColumn)) {
				mark(i, i+1)
			}
		}
	}
	// Words given a meaning: the term, or the negated related table; and
	// those a stored count stands for.
	phrases := p.covered
	for _, d := range p.defines {
		phrases = append(phrases, d.Phrase)
	}
	for _, phrase := range phrases {
		for i := range a.toks {
			if end := a.spanOf(i, phrase); a.phrase(i, end) == phrase {
				mark(i, end)
			}
		}
	}
	// "case-insensitive": the warehouse's text comparisons already are.
	if strings.Contains(low, " like ") || strings.Contains(low, " = '") {
		for i := range a.toks {
			if a.word(i) == "case" && (a.word(i+1) == "insensitive" || a.word(i+1) == "insensitively") {
				mark(i, i+2)
			}
		}
	}
	// "the distinct list of suppliers": rows that are not aggregates are
	// shown once, either by DISTINCT or because each has its own key.
	if !p.aggregated && len(p.groups) == 0 || strings.Contains(low, "count(distinct") {
		for i, t := range a.toks {
			if t.low == "distinct" || t.low == "unique" {
				mark(i, i+1)
			}
		}
	}
	var out []string
	var run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, strings.Join(run, " "))
			run = nil
		}
	}
	for i, t := range a.toks {
		if t.clause != 0 {
			break
		}
		covered := explained[i] || t.used && !claimed[i] || isFunctionWord(t) && !period[i]
		if covered {
			flush()
			continue
		}
		run = append(run, t.raw)
	}
	flush()
	return out
}

// joinsTable says whether lower-case SQL reads the table (FROM or JOIN it).
func joinsTable(low, table string) bool {
	for _, kw := range []string{"from ", "join "} {
		for rest := low; ; {
			i := strings.Index(rest, kw+table)
			if i < 0 {
				break
			}
			end := i + len(kw+table)
			if end == len(rest) || strings.ContainsRune(" \n)", rune(rest[end])) {
				return true
			}
			rest = rest[end:]
		}
	}
	return false
}

// instances counts how many times a reading's lower-case SQL stands for
// rows of table t: each time it reads the table, and each column of
// another table that refers to it outside the join conditions
// (neighbour_info.neighbour is a country).
func (e *Engine) instances(low string, t *tableInfo) int {
	name := strings.ToLower(e.m.ident(t.name))
	n := strings.Count(low, "from "+name+"\n") + strings.Count(low, "from "+name+" ") + strings.Count(low, "join "+name+" ")
	if strings.HasSuffix(low, "from "+name) {
		n++
	}
	var body strings.Builder
	for _, line := range strings.Split(low, "\n") {
		if !strings.HasPrefix(line, "join ") {
			body.WriteString(line + "\n")
		}
	}
	rest := body.String()
	seen := map[string]bool{}
	for _, j := range e.m.snap.Schema.Joins {
		if !strings.EqualFold(j.ToTable, t.name) || strings.EqualFold(j.FromTable, t.name) {
			continue
		}
		ref := strings.ToLower(e.m.col(j.FromTable, j.FromColumn))
		if !seen[ref] && strings.Contains(rest, ref) {
			seen[ref] = true
			n++
		}
	}
	return max(n, 1)
}
