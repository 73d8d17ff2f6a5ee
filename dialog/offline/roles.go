package offline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog/offline/read"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/token"
)

// Roles of a polymorphic reference: a transaction's sender_id and
// receiver_id each point at a member or a shop, as a type column says
// (warehouse.InferTypedJoins). The join graph keeps one edge per pair of
// tables, so which role joins is read from the question: a word the
// lexicon relates to the role ("sent by users" → sender, "received" →
// receiver) picks it; without one, each role is a reading.

// roleWord is the role a referencing column plays: "sender" for
// sender_id.
func roleWord(column string) string {
	w := strings.ToLower(column)
	w = strings.TrimSuffix(w, "id")
	return strings.TrimSuffix(w, "_")
}

// roleFit weighs a typed join by the question's words: 2 when a word
// names its role, 0.3 when a word names another role of the same
// reference and none its own, else 1.
func (e *Engine) roleFit(a *read.Analysis, j warehouse.Join, siblings []warehouse.Join) float64 {
	if a == nil {
		return 1
	}
	if e.namesRole(a, roleWord(j.FromColumn)) {
		return 2
	}
	for _, s := range siblings {
		if !strings.EqualFold(s.FromColumn, j.FromColumn) && e.namesRole(a, roleWord(s.FromColumn)) {
			return 0.3
		}
	}
	return 1
}

// namesRole says whether a word of the question is the role or related
// to it in the lexicon ("sent" and "sender").
func (e *Engine) namesRole(a *read.Analysis, role string) bool {
	if len(role) < 3 {
		return false
	}
	for _, t := range a.Toks {
		if e.roleToken(t, role) {
			return true
		}
	}
	return false
}

// roleToken says whether one word names the role.
func (e *Engine) roleToken(t token.Token, role string) bool {
	if t.IsNum || len(t.Low) < 3 || len(role) < 3 {
		return false
	}
	return t.Low == role || read.SingularOf(t.Low) == role || e.words != nil && e.words.RelatedTo(t.Low, role)
}

// typedSiblings are the typed joins between the same two tables as j
// through another column: the other roles j may be read as.
func (e *Engine) typedSiblings(j warehouse.Join) []warehouse.Join {
	if j.When == nil {
		return nil
	}
	var out []warehouse.Join
	for _, s := range e.m.Snap.Schema.Joins {
		if s.When != nil && strings.EqualFold(s.FromTable, j.FromTable) && strings.EqualFold(s.ToTable, j.ToTable) && !strings.EqualFold(s.FromColumn, j.FromColumn) {
			out = append(out, s)
		}
	}
	return out
}

// roleTree is a join tree with its roles chosen, and how well they fit.
type roleTree struct {
	tree   *catalog.JoinTree
	weight float64
}

// roleVariants are the readings of each join tree's typed edges, one per
// role, sharing the tree's weight by fit; a tree without typed edges is
// itself.
func (e *Engine) roleVariants(a *read.Analysis, trees []*catalog.JoinTree) []roleTree {
	var all []roleTree
	for _, tree := range trees {
		all = append(all, e.treeRoles(a, tree)...)
	}
	return all
}

func (e *Engine) treeRoles(a *read.Analysis, tree *catalog.JoinTree) []roleTree {
	out := []roleTree{{tree: tree, weight: 1}}
	for i, edge := range tree.Edges {
		sibs := e.typedSiblings(edge)
		if len(sibs) == 0 {
			continue
		}
		var next []roleTree
		for _, rt := range out {
			for _, j := range append([]warehouse.Join{edge}, sibs...) {
				t := *rt.tree
				t.Edges = append([]warehouse.Join(nil), rt.tree.Edges...)
				t.Edges[i] = j
				next = append(next, roleTree{tree: &t, weight: rt.weight * e.roleFit(a, j, sibs)})
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

// whenExpr is the condition of a typed join, t.type = 1, or nil.
func (e *Engine) whenExpr(j warehouse.Join) expr {
	if j.When == nil {
		return nil
	}
	var v expr = strLit(j.When.Value)
	if c := e.m.Column(j.FromTable, j.When.Column); c != nil && c.Kind() == warehouse.KindNumber {
		if _, err := strconv.ParseFloat(j.When.Value, 64); err == nil {
			v = numLit(j.When.Value)
		}
	}
	return cmp(col(j.FromTable, j.When.Column), "=", v)
}

// bestJoin picks among joins from one table to another the one whose
// role the question names.
func (e *Engine) bestJoin(a *read.Analysis, joins []warehouse.Join) warehouse.Join {
	best, bestW := joins[0], -1.0
	for _, j := range joins {
		if w := e.roleFit(a, j, e.typedSiblings(j)); w > bestW {
			best, bestW = j, w
		}
	}
	return best
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
