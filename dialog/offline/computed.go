package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Computed measures: a word that names no column but a quantity the schema
// has the parts of. "age" is the years since a birth date; "duration",
// "lifespan", "length of stay" the difference between a start and an end
// column of one table (start/end, departure/arrival, opened/closed…).
// They are offered as columns of their own, so every shape that takes a
// measure (averages, totals, rankings, sorting) takes them too.

// exprOf is a column alternative as a part of a reading: the column, or
// the computed expression.
func (r *reader) exprOf(al colAlt) expr { return al.exprOf() }

func (al colAlt) exprOf() expr {
	if al.x != nil {
		return al.x
	}
	return col(al.table, al.column)
}

// computed says whether the alternative is a computed measure rather than
// a stored column.
func (al colAlt) computed() bool { return al.x != nil }

// durationWords name the time between two events of one row.
var durationWords = words.Set("duration")

// pairWords are the two ends of a span, as column names spell them.
var pairWords = func() [][2]string {
	var out [][2]string
	for _, pair := range words.List("spanend") {
		ends := strings.Fields(pair)
		out = append(out, [2]string{ends[0], ends[1]})
	}
	return out
}()

// timeUnitOf reads the unit a question wants a duration in.
func timeUnitOf(a *analysis) string {
	for i := range a.toks {
		switch singularOf(a.word(i)) {
		case "second":
			return "SECOND"
		case "minute":
			return "MINUTE"
		case "hour":
			return "HOUR"
		case "day":
			return "DAY"
		case "year":
			if a.word(i-1) == "in" {
				return "YEAR"
			}
		}
	}
	return ""
}

// findComputed adds the computed measures the question's words name.
func (e *Engine) findComputed(a *analysis) {
	unit := timeUnitOf(a)
	for i, t := range a.toks {
		if t.Clause != 0 || t.Quoted {
			continue
		}
		var alts []colAlt
		if spanWords[t.Low] {
			// "delivery time", "days to ship", "time from pickup to delivery"
			if spans, from, to := e.eventSpans(a, i); len(spans) > 0 {
				if t.Low == "long" && a.agg == "" && !a.count {
					// "how long does delivery take": typically, an average.
					a.agg, a.aggAt = "AVG", from
				}
				cm := &colMention{phrase: a.phrase(from, to), at: from, end: to, alts: spans}
				var kept []*colMention
				for _, other := range a.columns {
					if other.at >= to || other.end <= from {
						kept = append(kept, other)
					}
				}
				a.columns = append(kept, cm)
				a.markUsed(from, to)
				// The event's words are the span's, not a stored value
				// ("delivery" is no status 'delivered' here).
				var values []*valueMention
				for _, vm := range a.values {
					if vm.at >= to || a.spanOf(vm.at, vm.phrase) <= from {
						values = append(values, vm)
					}
				}
				a.values = values
				continue
			}
		}
		switch {
		case t.Low == "age" || t.Low == "ages":
			alts = e.ages()
		case durationWords[t.Low] || t.Low == "time" && (a.word(i+1) == "between" || a.word(i+1) == "from" || a.word(i+1) == "to"):
			alts = e.durations(unit)
		case marginWords[t.Low] && columnCovering(a, i) == nil:
			alts = e.margins(t.Low)
		}
		if len(alts) == 0 {
			continue
		}
		// The computed reading comes first; a column that merely shares
		// the word stays an option.
		if cm := columnCovering(a, i); cm != nil {
			cm.alts = append(alts, cm.alts...)
			e.absorbParts(a, cm)
			continue
		}
		a.toks[i].Used = true
		cm := &colMention{phrase: t.Raw, at: i, end: i + 1, alts: alts, clause: 0}
		e.absorbParts(a, cm)
		a.columns = append(a.columns, cm)
	}
	sortMentions(a)
}

// absorbParts takes the columns a computed measure names as its parts
// ("the time between check-in and discharge") into its mention:
// they are what it is computed from, not more outputs.
func (e *Engine) absorbParts(a *analysis, cm *colMention) {
	if w := a.word(cm.end); w != "between" && w != "from" {
		return
	}
	var kept []*colMention
	for _, part := range a.columns {
		inside := part.at > cm.at && part.at <= cm.end+6
		used := false
		for _, al := range part.alts {
			for _, x := range cm.alts {
				used = used || !al.computed() && x.computed() && slices.Contains(columnsOf(x.x), col(al.table, al.column))
			}
		}
		if inside && used {
			cm.end = max(cm.end, part.end)
			continue
		}
		kept = append(kept, part)
	}
	if cm.end > cm.at+1 {
		cm.phrase = a.phrase(cm.at, cm.end)
		a.markUsed(cm.at, cm.end)
	}
	a.columns = kept
}

