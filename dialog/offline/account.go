package offline

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Every word of a question is used by a reading, a function word, or
// reported: a reading that leaves a content word out must say so rather
// than answer a different question silently. The recognisers mark the
// words they consume; a reading explains a mention's words only when its
// SQL carries what the mention stands for (the column, the value, the
// table, the count). What is left is reported per reading.

// readingParts is what a reading holds, gathered from its typed plan and
// its join tree, for accounting: the values it compares with, the columns
// and tables it reads, the aggregates it computes and the clauses it has.
type readingParts struct {
	values map[string]bool // lower-case string literals and LIKE patterns
	// compared are the lower-case "table.column=value" a condition
	// compares a column with, equal or in a list.
	compared map[string]bool
	numbers  map[string]bool // numbers a condition compares with
	columns  map[string]bool // lower-case table.column read anywhere
	aggs     map[string]bool // SUM, COUNT, COUNT DISTINCT, MAX…
	tables   map[string]int  // lower-case table → how many times its rows are read or referred to
	read     map[string]bool // lower-case tables read anywhere (joins, subqueries)
	exprs    []expr          // every part, for computed measures
	// shown are the lower-case table.column the reading's output shows.
	shown map[string]bool
	// joined are the tables of the join tree.
	joined map[string]bool
	// joins: the reading joins tables (or grouped tables) in FROM.
	joins        bool
	order, group bool
	likeOrEqual  bool
	// like: some text is matched by a pattern, not compared whole.
	like bool
	wrap string
	// negated: some part of the reading says no, not or none (NOT
	// EXISTS, <>, NOT LIKE, IS NULL, NOT …).
	negated bool
	// counted are the tables whose rows a condition on how many each
	// subject has counts ("builders with more than 2 models").
	counted map[string]bool
}

// partsOf gathers a reading's parts over its join tree.
func (e *Engine) partsOf(p *plan.Plan, tree *catalog.JoinTree) *readingParts {
	rp := &readingParts{values: map[string]bool{}, compared: map[string]bool{}, numbers: map[string]bool{}, columns: map[string]bool{}, aggs: map[string]bool{},
		tables: map[string]int{}, read: map[string]bool{}, joined: map[string]bool{}, shown: map[string]bool{}, counted: map[string]bool{}, wrap: p.Wrap}
	for _, s := range p.Selects {
		for _, c := range columnsOf(s.X) {
			rp.shown[strings.ToLower(c.Table+"."+c.Column)] = true
		}
	}
	extremum, perGroup := extremes(p)
	xs := e.readingExprs(p, tree)
	rp.exprs = xs
	existsIn := e.exprParts(rp, xs)
	e.treeParts(rp, p, tree, existsIn)
	if extremum || perGroup {
		fn := "MIN"
		if p.Desc {
			fn = "MAX"
		}
		rp.aggs[fn] = true
	}
	rp.order = p.Order != nil && !extremum && !perGroup || p.Wrap == "change"
	if p.Wrap == "average" {
		rp.aggs["AVG"] = true // the average of the totals, around them
	}
	rp.group = rp.group || len(p.Groups) > 0
	e.referenceParts(rp, xs)
	return rp
}

// readingExprs lists every expression of a plan's output, groups, order and
// conditions, counts standing for the rows they count, so all are accounted.
func (e *Engine) readingExprs(p *plan.Plan, tree *catalog.JoinTree) []expr {
	var xs []expr
	for _, s := range p.Selects {
		xs = append(xs, e.counted(p, tree, s.X))
	}
	for _, g := range p.Groups {
		xs = append(xs, g.X)
	}
	if p.Order != nil {
		xs = append(xs, e.counted(p, tree, p.Order.X))
	}
	var conds []expr
	for _, f := range p.Filters {
		conds = append(conds, f.X)
	}
	for _, h := range p.Having {
		conds = append(conds, h.X)
	}
	xs = append(xs, conds...)
	return xs
}

// exprParts records what the expressions hold (columns, aggregates, values,
// numbers compared, negations, subqueries' tables) and returns the tables
// (NOT) EXISTS reads, whose references stand for other rows.
func (e *Engine) exprParts(rp *readingParts, xs []expr) []string {
	var existsIn []string
	for _, x := range xs {
		walk(x, func(v expr) bool {
			switch v := v.(type) {
			case colRef:
				rp.columns[strings.ToLower(v.Table+"."+v.Column)] = true
			case subquery:
				for _, c := range v.Cols {
					rp.columns[strings.ToLower(c.Table+"."+c.Column)] = true
				}
				rp.negated = rp.negated || negatesRows(v.Q)
			case aggExpr:
				name := v.Fn
				if v.Distinct {
					name += " DISTINCT"
				}
				rp.aggs[name] = true
			case strLit:
				rp.values[strings.ToLower(string(v))] = true
			case inList:
				for _, x := range v.Vals {
					rp.compare(v.X, x)
				}
			case binary:
				rp.binaryParts(v)
			case between:
				for _, b := range []expr{v.Lo, v.Hi} {
					if n, ok := b.(numLit); ok {
						rp.numbers[string(n)] = true
					}
				}
			case prefix:
				rp.negated = rp.negated || strings.EqualFold(v.Op, "NOT")
			case isNull:
				rp.negated = rp.negated || !v.Not
			case exists:
				rp.negated = rp.negated || v.Not
				for _, t := range v.Tables {
					rp.tables[strings.ToLower(t)]++
					existsIn = append(existsIn, strings.ToLower(t))
				}
				for _, c := range v.Cols {
					rp.columns[strings.ToLower(c.Table+"."+c.Column)] = true
				}
				for _, val := range v.Values {
					rp.values[strings.ToLower(val)] = true
				}
			case scalarSub:
				rp.tables[strings.ToLower(v.Table)]++
			}
			return true
		})
	}
	return existsIn
}

// negatesRows says whether a subquery keeps its rows by a negation: a
// NOT, an inequality, a missing value or related rows that do not exist.
func negatesRows(q selectQuery) bool {
	found := false
	for _, x := range append(append([]expr(nil), q.Where...), q.Having...) {
		walk(x, func(v expr) bool {
			switch v := v.(type) {
			case prefix:
				found = found || strings.EqualFold(v.Op, "NOT")
			case binary:
				found = found || v.Op == "<>" || v.Op == "!=" || strings.HasPrefix(strings.ToUpper(v.Op), "NOT")
			case isNull:
				found = found || !v.Not
			case exists:
				found = found || v.Not
			}
			return !found
		})
	}
	return found
}

// binaryParts records a comparison: the value compared with, the number, a
// negation, text matched whole or by a pattern.
func (rp *readingParts) binaryParts(v binary) {
	if v.Op == "=" {
		rp.compare(v.L, v.R)
	}
	rp.negated = rp.negated || v.Op == "<>" || v.Op == "!=" || strings.HasPrefix(strings.ToUpper(v.Op), "NOT")
	switch v.Op {
	case "=", "<>", "<", "<=", ">", ">=":
		if n, ok := v.R.(numLit); ok {
			rp.numbers[string(n)] = true
		}
		if _, ok := v.R.(strLit); ok && v.Op == "=" {
			rp.likeOrEqual = true
		}
	case "LIKE":
		rp.likeOrEqual = true
	}
	rp.like = rp.like || strings.HasSuffix(strings.ToUpper(v.Op), "LIKE")
}

// treeParts records the tables the join tree and (NOT) EXISTS read, the join
// columns and typed roles, and the counts of related rows conditions take.
func (e *Engine) treeParts(rp *readingParts, p *plan.Plan, tree *catalog.JoinTree, existsIn []string) {
	for _, t := range tree.Tables {
		rp.joined[strings.ToLower(t)] = true
		rp.tables[strings.ToLower(t)]++
	}
	for t := range p.Tables {
		rp.joined[t] = true
	}
	// "crews that never sailed ships": the rows a (NOT) EXISTS
	// reads refer to other tables' rows, which they stand for.
	for _, t := range existsIn {
		for _, j := range e.m.Snap.Schema.Joins {
			to := strings.ToLower(j.ToTable)
			if strings.EqualFold(j.FromTable, t) && to != t && !rp.joined[to] {
				rp.tables[to]++
			}
		}
	}
	rp.joins = len(tree.Tables) > 1 || len(p.Derived) > 0
	for _, edge := range tree.Edges {
		rp.columns[strings.ToLower(edge.FromTable+"."+edge.FromColumn)] = true
		rp.columns[strings.ToLower(edge.ToTable+"."+edge.ToColumn)] = true
		// A typed reference's role: "vans (owner type 2)".
		if w := edge.When; w != nil {
			rp.columns[strings.ToLower(edge.FromTable+"."+w.Column)] = true
			if _, err := strconv.ParseFloat(w.Value, 64); err == nil {
				rp.numbers[w.Value] = true
			} else {
				rp.values[strings.ToLower(w.Value)] = true
			}
		}
	}
	for _, d := range p.Derived {
		rp.aggs["COUNT"] = true
		rp.group = true
		rp.numbers[strconv.FormatFloat(d.Count, 'f', -1, 64)] = true
		for _, t := range d.Tables {
			rp.tables[strings.ToLower(t)]++
			rp.counted[strings.ToLower(t)] = true
		}
		for _, c := range d.Cols {
			rp.columns[strings.ToLower(c.Table+"."+c.Column)] = true
		}
	}
}

