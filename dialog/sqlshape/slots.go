package sqlshape

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// SlotName names a part of a query a person can be asked about.
type SlotName string

// Slot names.
const (
	SlotMeasure  SlotName = "measure"  // what is aggregated: SUM(orders.net_amount)
	SlotOutput   SlotName = "output"   // what is shown besides measures
	SlotFilterOn SlotName = "filteron" // Arg: a literal → which column it is compared with
	SlotWhere    SlotName = "where"    // Arg: an expression → which values/operator it is compared with
	SlotGroup    SlotName = "group"
	SlotOrder    SlotName = "order"
	SlotLimit    SlotName = "limit"
	SlotTables   SlotName = "tables"
	SlotDistinct SlotName = "distinct"
	// SlotCond holds the conditions that are no plain comparison with
	// literals (an OR of comparisons, a comparison of two expressions),
	// so that readings that filter differently that way can be told apart.
	SlotCond SlotName = "cond"
	// SlotDefine is not read from SQL: engines report what a word the
	// schema does not name was taken to mean (Arg: the phrase, "active").
	SlotDefine SlotName = "definition"
	// SlotCount is not read from SQL either: engines report how often a
	// measured thing counts when related rows repeat it (Arg: the thing,
	// "members"): once, or once per related row.
	SlotCount SlotName = "count"
)

// DefineKey is the key of the decision "what does phrase mean".
func DefineKey(phrase string) SlotKey { return SlotKey{Name: SlotDefine, Arg: phrase} }

// SlotKey identifies a decision point: a slot name and, for filters, what
// the slot concerns (the compared literals for filteron, the compared
// expression for where). Scope names the nested query the slot belongs
// to ("" for the query itself): a subquery by how the outer query uses
// it ("in:orders.customer_id"), a CTE by its name ("with:recent"), a
// later branch of a set operation ("union#2"). It is comparable, so it
// keys maps.
type SlotKey struct {
	Name  SlotName
	Arg   string
	Scope string
}

// Key is the key of a slot without an argument.
func Key(name SlotName) SlotKey { return SlotKey{Name: name} }

// FilterOnKey is the key of the decision "which column are these literals
// compared with"; canon maps each literal to its canonical form (nil keeps it).
func FilterOnKey(literals []string, canon func(string) string) SlotKey {
	vals := make([]string, len(literals))
	for i, v := range literals {
		if canon != nil {
			v = canon(v)
		}
		vals[i] = v
	}
	return SlotKey{Name: SlotFilterOn, Arg: strings.Join(vals, ",")}
}

// WhereKey is the key of the decision "what is expr compared with".
func WhereKey(expr string) SlotKey { return SlotKey{Name: SlotWhere, Arg: expr} }

// String is the key's canonical form: "measure", "filteron:texas",
// "measure[in:orders.customer_id]".
func (k SlotKey) String() string {
	s := string(k.Name)
	if k.Scope != "" {
		s += "[" + k.Scope + "]"
	}
	if k.Arg == "" {
		return s
	}
	return s + ":" + k.Arg
}

// Nested reports whether the key belongs to a nested query.
func (k SlotKey) Nested() bool { return k.Scope != "" }

// Top is the key without its scope.
func (k SlotKey) Top() SlotKey { return SlotKey{Name: k.Name, Arg: k.Arg} }

// MarshalText lets keys be JSON object keys.
func (k SlotKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads the canonical form.
func (k *SlotKey) UnmarshalText(b []byte) error {
	*k = ParseSlotKey(string(b))
	return nil
}

// ParseSlotKey reads a key from its canonical form. The name never holds a
// colon or a bracket, and a scope never holds a closing bracket, so the
// scope is what the first brackets hold and the argument everything
// after the colon that follows.
func ParseSlotKey(s string) SlotKey {
	i := strings.IndexAny(s, ":[")
	if i < 0 || s[i] == ':' {
		name, arg, _ := strings.Cut(s, ":")
		return SlotKey{Name: SlotName(name), Arg: arg}
	}
	rest := s[i+1:]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return SlotKey{Name: SlotName(s[:i]), Scope: rest}
	}
	k := SlotKey{Name: SlotName(s[:i]), Scope: rest[:j]}
	k.Arg = strings.TrimPrefix(rest[j+1:], ":")
	return k
}