func columnCovering(a *analysis, i int) *colMention {
	for _, cm := range a.columns {
		if cm.at <= i && i < cm.end {
			return cm
		}
	}
	return nil
}

func sortMentions(a *analysis) {
	for i := 1; i < len(a.columns); i++ {
		for j := i; j > 0 && a.columns[j].at < a.columns[j-1].at; j-- {
			a.columns[j], a.columns[j-1] = a.columns[j-1], a.columns[j]
		}
	}
}

// ages are the years since each birth date column.
func (e *Engine) ages() []colAlt {
	var out []colAlt
	for _, t := range e.m.Tables {
		for _, c := range t.Dates {
			n := strings.ToLower(c.Name)
			if strings.Contains(n, "birth") || strings.Contains(n, "dob") || strings.Contains(n, "born") {
				out = append(out, colAlt{table: t.Name, column: "age", weight: 1.5,
					x: call{Fn: "TIMESTAMPDIFF", Args: []expr{keyword("YEAR"), col(t.Name, c.Name), call{Fn: "CURDATE"}}}})
			}
		}
	}
	return out
}

// marginWords name what is left of a price or revenue after its cost.
var marginWords = words.Set("margin")

// costWords and priceWords find the two sides of a margin in column names.
var (
	costWords  = words.List("cost")
	priceWords = words.List("price")
)

// margins are price or revenue minus cost, for each table that stores
// both; "margin" also as a percentage of the price.
func (e *Engine) margins(word string) []colAlt {
	var out []colAlt
	has := func(name string, words []string) bool {
		for _, w := range words {
			if strings.Contains(name, w) {
				return true
			}
		}
		return false
	}
	// Profit is earned on what was sold; a margin is often per unit.
	sold := 1.0
	if strings.HasPrefix(word, "profit") {
		sold = 3
	}
	out = append(out, e.salesMargins(has, sold)...)
	for _, t := range e.m.Tables {
		for _, cost := range t.Measures {
			if !has(strings.ToLower(cost.Name), costWords) {
				continue
			}
			for _, price := range t.Measures {
				n := strings.ToLower(price.Name)
				if price == cost || !has(n, priceWords) || has(n, costWords) {
					continue
				}
				p, c := col(t.Name, price.Name), col(t.Name, cost.Name)
				out = append(out, colAlt{table: t.Name, column: "margin", weight: 1.5, x: cmp(p, "-", c)})
				if strings.HasPrefix(word, "margin") {
					out = append(out, colAlt{table: t.Name, column: "margin_percent", weight: 0.8,
						x: percentOf(paren{X: cmp(p, "-", c)}, p)})
				}
			}
		}
	}
	return out
}

// durations are the spans between paired columns of a table.
func (e *Engine) durations(unit string) []colAlt {
	var out []colAlt
	for _, t := range e.m.Tables {
		for _, c := range t.Def.Columns {
			for _, pw := range pairWords {
				other := partnerName(c.Name, pw)
				if other == "" {
					continue
				}
				c2 := e.m.Column(t.Name, other)
				if c2 == nil || c2.Kind() != c.Kind() || c.Kind() != warehouse.KindTime && c.Kind() != warehouse.KindNumber {
					continue
				}
				from, to := col(t.Name, c.Name), col(t.Name, c2.Name)
				out = append(out, colAlt{table: t.Name, column: "duration", weight: 1.5, x: timeSpan(from, to, c.Kind(), c.DataType, unit)})
			}
		}
	}
	return out
}

// partnerName is the end column's name for a start column's ("start_dt"
// → "end_dt", "departure_time" → "arrival_time"), "" when the name has
// no start word.
func partnerName(name string, pw [2]string) string {
	parts := strings.Split(strings.ToLower(name), "_")
	for i, p := range parts {
		if p == pw[0] {
			parts[i] = pw[1]
			return strings.Join(parts, "_")
		}
	}
	return ""
}