// referenceParts marks the tables read, then counts each table whose rows a
// referring column outside the joins stands for once more (a twin_town
// column holds a town).
func (e *Engine) referenceParts(rp *readingParts, xs []expr) {
	// Each column of another table that refers to a table's rows outside
	// the joins stands for those rows once more (a twin_town column holds
	// a town).
	refs := map[string]bool{}
	for _, x := range xs {
		for _, c := range columnsOf(x) {
			refs[strings.ToLower(c.Table+"."+c.Column)] = true
		}
	}
	for t, n := range rp.tables {
		rp.read[t] = n > 0
	}
	seen := map[string]bool{}
	for _, j := range e.m.Snap.Schema.Joins {
		ref := strings.ToLower(j.FromTable + "." + j.FromColumn)
		to := ref + ">" + strings.ToLower(j.ToTable)
		if strings.EqualFold(j.FromTable, j.ToTable) || seen[to] || !refs[ref] {
			continue
		}
		seen[to] = true
		rp.tables[strings.ToLower(j.ToTable)]++
	}
}

// compare records a column compared with a string.
func (rp *readingParts) compare(l, r expr) {
	c, ok := l.(colRef)
	s, ok2 := r.(strLit)
	if ok && ok2 {
		rp.compared[strings.ToLower(c.Table+"."+c.Column+"="+string(s))] = true
	}
}

