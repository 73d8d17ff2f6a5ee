package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/plan"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Measures at their own grain. Each row of a table is one thing — an
// order, an order line — and a measure of a table (an order's net amount)
// adds up once per thing. A join to a table that holds several rows per
// thing (an order's lines) repeats the thing's rows, and a SUM or AVG over
// the repeated rows counts each thing several times. Before a reading is
// written, every such join is resolved:
//
//   - a join used only to filter (orders that contain a product) becomes
//     EXISTS, so the thing is counted once;
//   - a grouping by the repeated side (revenue by product) adds up the
//     thing's measure split across its rows in proportion to their own
//     measure (a line's share of its order), so the groups add up to the
//     measure's total; an average is taken over the distinct things of
//     each group;
//   - anything else (a measure and a count of another grain in one
//     select) is not a reading the engine can write correctly, and is
//     dropped rather than answered wrong.
//
// What is repeated comes from keys: a join multiplies the rows of the side
// it leaves when the column on the far side is not unique (its primary
// key, or a fully profiled column with a value of its own per row).

// fanout is a join of the tree that repeats the rows of a measured table:
// from near (the measured side) to far, whose join column is not unique;
// beyond are the tables reached through it.
type fanout struct {
	edge   warehouse.Join
	near   string // lower-case
	far    string // lower-case
	beyond map[string]bool
}

// measureUse is one aggregate of a measured table's rows in the plan.
type measureUse struct {
	table string // lower-case table whose rows the aggregate adds up
	fn    string
}

// grainReading is a reading written at its measures' grain, and how much
// likelier than the reading it came from it is.
type grainReading struct {
	p      *plan.Plan
	tree   *catalog.JoinTree
	weight float64
	// counts words how often the measured thing counts, when that is a
	// decision between readings.
	counts *dialog.Reading
}

// repeatedWeight is how likely a measure filtered through related rows is
// meant once per related row ("the average deposit of members who
// borrowed X", each member once per loan) rather than once per thing:
// rarely, but asked about when the two differ.
const repeatedWeight = 0.3

// atGrain writes a reading so that no measure is aggregated over a join
// that repeats its rows: none when that cannot be done. A measure filtered
// through related rows is also offered once per related row, as written.
func (e *Engine) atGrain(p *plan.Plan, tree *catalog.JoinTree) []grainReading {
	q, t, semi, ok := e.grain(p, tree)
	if !ok {
		return nil
	}
	out := []grainReading{{p: q, tree: t, weight: 1}}
	if semi != nil {
		thing, per := plan.Humanize(semi.near), links.SingularOf(plan.Humanize(semi.far))
		if t := e.m.ByName[semi.near]; t != nil {
			thing = plan.Humanize(t.Name)
		}
		key := sqlshape.SlotKey{Name: sqlshape.SlotCount, Arg: strings.ToLower(thing)}
		out[0].counts = &dialog.Reading{Key: key, Value: "once", Label: "Each of the " + thing + " once", Phrase: thing}
		out = append(out, grainReading{p: p, tree: tree, weight: repeatedWeight,
			counts: &dialog.Reading{Key: key, Value: "per " + per, Label: "Each of the " + thing + " once per " + per, Phrase: thing}})
	}
	return out
}

// grain rewrites a reading at its measures' grain; semi says whether it
// turned a repeating join into EXISTS, ok is false when it could not.
func (e *Engine) grain(p *plan.Plan, tree *catalog.JoinTree) (q *plan.Plan, t *catalog.JoinTree, semi *fanout, ok bool) {
	if len(tree.Edges) == 0 {
		return p, tree, nil, true
	}
	q, t = p, tree
	// Joins found right as written (through a link table), per measured table.
	right := map[string]bool{}
	// Each rewrite resolves one repeating join (a split measure reads two
	// tables and is no longer one table's); a tree has few joins.
	for range len(tree.Edges) + 2 {
		var u measureUse
		var fo *fanout
		for _, mu := range e.measureUses(q) {
			if fo = e.firstFanout(t, mu.table, right); fo != nil {
				u = mu
				break
			}
		}
		if fo == nil {
			return q, t, semi, true
		}
		if e.linkGroups(q, t, u, fo) {
			right[u.table+"|"+edgeKey(fo.edge)] = true
			continue
		}
		var filtered bool
		if q, t, filtered, ok = e.resolveFanout(q, t, u, fo); !ok {
			return nil, nil, nil, false
		}
		if q.OnceEach[fo.far] != nil {
			right[u.table+"|"+edgeKey(fo.edge)] = true // read once per thing now
		}
		if filtered && semi == nil {
			semi = fo
		}
	}
	return nil, nil, nil, false
}