// findRatio reads "the ratio of A to B" (also "A per B" after "ratio")
// where A and B are numeric columns of one table: their quotient per row,
// computed in floating point so that it is exact, with no division by
// zero. The two column mentions become one.
func (e *Engine) findRatio(a *analysis) {
	for i := range a.toks {
		difference := a.word(i) == "difference" || a.word(i) == "gap"
		if a.word(i) != "ratio" && a.word(i) != "proportion" && !difference || a.toks[i].Clause != 0 {
			continue
		}
		j := i + 1
		if a.word(j) != "of" && a.word(j) != "between" {
			continue
		}
		sep := a.ratioSeparator(j)
		if sep < 0 {
			continue
		}
		num, den := e.ratioSide(a, j+1, sep), e.ratioSide(a, sep+1, sep+6)
		if num == nil || den == nil {
			continue
		}
		var alts []colAlt
		// "the ratio of the mileage of van A to the mileage of
		// van B": one column, two rows named by values.
		end := den.end
		if !difference {
			if rows, vend := e.ratioOfRows(a, num, den, j+1, sep); len(rows) > 0 {
				alts = append(alts, rows...)
				end = max(end, vend)
			}
		}
		alts = append(alts, e.columnPairs(num, den, difference)...)
		if len(alts) == 0 {
			continue
		}
		var kept []*colMention
		for _, cm := range a.columns {
			if cm != num && cm != den {
				kept = append(kept, cm)
			}
		}
		a.columns = append(kept, &colMention{phrase: a.phrase(i, end), at: i, end: end, alts: alts})
		a.markUsed(i, end)
		if a.sup != nil && a.sup.at > i && a.sup.at < den.end {
			a.sup = nil // "the ratio of the top payload to …" names columns
		}
		if a.count && a.countAt > i && a.countAt < den.end {
			a.count, a.countAt = false, -1 // "the ratio of A to the count of loans" names a column
		}
		sortMentions(a)
		return
	}
}

// ratioSeparator is the word between a ratio's two sides ("to", "per",
// "over", "and" after "between"), -1 when none follows within ten words.
func (a *analysis) ratioSeparator(j int) int {
	for k := j + 1; k < len(a.toks) && k < j+10; k++ {
		if w := a.word(k); w == "to" || w == "per" || w == "and" && a.word(j) == "between" || w == "over" {
			return k
		}
	}
	return -1
}

// columnPairs are the computed columns two columns of one table make: the
// difference of two dates (in days) or two numbers, or the ratio of two
// numbers.
func (e *Engine) columnPairs(num, den *colMention, difference bool) []colAlt {
	var alts []colAlt
	for _, x := range num.alts {
		for _, y := range den.alts {
			cx, cy := e.m.Column(x.table, x.column), e.m.Column(y.table, y.column)
			if x.computed() || y.computed() || cx == nil || cy == nil || cx.Kind() != cy.Kind() ||
				!strings.EqualFold(x.table, y.table) || strings.EqualFold(x.column, y.column) {
				continue
			}
			vx, vy := col(x.table, x.column), col(y.table, y.column)
			w := x.weight * y.weight * 1.5
			switch {
			case difference && cx.Kind() == warehouse.KindTime:
				// "the difference between the ship date and the order date", in days
				alts = append(alts, colAlt{table: x.table, column: "difference", weight: w, x: call{Fn: "DATEDIFF", Args: []expr{vx, vy}}})
			case difference && cx.Kind() == warehouse.KindNumber:
				alts = append(alts, colAlt{table: x.table, column: "difference", weight: w, x: cmp(vx, "-", vy)})
			case !difference && cx.Kind() == warehouse.KindNumber:
				alts = append(alts, colAlt{table: x.table, column: "ratio", weight: w, x: ratio(vx, vy)})
			}
		}
	}
	return alts
}

// ratioSide is the first column mention in [from, to).
func (e *Engine) ratioSide(a *analysis, from, to int) *colMention {
	for _, cm := range a.columns {
		if cm.at >= from && cm.at < to && cm.clause == 0 {
			return cm
		}
	}
	return nil
}