// holds says whether the reading computes x somewhere.
func (rp *readingParts) holds(m *schema.Model, x expr) bool {
	for _, part := range rp.exprs {
		found := false
		walk(part, func(v expr) bool {
			found = found || plan.SameExpr(m, v, x)
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// spanIn says whether the reading measures a time span in the unit u
// (SECOND, MINUTE, HOUR, DAY…): TIMESTAMPDIFF in it, or DATEDIFF for days.
func (rp *readingParts) spanIn(u string) bool {
	switch u {
	case "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR":
	default:
		return false
	}
	found := false
	for _, part := range rp.exprs {
		walk(part, func(v expr) bool {
			if c, ok := v.(call); ok && len(c.Args) > 0 {
				k, isKey := c.Args[0].(keyword)
				found = found || c.Fn == "TIMESTAMPDIFF" && isKey && string(k) == u || c.Fn == "DATEDIFF" && u == "DAY"
			}
			return !found
		})
	}
	return found
}

// unitNotCompared looks at the thing named right after a comparison's
// number ("at least 3 towns", "over 20 bays"): the end of its mention when
// the reading neither compares one of its columns with the number nor
// counts its rows, else the end of the comparison. "Therapies with more
// least 3 towns" read as a length of at least 3 is not what was asked.
func (e *Engine) unitNotCompared(a *links.Analysis, p *plan.Plan, parts *readingParts, cp *links.CompMention) int {
	end := a.SpanOf(cp.At, cp.Phrase)
	if cp.KeyOf != nil || end >= len(a.Toks) || plan.CountedThings[a.Word(end)] || a.Toks[end-1].Break != 0 {
		return end
	}
	// "more than 3 boat models": past the schema's own subject.
	if e.planner.DomainWord(a.Word(end)) && end+1 < len(a.Toks) && a.Toks[end].Break == 0 {
		end++
	}
	n := strconv.FormatFloat(cp.Value, 'f', -1, 64)
	compared := map[string]bool{}
	for _, l := range comparedWith(p, n) {
		compared[strings.ToLower(l.Table+"."+l.Column)] = true
	}
	for _, em := range a.Entities {
		if em.At != end {
			continue
		}
		// Things named after a number are counted: a number of theirs
		// compared is no count of them ("fewer than three books" as
		// book_id < 3).
		for _, t := range em.Tables {
			if parts.counted[strings.ToLower(t.Name)] {
				return a.SpanOf(cp.At, cp.Phrase)
			}
		}
		return a.SpanOf(em.At, em.Phrase)
	}
	for _, cm := range a.Columns {
		if cm.At != end {
			continue
		}
		for _, al := range cm.Alts {
			if compared[strings.ToLower(al.Table+"."+al.Column)] || parts.counted[strings.ToLower(al.Table)] || al.Computed() {
				return a.SpanOf(cp.At, cp.Phrase)
			}
		}
		// The mention kept its likeliest columns; any column the words
		// find ("people" → population) may be the one compared.
		for _, h := range e.searchColumns(a, cm.Phrase) {
			if compared[strings.ToLower(h.Table+"."+h.Column)] {
				return a.SpanOf(cp.At, cp.Phrase)
			}
		}
		return cm.End
	}
	return a.SpanOf(cp.At, cp.Phrase)
}

// keyNouns name a row's identity next to a number: "a builder id over 2",
// "vehicle number 7" (countnouns.tsv).
var keyNouns = words.Set("identitynoun")

// onlyIdentityCompared says whether the reading compares the number of
// cp only with keys and references ("more than 3 boat models" read as
// builder_id > 3), which the question does not name: an identifier is no
// quantity, so the comparison is not what was asked.
func (e *Engine) onlyIdentityCompared(a *links.Analysis, p *plan.Plan, cp *links.CompMention) bool {
	if cp.KeyOf != nil {
		return false
	}
	// "a builder id over 2", "id 2 or above": the id is named next to it.
	for _, k := range []int{cp.At - 1, a.SpanOf(cp.At, cp.Phrase)} {
		if keyNouns[links.SingularOf(a.Word(k))] {
			return false
		}
	}
	n := strconv.FormatFloat(cp.Value, 'f', -1, 64)
	identity, other := false, false
	for _, l := range comparedWith(p, n) {
		t := e.m.ByName[strings.ToLower(l.Table)]
		if c := e.m.Column(l.Table, l.Column); t != nil && c != nil && e.m.IsKeyish(t.Def, c) {
			identity = true
		} else {
			other = true
		}
	}
	return identity && !other
}

// comparedWith are the columns the reading's conditions compare with the
// number n ("" for any number).
func comparedWith(p *plan.Plan, n string) []colRef {
	var out []colRef
	var conds []plan.Cond
	conds = append(append(conds, p.Filters...), p.Having...)
	for _, c := range conds {
		walk(c.X, func(x expr) bool {
			if b, ok := x.(binary); ok {
				l, lok := b.L.(colRef)
				if r, rok := b.R.(numLit); lok && rok && (n == "" || string(r) == n) {
					out = append(out, l)
				}
			}
			return true
		})
	}
	return out
}

// spanEnds are the columns the reading measures a time span between.
func (rp *readingParts) spanEnds() []colRef {
	var out []colRef
	for _, part := range rp.exprs {
		walk(part, func(v expr) bool {
			if c, ok := v.(call); ok && (c.Fn == "TIMESTAMPDIFF" || c.Fn == "DATEDIFF") {
				for _, arg := range c.Args {
					if r, ok := arg.(colRef); ok {
						out = append(out, r)
					}
				}
			}
			return true
		})
	}
	return out
}

// numberOfAt says whether "no. of", the abbreviation of "number of",
// starts at token i.
func numberOfAt(a *links.Analysis, i int) bool {
	return a.Word(i) == "no" && a.Word(i+1) == "of" && i < len(a.Toks) && a.Toks[i].Break == '.'
}

// splitVerbs say a measure is shown per group: "split by", "broken down by".
var splitVerbs = words.Set("split")

// unexplained lists the words of the question (not the feedback) that the
// reading does not account for, adjacent words joined into one phrase, in
// question order. A mention's words are explained when the reading's plan
// holds what the mention stands for: the value compared with, the column
// read, the table joined, the number compared, the count or aggregate.
func (e *Engine) unexplained(a *links.Analysis, p *plan.Plan, parts *readingParts) []string {
	ac := newWordAccount(a, p, parts)
	e.accountValues(ac)
	e.accountEntities(ac)
	e.accountColumns(ac)
	e.accountAroundEntities(ac)
	e.accountNamesAsked(ac)
	e.accountOrderAndPatterns(ac)
	e.accountTimes(ac)
	e.accountComparisons(ac)
	e.accountCountsAndAggregates(ac)
	e.accountWraps(ac)
	e.accountGroups(ac)
	e.accountShownCounts(ac)
	e.accountJoinRoles(ac)
	e.accountDefinedPhrases(ac)
	e.accountCaseInsensitive(ac)
	e.accountSpanUnits(ac)
	e.accountSplitVerbs(ac)
	e.accountExactMatch(ac)
	e.accountDistinct(ac)
	e.accountPresentation(ac)
	e.accountNegation(ac)
	e.accountExcludedRoles(ac)
	e.accountGeneric(ac)
	e.relationVerbs(a, parts, ac.explained, ac.claimed, ac.pending, ac.tableVerb, ac.mark)
	e.shownByKin(a, p, parts, ac.explained, ac.claimed, ac.mark)
	e.describedColumn(a, p, parts, ac.explained, ac.mark)
	return ac.unexplainedRuns()
}

// wordAccount is unexplained's ledger of the question's tokens, shared by
// the checks each kind of mention gets so that each check stays small.
type wordAccount struct {
	a     *links.Analysis
	p     *plan.Plan
	parts *readingParts
	// explained words are accounted for by the reading.
	explained []bool
	// A consumed word belongs to some recogniser; those with a mention are
	// checked, the rest (connectives of intents) count as explained
	// unless a mention claims them and is not realised.
	claimed []bool
	// pending column verbs are left for relationVerbs, which may find they
	// name the join taken.
	pending []bool
	// tableVerb marks a table's verb-like noun the reading does not read.
	tableVerb []bool
	// reported words are listed even when consumed or function words.
	reported []bool
	// period marks grouping periods ("in each year"), no function words.
	period map[int]bool
	// counts says the reading counts rows.
	counts bool
}

// newWordAccount starts the ledger of a reading with no word explained.
func newWordAccount(a *links.Analysis, p *plan.Plan, parts *readingParts) *wordAccount {
	n := len(a.Toks)
	return &wordAccount{
		a: a, p: p, parts: parts,
		explained: make([]bool, n),
		claimed:   make([]bool, n),
		pending:   make([]bool, n),
		tableVerb: make([]bool, n),
		reported:  make([]bool, n),
		period:    map[int]bool{},
		counts:    parts.aggs["COUNT"] || parts.aggs["COUNT DISTINCT"],
	}
}

// mark explains the words from..to (clipped to the question).
func (ac *wordAccount) mark(from, to int) {
	for k := max(from, 0); k < to && k < len(ac.explained); k++ {
		ac.explained[k] = true
	}
}

// claim records from..to as a mention's words, explained only when the
// reading realises the mention.
func (ac *wordAccount) claim(from, to int, realised bool) {
	for k := max(from, 0); k < to && k < len(ac.claimed); k++ {
		ac.claimed[k] = true
	}
	if realised {
		ac.mark(from, to)
	}
}

// unexplainedRuns joins the first clause's words nothing accounts for,
// adjacent ones into one phrase, in question order.
func (ac *wordAccount) unexplainedRuns() []string {
	a, explained, claimed, reported, period := ac.a, ac.explained, ac.claimed, ac.reported, ac.period
	var out []string
	var run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, strings.Join(run, " "))
			run = nil
		}
	}
	for i, t := range a.Toks {
		if t.Clause != 0 {
			break
		}
		covered := !reported[i] && (explained[i] || t.Used && !claimed[i] || links.IsFunctionWord(t) && !period[i])
		if covered {
			flush()
			continue
		}
		run = append(run, t.Raw)
	}
	flush()
	return out
}

// accountValues explains a value mention when the reading compares with one of its values.
func (e *Engine) accountValues(ac *wordAccount) {
	a, parts, claim := ac.a, ac.parts, ac.claim
	for _, vm := range a.Values {
		realised := false
		for _, al := range vm.Alts {
			v := strings.ToLower(al.Value)
			realised = realised || parts.values[v] || parts.values["%"+strings.ToLower(plan.LikeEscape(al.Value))+"%"]
		}
		claim(vm.At, a.SpanOf(vm.At, vm.Phrase), realised)
	}
}

// accountEntities explains a table mention when the reading holds an instance of it: a table said twice needs two.
func (e *Engine) accountEntities(ac *wordAccount) {
	a, p, parts, tableVerb, counts, claim := ac.a, ac.p, ac.parts, ac.tableVerb, ac.counts, ac.claim
	// "depots that supply depots that supply Leeds": each mention of a
	// table beyond the first needs another instance of it in the reading
	// (the table read again, or a column referring to it).
	type mentionKey struct {
		t    *schema.Table
		noun string
	}
	mentioned := map[mentionKey]int{}
	// "vans of each depot, listed with the name of the depot": a
	// singular noun said again after "the" is the thing already named,
	// no second instance of it.
	said := map[string]bool{}
	saidCounted := map[string]bool{}
	// "… for vans in the North depot? Show both vans and
	// drivers": a later sentence saying what to show names the things
	// already asked about, no new instance of them.
	saidAt := map[string]int{}
	for _, em := range a.Entities {
		realised := false
		for _, t := range em.Tables {
			// The join tree may bring the table in ("lent" → loans), or a
			// subquery read it.
			realised = realised || parts.joined[strings.ToLower(t.Name)] || parts.read[strings.ToLower(t.Name)]
		}
		if len(em.Tables) > 0 && realised && e.qualifiesColumn(a, em, parts) {
			// "book format", "the writer name": the table's noun says
			// whose column the reading reads; no instance of its own.
			claim(em.At, a.SpanOf(em.At, em.Phrase), true)
			continue
		}
		if len(em.Tables) > 0 {
			phrase := strings.ToLower(em.Phrase)
			k := mentionKey{em.Tables[0], links.SingularOf(phrase)}
			mentioned[k]++
			again := said[phrase] && links.SingularOf(phrase) == phrase && definite[a.Word(em.At-1)]
			// "the most loans … return the number of loans": a count
			// said again is the same count.
			counted := counts && countedAt(a, em.At)
			again = again || counted && saidCounted[phrase]
			first, ok := saidAt[k.noun]
			again = again || ok && plan.SentenceBreak(a, first, em.At) && !e.namesOwnColumn(a, em)
			realised = realised && (mentioned[k] <= max(parts.tables[strings.ToLower(k.t.Name)], 1) || again || p.Both)
			said[phrase] = said[phrase] || realised
			saidCounted[phrase] = saidCounted[phrase] || realised && counted
			if _, ok := saidAt[k.noun]; !ok && realised {
				saidAt[k.noun] = em.At
			}
		}
		claim(em.At, a.SpanOf(em.At, em.Phrase), realised)
		// "therapies offered by …" where therapy_offering is a table the reading
		// does not read: relationVerbs may find the verb only says how the
		// therapies have an attribute of their own.
		if w := a.Word(em.At); !realised && !strings.Contains(em.Phrase, " ") && e.words != nil && (e.words.MostlyVerb(w) || links.Participle(w)) {
			tableVerb[em.At] = true
		}
	}
}

// accountColumns explains a column mention when the reading reads, shows or measures the column.
func (e *Engine) accountColumns(ac *wordAccount) {
	a, p, parts, pending, claim := ac.a, ac.p, ac.parts, ac.pending, ac.claim
	for _, cm := range a.Columns {
		realised := false
		for _, al := range cm.Alts {
			if al.Computed() {
				realised = realised || parts.holds(e.m, al.X)
				continue
			}
			// A column that refers to other rows names the relation itself
			// ("towns twinned with Ashby" → twins.twin_town): reading its
			// table through the join uses it.
			key := strings.ToLower(al.Table + "." + al.Column)
			relation := e.m.JoinCols[key] && parts.joins && parts.joined[strings.ToLower(al.Table)]
			realised = realised || relation || parts.columns[key] || e.measuredBySibling(a, al, parts) || e.countsLabelAt(a, p, parts, al, cm.At) ||
				e.comparedCount(a, parts, al, cm.At)
		}
		// "… Return the district and the owner": a column a later
		// sentence asks to be shown is used only when shown.
		w := a.Word(cm.At)
		verb := strings.HasSuffix(w, "ed") || e.words != nil && e.words.MostlyVerb(w)
		if realised && !verb && plan.OutputSentence(a, cm.At) && !slices.ContainsFunc(cm.Alts, func(al links.ColAlt) bool {
			return al.Computed() || parts.shown[strings.ToLower(al.Table+"."+al.Column)]
		}) {
			realised = false
		}
		// A verb only comments or texts of tables the reading leaves alone
		// speak of is a word like any other.
		if realised || !cm.Described || slices.ContainsFunc(cm.Alts, func(al links.ColAlt) bool {
			return parts.joined[strings.ToLower(al.Table)] || parts.read[strings.ToLower(al.Table)]
		}) {
			claim(cm.At, cm.End, realised)
		}
		if !realised && cm.Verb {
			pending[cm.At] = true // relationVerbs may find it names the join taken
		}
	}
}

// accountAroundEntities explains words beside a realised table noun: row nouns, the schema's subject, a column named with it.
func (e *Engine) accountAroundEntities(ac *wordAccount) {
	a, parts, explained, mark := ac.a, ac.parts, ac.explained, ac.mark
	// "the trip records", "the death events": a noun for rows in general
	// after a table's noun names that table's rows.
	for _, em := range a.Entities {
		if end := a.SpanOf(em.At, em.Phrase); explained[em.At] && end < len(a.Toks) && rowNouns[a.Word(end)] && !a.Toks[end].Used {
			mark(end, end+1)
		}
	}
	// "how many boat models", "the boat builder": the schema's own subject
	// before a thing the reading reads.
	for _, em := range a.Entities {
		if end := a.SpanOf(em.At, em.Phrase); !explained[em.At] && end == em.At+1 && end < len(a.Toks) && explained[end] && a.Toks[em.At].Break == 0 && e.planner.DomainWord(a.Word(em.At)) {
			mark(em.At, end)
		}
	}
	// "the total depot amount of trips" read as van_trips.tot_depot_amt:
	// a table's noun and the column words after it may together name one
	// column of another table, which the reading reads.
	for _, em := range a.Entities {
		if end := a.SpanOf(em.At, em.Phrase); !explained[em.At] {
			for _, cm := range a.Columns {
				if cm.At == end && e.namedTogether(a, parts, em, cm) {
					mark(em.At, cm.End)
				}
			}
		}
	}
}

// accountNamesAsked reports a name asked for on its own when the reading shows no label, so a missing column is said.
func (e *Engine) accountNamesAsked(ac *wordAccount) {
	a, parts, reported := ac.a, ac.parts, ac.reported
	// "… Give me the description, drug id and name": a name asked for
	// on its own is some table's label, shown.
	for i := range a.Toks {
		if plan.IsNameWord(a.Word(i)) && (a.Word(i-1) == "and" || i > 0 && a.Toks[i-1].Break == ',') && plan.OutputSentence(a, i) && !e.showsLabel(a, parts) {
			reported[i] = true
		}
	}
}

// accountOrderAndPatterns explains an ordering or text pattern mention when the reading sorts or matches that pattern.
func (e *Engine) accountOrderAndPatterns(ac *wordAccount) {
	a, parts, claim := ac.a, ac.parts, ac.claim
	if om := a.Order; om != nil {
		claim(om.At, a.SpanOf(om.At, om.Phrase), parts.order)
	}
	for _, lm := range a.Likes {
		claim(lm.At, a.SpanOf(lm.At, lm.Phrase), parts.values[strings.ToLower(lm.Pattern)])
	}
}

// windowEnds say a window ending now holds its ends: "in the last 30 days,
// inclusive of today" (windows.tsv).
var windowEnds = words.Set("windowend")

// accountTimes explains a time mention, its event verb and its window's wording when the reading compares with its dates.
func (e *Engine) accountTimes(ac *wordAccount) {
	a, p, parts, mark, claim := ac.a, ac.p, ac.parts, ac.mark, ac.claim
	for _, tm := range a.Times {
		realised := tm.From != "" && parts.values[tm.From] || tm.To != "" && parts.values[tm.To] ||
			tm.Year != "" && parts.numbers[tm.Year]
		claim(tm.At, a.SpanOf(tm.At, tm.Phrase), realised)
		// "signed up in 2024", "hired in 2023": the verb names the event
		// whose date the condition is on.
		if from, ok := e.eventVerbBefore(a, tm.At, p); realised && ok {
			mark(from, tm.At)
		} else if k, ok := e.onlyEventBefore(a, parts, tm.At); realised && ok {
			mark(k, k+1)
		}
	}
	// "joined in the last 30 days, inclusive of today", "(inclusive of
	// 30 days ago)": a window ending now already holds its first day and today.
	for _, tm := range a.Times {
		if tm.Days == 0 || !(tm.From != "" && parts.values[tm.From]) {
			continue
		}
		for k := a.SpanOf(tm.At, tm.Phrase); k < len(a.Toks) && k < a.SpanOf(tm.At, tm.Phrase)+8 && a.Toks[k].Clause == tm.Clause; k++ {
			switch w := a.Word(k); {
			case windowEnds[w]:
				mark(k, k+1)
			case w == "days" || w == "day":
				if a.Word(k+1) == "ago" {
					mark(k, k+1)
				}
			}
		}
	}
}

// accountComparisons explains a number compared when the reading compares with it, and reports a unit or identity it misses.
func (e *Engine) accountComparisons(ac *wordAccount) {
	a, p, parts, reported, claim := ac.a, ac.p, ac.parts, ac.reported, ac.claim
	for _, cp := range a.Comps {
		end := a.SpanOf(cp.At, cp.Phrase)
		identity := e.onlyIdentityCompared(a, p, cp)
		unit := e.unitNotCompared(a, p, parts, cp)
		claim(cp.At, end, parts.numbers[strconv.FormatFloat(cp.Value, 'f', -1, 64)] && !identity && unit == end)
		for k := cp.At; (identity || unit > end) && k < max(end, unit); k++ {
			reported[k] = true
		}
	}
}

// aggregateNouns are an aggregate's own noun before "of": "the total
// amount of fines" (countnouns.tsv).
var aggregateNouns = words.Set("aggnoun")

// accountCountsAndAggregates explains count and aggregate words the reading computes; a count answered by a list is reported.
func (e *Engine) accountCountsAndAggregates(ac *wordAccount) {
	a, p, parts, reported, counts, mark, claim := ac.a, ac.p, ac.parts, ac.reported, ac.counts, ac.mark, ac.claim
	// "how many towns": a reading that counts no rows of the things
	// named right after and shows no number answers with a list; it leaves the question's
	// function words out, and says so. A count a column stores ("the
	// number of citations", "how many people live") is no table named.
	if a.Count && a.CountAt >= 0 {
		claim(a.CountAt, a.CountAt+2, counts)
		for k := a.CountAt; !counts && e.countsRowsOf(a, a.CountAt+2) && !e.showsNumber(p) && k < a.CountAt+2 && k < len(reported); k++ {
			reported[k] = true
		}
	}
	if a.Agg != "" && a.AggAt >= 0 {
		realised := parts.aggs[a.Agg] || a.Agg == "COUNT" && counts
		claim(a.AggAt, a.AggAt+1, realised)
		// "the total amount of deposit": the aggregate's own noun.
		if w := a.Word(a.AggAt + 1); realised && aggregateNouns[w] && a.Word(a.AggAt+2) == "of" {
			mark(a.AggAt+1, a.AggAt+2)
		}
	}
	for _, it := range a.AggList {
		if parts.aggs[it.Fn] {
			mark(it.At, it.At+1)
		}
	}
}

// accountWraps explains share, change and superlative mentions when the reading has the wrap, order or extreme they ask for.
func (e *Engine) accountWraps(ac *wordAccount) {
	a, p, parts, claim := ac.a, ac.p, ac.parts, ac.claim
	if sp := a.Share; sp != nil {
		claim(sp.At, sp.End, parts.wrap == "share")
	}
	if c := a.Change; c != nil {
		claim(c.At, c.End, parts.wrap == "change")
	}
	if s := a.Sup; s != nil {
		claim(s.At, a.SpanOf(s.At, s.Phrase), p.Order != nil || parts.aggs["MAX"] || parts.aggs["MIN"])
	}
}

// accountGroups explains grouping mentions when the reading groups, keeping periods out of the function words.
func (e *Engine) accountGroups(ac *wordAccount) {
	a, parts, period, mark, claim := ac.a, ac.parts, ac.period, ac.mark, ac.claim
	// "in each year": a period is no function word when it groups.
	for _, g := range a.Groups {
		claim(g.At, a.SpanOf(g.At, g.Phrase), parts.group)
		if g.TimeUnit != "" {
			period[g.At] = true
			if k, ok := e.onlyEventBefore(a, parts, g.At); parts.group && ok {
				mark(k, k+1)
			}
		}
	}
}

// countWords ask for a count to be shown: "and their counts"
// (countnouns.tsv).
var countWords = words.Set("countnoun")

// accountShownCounts explains "count" words when the reading shows a count.
func (e *Engine) accountShownCounts(ac *wordAccount) {
	a, counts, mark := ac.a, ac.counts, ac.mark
	// "and their counts": the reading shows a count.
	if counts {
		for i, t := range a.Toks {
			if countWords[t.Low] {
				mark(i, i+1)
			}
		}
	}
}

// accountJoinRoles explains a role word of a typed join the reading takes ("sent by users").
func (e *Engine) accountJoinRoles(ac *wordAccount) {
	a, parts, mark := ac.a, ac.parts, ac.mark
	// "sent by users": the role of a typed join the reading takes.
	for _, j := range e.m.Snap.Schema.Joins {
		if j.When == nil || !parts.columns[strings.ToLower(j.FromTable+"."+j.FromColumn)] {
			continue
		}
		for i, t := range a.Toks {
			if e.planner.RoleToken(t, plan.RoleWord(j.FromColumn)) {
				mark(i, i+1)
			}
		}
	}
}

// accountDefinedPhrases explains the phrases given a meaning, whose meaning the plan already holds.
func (e *Engine) accountDefinedPhrases(ac *wordAccount) {
	a, p, mark := ac.a, ac.p, ac.mark
	// Words given a meaning: the term, or the negated related table; and
	// those a stored count stands for.
	phrases := p.Covered
	for _, d := range p.Defines {
		phrases = append(phrases, d.Phrase)
	}
	for _, phrase := range phrases {
		for i := range a.Toks {
			if end := a.SpanOf(i, phrase); a.Phrase(i, end) == phrase {
				mark(i, end)
			}
		}
	}
}

// accountCaseInsensitive explains "case-insensitive", since the warehouse's text comparisons already are.
// insensitiveWords after "case" ask for what text comparisons already do:
// "title matches 'dune', case insensitive" (requests.tsv).
var insensitiveWords = words.Set("insensitive")

func (e *Engine) accountCaseInsensitive(ac *wordAccount) {
	a, parts, mark := ac.a, ac.parts, ac.mark
	// "case-insensitive": the warehouse's text comparisons already are.
	if parts.likeOrEqual {
		for i := range a.Toks {
			if a.Word(i) == "case" && insensitiveWords[a.Word(i+1)] {
				mark(i, i+2)
			}
		}
	}
}

// accountSpanUnits explains the unit a time span is measured in and the words naming the span's ends.
func (e *Engine) accountSpanUnits(ac *wordAccount) {
	a, parts, explained, mark := ac.a, ac.parts, ac.explained, ac.mark
	// "the average trip time in minutes": the unit the reading measures a
	// time span in.
	for i := range a.Toks {
		if u := strings.ToUpper(links.SingularOf(a.Word(i + 1))); a.Word(i) == "in" && parts.spanIn(u) {
			mark(i, i+2)
		}
		// "the time to arrival since departure" over departed_on: a word
		// after "since", "from" or "to" that names an end of the span.
		if w := a.Word(i + 1); (a.Word(i) == "since" || a.Word(i) == "from" || a.Word(i) == "to" || a.Word(i) == "until") && e.words != nil && i+1 < len(a.Toks) && !explained[i+1] {
			for _, c := range parts.spanEnds() {
				if slices.ContainsFunc(strings.Split(strings.ToLower(c.Column), "_"), func(n string) bool { return len(n) > 3 && e.words.RelatedTo(w, n) }) {
					mark(i, i+2)
				}
			}
		}
	}
}

// accountSplitVerbs explains the verb of a grouping ("split by") when the reading groups.
func (e *Engine) accountSplitVerbs(ac *wordAccount) {
	a, parts, mark := ac.a, ac.parts, ac.mark
	// "split by district", "broken down by model": the verb of a grouping
	// the reading groups by.
	if parts.group {
		for _, g := range a.Groups {
			by := g.At - 1
			if a.Word(by) != "by" {
				continue
			}
			switch {
			case splitVerbs[a.Word(by-1)]:
				mark(by-1, by)
			case a.Word(by-1) == "down" && splitVerbs[a.Word(by-2)]:
				mark(by-2, by)
			}
		}
	}
}

// accountExactMatch explains "exact match" wording when text is compared whole, by no pattern.
func (e *Engine) accountExactMatch(ac *wordAccount) {
	a, parts, mark := ac.a, ac.parts, ac.mark
	// "match names exactly", "exact match": text compared whole, by no
	// pattern, is matched exactly.
	if parts.likeOrEqual && !parts.like {
		for i := range a.Toks {
			switch w := a.Word(i); {
			case w == "exact" && strings.HasPrefix(a.Word(i+1), "match"):
				mark(i, i+2)
			case strings.HasPrefix(w, "match"):
				for k := i + 1; k < len(a.Toks) && k <= i+3; k++ {
					if a.Word(k) == "exactly" {
						mark(i, k+1)
						break
					}
				}
			}
		}
	}
}

// accountDistinct explains "distinct" words when the reading's rows are shown once anyway.
func (e *Engine) accountDistinct(ac *wordAccount) {
	a, p, parts, mark := ac.a, ac.p, ac.parts, ac.mark
	// "the distinct list of suppliers": rows that are not aggregates are
	// shown once, either by DISTINCT or because each has its own key.
	// "the different publishers and the number of writers with each":
	// groups are shown once too. "two different towns" is a count.
	if !p.Aggregated || len(p.Groups) > 0 || parts.aggs["COUNT DISTINCT"] {
		for i, t := range a.Toks {
			if read.DistinctWords[t.Low] && (i == 0 || !a.Toks[i-1].IsNum) {
				mark(i, i+1)
			}
		}
	}
}

// sortWords ask for the order the reading gives: "sorted by due date"
// (requests.tsv).
var sortWords = words.Set("sortword")

// accountPresentation explains words about how to show the result ("sort by", "as well").
func (e *Engine) accountPresentation(ac *wordAccount) {
	a, parts, mark := ac.a, ac.parts, ac.mark
	// "sort by age", "as well": how to show what the reading shows.
	for i, t := range a.Toks {
		switch {
		case parts.order && sortWords[t.Low]:
			mark(i, i+1)
		case t.Low == "well" && a.Word(i-1) == "as":
			mark(i, i+1)
		}
	}
}

// accountNegation reports negation words a reading without negation ignores, since it answers the opposite question.
func (e *Engine) accountNegation(ac *wordAccount) {
	a, p, parts, reported := ac.a, ac.p, ac.parts, ac.reported
	// "seasons with no injured players" read without any negation
	// answers the opposite question: the word is reported.
	if !parts.negated && len(p.Derived) == 0 {
		for i, t := range a.Toks {
			if t.Clause == 0 && !t.Used && negationWords[t.Low] && !numberOfAt(a, i) {
				reported[i] = true
			}
		}
	}
}

// accountExcludedRoles explains "not <role>" when the reading's typed join already excludes that role's table.
func (e *Engine) accountExcludedRoles(ac *wordAccount) {
	a, parts, reported, mark := ac.a, ac.parts, ac.reported, ac.mark
	// "sent by each member that is not staff": a reference typed by a
	// column the reading holds to one role's table excludes the others.
	for _, j := range e.m.Snap.Schema.Joins {
		if j.When == nil || !parts.columns[strings.ToLower(j.FromTable+"."+j.FromColumn)] || !parts.joined[strings.ToLower(j.ToTable)] {
			continue
		}
		for _, s := range e.m.Snap.Schema.Joins {
			if s.When == nil || !strings.EqualFold(s.FromTable, j.FromTable) || !strings.EqualFold(s.FromColumn, j.FromColumn) || s.When.Value == j.When.Value {
				continue
			}
			for _, em := range a.Entities {
				if !slices.ContainsFunc(em.Tables, func(t *schema.Table) bool { return strings.EqualFold(t.Name, s.ToTable) }) {
					continue
				}
				k := em.At - 1
				if determiners[a.Word(k)] {
					k--
				}
				if a.Word(k) == "not" {
					reported[k] = false
					mark(k, a.SpanOf(em.At, em.Phrase))
				}
			}
		}
	}
}

// accountGeneric explains unclaimed generic words that stand for something the reading holds.
func (e *Engine) accountGeneric(ac *wordAccount) {
	a, p, parts, claimed, mark := ac.a, ac.p, ac.parts, ac.claimed, ac.mark
	for k := range a.Toks {
		if !claimed[k] && e.genericStandsFor(a, p, parts, k) {
			mark(k, k+1)
		}
	}
}

// namedTogether says whether the table noun at token at and the column
// mention cm after it name, as one phrase, a column of another table the
// reading reads, whose own name holds the noun (tot_depot_amt for "depot
// amount"); a column of the noun's own table is qualifiesColumn's case.
func (e *Engine) namedTogether(a *links.Analysis, parts *readingParts, em *links.EntityMention, cm *links.ColMention) bool {
	noun := links.SingularOf(a.Word(em.At))
	hits := e.searchColumns(a, a.Phrase(em.At, cm.End))
	for _, h := range hits[:min(4, len(hits))] {
		if slices.ContainsFunc(em.Tables, func(t *schema.Table) bool { return strings.EqualFold(t.Name, h.Table) }) ||
			!slices.Contains(strings.Split(strings.ToLower(h.Column), "_"), noun) || !parts.columns[strings.ToLower(h.Table+"."+h.Column)] {
			continue
		}
		if slices.ContainsFunc(h.Matched, func(w string) bool { return w != a.Word(em.At) && strings.Contains(strings.ToLower(cm.Phrase), w) }) {
			return true
		}
	}
	return false
}

// measuredBySibling says whether a named thing's column (summit_name, a
// name) is measured by a number of its own table sharing its first word
// (summit_height) that the reading reads, in a question that ranks or
// asks how much: "the moor with the highest summit", "how tall is the
// summit of X".
func (e *Engine) measuredBySibling(a *links.Analysis, al links.ColAlt, parts *readingParts) bool {
	if a.Sup == nil && !asksHow(a) {
		return false
	}
	c := e.m.Column(al.Table, al.Column)
	t := e.m.ByName[strings.ToLower(al.Table)]
	if c == nil || t == nil || c.Kind() != warehouse.KindText {
		return false
	}
	first, _, ok := strings.Cut(strings.ToLower(c.Name), "_")
	if !ok || len(first) < 4 {
		return false
	}
	for _, m := range t.Measures {
		if f, _, _ := strings.Cut(strings.ToLower(m.Name), "_"); f == first && parts.columns[strings.ToLower(t.Name+"."+m.Name)] {
			return true
		}
	}
	return false
}

// asksHow says whether the question asks "how high", "how long"… of
// something.
func asksHow(a *links.Analysis) bool {
	for i := range a.Toks {
		if a.Word(i) == "how" && read.HowAdjectives[a.Word(i+1)] != "" {
			return true
		}
	}
	return false
}

// showsNumber says whether a reading shows a number: an aggregate, or a
// numeric column that is not a key.
func (e *Engine) showsNumber(p *plan.Plan) bool {
	for _, s := range p.Selects {
		switch x := s.X.(type) {
		case colRef:
			t := e.m.ByName[strings.ToLower(x.Table)]
			if c := e.m.Column(x.Table, x.Column); t != nil && c != nil && c.Kind() == warehouse.KindNumber && !e.m.IsKeyish(t.Def, c) {
				return true
			}
		default:
			return true // an aggregate or a computed figure
		}
	}
	return false
}

// countsRowsOf says whether a table is named at token k, or after a word
// asking for distinct things there ("how many different towns").
func (e *Engine) countsRowsOf(a *links.Analysis, k int) bool {
	if w := a.Word(k); read.DistinctWords[w] {
		k++
	}
	for _, em := range a.Entities {
		if em.At == k && len(em.Tables) > 0 {
			return true
		}
	}
	return false
}

// qualifiesColumn says whether an entity mention stands right before a
// mention of one of its table's columns that the reading reads, or of a
// value of it that the reading compares with.
func (e *Engine) qualifiesColumn(a *links.Analysis, em *links.EntityMention, parts *readingParts) bool {
	end := a.SpanOf(em.At, em.Phrase)
	for _, cm := range a.Columns {
		if cm.At != end {
			continue
		}
		for _, al := range cm.Alts {
			if !al.Computed() && strings.EqualFold(al.Table, em.Tables[0].Name) && parts.columns[strings.ToLower(al.Table+"."+al.Column)] {
				return true
			}
		}
	}
	// "member names": the table's noun before "name", and its label shown.
	if t := em.Tables[0]; t.Label != nil && plan.IsNameWord(a.Word(end)) && parts.columns[strings.ToLower(t.Name+"."+t.Label.Name)] {
		return true
	}
	// "the publishers of writers": the table's noun after "of" and its
	// column.
	of := em.At - 1
	if definite[a.Word(of)] {
		of--
	}
	if a.Word(of) == "of" {
		for _, cm := range a.Columns {
			if cm.End != of {
				continue
			}
			for _, al := range cm.Alts {
				if !al.Computed() && strings.EqualFold(al.Table, em.Tables[0].Name) && parts.columns[strings.ToLower(al.Table+"."+al.Column)] {
					return true
				}
			}
		}
	}
	// "book format ebook": the value after its column's name.
	for _, vm := range a.Values {
		if vm.At != end && (vm.At != end+1 || !a.Toks[end].Used) {
			continue
		}
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, em.Tables[0].Name) && parts.values[strings.ToLower(al.Value)] {
				return true
			}
		}
	}
	return false
}