// measureUses lists the SUM and AVG aggregates of the plan whose argument
// reads one table: those count a row once per time it appears. COUNT(*)
// counts its table's keys once already (counted); MIN, MAX and
// COUNT(DISTINCT) do not change when rows repeat.
func (e *Engine) measureUses(p *plan.Plan) []measureUse {
	var out []measureUse
	add := func(x expr) {
		walk(x, func(v expr) bool {
			a, ok := v.(aggExpr)
			if !ok {
				_, sub := v.(scalarSub)
				return !sub
			}
			if (a.Fn == "SUM" || a.Fn == "AVG") && !a.Distinct && a.Arg != nil {
				if t := singleTable(a.Arg); t != "" && !slices.ContainsFunc(out, func(u measureUse) bool { return u.table == t && u.fn == a.Fn }) {
					out = append(out, measureUse{table: t, fn: a.Fn})
				}
			}
			return false
		})
	}
	for _, x := range p.OutputParts() {
		add(x)
	}
	return out
}

// singleTable is the lower-case table all of x's columns belong to, or ""
// when it reads none or several.
func singleTable(x expr) string {
	t := ""
	for _, c := range columnsOf(x) {
		n := strings.ToLower(c.Table)
		if t != "" && n != t {
			return ""
		}
		t = n
	}
	return t
}

func edgeKey(j warehouse.Join) string {
	return strings.ToLower(j.FromTable + "." + j.FromColumn + "=" + j.ToTable + "." + j.ToColumn)
}

// linkGroups says whether a repeating join leads through a link table
// (authors ↔ papers) to the groups: each thing of a group is related once,
// so a paper's citations count fully for each of its authors and the sum
// per group is right as written.
func (e *Engine) linkGroups(p *plan.Plan, tree *catalog.JoinTree, u measureUse, fo *fanout) bool {
	far := e.m.ByName[fo.far]
	return far != nil && fo.near == u.table && e.isLink(far) && !e.linkRepeats(tree, fo) && len(p.Derived) == 0 && p.Wrap == "" && !groupsBy(p, fo.far)
}

// groupsBy says whether a reading shows or groups by a column of table t
// itself (the couriers of the loans, not the members beyond them): a
// thing linked several times is then in one group several times.
func groupsBy(p *plan.Plan, t string) bool {
	only := map[string]bool{t: true}
	for _, g := range p.Groups {
		if reads(g.X, only) {
			return true
		}
	}
	for _, s := range p.Selects {
		if !aggregates(s.X) && reads(s.X, only) {
			return true
		}
	}
	return false
}

// firstFanout finds a join of the tree that repeats table's rows, but for
// those found right (keyed by table and join), beyond which it does not
// look.
func (e *Engine) firstFanout(tree *catalog.JoinTree, table string, right map[string]bool) *fanout {
	if !slices.ContainsFunc(tree.Tables, func(t string) bool { return strings.EqualFold(t, table) }) {
		return nil
	}
	visited := map[string]bool{table: true}
	queue := []string{table}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for _, edge := range tree.Edges {
			from, to := strings.ToLower(edge.FromTable), strings.ToLower(edge.ToTable)
			var far, farCol string
			switch {
			case from == at && !visited[to]:
				far, farCol = to, edge.ToColumn
			case to == at && !visited[from]:
				far, farCol = from, edge.FromColumn
			default:
				continue
			}
			if right[table+"|"+edgeKey(edge)] {
				visited[far] = true
				continue
			}
			if !e.m.Unique(far, farCol) {
				return &fanout{edge: edge, near: at, far: far, beyond: beyond(tree, at, far)}
			}
			visited[far] = true
			queue = append(queue, far)
		}
	}
	return nil
}

// beyond are the tables reached from far without going back to near.
func beyond(tree *catalog.JoinTree, near, far string) map[string]bool {
	out := map[string]bool{far: true}
	queue := []string{far}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for _, edge := range tree.Edges {
			from, to := strings.ToLower(edge.FromTable), strings.ToLower(edge.ToTable)
			var next string
			switch {
			case from == at:
				next = to
			case to == at:
				next = from
			default:
				continue
			}
			if next == near && at == far || out[next] {
				continue
			}
			out[next] = true
			queue = append(queue, next)
		}
	}
	return out
}

