package plan

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// A word the schema does not name that qualifies a subject — "active"
// plants, "new" customers, "big" orders — is not dropped: it becomes a
// decision among meanings built from the data (a status column's values,
// a window on a date, rows of a related table or none), which the dialog
// asks about and the person's answer defines for next time. Negations of
// a related table ("never ordered", "without refunds", "with no orders")
// are read as the absence of related rows.

// recentDays is the window of "recent" meanings offered for a term.
const recentDays = 90

// termMention is a phrase the schema does not name that qualifies the
// rows of subject.
type termMention struct {
	phrase  string
	at, end int
	subject *schema.Table
}

// existMention is "never ordered", "without refunds": the subject's rows
// that have no (or, not negated, some) rows of related.
type existMention struct {
	phrase  string
	at, end int
	subject *schema.Table
	related *schema.Table
	via     warehouse.Join // related.FromColumn → subject.ToColumn
	// hop, when set, leads from related to the table via starts from:
	// customers "that have reviews" through their orders.
	hop     *warehouse.Join
	negated bool
	// values qualify the related rows: "who have received transaction
	// alerts" looks for alerts of type 'transaction'.
	values []links.ValueAlt
	// maybe is a stored value that is also the clause's verb ("never
	// placed an order", 'placed' a status): the relation itself first,
	// the status a reading to ask about.
	maybe []links.ValueAlt
}

// smallWords are adjectives of smallness: their threshold is below average.
var smallWords = words.Set("small")

var haveWords = words.Set("have")

// relativeWords start a relative clause: "singers that have solos".
var relativeWords = words.Set("relative")

// stateWords name columns that hold a row's state, which is what most
// adjectives about rows ("active", "open", "new") are about.
var stateWords = words.Set("state")

// findTerms finds the unexplained words right before (or predicated of)
// an entity: "active plants", "plants that are active".
func (e *Builder) findTerms(a *links.Analysis) []*termMention {
	var out []*termMention
	for _, em := range a.Entities {
		if a.Toks[em.At].Clause != 0 {
			continue
		}
		// Words before the entity.
		start := em.At
		for start > 0 && termWord(a.Toks[start-1]) {
			start--
		}
		_, afterSuperlative := links.Superlatives[a.Word(start-1)]
		// "publishers print books": a verb between two things named is the
		// relation between them, not a quality of the second.
		relating := start > 0 && mentionCovers(a, start-1) && e.words != nil && e.words.MostlyVerb(a.Word(start))
		if start < em.At && !links.Negations[a.Word(start-1)] && !afterSuperlative && a.Word(start-1) != "how" && !relating {
			out = append(out, &termMention{phrase: a.Phrase(start, em.At), at: start, end: em.At, subject: em.Tables[0]})
			continue
		}
		// "plants that are active".
		end := a.SpanOf(em.At, em.Phrase)
		j := end
		if relativeWords[a.Word(j)] {
			j++
		}
		// "clinics good for children": a word judging the thing right
		// after it, before what it is judged for.
		if j == end && j < len(a.Toks) && termWord(a.Toks[j]) && gradingWord(a.Word(j)) && (j+1 == len(a.Toks) || a.Word(j+1) == "for" || RelationPreps[a.Word(j+1)]) {
			out = append(out, &termMention{phrase: a.Phrase(j, j+1), at: j, end: j + 1, subject: em.Tables[0]})
			continue
		}
		if beForms[a.Word(j)] {
			j++
			k := j
			for k < len(a.Toks) && termWord(a.Toks[k]) {
				k++
			}
			if k > j && j > end+1 {
				out = append(out, &termMention{phrase: a.Phrase(j, k), at: j, end: k, subject: em.Tables[0]})
			}
		}
	}
	return append(out, e.judgedValues(a, out)...)
}

// beForms link a thing to what is said of it: "plants that are
// active" (copulas.tsv).
var beForms = words.Set("beform")

// uniqueWords ask to count each thing once and say nothing of it:
// "distinct borrowers" (quantifiers.tsv).
var uniqueWords = words.Set("uniqueness")