// scopeName keeps a scope free of the brackets that delimit it in a key's
// canonical form.
func scopeName(s string) string {
	return strings.NewReplacer("[", "(", "]", ")").Replace(s)
}

// Join is a column = column condition, sides sorted.
type Join struct {
	Left  string `json:"l"`
	Right string `json:"r"`
}

func (j Join) String() string { return j.Left + " = " + j.Right }

// Part is one item of a slot's value: a measure, an output column, a
// filter's column and operator, an ordering, a table.
type Part struct {
	// Expr is the canonical expression: "SUM(orders.net_amount)",
	// "customers.state", a table name for the tables slot.
	Expr string `json:"e"`
	// Fn and Arg split an aggregate: "SUM" and "orders.net_amount"
	// (without DISTINCT); both empty for other expressions.
	Fn  string `json:"fn,omitempty"`
	Arg string `json:"arg,omitempty"`
	// Op is the comparison of a filter ("=", "year", "in", ">"…) or the
	// direction of an ordering ("asc", "desc").
	Op string `json:"op,omitempty"`
	// Values are the literals a where-part compares with.
	Values []string `json:"v,omitempty"`
}

// Columns lists the table.column references in the part's expression.
func (p Part) Columns() []string { return ColumnRefs(p.Expr) }

// IsAggregate reports whether the part is one aggregate call.
func (p Part) IsAggregate() bool { return p.Fn != "" }

// Distinct reports whether the aggregate counts each value once.
func (p Part) Distinct() bool {
	return p.Fn != "" && strings.HasPrefix(strings.TrimPrefix(p.Expr, p.Fn+"("), "DISTINCT ")
}

// text is the part's canonical form within a value of the given slot.
func (p Part) text(slot SlotName) string {
	switch slot {
	case SlotFilterOn, SlotOrder:
		return p.Expr + " " + p.Op
	case SlotWhere:
		return strings.TrimSpace(p.Op + " " + strings.Join(p.Values, ","))
	}
	return p.Expr
}

// SlotValue is what one candidate puts in one slot, structured. Two values
// are the same choice when their canonical strings are equal; String gives
// that form, for grouping and display.
type SlotValue struct {
	Slot  SlotName
	Parts []Part
	// Joins are the join conditions of the tables slot.
	Joins []Join
	text  string
}

// NewValue builds a value and its canonical form.
func NewValue(slot SlotName, parts []Part, joins []Join) SlotValue {
	v := SlotValue{Slot: slot, Parts: parts, Joins: joins}
	v.text = v.render()
	return v
}

// separators of the canonical form, per slot.
func (v SlotValue) render() string {
	texts := make([]string, len(v.Parts))
	for i, p := range v.Parts {
		texts[i] = p.text(v.Slot)
	}
	switch v.Slot {
	case SlotMeasure:
		return strings.Join(texts, " | ")
	case SlotFilterOn, SlotWhere:
		return strings.Join(texts, " & ")
	case SlotTables:
		s := strings.Join(texts, ", ")
		if len(v.Joins) > 0 {
			js := make([]string, len(v.Joins))
			for i, j := range v.Joins {
				js[i] = j.String()
			}
			s += " | " + strings.Join(js, ", ")
		}
		return s
	}
	return strings.Join(texts, ", ")
}

// String is the canonical form: "SUM(orders.net_amount) | COUNT(*)",
// "customers.state = & orders.ship_state =", "orders.total desc".
func (v SlotValue) String() string { return v.text }

// IsEmpty reports whether the candidate has nothing in the slot.
func (v SlotValue) IsEmpty() bool { return v.text == "" }

// Equal reports whether two values are the same choice.
func (v SlotValue) Equal(o SlotValue) bool { return v.text == o.text }

