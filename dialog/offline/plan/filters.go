package plan

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Conditions: stored values, dates, comparisons.

// filterElements builds the conditions: stored values, dates, comparisons.
func (r *reader) filterElements() []*element {
	var els []*element
	either := r.eitherValues()
	for _, vm := range r.a.Values {
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
	for _, cp := range r.a.Comps {
		if el := r.compareElement(cp); len(el.alts) > 0 {
			els = append(els, el)
		}
	}
	return els
}

// valueElement reads a stored value as a condition on a column holding it
// (or its words, for a value others contain), with the values said with it
// after "or", an event's verb, or nothing when the value may be no condition.
func (r *reader) valueElement(vm *links.ValueMention, others []*links.ValueMention) *element {
	el := &element{name: "value"}
	if len(others) > 0 {
		r.eitherAlts(el, vm, others)
	}
	weak := vm.Weak
	for _, al := range vm.Alts {
		w := r.valueWeight(vm, al, weak)
		op := "="
		if vm.Negated {
			op = "<>"
		}
		key := sqlshape.FilterOnKey([]string{al.Value}, r.e.m.Canon)
		el.add(w, func(p *Plan) {
			p.Filters = append(p.Filters, Cond{X: sqlexpr.Cmp(sqlexpr.Col(al.Table, al.Column), op, sqlexpr.Str(al.Value))})
			p.use(al.Table)
			p.Phrases[key] = vm.Phrase
		})
		// "retail shops" where categories are 'Retail' and
		// 'retail (hardware)': every value holding the word is retail.
		if !vm.Negated && len(containing(r.e.m, al.Table, al.Column, al.Value)) > 0 {
			pattern := "%" + strings.ToLower(LikeEscape(al.Value)) + "%"
			lkey := sqlshape.FilterOnKey([]string{pattern}, nil)
			el.add(w*0.8, func(p *Plan) {
				p.Filters = append(p.Filters, Cond{X: sqlexpr.Cmp(sqlexpr.Fn("LOWER", sqlexpr.Col(al.Table, al.Column)), "LIKE", sqlexpr.Str(pattern))})
				p.use(al.Table)
				p.Phrases[lkey] = vm.Phrase
			})
		}
	}
	switch {
	case weak:
		el.add(1, func(p *Plan) {})
	case vm.Event:
		// The event itself, its status an option (events.go).
		most := 0.0
		for _, al := range el.alts {
			most = max(most, al.weight)
		}
		verb := r.a.Word(r.a.SpanOf(vm.At, vm.Phrase) - 1)
		if !links.Participle(verb) {
			verb = r.a.Word(vm.At) // "made payments": the value, then its table's noun
		}
		el.add(eventWeight*most, func(p *Plan) {
			// The participle is the event itself: its date, agent or place.
			p.Covered = append(p.Covered, verb)
		})
	case vm.Optional:
		el.add(0.3, func(p *Plan) {})
	}
	return el
}

// valueWeight weighs the column a value is stored in by where the question
// puts it: the head's, a measured table's, the preposition's, a noun's nearby.
func (r *reader) valueWeight(vm *links.ValueMention, al links.ValueAlt, weak bool) float64 {
	w := al.Weight
	if weak {
		w *= weakValueFactor
	}
	if r.h.t != nil && strings.EqualFold(al.Table, r.h.t.Name) {
		w *= 1.5
	}
	// 'Texas' in the states table, joined through the code, reads
	// the same as 'TX' where the code is stored.
	if r.e.m.AliasTables[strings.ToLower(al.Table)] && len(vm.Alts) > 1 && (r.h.t == nil || !strings.EqualFold(al.Table, r.h.t.Name)) {
		w *= 0.2
	}
	if r.measureTables[strings.ToLower(al.Table)] {
		w *= 1.5
	}
	w *= directionFit(r.a, vm.At, al.Column)
	// "active retail shops": an adjective is the next noun's.
	if t := r.qualifiedEntity(vm); t != nil && strings.EqualFold(t.Name, al.Table) {
		w *= 2
	}
	// "users from the US": a place-like value right after a table
	// the question names is that table's.
	for _, em := range r.a.Entities {
		if em.Tables[0] != r.h.t && strings.EqualFold(em.Tables[0].Name, al.Table) && vm.At > em.At && vm.At-em.At <= 4 && !weak {
			if prep := r.a.Word(vm.At - 1); prep == "from" || prep == "in" || prep == "at" || prep == "the" && (r.a.Word(vm.At-2) == "from" || r.a.Word(vm.At-2) == "in") {
				w *= 1.5
				break
			}
		}
	}
	return w
}

// latestTimes keeps the time conditions that hold: the latest one said in a
// later clause wins ("only 2023" after "in 2024").
func (r *reader) latestTimes() []*links.TimeMention {
	// The latest time condition wins: "only 2023" after "in 2024".
	times := r.a.Times
	if n := len(times); n > 1 && times[n-1].Clause > times[0].Clause {
		times = times[n-1:]
	}
	return times
}

// timeElement reads a time mention as a range on a date column, or a year
// compared with a numeric year column.
func (r *reader) timeElement(tm *links.TimeMention) *element {
	el := &element{name: "time"}
	for _, dc := range r.dateColumns() {
		dcol := sqlexpr.Col(dc.Table, dc.Column)
		key := sqlshape.FilterOnKey([]string{tm.Year}, nil)
		el.add(dc.Weight, func(p *Plan) {
			p.DateCols[sqlexpr.Col(dc.Table, dc.Column)] = true
			if tm.From != "" {
				p.Filters = append(p.Filters, Cond{X: sqlexpr.Cmp(dcol, ">=", sqlexpr.Str(tm.From))})
			}
			if tm.To != "" {
				p.Filters = append(p.Filters, Cond{X: sqlexpr.Cmp(dcol, "<", sqlexpr.Str(tm.To))})
			}
			p.use(dc.Table)
			if tm.Year != "" {
				p.Phrases[key] = tm.Phrase
			}
		})
	}
	// A numeric year column ("year = 2024").
	if tm.Year != "" {
		for _, t := range r.e.m.Tables {
			for ci := range t.Def.Columns {
				c := &t.Def.Columns[ci]
				if strings.EqualFold(c.Name, "year") || strings.HasSuffix(strings.ToLower(c.Name), "_year") {
					el.add(0.5, func(p *Plan) {
						p.Filters = append(p.Filters, Cond{X: sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), "=", sqlexpr.Num(tm.Year))})
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
func (r *reader) compareElement(cp *links.CompMention) *element {
	el := &element{name: "compare"}
	// "at least 3 loans": how many related rows each subject has.
	counted := r.groupCondition(el, cp)
	for _, al := range r.comparedColumns(cp) {
		x := r.exprOf(al)
		key := sqlshape.WhereKey(strings.ToLower(al.Table + "." + al.Column))
		var c sqlexpr.Expr = sqlexpr.Cmp(x, cp.Op, sqlexpr.Num(strconv.FormatFloat(cp.Value, 'f', -1, 64)))
		if cp.Op == "between" {
			c = sqlexpr.Between{X: x, Lo: sqlexpr.Num(strconv.FormatFloat(cp.Value, 'f', -1, 64)), Hi: sqlexpr.Num(strconv.FormatFloat(cp.Upper, 'f', -1, 64))}
		}
		w := al.Weight * r.rangeFit(al, cp)
		if t := r.e.m.ByName[strings.ToLower(al.Table)]; t != nil && !al.Computed() && r.e.m.IsKeyish(t.Def, r.e.m.Column(al.Table, al.Column)) {
			// Keys identify rows; "more than one shop" is no
			// threshold on their ids.
			w *= 0.2
		}
		if counted {
			w *= 0.3
		}
		el.add(w, func(p *Plan) {
			p.Filters = append(p.Filters, Cond{X: c})
			p.use(al.Table)
			p.Phrases[key] = cp.Phrase
		})
	}
	return el
}

// comparedColumns lists the columns a compared number may be about: a key
// (or a reference to it), a difference, the columns its words name, the
// noun after it first, else the head's measures.
func (r *reader) comparedColumns(cp *links.CompMention) []links.ColAlt {
	var alts []links.ColAlt
	if t := cp.KeyOf; t != nil {
		// The key, or a column that refers to it (no join needed).
		alts = append(alts, links.ColAlt{Table: t.Name, Column: t.Key.Name, Weight: 1})
		for _, j := range r.e.m.Snap.Schema.Joins {
			if j.When == nil && strings.EqualFold(j.ToTable, t.Name) && strings.EqualFold(j.ToColumn, t.Key.Name) && r.namedTable(j.FromTable) {
				alts = append(alts, links.ColAlt{Table: j.FromTable, Column: j.FromColumn, Weight: 1})
			}
		}
	} else if d := r.differenceBefore(cp); d != nil {
		alts = append(alts, d.Alts...) // "gross minus net amount is more than 20"
	} else if cp.Target != "" {
		for _, h := range r.e.m.Cat.SearchColumns(cp.Target, 6) {
			if c := r.e.m.Column(h.Table, h.Column); c != nil && c.Kind() == warehouse.KindNumber {
				alts = append(alts, links.ColAlt{Table: h.Table, Column: h.Column, Weight: h.Score})
			}
		}
	}
	if after := r.measuredAfter(cp); cp.KeyOf == nil && len(after) > 0 {
		// The noun after the number comes first; the words before
		// stay readings.
		top := 1.0
		for _, al := range alts {
			top = max(top, al.Weight)
		}
		for _, al := range after {
			al.Weight *= 2 * top
			alts = append([]links.ColAlt{al}, alts...)
		}
	}
	if len(alts) == 0 && r.h.t != nil {
		for _, c := range r.h.t.Measures {
			alts = append(alts, links.ColAlt{Table: r.h.t.Name, Column: c.Name, Weight: 1})
		}
	}
	return alts
}

// directionFit weighs a value's column by the preposition before it:
// "from LAX" is an origin (from_airport, origin, sender), "to ORD" a
// destination (to_airport, destination, receiver).
func directionFit(a *links.Analysis, at int, column string) float64 {
	prep := a.Word(at - 1)
	if prep == "the" {
		prep = a.Word(at - 2)
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
func (r *reader) rangeFit(al links.ColAlt, cp *links.CompMention) float64 {
	if al.Computed() {
		return 1
	}
	pr := r.e.m.Profile(al.Table, al.Column)
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
	v := cp.Value
	switch cp.Op {
	case "between":
		if cp.Upper < lo || v > hi {
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
func (r *reader) qualifiedEntity(vm *links.ValueMention) *schema.Table {
	a := r.a
	k := a.SpanOf(vm.At, vm.Phrase)
	for k < len(a.Toks) && a.Toks[k-1].Break == 0 {
		if em := r.entityAt(k); em != nil {
			return em.Tables[0]
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

// LikeEscape protects LIKE's wildcards in a literal.
func LikeEscape(s string) string {
	return strings.NewReplacer("%", `\%`, "_", `\_`).Replace(s)
}

// namedTable says whether the question is about rows of table: the head,
// a measured table or one it names.
func (r *reader) namedTable(table string) bool {
	if r.h.t != nil && strings.EqualFold(r.h.t.Name, table) || r.measureTables[strings.ToLower(table)] {
		return true
	}
	for _, em := range r.a.Entities {
		if strings.EqualFold(em.Tables[0].Name, table) {
			return true
		}
	}
	return false
}

// orPair links the values of a question joined by "or" or listed with
// commas: "format is paperback or ebook", "shipped by UPS, FedEx or DHL"
// are one column with any of the values, not all of them.
type orPair struct {
	first  map[*links.ValueMention][]*links.ValueMention // first value → the ones listed after it
	second map[*links.ValueMention]bool
}

// eitherValues finds lists of values joined by "or" or commas (with only
// articles, "either" and quotes between) that share a column: one
// condition, any of the values.
func (r *reader) eitherValues() orPair {
	a := r.a
	out := orPair{first: map[*links.ValueMention][]*links.ValueMention{}, second: map[*links.ValueMention]bool{}}
	for i := 0; i+1 < len(a.Values); i++ {
		head := a.Values[i]
		if head.Weak || out.second[head] {
			continue
		}
		var list []*links.ValueMention
		for j := i; j+1 < len(a.Values); j++ {
			vm, next := a.Values[j], a.Values[j+1]
			// "not paperback or ebook": the negation covers the list.
			if !head.Negated && next.Negated || next.Weak || !joinedAsAlternatives(a, vm, next) || !sharesColumn(head, next) {
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

// valueListFillers may stand between two values read as alternatives:
// "either Leeds or the York branch" (connectives.tsv).
var valueListFillers = words.Set("eitherarticle")

// joinedAsAlternatives says whether only "or", a comma, "either" or an
// article stand between two values, and "or" or a comma does.
func joinedAsAlternatives(a *links.Analysis, vm, next *links.ValueMention) bool {
	end := a.SpanOf(vm.At, vm.Phrase)
	if end > next.At {
		return false
	}
	sep := end > 0 && a.Toks[end-1].Break == ','
	for k := end; k < next.At; k++ {
		switch {
		case a.Word(k) == "or":
			sep = true
		case valueListFillers[a.Word(k)]:
		default:
			return false
		}
		if k+1 < next.At && a.Toks[k].Break == ',' {
			sep = true
		}
	}
	return sep
}

// sharesColumn says whether two value mentions have a reading in the same
// column.
func sharesColumn(x, y *links.ValueMention) bool {
	for _, ax := range x.Alts {
		for _, ay := range y.Alts {
			if strings.EqualFold(ax.Table, ay.Table) && strings.EqualFold(ax.Column, ay.Column) && !strings.EqualFold(ax.Value, ay.Value) {
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
func (r *reader) eitherAlts(el *element, vm *links.ValueMention, others []*links.ValueMention) {
	for _, ax := range vm.Alts {
		vals := []sqlexpr.Expr{sqlexpr.Str(ax.Value)}
		keys := []sqlshape.SlotKey{sqlshape.FilterOnKey([]string{ax.Value}, r.e.m.Canon)}
		phrases := []string{vm.Phrase}
		w := ax.Weight
		for _, o := range others {
			var found *links.ValueAlt
			for _, ay := range o.Alts {
				if strings.EqualFold(ax.Table, ay.Table) && strings.EqualFold(ax.Column, ay.Column) && !strings.EqualFold(ax.Value, ay.Value) {
					found = &ay
					break
				}
			}
			if found == nil {
				vals = nil
				break
			}
			vals = append(vals, sqlexpr.Str(found.Value))
			keys = append(keys, sqlshape.FilterOnKey([]string{found.Value}, r.e.m.Canon))
			phrases = append(phrases, o.Phrase)
			w += found.Weight
		}
		if len(vals) < 2 {
			continue
		}
		x := sqlexpr.Expr(sqlexpr.InList{X: sqlexpr.Col(ax.Table, ax.Column), Vals: vals})
		if vm.Negated {
			x = sqlexpr.Prefix{Op: "NOT", X: sqlexpr.Paren{X: x}}
		}
		table := ax.Table
		el.add(2*w, func(p *Plan) {
			p.Filters = append(p.Filters, Cond{X: x})
			p.use(table)
			for i, k := range keys {
				p.Phrases[k] = phrases[i]
			}
		})
	}
}

// measuredAfter are the numeric columns the noun right after a
// comparison's number names ("more than 7 sessions", "over 20 fleet
// size"): what the number measures.
func (r *reader) measuredAfter(cp *links.CompMention) []links.ColAlt {
	cm := r.columnAt(r.a.SpanOf(cp.At, cp.Phrase))
	if cm == nil || cm.At != r.a.SpanOf(cp.At, cp.Phrase) {
		return nil
	}
	var out []links.ColAlt
	for _, al := range cm.Alts {
		t := r.e.m.ByName[strings.ToLower(al.Table)]
		c := r.e.m.Column(al.Table, al.Column)
		if al.Computed() || c == nil || t == nil || c.Kind() != warehouse.KindNumber || r.e.m.IsKeyish(t.Def, c) {
			continue
		}
		// "fewer than 100000 people" counts people; a column of people
		// per square mile is a rate of them, no count.
		if strings.Contains(strings.ToLower(c.Comment), strings.ToLower(cm.Phrase)+" per ") {
			continue
		}
		out = append(out, al)
	}
	return out
}