// termWord: a word of the question no recogniser took and that carries
// meaning.
func termWord(t token.Token) bool {
	// "distinct users" asks to count each once; it says nothing of them.
	if t.Used || t.IsNum || t.Quoted || t.Clause != 0 || links.IsFunctionWord(t) || links.Negations[t.Low] || uniqueWords[t.Low] {
		return false
	}
	for _, r := range t.Low {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}

// findExistence reads "never ordered", "without refunds", "with no
// orders", "who have not ordered": a negation, then words naming a table
// whose rows point at the subject's.
func (e *Builder) findExistence(a *links.Analysis, subject *schema.Table) []*existMention {
	if subject == nil {
		return nil
	}
	var out []*existMention
	for i, t := range a.Toks {
		if t.Clause != 0 {
			continue
		}
		positive := e.existsSaid(a, i, subject)
		if !links.Negations[t.Low] && !positive {
			continue
		}
		// "have never been lent in any loans": a verb phrase may come
		// between the negation and the related rows.
		for j := i + 1; j < len(a.Toks) && j <= i+6; j++ {
			if a.Toks[j].IsNum || a.Toks[j-1].Break != 0 {
				break
			}
			x, ok := e.existsAt(a, subject, i, j)
			if !ok {
				continue
			}
			x.negated = !positive
			out = append(out, x)
			break
		}
	}
	return out
}

// existsSaid: "that have placed orders", "who had loans" (some rows), or a
// participle right after the subject, then a preposition and the rows it
// is used in ("forms used for claims", "tools listed in loans").
func (e *Builder) existsSaid(a *links.Analysis, i int, subject *schema.Table) bool {
	t := a.Toks[i]
	if relativeWords[t.Low] && haveWords[a.Word(i+1)] && !links.Negations[a.Word(i+2)] {
		return true
	}
	return i > 0 && (links.Participle(t.Low) || t.Low == "used") && !t.Used && mentionCovers(a, i-1) && read.TableNamed(e.reader, a, i-1) == subject &&
		(RelationPreps[a.Word(i+1)] || a.Word(i+1) == "for")
}

// existsAt reads the related rows named at j of an existence said at i:
// a table joined to the subject (not the subject itself), the last noun
// of a compound ("transaction alerts"), and the rest of its noun phrase
// ("customer reviews").
func (e *Builder) existsAt(a *links.Analysis, subject *schema.Table, i, j int) (*existMention, bool) {
	var related *schema.Table
	var via warehouse.Join
	var hop *warehouse.Join
	named := e.tablesNamed(a, j)
	for k, t := range named {
		// The word names the subject itself, or a value or column
		// of the table it names stands in the clause or right after
		// it ("do not own gold cards as members", "no players with fitness
		// injured"): only that table will do.
		if t == subject || k > 0 && (named[0] == subject || e.valueOfIn(a, named[0], i, j+5)) {
			continue
		}
		if v, h, ok := e.existsRoute(a, t, subject); ok {
			related, via, hop = t, v, h
			break
		}
	}
	if related == nil {
		return nil, false
	}
	for j+1 < len(a.Toks) && a.Toks[j].Break == 0 {
		next := read.TableNamed(e.reader, a, j+1)
		if next == nil || next == subject || next == related {
			break
		}
		v, h, ok := e.existsRoute(a, next, subject)
		if !ok {
			break
		}
		j, related, via, hop = j+1, next, v, h
	}
	end := j + 1
	for end < len(a.Toks) && end < j+3 && a.Toks[end-1].Break == 0 && !a.Toks[end].Used && !a.Toks[end].IsNum && !links.IsFunctionWord(a.Toks[end]) {
		end++
	}
	x := &existMention{phrase: a.Phrase(i, end), at: i, end: end, subject: subject, related: related, via: via, hop: hop}
	e.qualifyRelated(a, x, j)
	return x, true
}

// qualifyRelated takes the words of an existence clause before its noun
// (at j) that are stored values of the related rows as conditions on
// them: 'transaction' in "received transaction alerts", 'unread'
// in "without unread messages". A value mention found there leaves the
// outer query for the clause.
func (e *Builder) qualifyRelated(a *links.Analysis, x *existMention, j int) {
	has := func(al links.ValueAlt) bool { return strings.EqualFold(al.Table, x.related.Name) }
	ofSubject := func(al links.ValueAlt) bool { return strings.EqualFold(al.Table, x.subject.Name) }
	kept := a.Values[:0]
	for _, vm := range a.Values {
		if vm.At > x.at && vm.At < j && verbOfObject(a, vm.At, vm.Phrase) && slices.ContainsFunc(vm.Alts, has) {
			// "never placed an order": the verb is the relation itself,
			// the stored status of that name a reading beside it.
			a.Toks[vm.At].Used = true
			for _, al := range vm.Alts {
				if has(al) {
					x.maybe = append(x.maybe, al)
					break
				}
			}
			continue
		}
		if (vm.At > x.at && vm.At < j || e.qualifiesAfter(a, x, vm)) && slices.ContainsFunc(vm.Alts, has) && !slices.ContainsFunc(vm.Alts, ofSubject) {
			for _, al := range vm.Alts {
				if has(al) {
					x.values = append(x.values, al)
					break
				}
			}
			continue
		}
		kept = append(kept, vm)
	}
	a.Values = kept
	for k := x.at + 1; k < j; k++ {
		t := a.Toks[k]
		if t.IsNum || t.Quoted || links.IsFunctionWord(t) || verbOfObject(a, k, t.Raw) || slices.ContainsFunc(a.Values, func(vm *links.ValueMention) bool { return vm.At == k }) {
			continue
		}
		if al, ok := e.storedWordIn(t, x.related); ok && !slices.ContainsFunc(x.values, func(v links.ValueAlt) bool { return v.Column == al.Column }) {
			x.values = append(x.values, al)
			a.Toks[k].Used = true
			// A table's name used as a value names no table here.
			a.Entities = slices.DeleteFunc(a.Entities, func(em *links.EntityMention) bool { return em.At == k })
		}
	}
}

// eventShare is how likely the stored status reading of a verb is beside
// the verb as the relation ("never placed an order").
const eventShare = 0.35

// verbOfObject says whether the one word at k is a participle with an
// object after it ("never placed an order", "has not shipped any
// orders"): the verb of the relation, not a stored status 'placed' of
// its rows. "without cancelled orders" keeps the value: no article
// between.
func verbOfObject(a *links.Analysis, k int, phrase string) bool {
	if strings.Contains(phrase, " ") || !links.Participle(a.Word(k)) {
		return false
	}
	return objectArticles[a.Word(k+1)]
}

// objectArticles open the object of a verb: "patients who received a
// prescription" (articles.tsv).
var objectArticles = words.Set("objectarticle")

// qualifiesAfter says whether a value right after an existence clause's
// noun qualifies its rows: "did not write any book with format 'ebook'",
// "without books in ebook format" — a few words on, in the same clause,
// with no other thing named between.
func (e *Builder) qualifiesAfter(a *links.Analysis, x *existMention, vm *links.ValueMention) bool {
	if vm.At < x.end || vm.At > x.end+3 || vm.Negated {
		return false
	}
	for k := x.end - 1; k < vm.At; k++ {
		if a.Toks[k].Break != 0 || a.Toks[k].Clause != a.Toks[x.at].Clause {
			return false
		}
		if t := read.TableNamed(e.reader, a, k); t != nil && t != x.related && k >= x.end {
			return false
		}
	}
	return true
}

// storedWordIn finds a word as a value of one of t's text columns: the
// same word, or (with the lexicon) a derived form of it ("promotional"
// for 'promotion').
func (e *Builder) storedWordIn(w token.Token, t *schema.Table) (links.ValueAlt, bool) {
	for _, h := range e.m.Cat.SearchValues(w.Raw, 24) {
		if !strings.EqualFold(h.Table, t.Name) {
			continue
		}
		if c := e.m.Column(h.Table, h.Column); c == nil || c.Kind() != warehouse.KindText {
			continue
		}
		same := h.Match == catalog.Exact || h.Match == catalog.CaseInsensitive
		if same || e.words != nil && len(w.Low) > 3 && !strings.Contains(h.Value, " ") && e.words.RelatedTo(w.Low, strings.ToLower(h.Value)) {
			return links.ValueAlt{Table: h.Table, Column: h.Column, Value: h.Value, Weight: 1}, true
		}
	}
	return links.ValueAlt{}, false
}

// valueOfIn says whether a value or a column of table t is mentioned
// between tokens from and to.
func (e *Builder) valueOfIn(a *links.Analysis, t *schema.Table, from, to int) bool {
	for _, vm := range a.Values {
		if vm.At > from && vm.At < to && slices.ContainsFunc(vm.Alts, func(al links.ValueAlt) bool { return strings.EqualFold(al.Table, t.Name) }) {
			return true
		}
	}
	for _, cm := range a.Columns {
		if cm.At > from && cm.At < to && slices.ContainsFunc(cm.Alts, func(al links.ColAlt) bool { return strings.EqualFold(al.Table, t.Name) }) {
			return true
		}
	}
	return false
}

// tablesNamed are the tables word j may name, likeliest first: the one
// it names, then those whose name has it as one of its words
// ("hired" → hires, then hire_items, whose rows are what was
// hired of a tool; "no players" → players, then
// player_registrations).
func (e *Builder) tablesNamed(a *links.Analysis, j int) []*schema.Table {
	first := read.TableNamed(e.reader, a, j)
	if first == nil {
		return nil
	}
	out := []*schema.Table{first}
	terms := e.m.Cat.Terms(a.Toks[j].Raw)
	if len(terms) != 1 {
		return out
	}
	for _, name := range read.SortedNames(ToSet(e.m.ByName)) {
		t := e.m.ByName[name]
		if t != first && slices.Contains(e.m.Cat.NameTerms(t.Name), terms[0]) {
			out = append(out, t)
		}
	}
	return out
}

// joinTo finds a join from related's rows to subject's key; of several
// (a sender and a receiver), the one whose role the question names.
func (e *Builder) joinTo(a *links.Analysis, related, subject *schema.Table) (warehouse.Join, bool) {
	var joins []warehouse.Join
	for _, j := range e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, related.Name) && strings.EqualFold(j.ToTable, subject.Name) {
			joins = append(joins, j)
		}
	}
	if len(joins) == 0 {
		return warehouse.Join{}, false
	}
	return e.bestJoin(a, joins), true
}

