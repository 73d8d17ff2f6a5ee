package plan

import (
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
)

// Roles of a polymorphic reference: a transaction's sender_id and
// receiver_id each point at a member or a shop, as a type column says
// (warehouse.InferTypedJoins). The join graph keeps one edge per pair of
// tables, so which role joins is read from the question: a word the
// lexicon relates to the role ("sent by users" → sender, "received" →
// receiver) picks it; without one, each role is a reading.

// RoleWord is the role a referencing column plays: "sender" for
// sender_id.
func RoleWord(column string) string {
	w := strings.ToLower(column)
	w = strings.TrimSuffix(w, "id")
	return strings.TrimSuffix(w, "_")
}

// RoleFit weighs a typed join by the question's words: 2 when a word
// names its role, 0.3 when a word names another role of the same
// reference and none its own, else 1.
func (e *Builder) RoleFit(a *links.Analysis, j warehouse.Join, siblings []warehouse.Join) float64 {
	if a == nil {
		return 1
	}
	if e.namesRole(a, RoleWord(j.FromColumn)) {
		return 2
	}
	for _, s := range siblings {
		if !strings.EqualFold(s.FromColumn, j.FromColumn) && e.namesRole(a, RoleWord(s.FromColumn)) {
			return 0.3
		}
	}
	return 1
}

// namesRole says whether a word of the question is the role or related
// to it in the lexicon ("sent" and "sender").
func (e *Builder) namesRole(a *links.Analysis, role string) bool {
	if len(role) < 3 {
		return false
	}
	for _, t := range a.Toks {
		if e.RoleToken(t, role) {
			return true
		}
	}
	return false
}

// RoleToken says whether one word names the role.
func (e *Builder) RoleToken(t token.Token, role string) bool {
	if t.IsNum || len(t.Low) < 3 || len(role) < 3 {
		return false
	}
	return t.Low == role || links.SingularOf(t.Low) == role || e.words != nil && e.words.RelatedTo(t.Low, role)
}

// TypedSiblings are the typed joins between the same two tables as j
// through another column: the other roles j may be read as.
func (e *Builder) TypedSiblings(j warehouse.Join) []warehouse.Join {
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

// WhenExpr is the condition of a typed join, t.type = 1, or nil.
func (e *Builder) WhenExpr(j warehouse.Join) sqlexpr.Expr {
	if j.When == nil {
		return nil
	}
	var v sqlexpr.Expr = sqlexpr.Str(j.When.Value)
	if c := e.m.Column(j.FromTable, j.When.Column); c != nil && c.Kind() == warehouse.KindNumber {
		if _, err := strconv.ParseFloat(j.When.Value, 64); err == nil {
			v = sqlexpr.Num(j.When.Value)
		}
	}
	return sqlexpr.Cmp(sqlexpr.Col(j.FromTable, j.When.Column), "=", v)
}

// bestJoin picks among joins from one table to another the one whose
// role the question names.
func (e *Builder) bestJoin(a *links.Analysis, joins []warehouse.Join) warehouse.Join {
	best, bestW := joins[0], -1.0
	for _, j := range joins {
		if w := e.RoleFit(a, j, e.TypedSiblings(j)); w > bestW {
			best, bestW = j, w
		}
	}
	return best
}