// ratioOfRows reads a ratio of one column between two sets of rows, each
// named by a value after the column ("the mileage of the north region
// to the mileage of Leeds"): the column summed over each set.
// It takes the two values out of the question's conditions.
func (e *Engine) ratioOfRows(a *analysis, num, den *colMention, from, sep int) ([]colAlt, int) {
	valueIn := func(lo, hi int) *valueMention {
		for _, vm := range a.values {
			if vm.at >= lo && vm.at < hi && !vm.negated {
				return vm
			}
		}
		return nil
	}
	v1, v2 := valueIn(from, sep), valueIn(den.end, den.end+4)
	if v1 == nil || v2 == nil {
		return nil, 0
	}
	inTable := func(vm *valueMention, table string) *valueAlt {
		for i := range vm.alts {
			if strings.EqualFold(vm.alts[i].table, table) {
				return &vm.alts[i]
			}
		}
		return nil
	}
	var out []colAlt
	for _, x := range num.alts {
		for _, y := range den.alts {
			c := e.m.Column(x.table, x.column)
			if x.computed() || c == nil || c.Kind() != warehouse.KindNumber || !strings.EqualFold(x.table, y.table) || !strings.EqualFold(x.column, y.column) {
				continue
			}
			c1, c2 := inTable(v1, x.table), inTable(v2, x.table)
			if c1 == nil || c2 == nil {
				continue
			}
			measure := col(x.table, x.column)
			part := func(v *valueAlt) expr {
				return aggOver("SUM", caseWhen{Cond: cmp(col(v.table, v.column), "=", strLit(v.value)), Then: measure})
			}
			out = append(out, colAlt{table: x.table, column: "ratio", weight: 2 * x.weight * y.weight, x: ratio(part(c1), part(c2))})
		}
	}
	if len(out) == 0 {
		return nil, 0
	}
	// The two values are the ratio's, not conditions of the question.
	var kept []*valueMention
	for _, vm := range a.values {
		if vm != v1 && vm != v2 {
			kept = append(kept, vm)
		}
	}
	a.values = kept
	return out, a.spanOf(v2.at, v2.phrase)
}

// ratio is x / y in floating point, with no division by zero.
func ratio(x, y expr) expr {
	return cmp(cmp(x, "*", numLit("1e0")), "/", fn1("NULLIF", y, numLit("0")))
}

// percentOf is x as a percentage of y.
func percentOf(x, y expr) expr {
	return cmp(cmp(x, "*", numLit("100e0")), "/", fn1("NULLIF", y, numLit("0")))
}

// timeSpan is the time from one column to another of the same kind: a
// difference of numbers, or of dates in the unit asked for (days unless
// the columns hold times).
func timeSpan(from, to expr, kind warehouse.ColumnKind, dataType, unit string) expr {
	switch {
	case kind == warehouse.KindNumber:
		var x expr = cmp(to, "-", from)
		if unit == "MINUTE" {
			x = cmp(paren{X: x}, "/", numLit("60"))
		}
		return x
	case unit != "":
		return call{Fn: "TIMESTAMPDIFF", Args: []expr{keyword(unit), from, to}}
	case dataType == "datetime" || dataType == "timestamp":
		return call{Fn: "TIMESTAMPDIFF", Args: []expr{keyword("SECOND"), from, to}}
	}
	return call{Fn: "DATEDIFF", Args: []expr{to, from}}
}

// quantityWords find how many units a row sells.
var quantityWords = words.List("quantity")

// salesMargins are what was earned on the rows that sell things: a line's
// amount (or its quantity times its price) minus its quantity times the
// unit cost of the thing it refers to — "profit by category" over the
// order lines, not the catalogue's price minus cost once per product.
func (e *Engine) salesMargins(has func(string, []string) bool, weight float64) []colAlt {
	var out []colAlt
	for _, t := range e.m.Tables {
		var qty, amount, price *warehouse.Column
		for _, c := range t.Measures {
			n := strings.ToLower(c.Name)
			switch {
			case qty == nil && has(n, quantityWords):
				qty = c
			case amount == nil && has(n, []string{"amount", "revenue", "total", "sales"}) && !has(n, costWords):
				amount = c
			case price == nil && has(n, []string{"price"}) && !has(n, costWords):
				price = c
			}
		}
		if qty == nil || amount == nil && price == nil {
			continue
		}
		for _, j := range e.m.Snap.Schema.Joins {
			if !strings.EqualFold(j.FromTable, t.Name) || j.When != nil || !e.m.Unique(j.ToTable, j.ToColumn) {
				continue
			}
			ref := e.m.ByName[strings.ToLower(j.ToTable)]
			if ref == nil {
				continue
			}
			for _, cost := range ref.Measures {
				if !has(strings.ToLower(cost.Name), costWords) {
					continue
				}
				q, c := col(t.Name, qty.Name), col(ref.Name, cost.Name)
				var x expr
				if amount != nil {
					x = cmp(col(t.Name, amount.Name), "-", cmp(q, "*", c))
				} else {
					x = cmp(q, "*", paren{X: cmp(col(t.Name, price.Name), "-", c)})
				}
				out = append(out, colAlt{table: t.Name, column: "margin", weight: 2 * weight, x: x})
			}
		}
	}
	return out
}
