package read

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Time between events: "delivery time", "days to ship", "time from pickup
// to delivery". Each event word names a date column — by its name
// (delivered_on) or its comment ("Date the carrier picked up the
// package") — and the span ends at the named event and starts at the one
// before it: the one the question names, the partner of a start/end pair,
// the previous date of the same row, or the date of the row it belongs to
// (an order's shipment starts when the order was placed).

// lastingVerbs say how long an event took: "how many days do loans last".
var lastingVerbs = words.Set("lasting")

// spanOpens open a span's two events and spanJoins join them; spanTo
// name its end alone (prepositions.tsv).
var (
	spanOpens = words.Set("spanopen")
	spanJoins = words.Set("spanjoin")
	spanTo    = words.Set("spanto")
)

// spanWords measure the time of an event.
var spanWords = words.Set("span")

// eventSpans reads the span named around token i (a word of spanWords),
// and the tokens it covers.
func eventSpans(e *links.Reader, a *links.Analysis, i int) ([]links.ColAlt, int, int) {
	unit := timeUnitOf(a)
	// "how long does delivery take", "how long did shipping take"
	if a.Word(i) == "long" && a.Word(i-1) == "how" {
		for k := i + 1; k < len(a.Toks) && k <= i+4; k++ {
			ends := eventDates(e, a.Word(k))
			if len(ends) == 0 {
				continue
			}
			alts := spansTo(e, ends, unit)
			if len(alts) == 0 {
				continue
			}
			end := k + 1
			if lastingVerbs[a.Word(end)] {
				end++
			}
			return alts, i - 1, end
		}
		return nil, 0, 0
	}
	// "time from pickup to delivery", "days between order and shipment"
	if k := i + 1; spanOpens[a.Word(k)] {
		for sep := k + 2; sep < len(a.Toks) && sep <= k+4; sep++ {
			if !spanJoins[a.Word(sep)] {
				continue
			}
			from, to := eventDates(e, a.Word(sep-1)), eventDates(e, a.Word(sep+1))
			if alts := spansBetween(e, from, to, unit); len(alts) > 0 {
				return alts, i, sep + 2
			}
		}
	}
	// "days to ship", "time to delivery"
	if spanTo[a.Word(i+1)] {
		if ends := eventDates(e, a.Word(i+2)); len(ends) > 0 {
			if alts := spansTo(e, ends, unit); len(alts) > 0 {
				return alts, i, i + 3
			}
		}
	}
	// "delivery time", "shipping days"
	if i > 0 {
		if ends := eventDates(e, a.Word(i-1)); len(ends) > 0 {
			if alts := spansTo(e, ends, unit); len(alts) > 0 {
				return alts, i - 1, i + 1
			}
		}
	}
	return nil, 0, 0
}

// eventStems are the forms an event word takes in names: "delivery" →
// deliver, "shipping" → ship, "pickup" → pick, "placed" → place.
func eventStems(w string) []string {
	if links.Participle(w) {
		return VerbStems(w)
	}
	var out []string
	add := func(s string) {
		if len(s) >= 4 {
			out = append(out, s)
		}
	}
	add(w)
	for _, suf := range []string{"ery", "ing", "ment", "al", "ure", "ion", "y", "ed", "up", "s"} {
		if stem, ok := strings.CutSuffix(w, suf); ok {
			if suf == "ery" {
				stem += "er" // delivery → deliver
			}
			add(stem)
			if n := len(stem); n > 2 && stem[n-1] == stem[n-2] {
				add(stem[:n-1]) // shipp → ship
			}
		}
	}
	return out
}

// eventDates are the date columns an event word names.
func eventDates(e *links.Reader, w string) []links.ColAlt {
	if len(w) < 4 {
		return nil
	}
	stems := eventStems(w)
	var out []links.ColAlt
	for _, t := range e.M.Tables {
		// A comment names its row's thing too ("Date the order left the
		// warehouse"): those words are the subject, not the event.
		own := map[string]bool{}
		for _, w := range e.M.Cat.NameTerms(t.Name) {
			own[w], own[links.SingularOf(w)] = true, true
		}
		for _, c := range t.Dates {
			var comment []string
			for _, w := range strings.Fields(strings.ToLower(c.Comment)) {
				if w = strings.Trim(w, ".,;:()'\""); !own[w] && !own[links.SingularOf(w)] {
					comment = append(comment, w)
				}
			}
			if NamesVerb(c.Name+" "+strings.Join(comment, " "), stems) {
				out = append(out, links.ColAlt{Table: t.Name, Column: c.Name, Weight: 1})
			}
		}
	}
	return out
}