// PartTexts are the canonical forms of the parts, in order.
func (v SlotValue) PartTexts() []string {
	out := make([]string, len(v.Parts))
	for i, p := range v.Parts {
		out[i] = p.text(v.Slot)
	}
	return out
}

type slotValueJSON struct {
	Slot  SlotName `json:"s"`
	Parts []Part   `json:"p,omitempty"`
	Joins []Join   `json:"j,omitempty"`
}

// MarshalJSON stores the structure; the canonical form is derived.
func (v SlotValue) MarshalJSON() ([]byte, error) {
	return json.Marshal(slotValueJSON{Slot: v.Slot, Parts: v.Parts, Joins: v.Joins})
}

// UnmarshalJSON reads the structure and derives the canonical form.
func (v *SlotValue) UnmarshalJSON(b []byte) error {
	var j slotValueJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("slot value: %w", err)
	}
	*v = NewValue(j.Slot, j.Parts, j.Joins)
	return nil
}

// Slots maps the slot keys of one candidate to its values.
type Slots map[SlotKey]SlotValue

// Get returns the value of key, which is empty (of that slot) when the
// candidate has nothing there.
func (s Slots) Get(key SlotKey) SlotValue {
	if v, ok := s[key]; ok {
		return v
	}
	return SlotValue{Slot: key.Name}
}

// Slots maps every slot key of the shape to its value. Only the top level
// counts: subqueries are how a query computes, not what a person asked
// for. canonValue maps a literal to the form it is compared under, so
// that 'TX' and 'Texas' can stand for the same thing; nil keeps values.
func (s *Shape) Slots(canonValue func(string) string) Slots {
	if canonValue == nil {
		canonValue = func(v string) string { return v }
	}
	m := Slots{}
	var measures, outputs, figures []Part
	for _, o := range s.Outputs {
		if o.Agg != "" || strings.Contains(o.Expr, "(") && isAggregateExpr(o.Expr) {
			measures = append(measures, AggregatePart(o.Expr))
			figures = append(figures, AggregatePart(o.Expr))
		} else {
			outputs = append(outputs, Part{Expr: o.Expr})
		}
	}
	// Beside the rows' labels, whether their figure is shown is part of
	// what the answer shows ("the top 2 carriers", with or without their
	// number of trips); alone, the figure is the answer itself.
	if len(outputs) > 0 {
		outputs = append(outputs, figures...)
	}
	for _, o := range s.OrderBy {
		if isAggregateExpr(o.Expr) {
			measures = append(measures, AggregatePart(o.Expr))
		}
	}
	for _, f := range s.Filters {
		if f.Having && f.Depth == 0 && isAggregateExpr(f.Expr) {
			measures = append(measures, AggregatePart(f.Expr))
		}
	}
	m[Key(SlotMeasure)] = NewValue(SlotMeasure, dedupSortedParts(measures), nil)
	m[Key(SlotOutput)] = NewValue(SlotOutput, outputs, nil)
	filterParts := map[SlotKey][]Part{}
	var filterKeys []SlotKey
	addFilterPart := func(k SlotKey, p Part) {
		if _, ok := filterParts[k]; !ok {
			filterKeys = append(filterKeys, k)
		}
		filterParts[k] = append(filterParts[k], p)
	}
	for _, f := range s.Filters {
		if f.Depth != 0 || f.Op == "expr" {
			continue
		}
		if len(f.Values) > 0 && f.Values[0] != "(subquery)" {
			addFilterPart(FilterOnKey(f.Values, canonValue), Part{Expr: f.Expr, Op: f.Op})
		}
		addFilterPart(WhereKey(f.Expr), Part{Expr: f.Expr, Op: f.Op, Values: f.Values})
	}
	for _, k := range filterKeys {
		parts := filterParts[k]
		sort.SliceStable(parts, func(i, j int) bool { return parts[i].text(k.Name) < parts[j].text(k.Name) })
		m[k] = NewValue(k.Name, parts, nil)
	}
	var groups []Part
	for _, g := range s.GroupBy {
		groups = append(groups, Part{Expr: g})
	}
	m[Key(SlotGroup)] = NewValue(SlotGroup, groups, nil)
	var ords []Part
	for _, o := range s.OrderBy {
		dir := "asc"
		if o.Desc {
			dir = "desc"
		}
		ords = append(ords, Part{Expr: o.Expr, Op: dir})
	}
	m[Key(SlotOrder)] = NewValue(SlotOrder, ords, nil)
	var limit []Part
	if s.Limit >= 0 {
		limit = []Part{{Expr: strconv.Itoa(s.Limit)}}
	}
	m[Key(SlotLimit)] = NewValue(SlotLimit, limit, nil)
	var tables []Part
	for _, t := range s.Tables {
		tables = append(tables, Part{Expr: t})
	}
	m[Key(SlotTables)] = NewValue(SlotTables, tables, s.Joins)
	var distinct []Part
	if s.Distinct {
		distinct = []Part{{Expr: "distinct"}}
	}
	m[Key(SlotDistinct)] = NewValue(SlotDistinct, distinct, nil)
	var conds []Part
	for _, f := range s.Filters {
		if f.Depth == 0 && f.Op == "expr" {
			conds = append(conds, Part{Expr: f.Expr})
		}
	}
	m[Key(SlotCond)] = NewValue(SlotCond, dedupSortedParts(conds), nil)
	// The slots of nested queries, under their scope: what a subquery, a
	// CTE or a later branch computes is a decision like any other.
	for _, sub := range s.Subs {
		for k, v := range sub.Shape.Slots(canonValue) {
			if k.Scope != "" {
				k.Scope = sub.Scope + "/" + k.Scope
			} else {
				k.Scope = sub.Scope
			}
			m[k] = v
		}
	}
	return m
}

