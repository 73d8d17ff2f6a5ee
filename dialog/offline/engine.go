package offline

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Options tune the engine.
type Options struct {
	// Now anchors relative dates ("last year").
	Now func() time.Time
	// Words tells ordinary English words from names (connectors/lexicon);
	// without it every stored value a word matches counts as meant.
	Words  Words
	Logger *slog.Logger
}

// Words is what the engine asks an English lexicon (see links.Words).
type Words = links.Words

// Engine is the offline interpreter. It is safe for concurrent use.
type Engine struct {
	m       *schema.Model
	reader  *links.Reader
	planner *plan.Builder
	words   Words
	now     func() time.Time
	log     *slog.Logger
	name    string
}

var _ dialog.Engine = (*Engine)(nil)

// New indexes the catalog's schema for interpretation.
func New(cat *catalog.Catalog, opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := schema.New(cat)
	r := links.NewReader(m, opts.Words)
	e := &Engine{m: m, reader: r, planner: plan.NewBuilder(m, opts.Words, r, opts.Now), now: opts.Now, words: opts.Words, log: opts.Logger, name: "offline"}
	e.planner.SetConditions(e.readCondition)
	return e
}

// Name is "offline".
func (e *Engine) Name() string { return e.name }

// Candidates interprets the question and its feedback and enumerates the
// readings as SQL, most likely first.
func (e *Engine) Candidates(ctx context.Context, req dialog.Request) (*dialog.Proposal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := read.Analyse(e.reader, req.Question, req.Feedback, req.Facts, e.now())
	plans := e.planner.Readings(a, req.Widen, req.Facts)
	byKey := map[string]int{}
	var out []dialog.Candidate
	var uncovered []int // per candidate: the question's words it does not account for
	var total float64
	for _, p := range plans {
		p = withoutRemoved(a, e.m, p)
		trees, err := e.m.Cat.JoinPaths(2+req.Widen, p.TableList()...)
		if err != nil {
			continue
		}
		best := trees[0].Cost
		for _, rt := range e.roleVariants(a, trees) {
			tree := rt.tree
			cost, edges := tree.Cost, len(tree.Edges)
			// Only routes nearly as direct as the best are readings; a
			// detour through a shared attribute ("customers and orders of
			// the same state") is a different, rarely meant question that
			// also multiplies rows.
			if cost > best+0.6 || edges > len(trees[0].Edges)+1 {
				continue
			}
			w := p.Weight * rt.weight / (1 + 2*(cost-best))
			if e.pinned(p, tree) {
				w *= pinnedPenalty
			}
			for _, g := range e.atGrain(p, tree) {
				p, tree, w := g.p, g.tree, w*g.weight
				if typedUnaggregated(a, e.m, p) {
					continue
				}
				if rankedWithoutGroups(p) {
					// "the id and title of the book with the most
					// chapters": rank each shown thing, never fold them all.
					if p = e.groupShownRows(p); p == nil {
						continue
					}
				}
				if p.Distinct && p.DistinctForJoins && !e.repeatsShown(p, tree) {
					// "the chapter headings of Book 09": each chapter
					// has one book, so no join repeats a chapter; two
					// chapters with one heading are two rows.
					p = p.Clone()
					p.Distinct = false
				}
				if q := bothRows(a, e.m, p); q != nil {
					p = q
				}
				if plan.Contradicts(e.m, p) {
					continue // no row can meet it: never proposed
				}
				if x := tieBreak(a, e.m, p); x != nil {
					p = p.Clone()
					p.ThenBy = &plan.Sel{X: x}
				}
				sql := e.render(p, tree)
				if i, ok := byKey[sql]; ok {
					out[i].Prior += w
					total += w
					continue
				}
				byKey[sql] = len(out)
				phrases := map[sqlshape.SlotKey]string{}
				for k, v := range p.Phrases {
					phrases[k] = v
				}
				if len(trees) > 1 && p.HeadPhrase != "" {
					phrases[keyTables] = p.HeadPhrase
				}
				parts := e.partsOf(p, tree)
				unused := e.unexplained(a, p, parts)
				c := dialog.Candidate{SQL: sql, Prior: w, Phrases: phrases, Unused: unused, Defines: withTyped(a, e.m, p.Defines, parts), Linked: linkedIn(a, e.m, parts)}
				if g.counts != nil {
					c.Readings = []dialog.Reading{*g.counts}
				}
				out = append(out, c)
				uncovered = append(uncovered, wordCount(unused)+weakRealised(a, parts)+guessedDefined(p))
				total += w
			}
		}
	}
	if len(out) == 0 {
		return &dialog.Proposal{}, nil
	}
	coverageWeights(out, uncovered)
	total = 0
	for _, c := range out {
		total += c.Prior
	}
	for i := range out {
		out[i].Prior /= total
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Prior > out[j].Prior })
	if len(out) > 48 {
		out = out[:48]
	}
	e.log.Debug("offline readings", "question", req.Question, "candidates", len(out))
	return &dialog.Proposal{Candidates: out}, nil
}

