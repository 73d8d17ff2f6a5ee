package catalog

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// ErrNoJoinPath means that no chain of joins connects the tables asked for.
var ErrNoJoinPath = errors.New("no join path")

// ErrUnknownTable means that a reference names no table of the schema.
var ErrUnknownTable = errors.New("unknown table")

// inferredPenalty is added to every inferred edge on top of its doubt
// (1 - Confidence), so that an inferred edge of confidence 1 still costs
// more than a declared key and a declared path of equal length always wins.
const inferredPenalty = 0.01

// JoinTree is a set of joins connecting tables.
type JoinTree struct {
	// Tables are in the order they join the tree: Tables[0] is the table
	// of the first ref and Edges[i] attaches Tables[i+1] to the tables
	// before it, so FROM Tables[0] JOIN Tables[1] ON Edges[0] … is valid.
	Tables []string
	// Edges are the joins as the schema states them (From is the
	// referencing side).
	Edges []warehouse.Join
	// Cost is the sum of the edge costs: 1 per declared key, 1 + (1 -
	// Confidence) + 0.01 per inferred join.
	Cost float64
}

// joinGraph is the undirected join graph over the schema's tables, with at
// most one (the cheapest) edge per pair of tables, in CSR form.
type joinGraph struct {
	names    []string         // canonical table name per node
	ids      map[string]int32 // lower-case table name → node
	edges    []graphEdge
	adjStart []int32 // neighbours of node v are adj[adjStart[v]:adjStart[v+1]]
	adj      []arc
	comp     []int32 // connected component per node
}

// arc is one direction of an edge, with what Dijkstra needs inline.
type arc struct {
	to, edge int32
	cost     float64
}

type graphEdge struct {
	join warehouse.Join
	a, b int32
	cost float64
}

func (e graphEdge) other(v int32) int32 {
	if e.a == v {
		return e.b
	}
	return e.a
}

func edgeCost(j warehouse.Join) float64 {
	if j.Declared {
		return 1
	}
	conf := j.Confidence
	if math.IsNaN(conf) {
		conf = 0
	}
	return 1 + (1 - min(max(conf, 0), 1)) + inferredPenalty
}

// buildJoinGraph indexes s.Joins. Joins naming a table that is not in
// s.Tables, and joins of a table to itself, cannot help connect tables and
// are left out.
func buildJoinGraph(s *warehouse.Schema) joinGraph {
	g := joinGraph{ids: make(map[string]int32, len(s.Tables))}
	for _, t := range s.Tables {
		k := strings.ToLower(t.Name)
		if _, dup := g.ids[k]; !dup {
			g.ids[k] = int32(len(g.names))
			g.names = append(g.names, t.Name)
		}
	}
	pairs := make(map[[2]int32]int)
	for _, j := range s.Joins {
		a, okA := g.ids[strings.ToLower(j.FromTable)]
		b, okB := g.ids[strings.ToLower(j.ToTable)]
		if !okA || !okB || a == b {
			continue
		}
		e := graphEdge{join: j, a: a, b: b, cost: edgeCost(j)}
		pair := [2]int32{min(a, b), max(a, b)}
		if i, ok := pairs[pair]; ok {
			if e.cost < g.edges[i].cost {
				g.edges[i] = e
			}
			continue
		}
		pairs[pair] = len(g.edges)
		g.edges = append(g.edges, e)
	}

	n := len(g.names)
	g.adjStart = make([]int32, n+1)
	for _, e := range g.edges {
		g.adjStart[e.a+1]++
		g.adjStart[e.b+1]++
	}
	for i := 1; i <= n; i++ {
		g.adjStart[i] += g.adjStart[i-1]
	}
	g.adj = make([]arc, len(g.edges)*2)
	fill := append([]int32(nil), g.adjStart[:n]...)
	for i, e := range g.edges {
		g.adj[fill[e.a]] = arc{to: e.b, edge: int32(i), cost: e.cost}
		fill[e.a]++
		g.adj[fill[e.b]] = arc{to: e.a, edge: int32(i), cost: e.cost}
		fill[e.b]++
	}

	g.comp = make([]int32, n)
	for i := range g.comp {
		g.comp[i] = -1
	}
	var stack []int32
	for v := range int32(n) {
		if g.comp[v] >= 0 {
			continue
		}
		g.comp[v] = v
		stack = append(stack[:0], v)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, a := range g.adj[g.adjStart[u]:g.adjStart[u+1]] {
				if w := a.to; g.comp[w] < 0 {
					g.comp[w] = v
					stack = append(stack, w)
				}
			}
		}
	}
	return g
}