// existsRoute finds how related's rows point at subject's: directly, or
// through one table both are joined to (reviews → orders → customers).
func (e *Builder) existsRoute(a *links.Analysis, related, subject *schema.Table) (warehouse.Join, *warehouse.Join, bool) {
	if via, ok := e.joinTo(a, related, subject); ok {
		return via, nil, true
	}
	joins := e.m.Snap.Schema.Joins
	for i := range joins {
		hop := joins[i]
		if !strings.EqualFold(hop.FromTable, related.Name) || strings.EqualFold(hop.ToTable, subject.Name) {
			continue
		}
		if mid := e.m.ByName[strings.ToLower(hop.ToTable)]; mid != nil {
			if via, ok := e.joinTo(a, mid, subject); ok {
				return via, &hop, true
			}
		}
	}
	// "members not part of any club": the subject's rows point at the
	// related one (members.club_id → clubs); read the other way.
	for _, j := range joins {
		if j.When == nil && strings.EqualFold(j.FromTable, subject.Name) && strings.EqualFold(j.ToTable, related.Name) {
			return warehouse.Join{FromTable: j.ToTable, FromColumn: j.ToColumn, ToTable: j.FromTable, ToColumn: j.FromColumn, Declared: j.Declared, Confidence: j.Confidence}, nil, true
		}
	}
	return warehouse.Join{}, nil, false
}