// showsLabel says whether the reading shows a name: a column called a name
// or title, or a table's label no column mention asks for by its own name
// ("the description … and name" shows a description and no name).
func (e *Engine) showsLabel(a *links.Analysis, parts *readingParts) bool {
	for k := range parts.shown {
		t, c, _ := strings.Cut(k, ".")
		if strings.Contains(c, "name") || strings.Contains(c, "title") {
			return true
		}
		if info := e.m.ByName[t]; info != nil && info.Label != nil && strings.EqualFold(info.Label.Name, c) && info.Label.Kind() == warehouse.KindText && !e.m.IsKeyish(info.Def, info.Label) &&
			!slices.ContainsFunc(a.Columns, func(cm *links.ColMention) bool {
				return slices.ContainsFunc(cm.Alts, func(al links.ColAlt) bool { return strings.EqualFold(al.Table+"."+al.Column, k) })
			}) {
			return true
		}
	}
	return false
}

// countsLabelAt says whether the column al, named at token k after a
// counting phrase ("how many bike models" over model_range.model), is the label of the table whose
// rows the reading counts: counting the rows counts the things named.
func (e *Engine) countsLabelAt(a *links.Analysis, p *plan.Plan, parts *readingParts, al links.ColAlt, k int) bool {
	t := p.CountRows
	if t == nil {
		t = p.CountOf
	}
	if t == nil && parts.aggs["COUNT"] && parts.joined[strings.ToLower(al.Table)] {
		// COUNT(*) over a join counts the rows of the table no other
		// joined table refers to.
		t = e.m.ByName[strings.ToLower(al.Table)]
		for j := range parts.joined {
			if e.m.Refs[j][strings.ToLower(al.Table)] {
				t = nil
			}
		}
	}
	if t == nil || t.Label == nil || !strings.EqualFold(t.Name, al.Table) || !strings.EqualFold(t.Label.Name, al.Column) {
		return false
	}
	// "how many boat models": after the schema's own subject.
	return countedAt(a, k) || e.planner.DomainWord(a.Word(k-1)) && countedAt(a, k-1)
}