// spansBetween are the spans from one named event to another, of one row
// or of a row and the row it belongs to.
func spansBetween(e *links.Reader, from, to []links.ColAlt, unit string) []links.ColAlt {
	var out []links.ColAlt
	for _, f := range from {
		for _, t := range to {
			if f == t || !sameThing(e, f.Table, t.Table) {
				continue
			}
			if alt, ok := spanAlt(e, f, t, unit); ok {
				out = append(out, alt)
			}
		}
	}
	return out
}

// spansTo are the spans ending at a named event: from its pair's start,
// the previous date of its row, or the date of the row it belongs to.
func spansTo(e *links.Reader, ends []links.ColAlt, unit string) []links.ColAlt {
	var out []links.ColAlt
	for _, end := range ends {
		if start, ok := eventBefore(e, end); ok {
			if alt, ok := spanAlt(e, start, end, unit); ok {
				out = append(out, alt)
			}
		}
	}
	return out
}

// eventBefore is the event a span ending at end starts from.
func eventBefore(e *links.Reader, end links.ColAlt) (links.ColAlt, bool) {
	t := e.M.ByName[strings.ToLower(end.Table)]
	if t == nil {
		return links.ColAlt{}, false
	}
	for _, pw := range pairWords {
		for _, c := range t.Dates {
			if partner := partnerName(c.Name, pw); partner != "" && strings.EqualFold(partner, end.Column) {
				return links.ColAlt{Table: t.Name, Column: c.Name, Weight: 1}, true
			}
		}
	}
	// The previous date of the row, as the columns are laid out.
	endCol := t.Def.Column(end.Column)
	var prev *warehouse.Column
	for _, c := range t.Dates {
		if endCol != nil && c.Position < endCol.Position && (prev == nil || c.Position > prev.Position) {
			prev = c
		}
	}
	if prev != nil {
		return links.ColAlt{Table: t.Name, Column: prev.Name, Weight: 1}, true
	}
	// The row it belongs to: a shipment starts when its order was placed.
	for _, j := range e.M.Snap.Schema.Joins {
		if !strings.EqualFold(j.FromTable, t.Name) || j.When != nil {
			continue
		}
		if h := e.M.ByName[strings.ToLower(j.ToTable)]; h != nil && len(h.Dates) > 0 && e.M.Unique(j.ToTable, j.ToColumn) {
			return links.ColAlt{Table: h.Name, Column: h.Dates[0].Name, Weight: 1}, true
		}
	}
	return links.ColAlt{}, false
}

// sameThing says whether two tables' rows are one thing's: the same table,
// or one refers to the other's key.
func sameThing(e *links.Reader, a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	for _, j := range e.M.Snap.Schema.Joins {
		if (strings.EqualFold(j.FromTable, a) && strings.EqualFold(j.ToTable, b) || strings.EqualFold(j.FromTable, b) && strings.EqualFold(j.ToTable, a)) && e.M.Unique(j.ToTable, j.ToColumn) {
			return true
		}
	}
	return false
}

// spanAlt is the span from start to end as a computed column of end's
// table, in days unless the question asks for another unit.
func spanAlt(e *links.Reader, start, end links.ColAlt, unit string) (links.ColAlt, bool) {
	cs, ce := e.M.Column(start.Table, start.Column), e.M.Column(end.Table, end.Column)
	if cs == nil || ce == nil {
		return links.ColAlt{}, false
	}
	x := timeSpan(sqlexpr.Col(start.Table, start.Column), sqlexpr.Col(end.Table, end.Column), ce.Kind(), ce.DataType, unit)
	return links.ColAlt{Table: end.Table, Column: "duration", Weight: 1.6, X: x}, true
}