// definition is one meaning of a term: the condition on the subject's
// rows, its term for the ontology and its wording.
type definition struct {
	cond sqlexpr.Expr
	// parts, when set, are the conditions read from a person's words
	// (readdef.go), in place of cond.
	parts  *ReadParts
	def    dialog.Definition
	weight float64
}

// statedTerms finds the phrases the person defined in feedback ("active"
// answered with "ordered in the last 90 days") and reads those clauses as
// definitions, taking their words out of the other readings.
func (e *Builder) statedTerms(a *links.Analysis, terms []*termMention, head *schema.Table, now time.Time) ([]*termMention, map[*termMention]definition) {
	stated := map[*termMention]definition{}
	for clause, phrase := range a.About {
		var tm *termMention
		for _, t := range terms {
			if strings.EqualFold(t.phrase, phrase) {
				tm = t
			}
		}
		if tm == nil && head != nil {
			for i := range a.Toks {
				end := a.SpanOf(i, phrase)
				if a.Toks[i].Clause != 0 || !strings.EqualFold(a.Phrase(i, end), phrase) {
					continue
				}
				// Only words the schema does not name can be defined.
				unnamed := true
				for k := i; k < end; k++ {
					unnamed = unnamed && termWord(a.Toks[k])
				}
				if unnamed {
					tm = &termMention{phrase: a.Phrase(i, end), at: i, end: end, subject: head}
					terms = append(terms, tm)
					break
				}
			}
		}
		if tm == nil {
			continue
		}
		if d, ok := e.statedMeaning(a, tm, clause, now); ok {
			stated[tm] = d
		}
	}
	return terms, stated
}

// statedMeaning reads one feedback clause as the meaning of tm: related
// rows (or none) in a window, a window on the subject's own date, or a
// value of one of its columns.
func (e *Builder) statedMeaning(a *links.Analysis, tm *termMention, clause int, now time.Time) (definition, bool) {
	negated := false
	var related *schema.Table
	var via warehouse.Join
	for i, t := range a.Toks {
		if t.Clause != clause {
			continue
		}
		if links.Negations[t.Low] {
			negated = true
		}
		if related == nil {
			if rel := read.TableNamed(e.reader, a, i); rel != nil && rel != tm.subject {
				if j, ok := e.joinTo(a, rel, tm.subject); ok {
					related, via = rel, j
				}
			}
		}
	}
	days := 0
	for _, tmn := range a.Times {
		if tmn.Clause == clause && tmn.Days > 0 {
			days = tmn.Days
		}
	}
	drop := func() {
		a.Times = slices.DeleteFunc(a.Times, func(t *links.TimeMention) bool { return t.Clause == clause })
		a.Values = slices.DeleteFunc(a.Values, func(v *links.ValueMention) bool { return a.Toks[v.At].Clause == clause })
		a.Entities = slices.DeleteFunc(a.Entities, func(m *links.EntityMention) bool { return a.Toks[m.At].Clause == clause })
		a.Columns = slices.DeleteFunc(a.Columns, func(m *links.ColMention) bool { return m.Clause == clause })
	}
	if related != nil {
		d := e.existence(&existMention{phrase: tm.phrase, subject: tm.subject, related: related, via: via, negated: negated}, now, days)
		d.def.Stated = true
		drop()
		return d, true
	}
	if days > 0 && len(tm.subject.Dates) > 0 {
		c := tm.subject.Dates[0]
		term := ontology.Term{Kind: ontology.TermPredicate, Subject: tm.subject.Name, Column: strings.ToLower(tm.subject.Name + "." + c.Name), Op: "within", Days: days}
		drop()
		return definition{
			cond: sqlexpr.Cmp(sqlexpr.Col(tm.subject.Name, c.Name), ">=", sqlexpr.Str(now.AddDate(0, 0, -days).Format(time.DateOnly))),
			def:  dialog.Definition{Phrase: tm.phrase, Term: term, Label: fmt.Sprintf("%s in the last %d days", upper(e.columnWords(tm.subject, c)), days), Stated: true},
		}, true
	}
	for _, vm := range a.Values {
		if a.Toks[vm.At].Clause != clause {
			continue
		}
		for _, al := range vm.Alts {
			if !strings.EqualFold(al.Table, tm.subject.Name) {
				continue
			}
			c := e.m.Column(al.Table, al.Column)
			if c == nil {
				continue
			}
			d := e.valueMeaning(tm, c, []string{al.Value}, 1)
			d.def.Stated = true
			drop()
			return d, true
		}
	}
	return definition{}, false
}