// reads says whether x reads a column of one of the tables.
func reads(x expr, tables map[string]bool) bool {
	for _, c := range columnsOf(x) {
		if tables[strings.ToLower(c.Table)] {
			return true
		}
	}
	if ex, ok := x.(exists); ok {
		for _, t := range ex.Tables {
			if tables[strings.ToLower(t)] {
				return true
			}
		}
	}
	return false
}

// resolveFanout rewrites one repeating join of a measured table; semi says
// it became EXISTS.
func (e *Engine) resolveFanout(p *plan.Plan, tree *catalog.JoinTree, u measureUse, fo *fanout) (q *plan.Plan, t *catalog.JoinTree, semi, ok bool) {
	shown := false // a select, grouping or ordering reads the repeated side
	for _, s := range p.Selects {
		if !aggregates(s.X) && reads(s.X, fo.beyond) {
			shown = true
		}
	}
	for _, g := range p.Groups {
		shown = shown || reads(g.X, fo.beyond)
	}
	if p.Order != nil && !aggregates(p.Order.X) && reads(p.Order.X, fo.beyond) {
		shown = true
	}
	// Another aggregate of the repeated side in the same reading is a
	// second grain; so is a count of its rows.
	other := p.CountOf != nil && fo.beyond[strings.ToLower(p.CountOf.Name)]
	for _, x := range p.AggregateParts() {
		if reads(x, fo.beyond) {
			other = true
		}
	}
	if len(p.Derived) > 0 || p.Wrap != "" || other {
		return nil, nil, false, false
	}
	if !shown {
		q, t, ok = e.semiJoin(p, tree, fo)
		return q, t, true, ok
	}
	far, near := e.m.ByName[fo.far], e.m.ByName[fo.near]
	if far == nil || near == nil {
		return nil, nil, false, false
	}
	if fo.near != u.table || u.fn != "SUM" || !e.planner.DetailOf(far, near) {
		// Repeated two joins away, an average, or rows of another thing
		// that merely refer to the measured one (prescriptions of a
		// drug, loans of a tool): no share of the measure belongs to each
		// of them. Grouped by what those rows say (a tool's couriers),
		// each thing counts once in each of its groups.
		if q, t, ok := e.onceEachGroup(p, tree, u, fo); ok {
			return q, t, false, true
		}
		return nil, nil, false, false
	}
	q, t, ok = e.allocate(p, tree, u, fo)
	return q, t, false, ok
}

// onceEachGroup reads the repeating table as its distinct rows of the
// join column and the columns the reading reads of it, so each measured
// thing appears once per group it belongs to: the total deposit of the
// tools each courier carried, a tool carried by two couriers in both. Only a table at the end of the tree, joined straight to the
// measured one.
func (e *Engine) onceEachGroup(p *plan.Plan, tree *catalog.JoinTree, u measureUse, fo *fanout) (*plan.Plan, *catalog.JoinTree, bool) {
	if fo.near != u.table || len(fo.beyond) != 1 || len(p.Derived) > 0 || len(p.Shares) > 0 || p.OnceEach[fo.far] != nil {
		return nil, nil, false
	}
	var cols []string
	add := func(c string) {
		if !slices.ContainsFunc(cols, func(x string) bool { return strings.EqualFold(x, c) }) {
			cols = append(cols, c)
		}
	}
	if strings.EqualFold(fo.edge.FromTable, fo.far) {
		add(fo.edge.FromColumn)
	} else {
		add(fo.edge.ToColumn)
	}
	for _, x := range p.OuterParts() {
		for _, c := range columnsOf(x) {
			if strings.EqualFold(c.Table, fo.far) {
				add(c.Column)
			}
		}
	}
	q := p.Clone()
	q.OnceEach = map[string][]string{}
	for k, v := range p.OnceEach {
		q.OnceEach[k] = v
	}
	q.OnceEach[fo.far] = cols
	return q, tree, true
}

