package offline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Group conditions: "members with at least 3 loans", "books borrowed more
// than ten times", "customers with only one order", "authors with fewer
// than 2 papers". A comparison whose number counts rows of a related table
// is a condition on how many each subject has: the subject's rows whose
// key is among those the related rows, grouped, count enough of (HAVING).
// "Fewer than" includes the subjects with none, so it is written as the
// complement of "at least".

// countedThings are words after a number that count the related rows
// named before it ("ordered more than ten times").
var countedThings = setOf("times time occasions")

// relatedCounted finds the table whose rows the comparison counts: the
// thing named right after the number ("3 loans", "2 different genres"),
// or for "N times" the thing the verb before it names.
func (r *reader) relatedCounted(cp *compMention) (*entityMention, bool) {
	a := r.a
	num := a.spanOf(cp.at, cp.phrase) - 1
	next := num + 1
	for a.word(next) == "other" || a.word(next) == "different" || a.word(next) == "distinct" || a.word(next) == "separate" {
		next++
	}
	for _, em := range a.entities {
		if em.at == next {
			return em, false
		}
	}
	if countedThings[a.word(num+1)] {
		// The nearest thing named before: the verb's table ("lent" → loans).
		var near *entityMention
		for _, em := range a.entities {
			if em.at < cp.at && em.at >= cp.at-3 && (near == nil || em.at > near.at) {
				near = em
			}
		}
		return near, near != nil
	}
	return nil, false
}

// groupCondition adds to el the reading of cp as a count of related rows
// per subject, and says whether it did.
func (r *reader) groupCondition(el *element, cp *compMention) bool {
	h := r.h.t
	if h == nil || cp.op == "between" {
		return false
	}
	em, times := r.relatedCounted(cp)
	if em == nil {
		return false
	}
	if r.valueGroupCondition(el, cp, em) {
		return true
	}
	if em.tables[0] == h {
		return false
	}
	related := em.tables[0]
	via, hop, ok := r.e.existsRoute(r.a, related, h)
	if !ok {
		return false
	}
	keyCol := r.e.m.col(via.FromTable, via.FromColumn)
	from := r.e.m.ident(via.FromTable)
	if hop != nil {
		from = fmt.Sprintf("%s JOIN %s ON %s = %s", r.e.m.ident(hop.FromTable), r.e.m.ident(hop.ToTable), r.e.m.col(hop.FromTable, hop.FromColumn), r.e.m.col(hop.ToTable, hop.ToColumn))
	}
	if hop != nil && hop.When != nil {
		from += r.e.whenCond(*hop)
	}
	// A typed reference counts only the rows of the subject's kind.
	kind := "1 = 1"
	if via.When != nil {
		kind = strings.TrimPrefix(r.e.whenCond(via), " AND ")
	}
	n := strconv.FormatFloat(cp.value, 'f', -1, 64)
	subject := r.e.m.col(via.ToTable, via.ToColumn)
	// Subjects with none of the related rows meet "fewer than 3" and "at
	// most 2": those are the complement of the ones with enough.
	var where string
	switch {
	case cp.op == "<" || cp.op == "<=" || cp.op == "=" && cp.value == 0:
		op := map[string]string{"<": ">=", "<=": ">", "=": ">"}[cp.op]
		where = fmt.Sprintf("%s NOT IN (SELECT %s FROM %s WHERE %s IS NOT NULL AND %s GROUP BY %s HAVING COUNT(*) %s %s)", subject, keyCol, from, keyCol, kind, keyCol, op, n)
	default:
		where = fmt.Sprintf("%s IN (SELECT %s FROM %s WHERE %s GROUP BY %s HAVING COUNT(*) %s %s)", subject, keyCol, from, kind, keyCol, cp.op, n)
	}
	w := 2.0
	if times {
		w = 1.5
	}
	key := sqlshape.WhereKey(strings.ToLower(related.name + ".count"))
	phrase := cp.phrase + " " + em.phrase
	el.add(w, func(p *plan) {
		p.filters = append(p.filters, cond{sql: where})
		p.use(h.name)
		p.phrases[key] = phrase
	})
	return true
}

// valueGroupCondition reads "cities that have more than one restaurant"
// where the subject is a column of the counted rows: the values of that
// column shared by enough rows.
func (r *reader) valueGroupCondition(el *element, cp *compMention, em *entityMention) bool {
	// The subject is the first thing named, and it is a column.
	var cm *colMention
	for _, c := range r.a.columns {
		if c.clause == 0 && c.at < cp.at && (cm == nil || c.at < cm.at) {
			cm = c
		}
	}
	if cm == nil {
		return false
	}
	for _, e := range r.a.entities {
		if e.at < cm.at {
			return false
		}
	}
	t := em.tables[0]
	n := strconv.FormatFloat(cp.value, 'f', -1, 64)
	added := false
	for _, al := range cm.alts {
		if !strings.EqualFold(al.table, t.name) || al.expr != "" {
			continue
		}
		col := r.e.m.col(al.table, al.column)
		where := fmt.Sprintf("%s IN (SELECT %s FROM %s GROUP BY %s HAVING COUNT(*) %s %s)", col, col, r.e.m.ident(t.name), col, cp.op, n)
		key := sqlshape.WhereKey(strings.ToLower(t.name + ".count"))
		phrase := cp.phrase + " " + em.phrase
		el.add(2*al.weight, func(p *plan) {
			p.filters = append(p.filters, cond{sql: where})
			p.use(t.name)
			p.phrases[key] = phrase
		})
		added = true
	}
	return added
}
