package read

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Computed measures: a word that names no column but a quantity the schema
// has the parts of. "age" is the years since a birth date; "duration",
// "lifespan", "length of stay" the difference between a start and an end
// column of one table (start/end, departure/arrival, opened/closed…).
// They are offered as columns of their own, so every shape that takes a
// measure (averages, totals, rankings, sorting) takes them too.

// durationWords name the time between two events of one row.
var durationWords = words.Set("duration")

// ageNouns are computed from a birth date (nouns.tsv); durationPreps after
// "time" make it a duration (prepositions.tsv).
var (
	ageNouns      = words.Set("agenoun")
	durationPreps = words.Set("durationprep")
)

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
func timeUnitOf(a *links.Analysis) string {
	for i := range a.Toks {
		switch links.SingularOf(a.Word(i)) {
		case "second":
			return "SECOND"
		case "minute":
			return "MINUTE"
		case "hour":
			return "HOUR"
		case "day":
			return "DAY"
		case "year":
			if a.Word(i-1) == "in" {
				return "YEAR"
			}
		}
	}
	return ""
}

// findComputed adds the computed measures the question's words name.
func findComputed(e *links.Reader, a *links.Analysis) {
	unit := timeUnitOf(a)
	for i, t := range a.Toks {
		if t.Clause != 0 || t.Quoted {
			continue
		}
		var alts []links.ColAlt
		if spanWords[t.Low] {
			// "delivery time", "days to ship", "time from pickup to delivery"
			if spans, from, to := eventSpans(e, a, i); len(spans) > 0 {
				if t.Low == "long" && a.Agg == "" && !a.Count {
					// "how long does delivery take": typically, an average.
					a.Agg, a.AggAt = "AVG", from
				}
				cm := &links.ColMention{Phrase: a.Phrase(from, to), At: from, End: to, Alts: spans}
				var kept []*links.ColMention
				for _, other := range a.Columns {
					if other.At >= to || other.End <= from {
						kept = append(kept, other)
					}
				}
				a.Columns = append(kept, cm)
				a.MarkUsed(from, to)
				// The event's words are the span's, not a stored value
				// ("delivery" is no status 'delivered' here).
				var values []*links.ValueMention
				for _, vm := range a.Values {
					if vm.At >= to || a.SpanOf(vm.At, vm.Phrase) <= from {
						values = append(values, vm)
					}
				}
				a.Values = values
				continue
			}
		}
		switch {
		case ageNouns[t.Low]:
			alts = ages(e)
		case durationWords[t.Low] || t.Low == "time" && durationPreps[a.Word(i+1)]:
			alts = durations(e, unit)
		case marginWords[t.Low] && columnCovering(a, i) == nil:
			alts = margins(e, t.Low)
		}
		if len(alts) == 0 {
			continue
		}
		// The computed reading comes first; a column that merely shares
		// the word stays an option.
		if cm := columnCovering(a, i); cm != nil {
			cm.Alts = append(alts, cm.Alts...)
			absorbParts(e, a, cm)
			continue
		}
		a.Toks[i].Used = true
		cm := &links.ColMention{Phrase: t.Raw, At: i, End: i + 1, Alts: alts, Clause: 0}
		absorbParts(e, a, cm)
		a.Columns = append(a.Columns, cm)
	}
	links.SortMentions(a)
}

// absorbParts takes the columns a computed measure names as its parts
// ("the time between check-in and discharge") into its mention:
// they are what it is computed from, not more outputs.
func absorbParts(e *links.Reader, a *links.Analysis, cm *links.ColMention) {
	if !spanOpens[a.Word(cm.End)] {
		return
	}
	var kept []*links.ColMention
	for _, part := range a.Columns {
		inside := part.At > cm.At && part.At <= cm.End+6
		used := false
		for _, al := range part.Alts {
			for _, x := range cm.Alts {
				used = used || !al.Computed() && x.Computed() && slices.Contains(sqlexpr.Columns(x.X), sqlexpr.Col(al.Table, al.Column))
			}
		}
		if inside && used {
			cm.End = max(cm.End, part.End)
			continue
		}
		kept = append(kept, part)
	}
	if cm.End > cm.At+1 {
		cm.Phrase = a.Phrase(cm.At, cm.End)
		a.MarkUsed(cm.At, cm.End)
	}
	a.Columns = kept
}

func columnCovering(a *links.Analysis, i int) *links.ColMention {
	for _, cm := range a.Columns {
		if cm.At <= i && i < cm.End {
			return cm
		}
	}
	return nil
}