// defineElements turns each term and existence mention into an element
// whose alternatives are its meanings.
func (r *reader) defineElements(now time.Time) []*element {
	var els []*element
	for _, tm := range r.terms {
		if d, ok := r.stated[tm]; ok {
			el := &element{name: "define"}
			el.add(1, func(p *Plan) {
				d.apply(p, tm.subject.Name)
				p.Defines = append(p.Defines, d.def)
			})
			els = append(els, el)
			continue
		}
		defs := r.e.meanings(r.a, tm, r.facts, now)
		if len(defs) == 0 {
			continue
		}
		el := &element{name: "define"}
		supported := false
		for _, d := range defs {
			supported = supported || d.weight >= 0.7
		}
		for _, d := range defs {
			el.add(d.weight, func(p *Plan) {
				d.apply(p, tm.subject.Name)
				p.Defines = append(p.Defines, d.def)
			})
		}
		// Leaving the word out stays a reading, said as such; when nothing
		// in the data resembles the word, it is as likely as any meaning.
		leaveOut := 0.05
		if !supported {
			leaveOut = 0.5
		}
		el.add(leaveOut, func(p *Plan) {})
		els = append(els, el)
	}
	for _, x := range r.exists {
		el := &element{name: "exists"}
		d := r.e.existence(x, now, 0)
		el.add(1, func(p *Plan) {
			p.Filters = append(p.Filters, Cond{X: d.cond})
			p.use(x.subject.Name)
			p.Defines = append(p.Defines, d.def)
		})
		if len(x.maybe) > 0 {
			y := *x
			y.values = append(slices.Clone(x.values), x.maybe...)
			ds := r.e.existence(&y, now, 0)
			el.add(eventShare, func(p *Plan) {
				p.Filters = append(p.Filters, Cond{X: ds.cond})
				p.use(x.subject.Name)
				p.Defines = append(p.Defines, ds.def)
			})
		}
		els = append(els, el)
	}
	return els
}