// comparedCount says whether the column al, named at token k right after
// a comparison's number ("more than 2 models", "over 3 boat models"), is
// the label of a table whose rows the reading counts per subject: the
// things counted.
func (e *Engine) comparedCount(a *links.Analysis, parts *readingParts, al links.ColAlt, k int) bool {
	t := e.m.ByName[strings.ToLower(al.Table)]
	if t == nil || t.Label == nil || !strings.EqualFold(t.Label.Name, al.Column) || !parts.counted[strings.ToLower(t.Name)] {
		return false
	}
	for _, cp := range a.Comps {
		end := a.SpanOf(cp.At, cp.Phrase)
		if end == k || end == k-1 && e.planner.DomainWord(a.Word(end)) {
			return true
		}
	}
	return false
}

// namesOwnColumn says whether a mention of a table comes right before its
// label ("shop names") or a mention of another of its columns: that is a
// column to show, which the mention alone does not account for.
func (e *Engine) namesOwnColumn(a *links.Analysis, em *links.EntityMention) bool {
	end := a.SpanOf(em.At, em.Phrase)
	if plan.IsNameWord(a.Word(end)) {
		return true
	}
	for _, cm := range a.Columns {
		if cm.At == end && slices.ContainsFunc(cm.Alts, func(al links.ColAlt) bool { return strings.EqualFold(al.Table, em.Tables[0].Name) }) {
			return true
		}
	}
	return false
}