// repeatsShown says whether the join tree may repeat the rows of a table
// whose columns the plan shows: some join goes from it to rows that are
// not one per row of it.
func (e *Engine) repeatsShown(p *plan.Plan, tree *catalog.JoinTree) bool {
	for _, s := range p.Selects {
		for _, c := range columnsOf(s.X) {
			// A column that refers to another table's rows shows those
			// rows, which many of its own may share.
			t := e.m.ByName[strings.ToLower(c.Table)]
			ref := e.m.JoinCols[strings.ToLower(c.Table+"."+c.Column)] && (t == nil || t.Key == nil || !strings.EqualFold(t.Key.Name, c.Column))
			if ref || e.firstFanout(tree, strings.ToLower(c.Table), nil) != nil {
				return true
			}
		}
	}
	return false
}

// render renders a plan over a join tree as MySQL: one typed query,
// wrapped in the query around it that a share or change asks for, written
// once.
func (e *Engine) render(p *plan.Plan, tree *catalog.JoinTree) string {
	q, aliases := e.query(p, tree)
	return e.wrap(p, q, aliases).Statement(e.m)
}

// query is a plan over a join tree as one query, and the names of its
// columns for a query around it.
func (e *Engine) query(p *plan.Plan, tree *catalog.JoinTree) (selectQuery, []string) {
	q := selectQuery{Distinct: p.Distinct}
	var aliases []string
	q.Selects, aliases = e.selectList(p, tree)
	var conds []expr
	q.From, conds = e.sources(p, tree)
	for _, f := range p.Filters {
		conds = appendNew(conds, f.X, e.m)
	}
	var groups []expr
	for _, g := range p.Groups {
		groups = appendNew(groups, g.X, e.m)
	}
	extremum, perGroup := extremes(p)
	if extremum || perGroup {
		conds = append(conds, topRows(p, q.From, conds, groups))
	}
	q.Where = conds
	if !perGroup {
		q.GroupBy = groups
	}
	for _, h := range p.Having {
		q.Having = append(q.Having, h.X)
	}
	if p.Order != nil && !extremum && !perGroup {
		q.OrderBy = []orderItem{{X: e.counted(p, tree, p.Order.X), Desc: p.Desc}}
		if p.ThenBy != nil {
			q.OrderBy = append(q.OrderBy, orderItem{X: e.counted(p, tree, p.ThenBy.X), Desc: p.Desc})
		}
	}
	if !extremum && !perGroup {
		q.Limit = p.Limit
	}
	return q, aliases
}

// selectList is what a plan shows, each column once, and each column's
// name (empty when it needs none).
func (e *Engine) selectList(p *plan.Plan, tree *catalog.JoinTree) ([]expr, []string) {
	var items []expr
	var shown []expr
	var aliases []string // every column's name, for a query around this one
	for _, s := range p.Selects {
		// The same column twice is one column shown twice: once is enough.
		before := len(shown)
		if shown = appendNew(shown, s.X, e.m); len(shown) == before {
			continue
		}
		x := e.counted(p, tree, s.X)
		alias := s.Alias
		if alias == "" && p.Wrap != "" {
			alias = columnAlias(s.X, aliases)
		}
		if alias != "" {
			x = aliased{X: x, Name: alias}
		}
		items = append(items, x)
		aliases = append(aliases, alias)
	}
	return items, aliases
}

// sources is the FROM list of a plan over a join tree, and the conditions
// its grouped tables add.
func (e *Engine) sources(p *plan.Plan, tree *catalog.JoinTree) (fromList, []expr) {
	from := e.fromOf(tree)
	for t, cols := range p.OnceEach {
		// "loans" read as their distinct (tool, courier) pairs, under
		// the same name, so every reference to it stays as written.
		sub := &selectQuery{Distinct: true, From: fromList{First: source{Table: t}}}
		for _, c := range cols {
			sub.Selects = append(sub.Selects, unqualified(c))
		}
		from.Replace(t, source{Sub: sub, Alias: t})
	}
	var conds []expr
	for i, d := range p.Derived {
		// Each grouped table has its own name: counted, counted_2, …
		alias := groupAlias
		if i > 0 {
			alias = fmt.Sprintf("%s_%d", groupAlias, i+1)
		}
		j, cond := join(d, alias)
		from.Joins = append(from.Joins, j)
		if cond != nil {
			conds = append(conds, cond)
		}
	}
	from.Joins = append(from.Joins, p.Shares...)
	return from, conds
}