// meanings lists the candidate meanings of a term on its subject, most
// plausible first: values of the subject's few-valued text columns (one,
// or the two most alike), related rows (some, none, recent), and recent
// rows by the subject's own dates.
func (e *Builder) meanings(a *links.Analysis, tm *termMention, facts []ontology.Fact, now time.Time) []definition {
	t := tm.subject
	var out []definition
	for _, c := range t.Texts {
		if c == t.Key || c == t.Label || e.namedInQuestion(a, t, c) {
			continue
		}
		p := e.m.Profile(t.Name, c.Name)
		if p == nil || len(p.Top) < 2 || p.Distinct > 15 || p.Rows < 3 {
			continue
		}
		colSim := e.similarity(tm.phrase, c.Name+" "+c.Comment)
		for _, w := range e.m.Cat.NameTerms(c.Name) {
			if stateWords[w] {
				colSim += 0.3
				break
			}
		}
		var values []string
		for _, v := range p.Top {
			values = append(values, v.Value)
		}
		// Single values and likely sets, opposites left out (defsets.go).
		out = append(out, e.valueMeanings(tm, c, values, colSim)...)
	}
	for _, j := range e.m.Snap.Schema.Joins {
		if !strings.EqualFold(j.ToTable, t.Name) {
			continue
		}
		rel := e.m.ByName[strings.ToLower(j.FromTable)]
		if rel == nil || rel == t {
			continue
		}
		x := &existMention{phrase: tm.phrase, subject: t, related: rel, via: j}
		sim := e.similarity(tm.phrase, rel.Name)
		some := e.existence(x, now, 0)
		some.weight = 0.3 + sim
		out = append(out, some)
		if len(rel.Dates) > 0 {
			recent := e.existence(x, now, recentDays)
			recent.weight = 0.4 + sim
			out = append(out, recent)
		}
		x.negated = true
		none := e.existence(x, now, 0)
		none.weight = 0.1 + sim
		out = append(out, none)
	}
	// Thresholds on the subject's measures: above (or, for words of
	// smallness, below) their average — "big orders", "cheap products" —
	// a cut that holds on any data.
	size, small := 0.0, false
	for _, w := range strings.Fields(strings.ToLower(tm.phrase)) {
		if _, ok := read.HowAdjectives[w]; ok {
			size = 0.7
		}
		if smallWords[w] {
			size, small = 0.7, true
		}
	}
	// A word judging quality, where a column rates the subject, cuts that
	// rating and no other measure.
	judged := e.judgedMeanings(tm)
	out = append(out, judged...)
	for i, c := range moneyFirst(t.Measures) {
		if i == 2 || len(judged) > 0 {
			break
		}
		x := sqlexpr.Col(t.Name, c.Name)
		op, rel, words := "above average", ">", "above its average"
		if small {
			op, rel, words = "below average", "<", "below its average"
		}
		term := ontology.Term{Kind: ontology.TermPredicate, Subject: t.Name, Column: strings.ToLower(t.Name + "." + c.Name), Op: op}
		out = append(out, definition{
			cond:   sqlexpr.Cmp(x, rel, sqlexpr.ScalarSub{X: sqlexpr.AggOver("AVG", x), Table: t.Name}),
			def:    dialog.Definition{Phrase: tm.phrase, Term: term, Label: fmt.Sprintf("%s %s", upper(e.columnWords(t, c)), words)},
			weight: 0.15 + size/float64(i+1) + e.similarity(tm.phrase, c.Name+" "+c.Comment),
		})
	}
	for _, c := range t.Dates {
		term := ontology.Term{Kind: ontology.TermPredicate, Subject: t.Name, Column: strings.ToLower(t.Name + "." + c.Name), Op: "within", Days: recentDays}
		out = append(out, definition{
			cond:   sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), ">=", sqlexpr.Str(now.AddDate(0, 0, -recentDays).Format(time.DateOnly))),
			def:    dialog.Definition{Phrase: tm.phrase, Term: term, Label: fmt.Sprintf("%s in the last %d days", upper(e.columnWords(t, c)), recentDays)},
			weight: 0.2 + e.similarity(tm.phrase, c.Name+" "+c.Comment),
		})
	}
	// The person's own meaning of the word is always among the readings.
	for _, f := range facts {
		if f.Kind != ontology.KindDefinition || !strings.EqualFold(f.Phrase, tm.phrase) || !strings.EqualFold(f.Target.Choice.Subject, t.Name) {
			continue
		}
		if d, ok := e.fromTerm(tm, f.Target.Choice, f.Meaning, now); ok && !slices.ContainsFunc(out, func(o definition) bool { return o.def.Term.SQL() == d.def.Term.SQL() }) {
			d.weight = 1.5
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	// The same cut found twice ("above average" as a size and as a
	// judgement) is one meaning, at its likelier weight.
	seen := map[string]bool{}
	out = slices.DeleteFunc(out, func(d definition) bool {
		k := d.def.Term.SQL()
		dup := seen[k]
		seen[k] = true
		return dup
	})
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

// fromTerm rebuilds a remembered meaning as a condition on the subject.
func (e *Builder) fromTerm(tm *termMention, term ontology.Term, label string, now time.Time) (definition, bool) {
	t := tm.subject
	switch {
	case term.Kind == ontology.TermPredicate && term.Op == ReadOp:
		// The person's words, read again: a period stays relative.
		if len(term.Items) == 0 {
			return definition{}, false
		}
		rd, ok := e.readCondition(t.Name, term.Items[0], nil)
		if !ok {
			return definition{}, false
		}
		return definition{parts: rd.Parts, def: dialog.Definition{Phrase: tm.phrase, Term: term, Label: label}}, true
	case term.Kind == ontology.TermValues:
		_, col, _ := strings.Cut(term.Column, ".")
		c := t.Def.Column(col)
		if c == nil || len(term.Values) == 0 {
			return definition{}, false
		}
		d := e.valueMeaning(tm, c, term.Values, 1)
		return d, true
	case term.Kind == ontology.TermPredicate && (term.Op == "exists" || term.Op == "not exists"):
		rel := e.m.ByName[strings.ToLower(term.Related)]
		if rel == nil {
			return definition{}, false
		}
		via, hop, ok := e.existsRoute(nil, rel, t)
		if !ok {
			return definition{}, false
		}
		d := e.existence(&existMention{phrase: tm.phrase, subject: t, related: rel, via: via, hop: hop, negated: term.Op == "not exists"}, now, term.Days)
		return d, d.def.Term.SQL() == term.SQL()
	case term.Kind == ontology.TermPredicate && (term.Op == "above average" || term.Op == "below average"):
		_, name, _ := strings.Cut(term.Column, ".")
		c := t.Def.Column(name)
		if c == nil {
			return definition{}, false
		}
		q, rel := sqlexpr.Col(t.Name, c.Name), ">"
		if term.Op == "below average" {
			rel = "<"
		}
		return definition{
			cond: sqlexpr.Cmp(q, rel, sqlexpr.ScalarSub{X: sqlexpr.AggOver("AVG", q), Table: t.Name}),
			def:  dialog.Definition{Phrase: tm.phrase, Term: term, Label: label},
		}, true
	case term.Kind == ontology.TermPredicate && (term.Op == ">" || term.Op == "<") && len(term.Values) == 1:
		_, name, _ := strings.Cut(term.Column, ".")
		c := t.Def.Column(name)
		if c == nil || c.Kind() != warehouse.KindNumber {
			return definition{}, false
		}
		if _, err := strconv.ParseFloat(term.Values[0], 64); err != nil {
			return definition{}, false
		}
		return definition{
			cond: sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), term.Op, sqlexpr.Num(term.Values[0])),
			def:  dialog.Definition{Phrase: tm.phrase, Term: term, Label: label},
		}, true
	case term.Kind == ontology.TermPredicate && term.Op == "within":
		_, name, _ := strings.Cut(term.Column, ".")
		c := t.Def.Column(name)
		if c == nil || term.Days <= 0 {
			return definition{}, false
		}
		return definition{
			cond: sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), ">=", sqlexpr.Str(now.AddDate(0, 0, -term.Days).Format(time.DateOnly))),
			def:  dialog.Definition{Phrase: tm.phrase, Term: term, Label: label},
		}, true
	}
	return definition{}, false
}

