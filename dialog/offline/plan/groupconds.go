package plan

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Group conditions: "members with at least 3 loans", "books borrowed more
// than ten times", "customers with only one order", "members with fewer
// than 2 papers". A comparison whose number counts rows of a related table
// is a condition on how many each subject has: the subject's rows whose
// key is among those the related rows, grouped, count enough of (HAVING).
// "Fewer than" includes the subjects with none, so it is written as the
// complement of "at least".

// CountedThings are words after a number that count the related rows
// named before it ("ordered more than ten times").
var CountedThings = words.Set("counted")

// othernessWords between a number and what it counts say each is
// another one: "more than 3 different borrowers" (quantifiers.tsv).
var othernessWords = words.Set("otherness")

// relatedCounted finds the table whose rows the comparison counts: the
// thing named right after the number ("3 loans", "2 different genres"),
// or for "N times" the thing the verb before it names.
func (r *reader) relatedCounted(cp *links.CompMention) (*links.EntityMention, bool) {
	a := r.a
	num := a.SpanOf(cp.At, cp.Phrase) - 1
	next := num + 1
	for othernessWords[a.Word(next)] {
		next++
	}
	// "more than 3 boat models": past the schema's own subject.
	if r.e.DomainWord(a.Word(next)) && r.columnAt(next+1) != nil {
		next++
	}
	for _, em := range a.Entities {
		if em.At == next {
			return em, false
		}
	}
	// "more than 2 models": a table's label names its rows.
	if cm := r.columnAt(next); cm != nil && cm.At == next {
		for _, al := range cm.Alts {
			if t := r.e.m.ByName[strings.ToLower(al.Table)]; t != nil && t.Label != nil && strings.EqualFold(t.Label.Name, al.Column) {
				return &links.EntityMention{Phrase: cm.Phrase, At: cm.At, Tables: []*schema.Table{t}}, false
			}
		}
	}
	if CountedThings[a.Word(num+1)] {
		// The nearest thing named before: the verb's table ("lent" → loans).
		var near *links.EntityMention
		for _, em := range a.Entities {
			if em.At < cp.At && em.At >= cp.At-3 && (near == nil || em.At > near.At) {
				near = em
			}
		}
		return near, near != nil
	}
	return nil, false
}

// listedTable is the table of the first column the question lists before
// at ("book ids with two or more loans"): the subject when no table
// is named as one.
func (r *reader) listedTable(at int) *schema.Table {
	for _, cm := range r.a.Columns {
		if cm.At < at && cm.Clause == 0 && len(cm.Alts) > 0 {
			return r.e.m.ByName[strings.ToLower(cm.Alts[0].Table)]
		}
	}
	return nil
}

// groupCondition adds to el the reading of cp as a count of related rows
// per subject, and says whether it did.
func (r *reader) groupCondition(el *element, cp *links.CompMention) bool {
	h := r.h.t
	if h == nil {
		h = r.listedTable(cp.At)
	}
	if h == nil || cp.Op == "between" {
		return false
	}
	em, times := r.relatedCounted(cp)
	if em == nil {
		return false
	}
	if r.valueGroupCondition(el, cp, em) {
		return true
	}
	if em.Tables[0] == h {
		// "book ids with two or more loans": the counted thing was
		// taken for the subject; the listed column's table is.
		lt := r.listedTable(cp.At)
		if lt == nil || lt == h {
			return false
		}
		h = lt
	}
	related := em.Tables[0]
	via, hop, ok := r.e.existsRoute(r.a, related, h)
	if !ok {
		return false
	}
	from := sqlexpr.From{First: sqlexpr.Source{Table: via.FromTable}}
	if hop != nil {
		on := sqlexpr.And(sqlexpr.Cmp(sqlexpr.Col(hop.FromTable, hop.FromColumn), "=", sqlexpr.Col(hop.ToTable, hop.ToColumn)), r.e.WhenExpr(*hop))
		from = sqlexpr.From{First: sqlexpr.Source{Table: hop.FromTable}, Joins: []sqlexpr.Join{{To: sqlexpr.Source{Table: hop.ToTable}, On: on}}}
	}
	// A typed reference counts only the rows of the subject's kind.
	kind := r.e.WhenExpr(via)
	dj := groupJoin(sqlexpr.Col(via.FromTable, via.FromColumn), from, kind, cp.Op, cp.Value, sqlexpr.Col(via.ToTable, via.ToColumn))
	dj.Tables = []string{via.FromTable}
	if hop != nil {
		dj.Tables = []string{hop.FromTable, hop.ToTable}
	}
	dj.Count = cp.Value
	dj.Cols = []sqlexpr.ColRef{sqlexpr.Col(via.FromTable, via.FromColumn), sqlexpr.Col(via.ToTable, via.ToColumn)}
	if via.When != nil {
		dj.Cols = append(dj.Cols, sqlexpr.Col(via.FromTable, via.When.Column))
	}
	w := 2.0
	if times {
		w = 1.5
	}
	key := sqlshape.WhereKey(strings.ToLower(related.Name + ".count"))
	phrase := cp.Phrase + " " + em.Phrase
	el.add(w, func(p *Plan) {
		p.Derived = append(p.Derived, dj)
		p.use(h.Name)
		p.Phrases[key] = phrase
	})
	return true
}

