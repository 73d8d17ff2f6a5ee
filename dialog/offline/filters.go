package offline

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Conditions: stored values, dates, comparisons.

// filterElements builds the conditions: stored values, dates, comparisons.
func (r *reader) filterElements() []*element {
	var els []*element
	either := r.eitherValues()
	for _, vm := range r.a.values {
		if either.second[vm] {
			continue // read with the value before "or"
		}
		if el := r.valueElement(vm, either.first[vm]); len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	for _, tm := range r.latestTimes() {
		if el := r.timeElement(tm); len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	for _, cp := range r.a.comps {
		if el := r.compareElement(cp); len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

// valueElement reads a stored value as a condition on a column holding it
// (or its words, for a value others contain), with the values said with it
// after "or", an event's verb, or nothing when the value may be no condition.
func (r *reader) valueElement(vm *valueMention, others []*valueMention) *element {
	el := &element{name: "value"}
	if len(others) > 0 {
		r.eitherAlts(el, vm, others)
	}
	weak := vm.weak
	for _, al := range vm.alts {
		w := r.valueWeight(vm, al, weak)
		op := "="
		if vm.negated {
			op = "<>"
		}
		key := sqlshape.FilterOnKey([]string{al.value}, r.e.m.Canon)
		el.add(w, func(p *plan) {
			p.filters = append(p.filters, cond{x: cmp(col(al.table, al.column), op, strLit(al.value))})
			p.use(al.table)
			p.phrases[key] = vm.phrase
		})
		// "retail shops" where categories are 'Retail' and
		// 'retail (hardware)': every value holding the word is retail.
		if !vm.negated && len(containing(r.e.m, al.table, al.column, al.value)) > 0 {
			pattern := "%" + strings.ToLower(likeEscape(al.value)) + "%"
			lkey := sqlshape.FilterOnKey([]string{pattern}, nil)
			el.add(w*0.8, func(p *plan) {
				p.filters = append(p.filters, cond{x: cmp(fn1("LOWER", col(al.table, al.column)), "LIKE", strLit(pattern))})
				p.use(al.table)
				p.phrases[lkey] = vm.phrase
			})
		}
	}
	switch {
	case weak:
		el.add(1, func(p *plan) {})
	case vm.event:
		// The event itself, its status an option (events.go).
		most := 0.0
		for _, al := range el.alts {
			most = max(most, al.weight)
		}
		verb := r.a.word(r.a.spanOf(vm.at, vm.phrase) - 1)
		if !participle(verb) {
			verb = r.a.word(vm.at) // "made payments": the value, then its table's noun
		}
		el.add(eventWeight*most, func(p *plan) {
			// The participle is the event itself: its date, agent or place.
			p.covered = append(p.covered, verb)
		})
	case vm.optional:
		el.add(0.3, func(p *plan) {})
	}
	return el
}

// valueWeight weighs the column a value is stored in by where the question
// puts it: the head's, a measured table's, the preposition's, a noun's nearby.
func (r *reader) valueWeight(vm *valueMention, al valueAlt, weak bool) float64 {
	w := al.weight
	if weak {
		w *= weakValueFactor
	}
	if r.h.t != nil && strings.EqualFold(al.table, r.h.t.Name) {
		w *= 1.5
	}
	// 'Texas' in the states table, joined through the code, reads
	// the same as 'TX' where the code is stored.
	if r.e.m.AliasTables[strings.ToLower(al.table)] && len(vm.alts) > 1 && (r.h.t == nil || !strings.EqualFold(al.table, r.h.t.Name)) {
		w *= 0.2
	}
	if r.measureTables[strings.ToLower(al.table)] {
		w *= 1.5
	}
	w *= directionFit(r.a, vm.at, al.column)
	// "active retail shops": an adjective is the next noun's.
	if t := r.qualifiedEntity(vm); t != nil && strings.EqualFold(t.Name, al.table) {
		w *= 2
	}
	// "users from the US": a place-like value right after a table
	// the question names is that table's.
	for _, em := range r.a.entities {
		if em.tables[0] != r.h.t && strings.EqualFold(em.tables[0].Name, al.table) && vm.at > em.at && vm.at-em.at <= 4 && !weak {
			if prep := r.a.word(vm.at - 1); prep == "from" || prep == "in" || prep == "at" || prep == "the" && (r.a.word(vm.at-2) == "from" || r.a.word(vm.at-2) == "in") {
				w *= 1.5
				break
			}
		}
	}
	return w
}

// latestTimes keeps the time conditions that hold: the latest one said in a
// later clause wins ("only 2023" after "in 2024").
func (r *reader) latestTimes() []*timeMention {
	// The latest time condition wins: "only 2023" after "in 2024".
	times := r.a.times
	if n := len(times); n > 1 && times[n-1].clause > times[0].clause {
		times = times[n-1:]
	}
	return times
}

// timeElement reads a time mention as a range on a date column, or a year
// compared with a numeric year column.
func (r *reader) timeElement(tm *timeMention) *element {
	el := &element{name: "time"}
	for _, dc := range r.dateColumns() {
		dcol := col(dc.table, dc.column)
		key := sqlshape.FilterOnKey([]string{tm.year}, nil)
		el.add(dc.weight, func(p *plan) {
			p.dateCols[col(dc.table, dc.column)] = true
			if tm.from != "" {
				p.filters = append(p.filters, cond{x: cmp(dcol, ">=", strLit(tm.from))})
			}
			if tm.to != "" {
				p.filters = append(p.filters, cond{x: cmp(dcol, "<", strLit(tm.to))})
			}
			p.use(dc.table)
			if tm.year != "" {
				p.phrases[key] = tm.phrase
			}
		})
	}
	// A numeric year column ("year = 2024").
	if tm.year != "" {
		for _, t := range r.e.m.Tables {
			for ci := range t.Def.Columns {
				c := &t.Def.Columns[ci]
				if strings.EqualFold(c.Name, "year") || strings.HasSuffix(strings.ToLower(c.Name), "_year") {
					el.add(0.5, func(p *plan) {
						p.filters = append(p.filters, cond{x: cmp(col(t.Name, c.Name), "=", numLit(tm.year))})
						p.use(t.Name)
					})
				}
			}
		}
	}
	return el
}

// compareElement reads a number compared ("more than 20", "between 3 and 5")
// as a condition on each column it may be about, or on a count of related rows.
func (r *reader) compareElement(cp *compMention) *element {
	el := &element{name: "compare"}
	// "at least 3 loans": how many related rows each subject has.
	counted := r.groupCondition(el, cp)
	for _, al := range r.comparedColumns(cp) {
		x := r.exprOf(al)
		key := sqlshape.WhereKey(strings.ToLower(al.table + "." + al.column))
		var c expr = cmp(x, cp.op, numLit(strconv.FormatFloat(cp.value, 'f', -1, 64)))
		if cp.op == "between" {
			c = between{X: x, Lo: numLit(strconv.FormatFloat(cp.value, 'f', -1, 64)), Hi: numLit(strconv.FormatFloat(cp.upper, 'f', -1, 64))}
		}
		w := al.weight * r.rangeFit(al, cp)
		if t := r.e.m.ByName[strings.ToLower(al.table)]; t != nil && !al.computed() && r.e.m.IsKeyish(t.Def, r.e.m.Column(al.table, al.column)) {
			// Keys identify rows; "more than one shop" is no
			// threshold on their ids.
			w *= 0.2
		}
		if counted {
			w *= 0.3
		}
		el.add(w, func(p *plan) {
			p.filters = append(p.filters, cond{x: c})
			p.use(al.table)
			p.phrases[key] = cp.phrase
		})
	}
	return el
}

// comparedColumns lists the columns a compared number may be about: a key
// (or a reference to it), a difference, the columns its words name, the
// noun after it first, else the head's measures.
func (r *reader) comparedColumns(cp *compMention) []colAlt {
	var alts []colAlt
	if t := cp.keyOf; t != nil {
		// The key, or a column that refers to it (no join needed).
		alts = append(alts, colAlt{table: t.Name, column: t.Key.Name, weight: 1})
		for _, j := range r.e.m.Snap.Schema.Joins {
			if j.When == nil && strings.EqualFold(j.ToTable, t.Name) && strings.EqualFold(j.ToColumn, t.Key.Name) && r.namedTable(j.FromTable) {
				alts = append(alts, colAlt{table: j.FromTable, column: j.FromColumn, weight: 1})
			}
		}
	} else if d := r.differenceBefore(cp); d != nil {
		alts = append(alts, d.alts...) // "gross minus net amount is more than 20"
	} else if cp.target != "" {
		for _, h := range r.e.m.Cat.SearchColumns(cp.target, 6) {
			if c := r.e.m.Column(h.Table, h.Column); c != nil && c.Kind() == warehouse.KindNumber {
				alts = append(alts, colAlt{table: h.Table, column: h.Column, weight: h.Score})
			}
		}
	}
	if after := r.measuredAfter(cp); cp.keyOf == nil && len(after) > 0 {
		// The noun after the number comes first; the words before
		// stay readings.
		top := 1.0
		for _, al := range alts {
			top = max(top, al.weight)
		}
		for _, al := range after {
			al.weight *= 2 * top
			alts = append([]colAlt{al}, alts...)
		}
	}
	if len(alts) == 0 && r.h.t != nil {
		for _, c := range r.h.t.Measures {
			alts = append(alts, colAlt{table: r.h.t.Name, column: c.Name, weight: 1})
		}
	}
	return alts
}

// directionFit weighs a value's column by the preposition before it:
// "from LAX" is an origin (from_airport, origin, sender), "to ORD" a
// destination (to_airport, destination, receiver).
func directionFit(a *analysis, at int, column string) float64 {
	prep := a.word(at - 1)
	if prep == "the" {
		prep = a.word(at - 2)
	}
	name := "_" + strings.ToLower(column) + "_"
	origin := strings.Contains(name, "_from_") || strings.Contains(name, "origin") || strings.Contains(name, "source") ||
		strings.Contains(name, "depart") || strings.Contains(name, "sender") || strings.Contains(name, "_src_")
	dest := strings.Contains(name, "_to_") || strings.Contains(name, "dest") || strings.Contains(name, "target") ||
		strings.Contains(name, "arriv") || strings.Contains(name, "receiver") || strings.Contains(name, "recipient")
	switch {
	case prep == "from" && origin, prep == "to" && dest:
		return 2
	case prep == "from" && dest, prep == "to" && origin:
		return 0.3
	}
	return 1
}

// rangeFit weighs a comparison by the column's profiled range: a threshold
// beyond every stored value ("fewer than 100,000" on a density that never
// exceeds 1,000) keeps all rows or none, which nobody asks for.
func (r *reader) rangeFit(al colAlt, cp *compMention) float64 {
	if al.computed() {
		return 1
	}
	pr := r.e.m.Profile(al.table, al.column)
	if pr == nil {
		return 1
	}
	lo, err1 := strconv.ParseFloat(pr.Min, 64)
	hi, err2 := strconv.ParseFloat(pr.Max, 64)
	switch {
	case err1 != nil || err2 != nil || lo > hi:
		return 1
	case lo == hi:
		// One stored value: any threshold keeps all rows or none.
		return 0.1
	}
	v := cp.value
	switch cp.op {
	case "between":
		if cp.upper < lo || v > hi {
			return 0.1
		}
	case "<", "<=":
		if v > hi || v <= lo {
			return 0.1
		}
	case ">", ">=":
		if v < lo || v >= hi {
			return 0.1
		}
	}
	return 1
}

// qualifiedEntity is the table of the noun a value mention stands before,
// with only other values between ("active retail shops"), or nil.
func (r *reader) qualifiedEntity(vm *valueMention) *schema.Table {
	a := r.a
	k := a.spanOf(vm.at, vm.phrase)
	for k < len(a.toks) && a.toks[k-1].Break == 0 {
		if em := r.entityAt(k); em != nil {
			return em.tables[0]
		}
		if !r.inValueMention(k) {
			return nil
		}
		k++
	}
	return nil
}

// containing are the other stored values of a column that specialise
// value with a qualifier set off by punctuation ("retail (hardware)",
// "Retail - online" for "Retail"), which are kinds of it; "West
// Virginia" is no kind of "Virginia". Only from a complete list of the
// column's values.
func containing(m *schema.Model, table, column, value string) []string {
	p := m.Profile(table, column)
	if p == nil || !p.ValuesComplete || len(p.Values) > 500 {
		return nil
	}
	v := strings.ToLower(value)
	var out []string
	for _, s := range p.Values {
		rest, ok := strings.CutPrefix(strings.ToLower(s), v)
		rest = strings.TrimLeft(rest, " ")
		if ok && rest != "" && strings.ContainsRune("([-:,/", rune(rest[0])) {
			out = append(out, s)
		}
	}
	return out
}

// likeEscape protects LIKE's wildcards in a literal.
func likeEscape(s string) string {
	return strings.NewReplacer("%", `\%`, "_", `\_`).Replace(s)
}

// namedTable says whether the question is about rows of table: the head,
// a measured table or one it names.
func (r *reader) namedTable(table string) bool {
	if r.h.t != nil && strings.EqualFold(r.h.t.Name, table) || r.measureTables[strings.ToLower(table)] {
		return true
	}
	for _, em := range r.a.entities {
		if strings.EqualFold(em.tables[0].Name, table) {
			return true
		}
	}
	return false
}

// bindNamedColumns reads "the ward of Intensive Care", "the
// "Intensive Care" ward", "the city York": a column named right
// before or after a value it stores says which column the value is in; it
// is no further output. The value keeps only its matches in that column
// and its phrase takes the column's words.
func (e *Engine) bindNamedColumns(a *analysis) {
	var kept []*colMention
	for _, cm := range a.columns {
		if vm := a.valueNamedBy(cm); vm != nil {
			var in []valueAlt
			for _, al := range vm.alts {
				for _, c := range cm.alts {
					if !c.computed() && strings.EqualFold(al.table, c.table) && strings.EqualFold(al.column, c.column) {
						in = append(in, al)
						break
					}
				}
			}
			if len(in) > 0 {
				end := a.spanOf(vm.at, vm.phrase)
				from, to := min(vm.at, cm.at), max(end, cm.end)
				vm.alts, vm.optional, vm.weak, vm.named = in, false, false, true
				vm.at, vm.phrase = from, a.phrase(from, to)
				a.markUsed(from, to)
				continue
			}
		}
		kept = append(kept, cm)
	}
	a.columns = kept
}

// valueNamedBy is the value mention right after a column mention ("the
// department of Computer Science") or right before it ("Computer Science
// department"), if any.
func (a *analysis) valueNamedBy(cm *colMention) *valueMention {
	if cm.clause != 0 || negations[a.word(cm.at-1)] {
		return nil // "does not border Texas" is no value of border
	}
	next := cm.end
	of := a.word(next) == "of"
	if of || a.word(next) == "named" || a.word(next) == "called" {
		next++
	}
	for _, vm := range a.values {
		if strings.Contains(vm.phrase, "(") {
			continue
		}
		if vm.at == next && a.toks[cm.end-1].Break == 0 && !(of && otherColumnOfTable(vm, cm)) || a.spanOf(vm.at, vm.phrase) == cm.at && a.toks[cm.at-1].Break == 0 {
			return vm
		}
	}
	return nil
}

// otherColumnOfTable says whether the value is also stored in another
// column of the mentioned column's table: "the manager of Leeds" may
// be the manager of the depot named Leeds.
func otherColumnOfTable(vm *valueMention, cm *colMention) bool {
	for _, al := range vm.alts {
		for _, c := range cm.alts {
			if strings.EqualFold(al.table, c.table) && !strings.EqualFold(al.column, c.column) {
				return true
			}
		}
	}
	return false
}

// orPair links the values of a question joined by "or" or listed with
// commas: "format is paperback or ebook", "shipped by UPS, FedEx or DHL"
// are one column with any of the values, not all of them.
type orPair struct {
	first  map[*valueMention][]*valueMention // first value → the ones listed after it
	second map[*valueMention]bool
}

// eitherValues finds lists of values joined by "or" or commas (with only
// articles, "either" and quotes between) that share a column: one
// condition, any of the values.
func (r *reader) eitherValues() orPair {
	a := r.a
	out := orPair{first: map[*valueMention][]*valueMention{}, second: map[*valueMention]bool{}}
	for i := 0; i+1 < len(a.values); i++ {
		head := a.values[i]
		if head.weak || out.second[head] {
			continue
		}
		var list []*valueMention
		for j := i; j+1 < len(a.values); j++ {
			vm, next := a.values[j], a.values[j+1]
			// "not paperback or ebook": the negation covers the list.
			if !head.negated && next.negated || next.weak || !joinedAsAlternatives(a, vm, next) || !sharesColumn(head, next) {
				break
			}
			list = append(list, next)
		}
		if len(list) == 0 {
			continue
		}
		out.first[head] = list
		for _, vm := range list {
			out.second[vm] = true
		}
	}
	return out
}

// joinedAsAlternatives says whether only "or", a comma, "either" or an
// article stand between two values, and "or" or a comma does.
func joinedAsAlternatives(a *analysis, vm, next *valueMention) bool {
	end := a.spanOf(vm.at, vm.phrase)
	if end > next.at {
		return false
	}
	sep := end > 0 && a.toks[end-1].Break == ','
	for k := end; k < next.at; k++ {
		switch a.word(k) {
		case "or":
			sep = true
		case "the", "a", "an", "either":
		default:
			return false
		}
		if k+1 < next.at && a.toks[k].Break == ',' {
			sep = true
		}
	}
	return sep
}

// sharesColumn says whether two value mentions have a reading in the same
// column.
func sharesColumn(x, y *valueMention) bool {
	for _, ax := range x.alts {
		for _, ay := range y.alts {
			if strings.EqualFold(ax.table, ay.table) && strings.EqualFold(ax.column, ay.column) && !strings.EqualFold(ax.value, ay.value) {
				return true
			}
		}
	}
	return false
}

// eitherAlts adds the readings of values joined by "or": for every column
// all of them are stored in, the column is any of them. These come before
// the single values' own readings, which remain (the words may name
// values of two columns).
func (r *reader) eitherAlts(el *element, vm *valueMention, others []*valueMention) {
	for _, ax := range vm.alts {
		vals := []expr{strLit(ax.value)}
		keys := []sqlshape.SlotKey{sqlshape.FilterOnKey([]string{ax.value}, r.e.m.Canon)}
		phrases := []string{vm.phrase}
		w := ax.weight
		for _, o := range others {
			var found *valueAlt
			for _, ay := range o.alts {
				if strings.EqualFold(ax.table, ay.table) && strings.EqualFold(ax.column, ay.column) && !strings.EqualFold(ax.value, ay.value) {
					found = &ay
					break
				}
			}
			if found == nil {
				vals = nil
				break
			}
			vals = append(vals, strLit(found.value))
			keys = append(keys, sqlshape.FilterOnKey([]string{found.value}, r.e.m.Canon))
			phrases = append(phrases, o.phrase)
			w += found.weight
		}
		if len(vals) < 2 {
			continue
		}
		x := expr(inList{X: col(ax.table, ax.column), Vals: vals})
		if vm.negated {
			x = prefix{Op: "NOT", X: paren{X: x}}
		}
		table := ax.table
		el.add(2*w, func(p *plan) {
			p.filters = append(p.filters, cond{x: x})
			p.use(table)
			for i, k := range keys {
				p.phrases[k] = phrases[i]
			}
		})
	}
}

// measuredAfter are the numeric columns the noun right after a
// comparison's number names ("more than 7 sessions", "over 20 fleet
// size"): what the number measures.
func (r *reader) measuredAfter(cp *compMention) []colAlt {
	cm := r.columnAt(r.a.spanOf(cp.at, cp.phrase))
	if cm == nil || cm.at != r.a.spanOf(cp.at, cp.phrase) {
		return nil
	}
	var out []colAlt
	for _, al := range cm.alts {
		t := r.e.m.ByName[strings.ToLower(al.table)]
		c := r.e.m.Column(al.table, al.column)
		if al.computed() || c == nil || t == nil || c.Kind() != warehouse.KindNumber || r.e.m.IsKeyish(t.Def, c) {
			continue
		}
		// "fewer than 100000 people" counts people; a column of people
		// per square mile is a rate of them, no count.
		if strings.Contains(strings.ToLower(c.Comment), strings.ToLower(cm.phrase)+" per ") {
			continue
		}
		out = append(out, al)
	}
	return out
}