// entityAt says whether token k is part of a mention of a table.
func (e *Engine) entityAt(a *links.Analysis, k int) bool {
	for _, em := range a.Entities {
		if em.At <= k && k < a.SpanOf(em.At, em.Phrase) && len(em.Tables) > 0 {
			return true
		}
	}
	return false
}

// realisedAt is the table (and, for a value, the column) the reading
// reads for the mention covering token k; "" when none does.
func (e *Engine) realisedAt(a *links.Analysis, parts *readingParts, k int) (table, column string) {
	for _, em := range a.Entities {
		if em.At > k || k >= a.SpanOf(em.At, em.Phrase) {
			continue
		}
		for _, t := range em.Tables {
			if n := strings.ToLower(t.Name); parts.joined[n] || parts.read[n] {
				return n, ""
			}
		}
	}
	for _, vm := range a.Values {
		if vm.At > k || k >= a.SpanOf(vm.At, vm.Phrase) {
			continue
		}
		for _, al := range vm.Alts {
			if parts.compared[strings.ToLower(al.Table+"."+al.Column+"="+al.Value)] {
				return strings.ToLower(al.Table), strings.ToLower(al.Column)
			}
		}
	}
	return "", ""
}

// onlyReference says whether the value at token ak is one of the column
// that is the only reference from the table named at token bk to another
// table: "roads that run through Ashby" compares roads.crosses, the one way
// a road refers to a town, so the verb names that reference.
func (e *Engine) onlyReference(a *links.Analysis, parts *readingParts, bk, ak int) bool {
	subject, _ := e.realisedAt(a, parts, bk)
	table, column := e.realisedAt(a, parts, ak)
	if column == "" || subject != table {
		return false
	}
	target := ""
	for _, j := range e.m.Snap.Schema.Joins {
		if strings.EqualFold(j.FromTable, table) && strings.EqualFold(j.FromColumn, column) && !strings.EqualFold(j.ToTable, table) {
			target = strings.ToLower(j.ToTable)
		}
	}
	return target != "" && e.edgesBetween(table, target) == 1
}

// shownByKin marks the words of the lexicon's family of a column the
// reading shows or orders by: "… sorted by applicants" over
// applications. The column's own words were found by
// the catalog; these
// are its derivations the catalog's stemming does not reach.
func (e *Engine) shownByKin(a *links.Analysis, p *plan.Plan, parts *readingParts, explained, claimed []bool, mark func(from, to int)) {
	if e.words == nil {
		return
	}
	var names []string
	add := func(column string) {
		for _, n := range strings.Split(strings.ToLower(column), "_") {
			if len(n) > 3 {
				names = append(names, n)
			}
		}
	}
	for k := range parts.shown {
		_, c, _ := strings.Cut(k, ".")
		add(c)
	}
	if p.Order != nil {
		for _, c := range columnsOf(p.Order.X) {
			add(c.Column)
		}
	}
	for i, t := range a.Toks {
		if t.Clause != 0 {
			break
		}
		if explained[i] || claimed[i] || links.IsFunctionWord(t) || t.IsNum || t.Quoted || len(t.Low) < 4 {
			continue
		}
		if slices.ContainsFunc(names, func(n string) bool { return e.kin(t.Low, n) }) {
			mark(i, i+1)
		}
	}
}

// anyArticles carry nothing of a column's comment or of a noun's
// neighbours: "the courier that delivered a tool" over a comment "Courier
// that delivered the tool" (articles.tsv).
var anyArticles = words.Set("anyarticle")

// describedColumn marks the nouns of the question that the comment of a
// column the reading shows, orders by or compares with a number uses to
// describe it: "the
// minimum time needed for a transfer at the clinic" over a column so
// described names no transfer of its own. Verbs are left: a comment
// listing stored states ("placed, shipped") is no reading of an event.
func (e *Engine) describedColumn(a *links.Analysis, p *plan.Plan, parts *readingParts, explained []bool, mark func(from, to int)) {
	// Word pairs of the comments, articles dropped: a word is the
	// comment's only with a neighbour it has there too ("before
	// discounts" is not said of a column "after discounts").
	pairs := map[[2]string]bool{}
	add := func(table, column string) {
		// A key's or a reference's comment names the things it refers
		// to ("the ward the clinic is held in"), no description.
		c, t := e.m.Column(table, column), e.m.ByName[strings.ToLower(table)]
		if c == nil || t == nil || e.m.IsKeyish(t.Def, c) || e.m.JoinCols[strings.ToLower(table+"."+column)] || len(strings.Fields(c.Comment)) < 4 {
			return
		}
		var seq []string
		for _, w := range strings.FieldsFunc(strings.ToLower(c.Comment), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if !anyArticles[w] {
				seq = append(seq, links.SingularOf(w))
			}
		}
		for k := 1; k < len(seq); k++ {
			pairs[[2]string{seq[k-1], seq[k]}] = true
		}
	}
	for k := range parts.shown {
		t, c, _ := strings.Cut(k, ".")
		add(t, c)
	}
	if p.Order != nil {
		for _, c := range columnsOf(p.Order.X) {
			add(c.Table, c.Column)
		}
	}
	// …or compares with a number ("more than 3 nurses" over a column
	// described as the nurses assigned).
	for _, l := range comparedWith(p, "") {
		add(l.Table, l.Column)
	}
	neighbour := func(i, step int) string {
		for k := i + step; k >= 0 && k < len(a.Toks); k += step {
			if w := a.Word(k); !anyArticles[w] {
				return links.SingularOf(w)
			}
		}
		return ""
	}
	for i, t := range a.Toks {
		if t.Clause != 0 {
			break
		}
		if explained[i] || links.IsFunctionWord(t) || t.IsNum || t.Quoted || len(t.Low) < 4 || e.words != nil && e.words.MostlyVerb(t.Low) || links.Participle(t.Low) {
			continue
		}
		w := links.SingularOf(t.Low)
		if pairs[[2]string{neighbour(i, -1), w}] || pairs[[2]string{w, neighbour(i, 1)}] {
			mark(i, i+1)
		}
	}
}