// topRows is the condition that keeps a plan's top rows (see extremes):
// the order's value equal to its largest (smallest) over the rows that
// meet conds, or per group, the group and value among each group's
// largest (smallest).
func topRows(p *plan.Plan, from fromList, conds, groups []expr) expr {
	fn := "MIN"
	if p.Desc {
		fn = "MAX"
	}
	order := p.Order.X
	sub := selectQuery{Selects: []expr{aggOver(fn, order)}, From: from, Where: slices.Clone(conds)}
	if len(groups) == 0 {
		return cmp(order, "=", subquery{Q: sub})
	}
	sub.Selects = append(slices.Clone(groups), sub.Selects...)
	sub.GroupBy = groups
	return cmp(tuple{Xs: append(slices.Clone(groups), order)}, "IN", subquery{Q: sub})
}

// appendNew appends x to xs unless a part written alike is there: the
// same condition or group twice, however built, is written once.
func appendNew(xs []expr, x expr, n sqlexpr.Namer) []expr {
	text := x.Render(n)
	for _, y := range xs {
		if y.Render(n) == text {
			return xs
		}
	}
	return append(xs, x)
}

// extremes says how a plan's single top row is written. extremum: the
// single largest (smallest) row of a plain column, as a comparison with the
// MAX (MIN) so that ties are all shown. perGroup: "the longest book in each
// genre", per group the rows holding the group's largest (smallest)
// value, ties included.
func extremes(p *plan.Plan) (extremum, perGroup bool) {
	top := p.Order != nil && p.Limit == 1 && !p.Aggregated && arithmetic(p.Order.X)
	return top && len(p.Groups) == 0, top && len(p.Groups) > 0
}

// columnAlias names a select item for a query around this one: the
// column's own name, made unique.
func columnAlias(x expr, taken []string) string {
	name := "value"
	if c, ok := isColumn(x); ok && !strings.ContainsAny(c.Column, "( .`") {
		name = c.Column
	}
	alias := name
	for n := 2; slices.Contains(taken, alias); n++ {
		alias = fmt.Sprintf("%s_%d", name, n)
	}
	return alias
}

// counted rewrites COUNT(*) of a joined plan: joined rows repeat what is
// counted, so each is counted once by its key.
func (e *Engine) counted(p *plan.Plan, tree *catalog.JoinTree, x expr) expr {
	if ag, ok := aggOf(x); ok && ag.Fn == "COUNT" && ag.Arg == nil && p.CountOf != nil && p.CountOf.Key != nil && len(tree.Tables) > 1 {
		return aggExpr{Fn: "COUNT", Distinct: true, Arg: col(p.CountOf.Name, p.CountOf.Key.Name)}
	}
	// "tools by number of members" joined through the members' loans:
	// each member is counted once, not once per loan.
	if ag, ok := aggOf(x); ok && ag.Fn == "COUNT" && ag.Arg == nil && p.CountRows != nil && p.CountRows.Key != nil && e.multiplied(tree, p.CountRows) {
		return aggExpr{Fn: "COUNT", Distinct: true, Arg: col(p.CountRows.Name, p.CountRows.Key.Name)}
	}
	return x
}

// multiplied says whether the join tree holds a table with several rows
// per row of t (a reference to t that is not unique).
func (e *Engine) multiplied(tree *catalog.JoinTree, t *schema.Table) bool {
	for _, edge := range tree.Edges {
		for _, side := range [][4]string{{edge.FromTable, edge.FromColumn, edge.ToTable, edge.ToColumn}, {edge.ToTable, edge.ToColumn, edge.FromTable, edge.FromColumn}} {
			if strings.EqualFold(side[2], t.Name) && !strings.EqualFold(side[0], t.Name) && e.m.Unique(side[2], side[3]) && !e.m.Unique(side[0], side[1]) {
				return true
			}
		}
	}
	return false
}