// ages are the years since each birth date column.
func ages(e *links.Reader) []links.ColAlt {
	var out []links.ColAlt
	for _, t := range e.M.Tables {
		for _, c := range t.Dates {
			n := strings.ToLower(c.Name)
			if strings.Contains(n, "birth") || strings.Contains(n, "dob") || strings.Contains(n, "born") {
				out = append(out, links.ColAlt{Table: t.Name, Column: "age", Weight: 1.5,
					X: sqlexpr.Call{Fn: "TIMESTAMPDIFF", Args: []sqlexpr.Expr{sqlexpr.Keyword("YEAR"), sqlexpr.Col(t.Name, c.Name), sqlexpr.Call{Fn: "CURDATE"}}}})
			}
		}
	}
	return out
}

// marginWords name what is left of a price or revenue after its cost.
var marginWords = words.Set("margin")

var costWords = words.List("cost")

var priceWords = words.List("price")

// margins are price or revenue minus cost, for each table that stores
// both; "margin" also as a percentage of the price.
func margins(e *links.Reader, word string) []links.ColAlt {
	var out []links.ColAlt
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
	out = append(out, salesMargins(e, has, sold)...)
	for _, t := range e.M.Tables {
		for _, cost := range t.Measures {
			if !has(strings.ToLower(cost.Name), costWords) {
				continue
			}
			for _, price := range t.Measures {
				n := strings.ToLower(price.Name)
				if price == cost || !has(n, priceWords) || has(n, costWords) {
					continue
				}
				p, c := sqlexpr.Col(t.Name, price.Name), sqlexpr.Col(t.Name, cost.Name)
				out = append(out, links.ColAlt{Table: t.Name, Column: "margin", Weight: 1.5, X: sqlexpr.Cmp(p, "-", c)})
				if strings.HasPrefix(word, "margin") {
					out = append(out, links.ColAlt{Table: t.Name, Column: "margin_percent", Weight: 0.8,
						X: PercentOf(sqlexpr.Paren{X: sqlexpr.Cmp(p, "-", c)}, p)})
				}
			}
		}
	}
	return out
}