// node resolves a ref: "table", "table.column" or "database.table.column",
// optionally with backquotes.
func (g *joinGraph) node(ref string) (int32, bool) {
	ref = strings.ReplaceAll(strings.TrimSpace(ref), "`", "")
	if v, ok := g.ids[strings.ToLower(ref)]; ok {
		return v, true
	}
	parts := strings.Split(ref, ".")
	var table string
	switch len(parts) {
	case 2:
		table = parts[0]
	case 3:
		table = parts[1]
	default:
		return 0, false
	}
	v, ok := g.ids[strings.ToLower(strings.TrimSpace(table))]
	return v, ok
}

// JoinPath returns a small join tree connecting the tables of refs ("table"
// or "table.column"). It is the Takahashi–Matsuyama Steiner heuristic: start
// from the first table and repeatedly attach the remaining table nearest to
// the tree by a shortest path, edges costing as JoinTree.Cost says. Equal
// inputs give equal trees. Unknown tables give an error wrapping
// ErrUnknownTable, tables in different components of the join graph one
// wrapping ErrNoJoinPath; both name the tables.
func (c *Catalog) JoinPath(refs ...string) (*JoinTree, error) {
	tree, _, err := c.joinPath(nil, refs)
	return tree, err
}

// JoinPaths returns up to k different join trees for refs, cheapest first:
// the JoinPath tree, then the trees found when one of its edges is left
// out. Different trees are different readings ("the region of the order's
// sales rep" or "of the state it shipped to").
func (c *Catalog) JoinPaths(k int, refs ...string) ([]*JoinTree, error) {
	best, used, err := c.joinPath(nil, refs)
	if err != nil || k <= 1 || len(used) == 0 {
		if err != nil {
			return nil, err
		}
		return []*JoinTree{best}, nil
	}
	out := []*JoinTree{best}
	seen := map[string]bool{treeKey(best): true}
	banned := make([]bool, len(c.joins.edges))
	for _, e := range used {
		banned[e] = true
		alt, _, err := c.joinPath(banned, refs)
		banned[e] = false
		if err != nil {
			continue
		}
		if key := treeKey(alt); !seen[key] {
			seen[key] = true
			out = append(out, alt)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Cost < out[j].Cost })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func treeKey(t *JoinTree) string {
	var parts []string
	for _, e := range t.Edges {
		parts = append(parts, strings.ToLower(e.FromTable+"."+e.FromColumn+"="+e.ToTable+"."+e.ToColumn))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// joinPath is JoinPath with some edges banned; it also returns the edge
// numbers used.
func (c *Catalog) joinPath(banned []bool, refs []string) (*JoinTree, []int32, error) {
	g := &c.joins
	if len(refs) == 0 {
		return nil, nil, errors.New("catalog: join path of no tables")
	}
	var terms []int32
	var unknown []string
	seen := make([]bool, len(g.names))
	for _, r := range refs {
		v, ok := g.node(r)
		if !ok {
			unknown = append(unknown, strconv.Quote(r))
			continue
		}
		if !seen[v] {
			seen[v] = true
			terms = append(terms, v)
		}
	}
	if len(unknown) > 0 {
		return nil, nil, fmt.Errorf("catalog: %w %s", ErrUnknownTable, strings.Join(unknown, ", "))
	}
	var apart []string
	for _, v := range terms[1:] {
		if g.comp[v] != g.comp[terms[0]] {
			apart = append(apart, g.names[v])
		}
	}
	if len(apart) > 0 {
		return nil, nil, fmt.Errorf("catalog: %w from %s to %s", ErrNoJoinPath, g.names[terms[0]], strings.Join(apart, ", "))
	}

	tree := &JoinTree{Tables: []string{g.names[terms[0]]}}
	inTree := make([]bool, len(g.names))
	inTree[terms[0]] = true
	sp := newShortestPaths(len(g.names))
	var used []int32
	for {
		remaining := 0
		for _, v := range terms {
			if !inTree[v] {
				remaining++
			}
		}
		if remaining == 0 {
			return tree, used, nil
		}
		target := sp.nearest(g, inTree, banned, func(v int32) bool { return seen[v] && !inTree[v] })
		if target < 0 {
			// Only with banned edges: the component check guarantees a path otherwise.
			return nil, nil, fmt.Errorf("catalog: %w to %s", ErrNoJoinPath, g.names[terms[0]])
		}
		// Walk back to the tree, then attach the path from the tree outwards.
		var path []int32 // edge numbers, target first
		for v := target; !inTree[v]; {
			ei := sp.via[v]
			path = append(path, ei)
			v = g.edges[ei].other(v)
		}
		for i := len(path) - 1; i >= 0; i-- {
			e := g.edges[path[i]]
			v := e.a
			if inTree[v] {
				v = e.b
			}
			inTree[v] = true
			used = append(used, path[i])
			tree.Tables = append(tree.Tables, g.names[v])
			tree.Edges = append(tree.Edges, e.join)
			tree.Cost += e.cost
		}
	}
}

// shortestPaths is the state of one Dijkstra search, reused between the
// attachments of one JoinPath call.
type shortestPaths struct {
	dist []float64
	via  []int32 // edge by which a node was reached
	done []bool
	heap distHeap
}

func newShortestPaths(n int) *shortestPaths {
	return &shortestPaths{dist: make([]float64, n), via: make([]int32, n), done: make([]bool, n)}
}

// nearest runs Dijkstra from every tree node at once and returns the first
// node settled for which isTarget holds, or -1. Ties in distance go to the
// lower node number, which makes the result deterministic.
func (sp *shortestPaths) nearest(g *joinGraph, inTree, banned []bool, isTarget func(int32) bool) int32 {
	for i := range sp.dist {
		sp.dist[i] = math.Inf(1)
		sp.via[i] = -1
		sp.done[i] = false
	}
	sp.heap = sp.heap[:0]
	for v, in := range inTree {
		if in {
			sp.dist[v] = 0
			sp.heap.push(distItem{node: int32(v)})
		}
	}
	for len(sp.heap) > 0 {
		it := sp.heap.pop()
		u := it.node
		if sp.done[u] || it.dist > sp.dist[u] {
			continue
		}
		sp.done[u] = true
		if isTarget(u) {
			return u
		}
		for _, a := range g.adj[g.adjStart[u]:g.adjStart[u+1]] {
			if banned != nil && banned[a.edge] {
				continue
			}
			if d := it.dist + a.cost; d < sp.dist[a.to] && !sp.done[a.to] {
				sp.dist[a.to] = d
				sp.via[a.to] = a.edge
				sp.heap.push(distItem{dist: d, node: a.to})
			}
		}
	}
	return -1
}

type distItem struct {
	dist float64
	node int32
}

func (a distItem) less(b distItem) bool {
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return a.node < b.node
}

// distHeap is a binary min-heap; container/heap would box every item.
type distHeap []distItem

func (h *distHeap) push(it distItem) {
	*h = append(*h, it)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *distHeap) pop() distItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[m]) {
			m = l
		}
		if r < len(s) && s[r].less(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