// fromOf is the FROM list of a join tree: each table joined on its
// reference, and on the kind a typed reference names.
func (e *Engine) fromOf(tree *catalog.JoinTree) fromList {
	f := fromList{First: source{Table: tree.Tables[0]}}
	if len(tree.Edges) > 0 {
		f.Joins = make([]joinClause, 0, len(tree.Edges))
	}
	for i, edge := range tree.Edges {
		on := and(cmp(col(edge.FromTable, edge.FromColumn), "=", col(edge.ToTable, edge.ToColumn)), e.planner.WhenExpr(edge))
		f.Joins = append(f.Joins, joinClause{To: source{Table: tree.Tables[i+1]}, On: on})
	}
	return f
}

// Slot keys of the parts a reading's words decide.
var (
	keyTables = sqlshape.Key(sqlshape.SlotTables)
)

// uncoveredPenalty is how much likelier a reading is for each more word of
// the question it explains than another reading: a reading that leaves a
// word out answers a different question than one that uses it.
const uncoveredPenalty = 0.35

// coverageWeights discounts readings by the words they leave out, counted
// against the reading that leaves out the fewest.
func coverageWeights(cands []dialog.Candidate, uncovered []int) {
	least := slices.Min(uncovered)
	for i := range cands {
		cands[i].Prior *= math.Pow(uncoveredPenalty, float64(uncovered[i]-least))
	}
}

func wordCount(phrases []string) int {
	n := 0
	for _, p := range phrases {
		n += len(strings.Fields(p))
	}
	return n
}

// weakRealised counts the words of uncorroborated value matches ("good" as
// the shop 'good heavens') a reading filters on: using a word that
// way explains it no better than leaving it out.
func weakRealised(a *links.Analysis, parts *readingParts) int {
	n := 0
	for _, vm := range a.Values {
		if !vm.Weak {
			continue
		}
		for _, al := range vm.Alts {
			if parts.values[strings.ToLower(al.Value)] {
				n += len(strings.Fields(vm.Phrase))
				break
			}
		}
	}
	return n
}

// guessedDefined counts the words a reading explains only by a meaning the
// engine proposes for a term (the options of a question about it), which
// is no evidence that the reading is the one meant.
func guessedDefined(p *plan.Plan) int {
	n := 0
	for _, d := range p.Defines {
		if !d.Stated {
			n += len(strings.Fields(d.Phrase))
		}
	}
	return n
}

// pinnedPenalty discounts a count or a ranking over rows that a condition
// pins to one thing: "how many depots border Ashby" read as the depots
// named Ashby (always one) is not what anybody asks.
const pinnedPenalty = 0.15

// pinned says whether the plan counts or ranks the rows of a table whose
// unique key a condition fixes to one value, directly or through the
// join's equalities.
func (e *Engine) pinned(p *plan.Plan, tree *catalog.JoinTree) bool {
	var t *schema.Table
	switch {
	case p.CountOf != nil && len(p.Groups) == 0:
		t = p.CountOf
	case p.Order != nil && !p.Aggregated && len(p.Groups) == 0:
		oc, ok := isColumn(p.Order.X)
		if !ok {
			return false
		}
		t = e.m.ByName[strings.ToLower(oc.Table)]
	}
	if t == nil {
		return false
	}
	// Columns equal to each other through the joins.
	same := map[colRef][]colRef{}
	for _, edge := range tree.Edges {
		a, b := lowerCol(edge.FromTable, edge.FromColumn), lowerCol(edge.ToTable, edge.ToColumn)
		same[a] = append(same[a], b)
		same[b] = append(same[b], a)
	}
	for _, f := range p.Filters {
		eq, ok := f.X.(binary)
		if !ok || eq.Op != "=" {
			continue
		}
		fc, ok := isColumn(eq.L)
		if !ok {
			continue
		}
		switch eq.R.(type) {
		case strLit, numLit:
		default:
			continue
		}
		first := lowerCol(fc.Table, fc.Column)
		for _, c := range append([]colRef{first}, same[first]...) {
			if strings.EqualFold(c.Table, t.Name) && e.m.Unique(t.Name, c.Column) {
				return true
			}
		}
	}
	return false
}

// lowerCol is a column named in lower case, for comparing names.
func lowerCol(table, column string) colRef {
	return col(strings.ToLower(table), strings.ToLower(column))
}

// searchColumns is the catalog's column search for phrase, once per
// question.
func (e *Engine) searchColumns(a *links.Analysis, phrase string) []catalog.ColumnHit {
	if hits, ok := a.Hits[phrase]; ok {
		return hits
	}
	if a.Hits == nil {
		a.Hits = map[string][]catalog.ColumnHit{}
	}
	a.Hits[phrase] = e.m.Cat.SearchColumns(phrase, 8)
	return a.Hits[phrase]
}