// groupJoin joins the subjects to the keys of the related rows grouped
// with the count condition: JOIN (SELECT fk … GROUP BY fk HAVING COUNT(*)
// >= 3) ON it = subject. "Fewer than 3" includes the subjects with none,
// so it keeps the subjects missing from "at least 3" (LEFT JOIN … IS NULL).
// A join to a grouped table is computed once, where IN (SELECT … GROUP BY
// …) is re-evaluated per row by some engines (seconds on the demo's
// embedded server).
func groupJoin(key sqlexpr.ColRef, from sqlexpr.From, kind sqlexpr.Expr, op string, n float64, subject sqlexpr.ColRef) DerivedJoin {
	complement := map[string]string{"<": ">=", "<=": ">", "=0": ">"}
	if op == "=" && n == 0 {
		op = "=0"
	}
	left := false
	if inv, ok := complement[op]; ok {
		op, left = inv, true
	}
	sub := sqlexpr.Select{Selects: []sqlexpr.Expr{key}, From: from, GroupBy: []sqlexpr.Expr{key},
		Having: []sqlexpr.Expr{sqlexpr.Cmp(sqlexpr.CountAll, op, sqlexpr.Num(strconv.FormatFloat(n, 'f', -1, 64)))}}
	if kind != nil {
		sub.Where = []sqlexpr.Expr{kind}
	}
	return DerivedJoin{Left: left, Sub: sub, Key: key.Column, Subject: subject}
}

// valueGroupCondition reads "towns holding more than one depot"
// where the subject is a column of the counted rows: the values of that
// column shared by enough rows.
func (r *reader) valueGroupCondition(el *element, cp *links.CompMention, em *links.EntityMention) bool {
	// The subject is the first thing named, and it is a column.
	var cm *links.ColMention
	for _, c := range r.a.Columns {
		if c.Clause == 0 && c.At < cp.At && (cm == nil || c.At < cm.At) {
			cm = c
		}
	}
	if cm == nil {
		return false
	}
	for _, e := range r.a.Entities {
		if e.At < cm.At {
			return false
		}
	}
	t := em.Tables[0]
	added := false
	for _, al := range cm.Alts {
		if !strings.EqualFold(al.Table, t.Name) || al.Computed() {
			continue
		}
		c := sqlexpr.Col(al.Table, al.Column)
		dj := groupJoin(c, sqlexpr.From{First: sqlexpr.Source{Table: t.Name}}, nil, cp.Op, cp.Value, c)
		dj.Tables, dj.Count, dj.Cols = []string{t.Name}, cp.Value, []sqlexpr.ColRef{{Table: al.Table, Column: al.Column}}
		key := sqlshape.WhereKey(strings.ToLower(t.Name + ".count"))
		phrase := cp.Phrase + " " + em.Phrase
		el.add(2*al.Weight, func(p *Plan) {
			p.Derived = append(p.Derived, dj)
			p.use(t.Name)
			p.Phrases[key] = phrase
		})
		added = true
	}
	return added
}