// AggregatePart splits "SUM(orders.net_amount)" into its function and
// argument; an expression that is not one aggregate call keeps only Expr.
func AggregatePart(expr string) Part {
	fn, arg := SplitAggregate(expr)
	if fn == "" {
		return Part{Expr: expr}
	}
	return Part{Expr: expr, Fn: fn, Arg: arg}
}

// SplitAggregate splits one aggregate call of the canonical form,
// "COUNT(DISTINCT orders.customer_id)" → "COUNT", "orders.customer_id";
// anything else gives "", expr.
func SplitAggregate(expr string) (fn, arg string) {
	i := strings.IndexByte(expr, '(')
	if i <= 0 || !strings.HasSuffix(expr, ")") || !isAggregateExpr(expr) {
		return "", expr
	}
	inner := expr[i+1 : len(expr)-1]
	// "SUM(a) / SUM(b)" is not one call.
	for t := range sqlscan.Tokens(inner, 0) {
		if t.Depth < 0 {
			return "", expr
		}
	}
	return expr[:i], strings.TrimPrefix(inner, "DISTINCT ")
}

func dedupSortedParts(in []Part) []Part {
	sort.SliceStable(in, func(i, j int) bool { return in[i].Expr < in[j].Expr })
	out := in[:0]
	for i, p := range in {
		if i == 0 || p.Expr != in[i-1].Expr {
			out = append(out, p)
		}
	}
	return out
}

var aggregateNames = []string{"SUM(", "COUNT(", "AVG(", "MIN(", "MAX(", "GROUP_CONCAT(", "STDDEV(", "VARIANCE("}

func isAggregateExpr(e string) bool {
	for _, a := range aggregateNames {
		if strings.HasPrefix(e, a) {
			return true
		}
	}
	return false
}

// ColumnRefs lists the table.column names in a canonical expression.
func ColumnRefs(expr string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(expr, func(r rune) bool { return r > 0x7f || !isIdentByte(byte(r)) }) {
		if i := strings.LastIndexByte(f, '.'); i > 0 && i < len(f)-1 && !isNumber(f) {
			out = append(out, f)
		}
	}
	return out
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