// kin says whether two words sharing a stem are of one family in the
// lexicon: related, or both derived from one verb ("applicants",
// "applications" from "apply").
func (e *Engine) kin(w, n string) bool {
	// One family shares a stem: "figure" is related to "name", but is no
	// word for a name column.
	if len(w) < 5 || len(n) < 5 || w[:4] != n[:4] {
		return false
	}
	if e.words.RelatedTo(w, n) {
		return true
	}
	for _, x := range e.words.Related(w) {
		if !strings.Contains(x, " ") && e.words.MostlyVerb(x) && e.words.RelatedTo(x, n) {
			return true
		}
	}
	return false
}

// subjectAt is where the question's subject is named: its first mention
// of a table in the main clause, or -1.
func (e *Engine) subjectAt(a *links.Analysis) int {
	for _, em := range a.Entities {
		if len(em.Tables) > 0 && a.Toks[em.At].Clause == 0 {
			return em.At
		}
	}
	return -1
}

// onlyEdge says whether the thing named at token bk and the question's
// subject (its first table named) are two tables with exactly one join
// between them in the schema, or (viaLink) one table of links between
// them, and the reading joins them by it.
func (e *Engine) onlyEdge(a *links.Analysis, parts *readingParts, bk int, viaLink bool) bool {
	if !parts.joins {
		return false
	}
	table, _ := e.realisedAt(a, parts, bk)
	subject := ""
	for _, em := range a.Entities {
		if len(em.Tables) > 0 && a.Toks[em.At].Clause == 0 {
			subject, _ = e.realisedAt(a, parts, em.At)
			break
		}
	}
	if table == "" || subject == "" || table == subject {
		return false
	}
	if e.edgesBetween(table, subject) == 0 {
		// "for each book, the members enjoying it": related through one
		// table of links, which the reading joins; a stranded preposition
		// ("which members does Tool C go to") leaves open which way.
		links := e.linkTables(table, subject)
		if !viaLink {
			return false
		}
		return len(links) == 1 && parts.joined[links[0]]
	}
	if e.edgesBetween(table, subject) != 1 {
		return false
	}
	for _, j := range e.m.Snap.Schema.Joins {
		if e.joinsBoth(j, table, subject) {
			return parts.columns[strings.ToLower(j.FromTable+"."+j.FromColumn)] && parts.columns[strings.ToLower(j.ToTable+"."+j.ToColumn)]
		}
	}
	return false
}

// saysWhichEdge says whether the verb at token i, between the things named
// at bk and ak, is no choice between joins: those two tables relate in one
// way only, or the join the reading takes is named by the verb or the
// preposition after it ("sail from" → from_port).
func (e *Engine) saysWhichEdge(a *links.Analysis, parts *readingParts, bk, ak, i int) bool {
	x, _ := e.realisedAt(a, parts, bk)
	y, _ := e.realisedAt(a, parts, ak)
	if x == "" || y == "" || x == y {
		return true
	}
	if e.edgesBetween(x, y) == 0 {
		// Related through a table of links: the verb chooses between
		// several ("authors who cited / wrote publications") unless it
		// names the one the reading takes.
		links := e.linkTables(x, y)
		if len(links) < 2 {
			return true
		}
		for _, l := range links {
			if !parts.joined[l] && !parts.read[l] {
				continue
			}
			for _, w := range strings.Split(l, "_") {
				if len(w) > 3 && e.words.RelatedTo(w, a.Word(i)) {
					return true
				}
			}
		}
		return false
	}
	if e.edgesBetween(x, y) < 2 {
		return true
	}
	for _, j := range e.m.Snap.Schema.Joins {
		if !e.joinsBoth(j, x, y) || !parts.columns[strings.ToLower(j.FromTable+"."+j.FromColumn)] || !parts.columns[strings.ToLower(j.ToTable+"."+j.ToColumn)] {
			continue
		}
		for _, w := range strings.Split(strings.ToLower(j.FromColumn), "_") {
			if w == a.Word(i+1) || len(w) > 3 && e.words.RelatedTo(w, a.Word(i)) {
				return true
			}
		}
	}
	return false
}

// ownAttribute says whether the thing named at token k is, in the reading,
// one column of the table named at token subject: a value compared with
// it, a pattern matched in it or the column itself read, where no other
// column of that table is a reading of the same words. A verb between the
// two ("depots run by the north district", "tours that cover the coast
// region") then only says how the thing has that attribute.
func (e *Engine) ownAttribute(a *links.Analysis, parts *readingParts, subject, k int) bool {
	if subject < 0 || k < 0 {
		return false
	}
	t, col := e.realisedAt(a, parts, subject)
	if t == "" || col != "" {
		return false
	}
	own := func(table, column string) bool {
		return strings.EqualFold(table, t) && parts.columns[strings.ToLower(table+"."+column)]
	}
	for _, vm := range a.Values {
		if vm.At > k || k >= a.SpanOf(vm.At, vm.Phrase) {
			continue
		}
		n, read := 0, false
		for _, al := range vm.Alts {
			if strings.EqualFold(al.Table, t) {
				n++
				read = read || parts.compared[strings.ToLower(al.Table+"."+al.Column+"="+al.Value)]
			}
		}
		return n == 1 && read
	}
	for _, lm := range a.Likes {
		if lm.At <= k && k < a.SpanOf(lm.At, lm.Phrase) {
			return lm.Table != "" && own(lm.Table, lm.Column) && parts.values[strings.ToLower(lm.Pattern)]
		}
	}
	for _, cm := range a.Columns {
		if cm.At > k || k >= cm.End {
			continue
		}
		n, read := 0, false
		for _, al := range cm.Alts {
			if !al.Computed() && strings.EqualFold(al.Table, t) {
				n++
				read = read || own(al.Table, al.Column)
			}
		}
		return n == 1 && read
	}
	return false
}

// joinsTwo says whether the things named at bk and at the verb's object
// (ok, or ak after a preposition) are two different tables the reading
// joins; a stranded verb (no object) is left to onlyEdge.
func (e *Engine) joinsTwo(a *links.Analysis, parts *readingParts, bk, ok, ak int, prep bool) bool {
	if prep {
		ok = ak
	}
	if ok < 0 || ok >= len(a.Toks) {
		return true
	}
	x, y := e.tableAt(a, parts, bk), e.tableAt(a, parts, ok)
	return parts.joins && x != "" && y != "" && x != y
}

// plainObject says whether only determiners and counting words stand
// between tokens from and to: "hold the north district", not "painted
// for storage", where the preposition leaves the verb's sense open.
func (e *Engine) plainObject(a *links.Analysis, from, to int) bool {
	for k := from; k < to; k++ {
		// "offers the largest number of bays": a count's "of".
		if !determiners[a.Word(k)] && !countingWords[a.Word(k)] && !copulaFillers[a.Word(k)] && (a.Word(k) != "of" || !countingWords[a.Word(k-1)]) {
			return false
		}
	}
	return true
}

// tableAt is the table the reading reads for the mention at token k: a
// table's, a value's, or a column's ("how many bike models" → model_range).
func (e *Engine) tableAt(a *links.Analysis, parts *readingParts, k int) string {
	if t, _ := e.realisedAt(a, parts, k); t != "" {
		return t
	}
	for _, cm := range a.Columns {
		if cm.At > k || k >= cm.End {
			continue
		}
		for _, al := range cm.Alts {
			if t := strings.ToLower(al.Table); !al.Computed() && parts.joined[t] {
				return t
			}
		}
	}
	return ""
}

// objectBetween says whether only function words and counting words
// ("the most", "number of", "largest") stand between tokens from and to.
func (e *Engine) objectBetween(a *links.Analysis, from, to int) bool {
	for k := from; k < to; k++ {
		if !links.IsFunctionWord(a.Toks[k]) && !countingWords[a.Word(k)] {
			return false
		}
	}
	return true
}

// onlyExists says whether the passive participle at token i, closing its
// clause ("how many recitals are planned", "how many looms are kept"),
// only says its subject's rows exist: nothing in the schema is named by
// the verb (no column, comment or table), so no reading could make more
// of it.
func (e *Engine) onlyExists(a *links.Analysis, parts *readingParts, i int) bool {
	w := a.Word(i)
	if !links.Participle(w) || i+1 < len(a.Toks) && a.Toks[i+1].Clause == a.Toks[i].Clause {
		return false
	}
	stems := read.VerbStems(w)
	for _, t := range e.m.Snap.Schema.Tables {
		for _, n := range strings.Split(strings.ToLower(t.Name), "_") {
			if len(n) > 3 && e.words.RelatedTo(w, n) || read.NamesVerb(n, stems) {
				return false
			}
		}
		for _, c := range t.Columns {
			if read.NamesVerb(c.Name+" "+c.Comment, stems) {
				return false
			}
		}
	}
	return len(parts.read)+len(parts.joined) > 0
}

// determiners come before a noun phrase, never right before its verb.
var determiners = words.Set("determiner")

// rowNouns name a table's rows in general.
var rowNouns = words.Set("rownoun")

// copulaFillers stand between a verb and what it says its subject is:
// "ended up being", "turned out to be", "ended up as".
var copulaFillers = words.Set("copulafiller")

// countingWords say how many of a thing, not which thing.
var countingWords = words.Set("counting")

// linkTables are the tables, other than x and y, whose rows refer to both.
func (e *Engine) linkTables(x, y string) []string {
	refs := e.m.Refs
	var out []string
	for _, name := range read.SortedNames(plan.ToSet(refs)) {
		if name != x && name != y && refs[name][x] && refs[name][y] {
			out = append(out, name)
		}
	}
	return out
}