// namedInQuestion says whether the question already names a value of
// the column or the column itself: then the term means something else.
func (e *Builder) namedInQuestion(a *links.Analysis, t *schema.Table, c *warehouse.Column) bool {
	same := func(table, column string) bool {
		return strings.EqualFold(table, t.Name) && strings.EqualFold(column, c.Name)
	}
	for _, vm := range a.Values {
		for _, al := range vm.Alts {
			if same(al.Table, al.Column) {
				return true
			}
		}
	}
	for _, cm := range a.Columns {
		for _, al := range cm.Alts {
			if same(al.Table, al.Column) {
				return true
			}
		}
	}
	return false
}

func (e *Builder) valueMeaning(tm *termMention, c *warehouse.Column, values []string, w float64) definition {
	t := tm.subject
	x := sqlexpr.Col(t.Name, c.Name)
	term := ontology.Term{Kind: ontology.TermValues, Subject: t.Name, Column: strings.ToLower(t.Name + "." + c.Name), Op: "=", Values: values}
	var cond sqlexpr.Expr = sqlexpr.Cmp(x, "=", sqlexpr.Str(values[0]))
	label := fmt.Sprintf("%s is %s", upper(e.columnWords(t, c)), values[0])
	if len(values) > 1 {
		term.Op = "in"
		var q []sqlexpr.Expr
		for _, v := range values {
			q = append(q, sqlexpr.Str(v))
		}
		cond = sqlexpr.InList{X: x, Vals: q}
		label = fmt.Sprintf("%s is %s", upper(e.columnWords(t, c)), strings.Join(values, " or "))
	}
	return definition{cond: cond, def: dialog.Definition{Phrase: tm.phrase, Term: term, Label: label}, weight: w}
}