// isLink says whether a table only relates two or more others: no measure
// of its own, and its rows point at several tables.
func (e *Engine) isLink(t *schema.Table) bool {
	if len(t.Measures) > 0 {
		return false
	}
	others := map[string]bool{}
	for _, j := range e.m.Snap.Schema.Joins {
		switch {
		case strings.EqualFold(j.FromTable, t.Name) && !strings.EqualFold(j.ToTable, t.Name):
			others[strings.ToLower(j.ToTable)] = true
		case strings.EqualFold(j.ToTable, t.Name) && !strings.EqualFold(j.FromTable, t.Name):
			others[strings.ToLower(j.FromTable)] = true
		}
	}
	return len(others) >= 2
}

// linkRepeats says whether the tables beyond a link table repeat its rows
// again (a link to a thing that has several rows of its own).
func (e *Engine) linkRepeats(tree *catalog.JoinTree, fo *fanout) bool {
	for _, edge := range tree.Edges {
		from, to := strings.ToLower(edge.FromTable), strings.ToLower(edge.ToTable)
		if !fo.beyond[from] || !fo.beyond[to] {
			continue
		}
		// Leaving the link side towards a side whose column is not unique.
		if fo.beyond[from] && !e.m.Unique(edge.ToTable, edge.ToColumn) && !e.m.Unique(edge.FromTable, edge.FromColumn) {
			return true
		}
	}
	return false
}

// semiJoin turns the repeated side, used only by conditions, into EXISTS:
// the measured rows that have such related rows, each once.
func (e *Engine) semiJoin(p *plan.Plan, tree *catalog.JoinTree, fo *fanout) (*plan.Plan, *catalog.JoinTree, bool) {
	q := p.Clone()
	var inside, outside []plan.Cond
	for _, f := range p.Filters {
		switch {
		case !reads(f.X, fo.beyond):
			outside = append(outside, f)
		case readsOnly(f.X, fo.beyond):
			inside = append(inside, f)
		default:
			return nil, nil, false // a condition across both sides
		}
	}
	sub := e.subtree(tree, fo.far, fo.beyond)
	near, far := fo.edge.ToTable, fo.edge.FromTable
	nearCol, farCol := fo.edge.ToColumn, fo.edge.FromColumn
	if strings.EqualFold(fo.edge.FromTable, fo.near) {
		near, far, nearCol, farCol = fo.edge.FromTable, fo.edge.ToTable, fo.edge.FromColumn, fo.edge.ToColumn
	}
	ex := exists{Tables: sub.Tables, Cols: []colRef{col(far, farCol), col(near, nearCol)}}
	ex.Sub = selectQuery{Selects: []expr{numLit("1")}, From: e.fromOf(sub), Where: []expr{cmp(col(far, farCol), "=", col(near, nearCol))}}
	if w := e.planner.WhenExpr(fo.edge); w != nil {
		ex.Sub.Where = append(ex.Sub.Where, w)
	}
	for _, f := range inside {
		ex.Sub.Where = append(ex.Sub.Where, f.X)
		ex.Cols = append(ex.Cols, columnsOf(f.X)...)
		for _, l := range literals(f.X) {
			if s, ok := l.(strLit); ok {
				ex.Values = append(ex.Values, string(s))
			}
		}
	}
	q.Filters = append(outside, plan.Cond{X: ex})
	rest := map[string]bool{}
	for _, t := range tree.Tables {
		if !fo.beyond[strings.ToLower(t)] {
			rest[strings.ToLower(t)] = true
		}
	}
	return q, e.subtree(tree, fo.near, rest), true
}

// readsOnly says whether every column x reads is of one of the tables.
func readsOnly(x expr, tables map[string]bool) bool {
	for _, c := range columnsOf(x) {
		if !tables[strings.ToLower(c.Table)] {
			return false
		}
	}
	return true
}

// subtree is the part of tree over the given tables, rooted at root, in
// an order that joins each table to one before it.
func (e *Engine) subtree(tree *catalog.JoinTree, root string, tables map[string]bool) *catalog.JoinTree {
	name := func(lower string) string {
		for _, t := range tree.Tables {
			if strings.EqualFold(t, lower) {
				return t
			}
		}
		return lower
	}
	out := &catalog.JoinTree{Tables: []string{name(root)}}
	in := map[string]bool{strings.ToLower(root): true}
	for grew := true; grew; {
		grew = false
		for _, edge := range tree.Edges {
			from, to := strings.ToLower(edge.FromTable), strings.ToLower(edge.ToTable)
			if !tables[from] || !tables[to] || in[from] == in[to] {
				continue
			}
			next := to
			if in[to] {
				next = from
			}
			in[next] = true
			out.Tables = append(out.Tables, name(next))
			out.Edges = append(out.Edges, edge)
			grew = true
		}
	}
	return out
}

