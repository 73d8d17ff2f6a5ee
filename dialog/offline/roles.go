package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
)

// Roles of a polymorphic reference: a transaction's sender_id and
// receiver_id each point at a member or a shop, as a type column says
// (warehouse.InferTypedJoins). The join graph keeps one edge per pair of
// tables, so which role joins is read from the question: a word the
// lexicon relates to the role ("sent by users" → sender, "received" →
// receiver) picks it; without one, each role is a reading.

// roleTree is a join tree with its roles chosen, and how well they fit.
type roleTree struct {
	tree   *catalog.JoinTree
	weight float64
}

// roleVariants are the readings of each join tree's typed edges, one per
// role, sharing the tree's weight by fit; a tree without typed edges is
// itself.
func (e *Engine) roleVariants(a *links.Analysis, trees []*catalog.JoinTree) []roleTree {
	var all []roleTree
	for _, tree := range trees {
		all = append(all, e.treeRoles(a, tree)...)
	}
	return all
}

func (e *Engine) treeRoles(a *links.Analysis, tree *catalog.JoinTree) []roleTree {
	out := []roleTree{{tree: tree, weight: 1}}
	for i, edge := range tree.Edges {
		sibs := e.planner.TypedSiblings(edge)
		if len(sibs) == 0 {
			continue
		}
		var next []roleTree
		for _, rt := range out {
			for _, j := range append([]warehouse.Join{edge}, sibs...) {
				t := *rt.tree
				t.Edges = append([]warehouse.Join(nil), rt.tree.Edges...)
				t.Edges[i] = j
				next = append(next, roleTree{tree: &t, weight: rt.weight * e.planner.RoleFit(a, j, sibs)})
			}
		}
		out = next
	}
	// A row is one kind at a time: a tree reading one role column as
	// two kinds (receiver is a shop and a member) joins nothing.
	out = slices.DeleteFunc(out, func(rt roleTree) bool { return contradictory(rt.tree) })
	// The roles share the reading's weight.
	total := 0.0
	for _, rt := range out {
		total += rt.weight
	}
	for i := range out {
		out[i].weight /= total
	}
	return out
}

// contradictory says whether two typed edges of a tree read the same
// column of the same table with different kinds.
func contradictory(t *catalog.JoinTree) bool {
	for i, x := range t.Edges {
		for _, y := range t.Edges[i+1:] {
			if x.When != nil && y.When != nil && strings.EqualFold(x.FromTable, y.FromTable) && strings.EqualFold(x.FromColumn, y.FromColumn) && x.When.Value != y.When.Value {
				return true
			}
		}
	}
	return false
}