// existence is the condition "has (no) related rows [in the last days]".
func (e *Builder) existence(x *existMention, now time.Time, days int) definition {
	j := x.via
	from := sqlexpr.From{First: sqlexpr.Source{Table: j.FromTable}}
	joins := []ontology.Join{{Left: strings.ToLower(j.FromTable + "." + j.FromColumn), Right: strings.ToLower(j.ToTable + "." + j.ToColumn)}}
	if h := x.hop; h != nil {
		on := sqlexpr.And(sqlexpr.Cmp(sqlexpr.Col(h.FromTable, h.FromColumn), "=", sqlexpr.Col(h.ToTable, h.ToColumn)), e.WhenExpr(*h))
		from = sqlexpr.From{First: sqlexpr.Source{Table: h.FromTable}, Joins: []sqlexpr.Join{{To: sqlexpr.Source{Table: h.ToTable}, On: on}}}
		joins = append([]ontology.Join{{Left: strings.ToLower(h.FromTable + "." + h.FromColumn), Right: strings.ToLower(h.ToTable + "." + h.ToColumn)}}, joins...)
	}
	sub := sqlexpr.Select{Selects: []sqlexpr.Expr{sqlexpr.Num("1")}, From: from, Where: []sqlexpr.Expr{sqlexpr.Cmp(sqlexpr.Col(j.FromTable, j.FromColumn), "=", sqlexpr.Col(j.ToTable, j.ToColumn))}}
	if w := e.WhenExpr(j); w != nil {
		sub.Where = append(sub.Where, w)
	}
	var quals []string
	cols := []sqlexpr.ColRef{sqlexpr.Col(j.FromTable, j.FromColumn), sqlexpr.Col(j.ToTable, j.ToColumn)}
	if j.When != nil {
		cols = append(cols, sqlexpr.Col(j.FromTable, j.When.Column))
	}
	for _, v := range x.values {
		sub.Where = append(sub.Where, sqlexpr.Cmp(sqlexpr.Col(v.Table, v.Column), "=", sqlexpr.Str(v.Value)))
		quals = append(quals, v.Value)
		cols = append(cols, sqlexpr.Col(v.Table, v.Column))
	}
	op, verb := "exists", "Has at least one"
	if x.negated {
		op, verb = "not exists", "Has no"
	}
	term := ontology.Term{Kind: ontology.TermPredicate, Subject: x.subject.Name, Related: x.related.Name, Op: op, Joins: joins}
	noun := links.SingularOf(Humanize(x.related.Name))
	if x.negated {
		noun = Humanize(x.related.Name)
	}
	if len(quals) > 0 {
		noun = strings.Join(quals, " ") + " " + noun
	}
	label := verb + " " + noun
	if days > 0 && len(x.related.Dates) > 0 {
		d := x.related.Dates[0]
		sub.Where = append(sub.Where, sqlexpr.Cmp(sqlexpr.Col(x.related.Name, d.Name), ">=", sqlexpr.Str(now.AddDate(0, 0, -days).Format(time.DateOnly))))
		term.Column, term.Days = strings.ToLower(x.related.Name+"."+d.Name), days
		label = fmt.Sprintf("%s %s in the last %d days", verb, links.SingularOf(Humanize(x.related.Name)), days)
	}
	tables := []string{j.FromTable}
	if h := x.hop; h != nil {
		tables = []string{h.FromTable, h.ToTable}
	}
	return definition{cond: sqlexpr.Exists{Not: x.negated, Sub: sub, Tables: tables, Values: quals, Cols: cols}, def: dialog.Definition{Phrase: x.phrase, Term: term, Label: label}, weight: 1}
}

// columnWords is how a column is called in options: its name in words
// when that is short ("status"), else its short comment.
func (e *Builder) columnWords(t *schema.Table, c *warehouse.Column) string {
	if name := Humanize(c.Name); len(strings.Fields(name)) <= 2 && len(name) >= 4 {
		return name
	}
	if c.Comment != "" {
		short := c.Comment
		if i := strings.IndexAny(short, ":;(,"); i > 0 {
			short = short[:i]
		}
		if n := len(strings.Fields(short)); n > 0 && n <= 5 {
			return strings.TrimSpace(short)
		}
	}
	return Humanize(c.Name)
}

// similarity is how much a term and a text share: the same stem, a long
// common prefix ("operating" and "Operational"), or a synonym.
func (e *Builder) similarity(term, text string) float64 {
	best := 0.0
	tw := e.m.Cat.Terms(term)
	for _, w := range e.m.Cat.Terms(text) {
		for _, t := range tw {
			switch {
			case w == t:
				best = max(best, 1)
			case commonPrefix(w, t) >= 5:
				best = max(best, 0.8)
			case slices.Contains(e.m.Cat.Synonyms(t), w) || slices.Contains(e.m.Cat.Synonyms(w), t):
				best = max(best, 0.6)
			}
		}
	}
	if e.words != nil && best < 0.8 {
		// Unstemmed words: the lexicon lemmatises them itself.
		notLetter := func(r rune) bool { return !unicode.IsLetter(r) }
		for _, w := range strings.FieldsFunc(strings.ToLower(text), notLetter) {
			for _, t := range strings.FieldsFunc(strings.ToLower(term), notLetter) {
				if len(t) > 2 && len(w) > 2 && e.words.RelatedTo(t, w) {
					best = max(best, 0.8)
				}
			}
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Humanize turns an identifier into words.
func Humanize(id string) string { return tables.Humanize(id) }

func upper(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// mentionCovers says whether token k is part of a mention of a table or a
// column.
func mentionCovers(a *links.Analysis, k int) bool {
	for _, em := range a.Entities {
		if em.At <= k && k < a.SpanOf(em.At, em.Phrase) {
			return true
		}
	}
	for _, cm := range a.Columns {
		if cm.At <= k && k < cm.End {
			return true
		}
	}
	return false
}