// shareAlias names the grouped table of a measure's shares.
const shareAlias = "shares"

// allocate adds up a measure of the near table per group of the far side
// by each far row's share of its near row: an order's net amount split
// across its lines in proportion to their line amounts, so that every
// order counts once in all and the groups add up to the total.
func (e *Engine) allocate(p *plan.Plan, tree *catalog.JoinTree, u measureUse, fo *fanout) (*plan.Plan, *catalog.JoinTree, bool) {
	far := e.m.ByName[fo.far]
	if far == nil {
		return nil, nil, false
	}
	nearCol, farCol := fo.edge.ToColumn, fo.edge.FromColumn
	if strings.EqualFold(fo.edge.FromTable, fo.near) {
		nearCol, farCol = fo.edge.FromColumn, fo.edge.ToColumn
	}
	weight := e.shareWeight(far)
	var w expr = numLit("1")
	if weight != nil {
		w = col(far.Name, weight.Name)
	}
	nearName := fo.near
	if t := e.m.ByName[fo.near]; t != nil {
		nearName = t.Name
	}
	q := p.Clone()
	total := colRef{Table: shareAlias, Column: "total"}
	rewrite := func(x expr) expr {
		return mapExpr(x, func(v expr) expr {
			a, ok := v.(aggExpr)
			if !ok || a.Fn != u.fn || a.Distinct || a.Arg == nil || singleTable(a.Arg) != u.table {
				return nil
			}
			arg := a.Arg
			if _, ok := arg.(binary); ok {
				arg = paren{X: arg}
			}
			return aggExpr{Fn: "SUM", Arg: cmp(cmp(arg, "*", w), "/", fn1("NULLIF", total, numLit("0")))}
		})
	}
	for i := range q.Selects {
		q.Selects[i].X = rewrite(q.Selects[i].X)
	}
	if q.Order != nil {
		q.Order.X = rewrite(q.Order.X)
	}
	for i := range q.Having {
		q.Having[i].X = rewrite(q.Having[i].X)
	}
	var sum expr = countAll
	if weight != nil {
		sum = aggOver("SUM", col(far.Name, weight.Name))
	}
	key := col(far.Name, farCol)
	totals := &selectQuery{Selects: []expr{key, aliased{X: sum, Name: "total"}}, From: fromList{First: source{Table: far.Name}}, GroupBy: []expr{key}}
	q.Shares = append(q.Shares, joinClause{To: source{Sub: totals, Alias: shareAlias}, On: cmp(col(shareAlias, farCol), "=", col(nearName, nearCol))})
	q.Allocated = append(q.Allocated, plan.Allocation{Measured: nearName, By: far.Name, Weight: weight})
	return q, tree, true
}

// shareWeight is the measure of a table by which a related thing's
// measure is split across its rows: money first (an amount, a price, a
// revenue), else a quantity; nil for equal shares.
func (e *Engine) shareWeight(t *schema.Table) *warehouse.Column {
	for _, w := range []string{"amount", "revenue", "sales", "total", "value", "charge", "fee", "price", "quantity", "qty", "units", "count", "number"} {
		for _, c := range t.Measures {
			if strings.Contains(strings.ToLower(c.Name), w) {
				return c
			}
		}
	}
	return nil
}

// mapExpr rebuilds x with f applied top-down: where f returns an
// expression it replaces the part (and its parts are not visited).
func mapExpr(x expr, f func(expr) expr) expr {
	if x == nil {
		return nil
	}
	if y := f(x); y != nil {
		return y
	}
	switch v := x.(type) {
	case aggExpr:
		v.Arg = mapExpr(v.Arg, f)
		return v
	case call:
		args := make([]expr, len(v.Args))
		for i, a := range v.Args {
			args[i] = mapExpr(a, f)
		}
		v.Args = args
		return v
	case binary:
		v.L, v.R = mapExpr(v.L, f), mapExpr(v.R, f)
		return v
	case paren:
		v.X = mapExpr(v.X, f)
		return v
	case prefix:
		v.X = mapExpr(v.X, f)
		return v
	case caseWhen:
		v.Cond, v.Then = mapExpr(v.Cond, f), mapExpr(v.Then, f)
		return v
	}
	return x
}
