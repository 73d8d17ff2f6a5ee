package offline

import (
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Events at their own dates and participants. A past participle that
// names something that happened to the subject — "orders placed in
// 2025", "shipped by UPS", "shipped to California", "delivered last
// month" — is first that event: its date, its agent, its destination.
// A status column often stores the same word ('placed', 'shipped') for the
// rows whose latest step it was, so filtering on it answers another
// question (an order shipped and since delivered is no longer 'shipped').
// The status stays an option, asked about when the two differ; it is never
// applied silently.
//
// Evidence that a word names an event of the data: the schema has a
// column the word names — a date column "shipped_at", a comment "Date the
// order was placed", a "Shipping carrier" — besides the stored value.

// particles follow a verb without changing the event it names ("signed
// up", "checked out", "paid off").
var particles = words.Set("particle")

// eventVerbBefore finds a participle right before token at (a time
// condition), possibly with its particle, that names a date column the
// reading's conditions use: the tokens from it to at are the event.
func (e *Engine) eventVerbBefore(a *links.Analysis, at int, p *plan.Plan) (int, bool) {
	k := at - 1
	switch a.Word(k) {
	case "in", "during", "on", "since", "before", "after", "by", "at", "from":
		k--
	}
	if particles[a.Word(k)] {
		k--
	}
	if k < 0 || !links.Participle(a.Word(k)) {
		return 0, false
	}
	stems := read.VerbStems(a.Word(k))
	for dc := range p.DateCols {
		c := e.m.Column(dc.Table, dc.Column)
		if c != nil && read.NamesVerb(c.Name+" "+c.Comment, stems) {
			return k, true
		}
	}
	return 0, false
}

// timeLead are the words between an event's verb and its time: "built
// in each year", "made during the war".
var timeLead = words.Set("timelead")

// passiveAux come before a passive participle: "looms were made".
var passiveAux = words.Set("passiveaux")

// onlyEventBefore finds the participle of an event whose date is the only
// one the reading's time could be on ("looms built in 1985", "in 1985,
// how many looms were made", "looms installed in each year"): the reading
// reads one date (or year) column, its table has no other, and no column
// anywhere names the verb, so the verb chooses nothing. at is where the
// time (or period) is said; the participle is right before it, or closes
// a passive clause after it.
func (e *Engine) onlyEventBefore(a *links.Analysis, parts *readingParts, at int) (int, bool) {
	k := at - 1
	for n := 0; n < 3 && timeLead[a.Word(k)]; n++ {
		k--
	}
	if !links.Participle(a.Word(k)) {
		k = -1
		for i := at + 1; i < len(a.Toks) && a.Toks[i].Clause == a.Toks[at].Clause; i++ {
			if links.Participle(a.Word(i)) && passiveAux[a.Word(i-1)] && (i+1 == len(a.Toks) || a.Toks[i+1].Clause != a.Toks[at].Clause || links.IsFunctionWord(a.Toks[i+1]) && !plan.RelationPreps[a.Word(i+1)]) {
				k = i
			}
		}
		if k < 0 {
			return 0, false
		}
	}
	var dated []string
	for key := range parts.columns {
		table, column, _ := strings.Cut(key, ".")
		if c := e.m.Column(table, column); c != nil && e.dateLike(table, c) {
			dated = append(dated, table)
		}
	}
	if len(dated) != 1 {
		return 0, false
	}
	n := 0
	stems := read.VerbStems(a.Word(k))
	for _, t := range e.m.Snap.Schema.Tables {
		for _, c := range t.Columns {
			if !e.dateLike(t.Name, &c) {
				continue
			}
			if strings.EqualFold(t.Name, dated[0]) {
				n++
			} else if read.NamesVerb(c.Name+" "+c.Comment, stems) {
				return 0, false
			}
		}
	}
	return k, n == 1
}

// dateLike says whether a column holds when something happened: a date or
// time, or a year stored as a number.
func (e *Engine) dateLike(table string, c *warehouse.Column) bool {
	if c.Kind() == warehouse.KindTime {
		return true
	}
	n := strings.ToLower(c.Name)
	return c.Kind() == warehouse.KindNumber && (n == "year" || strings.HasSuffix(n, "_year"))
}