// edgesBetween counts the schema's joins between two different tables,
// either way round.
func (e *Engine) edgesBetween(x, y string) int {
	n := 0
	for _, j := range e.m.Snap.Schema.Joins {
		if e.joinsBoth(j, x, y) {
			n++
		}
	}
	return n
}

func (e *Engine) joinsBoth(j warehouse.Join, x, y string) bool {
	return strings.EqualFold(j.FromTable, x) && strings.EqualFold(j.ToTable, y) || strings.EqualFold(j.FromTable, y) && strings.EqualFold(j.ToTable, x)
}

// negationWords say no; a reading with no negation leaves them out.
var negationWords = words.Set("negation")

// countSuperlatives count what follows: "most loans" (superlatives.tsv);
// numberCountNouns before "of" do: "number of loans" (countnouns.tsv).
var (
	countSuperlatives = words.Set("bycount")
	numberCountNouns  = words.Set("numbercount")
)

// countedAt says whether a counting phrase comes right before token k:
// "number of", "count of", "how many", "most", "fewest" (with "distinct"
// or "different" between).
func countedAt(a *links.Analysis, k int) bool {
	if w := a.Word(k - 1); read.DistinctWords[w] {
		k--
	}
	switch w := a.Word(k - 1); {
	case countSuperlatives[w]:
		return true
	case w == "many":
		return a.Word(k-2) == "how"
	case w == "of":
		return numberCountNouns[a.Word(k-2)]
	}
	return false
}

// definite are the words before a noun that point back at a thing
// already named.
var definite = words.Set("definite")

// relationVerbs marks the verbs that name the relation a reading joins:
// "vans that run between depots", "tools kept by members". A verb
// followed by a preposition, whose nearest content word before it and
// first content word after the preposition are both realised, is the
// join itself when the reading joins tables, or the reference when what
// follows is a value of the subject's one column referring to another
// table ("roads that run through Ashby"). A stranded verb ("what towns
// does the A1 run through") says nothing of which relation it names, so
// it is marked only where the thing before it and the question's subject
// relate in exactly one way, which the reading takes. A word some mention
// claims and the reading does not realise (a stored status "cancelled")
// is left to be reported too, unless it is pending: a verb linked to a
// column only through the lexicon ("produced" → make), which may name the
// join the reading takes instead.
func (e *Engine) relationVerbs(a *links.Analysis, parts *readingParts, explained, claimed, pending, tableVerb []bool, mark func(from, to int)) {
	if e.words == nil {
		return
	}
	for i := 1; i < len(a.Toks); i++ {
		t := a.Toks[i]
		if t.Clause != 0 {
			break
		}
		if explained[i] || claimed[i] && !pending[i] && !tableVerb[i] || links.IsFunctionWord(t) || t.IsNum || t.Quoted {
			continue
		}
		v, ok := e.verbAt(a, i, explained)
		if !ok {
			continue
		}
		// A pending verb names a join only between two tables the
		// reading joins ("models produced by makers"), never a thing's
		// own column ("cars produced with 8 cylinders").
		if pending[i] && !e.joinsTwo(a, parts, v.before, v.object, v.after, v.prep) {
			continue
		}
		if tableVerb[i] && e.tableVerbSaysOwn(a, parts, v, explained) || !tableVerb[i] && e.verbRelates(a, parts, v, explained) {
			mark(i, i+1)
		}
	}
	e.verbsOfNames(a, parts, explained, claimed, pending, mark)
}

// coordinators end a verb's reach: "the members enjoying it, and the
// name…" (connectives.tsv).
var coordinators = words.Set("coordinator")

// verbSite is a verb of the question between two explained things: the
// content word before it, the one after it (or after its preposition) and
// its object, past counting words and a comparison the reading holds.
type verbSite struct {
	at, before, after, object int
	prep                      bool // a relation preposition follows the verb
	compared                  bool // the object is reached past a comparison
	hasObject                 bool // a plain object, a few words away
}

// verbAt finds the verb site at i: a word after an explained thing that is
// mostly a verb (or a past participle, or often a verb right after a thing
// named).
func (e *Engine) verbAt(a *links.Analysis, i int, explained []bool) (verbSite, bool) {
	content := func(k int) bool { return !links.IsFunctionWord(a.Toks[k]) }
	v := verbSite{at: i, before: -1, after: -1}
	for k := i - 1; k >= 0; k-- {
		if content(k) {
			v.before = k
			break
		}
	}
	if v.before < 0 || !explained[v.before] {
		return v, false
	}
	// "in the united kingdom": after an article, a word is no verb;
	// "the depot that holds…": right after the thing, "that" is no
	// article.
	if determiners[a.Word(i-1)] && (a.Word(i-1) != "that" || v.before != i-2) {
		return v, false
	}
	// "canals flow through": right after the things named, a word that
	// is often a verb is one.
	w := a.Word(i)
	if !e.words.MostlyVerb(w) && !strings.HasSuffix(w, "ed") && (v.before != i-1 || !e.entityAt(a, v.before) || !e.words.OftenVerb(w)) {
		return v, false
	}
	v.prep = i+1 < len(a.Toks) && plan.RelationPreps[a.Word(i+1)]
	from := i + 1
	if v.prep {
		from = i + 2
	}
	for k := from; k < len(a.Toks) && a.Toks[k].Clause == 0; k++ {
		if content(k) {
			v.after = k
			break
		}
		// "the members enjoying it, and the name…": the verb
		// ends before what is coordinated with it.
		if coordinators[a.Word(k)] || a.Toks[k].Break != 0 {
			break
		}
	}
	// "crews that handled the most ships", "depots that do not
	// store any van": a verb and its object, a few function or
	// counting words away.
	v.object = v.after
	for v.object >= 0 && v.object < len(a.Toks) && (countingWords[a.Word(v.object)] || a.Word(v.object) == "of" && countingWords[a.Word(v.object-1)]) {
		v.object++
	}
	// "therapies running more than 7 sessions": past a comparison the
	// reading holds, to the thing it counts or measures.
	for _, cp := range a.Comps {
		if end := a.SpanOf(cp.At, cp.Phrase); cp.At > i && cp.At <= i+2 && explained[cp.At] && v.after >= 0 && v.after <= end {
			v.object, v.compared = end, true
		}
	}
	v.hasObject = !v.prep && v.after >= 0 && v.object < len(a.Toks) && (v.object <= i+5 || v.compared) && explained[v.object] &&
		(v.compared || e.objectBetween(a, i+1, v.object))
	return v, true
}

// tableVerbSaysOwn: a verb naming a table the reading leaves out
// ("offered" → offerings) is accounted for only where it says how the
// thing has its own attribute: by an agent that is one ("offered by the
// cardiology ward"), or after one, stranded ("how many therapies does
// each ward offer").
func (e *Engine) tableVerbSaysOwn(a *links.Analysis, parts *readingParts, v verbSite, explained []bool) bool {
	subject := e.subjectAt(a)
	return v.prep && a.Word(v.at+1) == "by" && v.after >= 0 && explained[v.after] && e.ownAttribute(a, parts, v.before, v.after) ||
		v.after < 0 && subject >= 0 && subject < v.before && e.ownAttribute(a, parts, subject, v.before)
}

// verbRelates: the verb says which join the reading takes between the
// things around it, that one thing refers to the other, that the thing
// is the only one of its kind joined, that it exists ("is stocked"), or
// that the thing has its object as its own attribute.
func (e *Engine) verbRelates(a *links.Analysis, parts *readingParts, v verbSite, explained []bool) bool {
	afterExplained := v.prep && v.after >= 0 && explained[v.after]
	switch {
	case v.hasObject && parts.joins && e.saysWhichEdge(a, parts, v.before, v.object, v.at):
	case v.hasObject && e.onlyReference(a, parts, v.before, v.object):
	case afterExplained && parts.joins && e.saysWhichEdge(a, parts, v.before, v.after, v.at):
	case afterExplained && e.onlyReference(a, parts, v.before, v.after):
	case v.after < 0 && e.onlyEdge(a, parts, v.before, !v.prep):
	case v.after < 0 && passiveAux[a.Word(v.at-1)] && e.onlyExists(a, parts, v.at):
	case v.hasObject && (v.compared || e.plainObject(a, v.at+1, v.object)) && e.ownAttribute(a, parts, v.before, v.object):
	case afterExplained && e.ownAttribute(a, parts, v.before, v.after):
	default:
		return false
	}
	return true
}

// verbsOfNames: "depots used for storage" read through usage_kind, "where
// is it situated" through a site column: a verb the lexicon relates to
// the name of a column or table the reading reads is what the reading
// does with it.
func (e *Engine) verbsOfNames(a *links.Analysis, parts *readingParts, explained, claimed, pending []bool, mark func(from, to int)) {
	var names []string
	for k := range parts.columns {
		_, c, _ := strings.Cut(k, ".")
		names = append(names, strings.Split(c, "_")...)
	}
	for k := range parts.joined {
		names = append(names, strings.Split(k, "_")...)
	}
	for i, t := range a.Toks {
		if t.Clause != 0 {
			break
		}
		if explained[i] || claimed[i] && !pending[i] || links.IsFunctionWord(t) || t.IsNum || t.Quoted {
			continue
		}
		w := a.Word(i)
		if !e.words.MostlyVerb(w) && !links.Participle(w) {
			continue
		}
		for _, n := range names {
			if len(n) > 3 && e.words.RelatedTo(w, n) {
				mark(i, i+1)
				break
			}
		}
	}
}