// durations are the spans between paired columns of a table.
func durations(e *links.Reader, unit string) []links.ColAlt {
	var out []links.ColAlt
	for _, t := range e.M.Tables {
		for _, c := range t.Def.Columns {
			for _, pw := range pairWords {
				other := partnerName(c.Name, pw)
				if other == "" {
					continue
				}
				c2 := e.M.Column(t.Name, other)
				if c2 == nil || c2.Kind() != c.Kind() || c.Kind() != warehouse.KindTime && c.Kind() != warehouse.KindNumber {
					continue
				}
				from, to := sqlexpr.Col(t.Name, c.Name), sqlexpr.Col(t.Name, c2.Name)
				out = append(out, links.ColAlt{Table: t.Name, Column: "duration", Weight: 1.5, X: timeSpan(from, to, c.Kind(), c.DataType, unit)})
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

// gapNouns and ratioNouns name a difference or a quotient of two
// measures (nouns.tsv); ratioOpens open its terms and ratioJoins join
// them (prepositions.tsv).
var (
	gapNouns   = words.Set("gapnoun")
	ratioNouns = words.Set("rationoun")
	ratioOpens = words.Set("ratioopen")
	ratioJoins = words.Set("ratiojoin")
)

// findRatio reads "the ratio of A to B" (also "A per B" after "ratio")
// where A and B are numeric columns of one table: their quotient per row,
// computed in floating point so that it is exact, with no division by
// zero. The two column mentions become one.
func findRatio(e *links.Reader, a *links.Analysis) {
	for i := range a.Toks {
		difference := gapNouns[a.Word(i)]
		if !ratioNouns[a.Word(i)] && !difference || a.Toks[i].Clause != 0 {
			continue
		}
		j := i + 1
		if !ratioOpens[a.Word(j)] {
			continue
		}
		sep := ratioSeparator(a, j)
		if sep < 0 {
			continue
		}
		num, den := ratioSide(e, a, j+1, sep), ratioSide(e, a, sep+1, sep+6)
		if num == nil || den == nil {
			continue
		}
		var alts []links.ColAlt
		// "the ratio of the mileage of van A to the mileage of
		// van B": one column, two rows named by values.
		end := den.End
		if !difference {
			if rows, vend := ratioOfRows(e, a, num, den, j+1, sep); len(rows) > 0 {
				alts = append(alts, rows...)
				end = max(end, vend)
			}
		}
		alts = append(alts, columnPairs(e, num, den, difference)...)
		if len(alts) == 0 {
			continue
		}
		var kept []*links.ColMention
		for _, cm := range a.Columns {
			if cm != num && cm != den {
				kept = append(kept, cm)
			}
		}
		a.Columns = append(kept, &links.ColMention{Phrase: a.Phrase(i, end), At: i, End: end, Alts: alts})
		a.MarkUsed(i, end)
		if a.Sup != nil && a.Sup.At > i && a.Sup.At < den.End {
			a.Sup = nil // "the ratio of the top payload to …" names columns
		}
		if a.Count && a.CountAt > i && a.CountAt < den.End {
			a.Count, a.CountAt = false, -1 // "the ratio of A to the count of loans" names a column
		}
		links.SortMentions(a)
		return
	}
}

// ratioSeparator is the word between a ratio's two sides ("to", "per",
// "over", "and" after "between"), -1 when none follows within ten words.
func ratioSeparator(a *links.Analysis, j int) int {
	for k := j + 1; k < len(a.Toks) && k < j+10; k++ {
		if w := a.Word(k); ratioJoins[w] || w == "and" && a.Word(j) == "between" {
			return k
		}
	}
	return -1
}

// columnPairs are the computed columns two columns of one table make: the
// difference of two dates (in days) or two numbers, or the ratio of two
// numbers.
func columnPairs(e *links.Reader, num, den *links.ColMention, difference bool) []links.ColAlt {
	var alts []links.ColAlt
	for _, x := range num.Alts {
		for _, y := range den.Alts {
			cx, cy := e.M.Column(x.Table, x.Column), e.M.Column(y.Table, y.Column)
			if x.Computed() || y.Computed() || cx == nil || cy == nil || cx.Kind() != cy.Kind() ||
				!strings.EqualFold(x.Table, y.Table) || strings.EqualFold(x.Column, y.Column) {
				continue
			}
			vx, vy := sqlexpr.Col(x.Table, x.Column), sqlexpr.Col(y.Table, y.Column)
			w := x.Weight * y.Weight * 1.5
			switch {
			case difference && cx.Kind() == warehouse.KindTime:
				// "the difference between the ship date and the order date", in days
				alts = append(alts, links.ColAlt{Table: x.Table, Column: "difference", Weight: w, X: sqlexpr.Call{Fn: "DATEDIFF", Args: []sqlexpr.Expr{vx, vy}}})
			case difference && cx.Kind() == warehouse.KindNumber:
				alts = append(alts, links.ColAlt{Table: x.Table, Column: "difference", Weight: w, X: sqlexpr.Cmp(vx, "-", vy)})
			case !difference && cx.Kind() == warehouse.KindNumber:
				alts = append(alts, links.ColAlt{Table: x.Table, Column: "ratio", Weight: w, X: Ratio(vx, vy)})
			}
		}
	}
	return alts
}

// ratioSide is the first column mention in [from, to).
func ratioSide(e *links.Reader, a *links.Analysis, from, to int) *links.ColMention {
	for _, cm := range a.Columns {
		if cm.At >= from && cm.At < to && cm.Clause == 0 {
			return cm
		}
	}
	return nil
}

// ratioOfRows reads a ratio of one column between two sets of rows, each
// named by a value after the column ("the mileage of the north region
// to the mileage of Leeds"): the column summed over each set.
// It takes the two values out of the question's conditions.
func ratioOfRows(e *links.Reader, a *links.Analysis, num, den *links.ColMention, from, sep int) ([]links.ColAlt, int) {
	valueIn := func(lo, hi int) *links.ValueMention {
		for _, vm := range a.Values {
			if vm.At >= lo && vm.At < hi && !vm.Negated {
				return vm
			}
		}
		return nil
	}
	v1, v2 := valueIn(from, sep), valueIn(den.End, den.End+4)
	if v1 == nil || v2 == nil {
		return nil, 0
	}
	inTable := func(vm *links.ValueMention, table string) *links.ValueAlt {
		for i := range vm.Alts {
			if strings.EqualFold(vm.Alts[i].Table, table) {
				return &vm.Alts[i]
			}
		}
		return nil
	}
	var out []links.ColAlt
	for _, x := range num.Alts {
		for _, y := range den.Alts {
			c := e.M.Column(x.Table, x.Column)
			if x.Computed() || c == nil || c.Kind() != warehouse.KindNumber || !strings.EqualFold(x.Table, y.Table) || !strings.EqualFold(x.Column, y.Column) {
				continue
			}
			c1, c2 := inTable(v1, x.Table), inTable(v2, x.Table)
			if c1 == nil || c2 == nil {
				continue
			}
			measure := sqlexpr.Col(x.Table, x.Column)
			part := func(v *links.ValueAlt) sqlexpr.Expr {
				return sqlexpr.AggOver("SUM", sqlexpr.CaseWhen{Cond: sqlexpr.Cmp(sqlexpr.Col(v.Table, v.Column), "=", sqlexpr.Str(v.Value)), Then: measure})
			}
			out = append(out, links.ColAlt{Table: x.Table, Column: "ratio", Weight: 2 * x.Weight * y.Weight, X: Ratio(part(c1), part(c2))})
		}
	}
	if len(out) == 0 {
		return nil, 0
	}
	// The two values are the ratio's, not conditions of the question.
	var kept []*links.ValueMention
	for _, vm := range a.Values {
		if vm != v1 && vm != v2 {
			kept = append(kept, vm)
		}
	}
	a.Values = kept
	return out, a.SpanOf(v2.At, v2.Phrase)
}

// Ratio is x / y in floating point, with no division by zero.
func Ratio(x, y sqlexpr.Expr) sqlexpr.Expr {
	return sqlexpr.Cmp(sqlexpr.Cmp(x, "*", sqlexpr.Num("1e0")), "/", sqlexpr.Fn("NULLIF", y, sqlexpr.Num("0")))
}

// PercentOf is x as a percentage of y.
func PercentOf(x, y sqlexpr.Expr) sqlexpr.Expr {
	return sqlexpr.Cmp(sqlexpr.Cmp(x, "*", sqlexpr.Num("100e0")), "/", sqlexpr.Fn("NULLIF", y, sqlexpr.Num("0")))
}

// timeSpan is the time from one column to another of the same kind: a
// difference of numbers, or of dates in the unit asked for (days unless
// the columns hold times).
func timeSpan(from, to sqlexpr.Expr, kind warehouse.ColumnKind, dataType, unit string) sqlexpr.Expr {
	switch {
	case kind == warehouse.KindNumber:
		var x sqlexpr.Expr = sqlexpr.Cmp(to, "-", from)
		if unit == "MINUTE" {
			x = sqlexpr.Cmp(sqlexpr.Paren{X: x}, "/", sqlexpr.Num("60"))
		}
		return x
	case unit != "":
		return sqlexpr.Call{Fn: "TIMESTAMPDIFF", Args: []sqlexpr.Expr{sqlexpr.Keyword(unit), from, to}}
	case dataType == "datetime" || dataType == "timestamp":
		return sqlexpr.Call{Fn: "TIMESTAMPDIFF", Args: []sqlexpr.Expr{sqlexpr.Keyword("SECOND"), from, to}}
	}
	return sqlexpr.Call{Fn: "DATEDIFF", Args: []sqlexpr.Expr{to, from}}
}

// quantityWords find how many units a row sells.
var quantityWords = words.List("quantity")

// salesMargins are what was earned on the rows that sell things: a line's
// amount (or its quantity times its price) minus its quantity times the
// unit cost of the thing it refers to — "profit by category" over the
// order lines, not the catalogue's price minus cost once per product.
func salesMargins(e *links.Reader, has func(string, []string) bool, weight float64) []links.ColAlt {
	var out []links.ColAlt
	for _, t := range e.M.Tables {
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
		for _, j := range e.M.Snap.Schema.Joins {
			if !strings.EqualFold(j.FromTable, t.Name) || j.When != nil || !e.M.Unique(j.ToTable, j.ToColumn) {
				continue
			}
			ref := e.M.ByName[strings.ToLower(j.ToTable)]
			if ref == nil {
				continue
			}
			for _, cost := range ref.Measures {
				if !has(strings.ToLower(cost.Name), costWords) {
					continue
				}
				q, c := sqlexpr.Col(t.Name, qty.Name), sqlexpr.Col(ref.Name, cost.Name)
				var x sqlexpr.Expr
				if amount != nil {
					x = sqlexpr.Cmp(sqlexpr.Col(t.Name, amount.Name), "-", sqlexpr.Cmp(q, "*", c))
				} else {
					x = sqlexpr.Cmp(q, "*", sqlexpr.Paren{X: sqlexpr.Cmp(sqlexpr.Col(t.Name, price.Name), "-", c)})
				}
				out = append(out, links.ColAlt{Table: t.Name, Column: "margin", Weight: 2 * weight, X: x})
			}
		}
	}
	return out
}
