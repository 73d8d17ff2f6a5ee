package dialog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// The reading question: "which of these do you mean?", offering the
// likeliest interpretations whole, each worded by what sets it apart from
// the others. A model's wrong samples differ from the meant reading each
// in a place of its own (a column here, a dropped filter there), so no
// single part separates them and asking part by part takes a question per
// difference; one question over the readings separates up to three of
// them and "none of these" at once. It competes with the part-by-part
// points on information gain, discounted for being a longer read; it is
// only asked over a calibrated belief (the model path), because a
// part-by-part answer is also what is remembered for next time.

// choiceKey marks the reading question; its values name interpretations.
var choiceKey = sqlshape.SlotKey{Name: "reading"}

// readingPlainness discounts the reading question against part-by-part
// points of the same gain.
const readingPlainness = 0.8

// choiceValue is interpretation g's value of choiceKey.
func choiceValue(g int) sqlshape.SlotValue {
	return sqlshape.NewValue("reading", []sqlshape.Part{{Expr: fmt.Sprintf("g%d", g)}}, nil)
}

// readingPoint is the reading question over the live interpretations, the
// likeliest MaxOptions offered, and its gain (the entropy of the answer,
// which the interpretation decides).
func (st *convState) readingPoint() (point, bool) {
	if !st.Calibrated {
		return point{}, false
	}
	ps := map[int]float64{}
	var total float64
	for _, i := range st.live() {
		c := st.Candidates[i]
		ps[c.Group] += c.Prior
		total += c.Prior
	}
	if len(ps) < 2 || total <= 0 {
		return point{}, false
	}
	groups := make([]int, 0, len(ps))
	for g := range ps {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		if ps[groups[i]] != ps[groups[j]] {
			return ps[groups[i]] > ps[groups[j]]
		}
		return groups[i] < groups[j]
	})
	w := map[any]float64{}
	pt := point{Key: choiceKey}
	for i, g := range groups {
		if i < MaxOptions {
			w[g] = ps[g]
			pt.Values = append(pt.Values, pointValue{Value: choiceValue(g), P: ps[g] / total})
		} else {
			w["other"] += ps[g]
		}
	}
	// "None of them" is answered by Other…, as are the readings not offered.
	w["other"] += st.noneMass()
	pt.Gain = entropy(w) * readingPlainness
	return pt, true
}

// gainBesideNone is a part-by-part point's information gain when the
// belief holds "none of them" too: if none is meant, the answer follows
// the offered values' own odds (a wrong reading shares most parts with
// the meant one), so the point tells little about it. The reading
// question and the confirmation tell it plainly, which the plain gain
// misses.
func (st *convState) gainBesideNone(pt point) float64 {
	none := st.noneMass()
	if none <= 0 {
		return pt.Gain
	}
	cands := st.liveView()
	shown := map[string]bool{}
	for i, v := range pt.Values {
		if i < MaxOptions {
			shown[v.Value.String()] = true
		}
	}
	type xy struct {
		x string
		y any
	}
	px, py, pxy := map[any]float64{}, map[any]float64{}, map[any]float64{}
	for _, c := range cands {
		x := c.slots.Get(pt.Key).String()
		if !shown[x] {
			x = "\x00other"
		}
		px[x] += c.p
		py[c.group] += c.p
		pxy[xy{x, c.group}] += c.p
	}
	var total float64
	for _, p := range px {
		total += p
	}
	if total <= 0 {
		return pt.Gain
	}
	for x, p := range px {
		share := none * p / total
		px[x] += share
		pxy[xy{x.(string), "none"}] += share
	}
	py["none"] = none
	gain := entropy(px) + entropy(py) - entropy(pxy)
	gain *= plainness[pt.Key.Name]
	if pt.Key.Nested() {
		gain *= nestedPlainness
	}
	return gain
}

// sameChoice finds a part-by-part point that offers exactly the
// interpretations the reading question would, one per option: asking it
// is asking the reading question in the words of the question (with its
// phrase, and remembered for next time).
func (st *convState) sameChoice(pts []point, rp point) (point, bool) {
	want := map[int]bool{}
	for _, v := range rp.Values {
		var g int
		fmt.Sscanf(strings.TrimPrefix(v.Value.String(), "g"), "%d", &g)
		want[g] = true
	}
	for _, pt := range pts {
		if len(pt.Values) > MaxOptions || len(pt.Values) != len(want) || pt.Key.Nested() {
			continue
		}
		groupOf := map[string]int{}
		ok := true
		for _, i := range st.live() {
			c := st.Candidates[i]
			v := c.Slots.Get(pt.Key).String()
			if g, seen := groupOf[v]; seen && g != c.Group || !want[c.Group] {
				ok = false
				break
			}
			groupOf[v] = c.Group
		}
		if ok && len(groupOf) == len(want) {
			return pt, true
		}
	}
	return point{}, false
}

// assignChoice gives the live readings of the offered interpretations
// their choiceKey value, so that picking an option keeps them.
func (st *convState) assignChoice(pt point) {
	offered := map[string]bool{}
	for _, v := range pt.Values {
		offered[v.Value.String()] = true
	}
	for _, i := range st.live() {
		c := &st.Candidates[i]
		v := choiceValue(c.Group)
		if !offered[v.String()] {
			delete(c.Slots, choiceKey)
			continue
		}
		if c.Slots == nil {
			c.Slots = sqlshape.Slots{}
		}
		c.Slots[choiceKey] = v
	}
}

// readingQuestion words the reading question: each option says, in the
// plain words of its parts, what its reading does that the others do not.
func (m *Manager) readingQuestion(st *convState, pt point) {
	var reps []*candState
	for _, v := range pt.Values {
		var g int
		fmt.Sscanf(strings.TrimPrefix(v.Value.String(), "g"), "%d", &g)
		reps = append(reps, st.representative(g))
	}
	q := &pendingQ{ID: newID(), Key: choiceKey, Prompt: "Which of these do you mean?", Kind: AmbQuestion, Whole: true}
	labels := m.readingLabels(reps)
	for i, v := range pt.Values {
		q.Options = append(q.Options, pendingOpt{Label: labels[i], Value: v.Value})
	}
	st.Pending = q
	st.Status = statusAsking
	st.Asked = appendUnique(st.Asked, choiceKey)
	st.Round++
	st.Questions++
}

// partLabel words one part of a reading for the reading question: a
// filter as the condition it is ("pet type is 'cat'"), other parts as
// their options would read.
func (m *Manager) partLabel(k sqlshape.SlotKey, v sqlshape.SlotValue, others []sqlshape.SlotValue, sameFn bool, r *candState) string {
	switch k.Name {
	case sqlshape.SlotFilterOn:
		if len(v.Parts) == 0 {
			return fmt.Sprintf("No condition on '%s'", k.Arg)
		}
		shown := r.Display[k]
		if shown == "" {
			shown = "'" + k.Arg + "'"
		}
		var conds []string
		for _, p := range v.Parts {
			conds = append(conds, m.labels.Column(p.Expr)+" "+filterWords(p.Op)+" "+shown)
		}
		return upperFirst(strings.Join(conds, " and "))
	case sqlshape.SlotWhere:
		if len(v.Parts) == 0 {
			return "Any " + m.labels.Column(k.Arg)
		}
		var conds []string
		for _, p := range v.Parts {
			conds = append(conds, m.labels.Column(k.Arg)+" "+describeCondition(p))
		}
		return upperFirst(strings.Join(conds, " and "))
	}
	return m.labels.optionFor(k, v, others, sameFn, m.labels.countedTable(r.Slots), r.Display[k]).Label
}

// filterWords says a filter's comparison before its value.
func filterWords(op string) string {
	switch op {
	case "=", "in", "year":
		return "is"
	case "!=", "not in":
		return "is not"
	case "like":
		return "matches"
	case "not like":
		return "does not match"
	case ">":
		return "is above"
	case ">=":
		return "is at least"
	case "<":
		return "is below"
	case "<=":
		return "is at most"
	case "between":
		return "is between"
	}
	return op
}

// learnReading remembers a picked reading the way a part-by-part answer
// is remembered: each part, said by words of the question, in which the
// picked reading differs from every other offered one.
func (m *Manager) learnReading(ctx context.Context, st *convState, who Who, q *pendingQ, picked pendingOpt) {
	var chosen *candState
	var others []*candState
	for _, i := range st.live() {
		c := &st.Candidates[i]
		if c.Slots.Get(choiceKey).Equal(picked.Value) {
			if chosen == nil || c.Prior > chosen.Prior {
				chosen = c
			}
		}
	}
	if chosen == nil {
		return
	}
	for _, o := range q.Options {
		if o.Value.Equal(picked.Value) {
			continue
		}
		for i := range st.Candidates {
			c := &st.Candidates[i]
			if c.Group >= 0 && c.Slots.Get(choiceKey).Equal(o.Value) {
				others = append(others, c)
				break
			}
		}
	}
	if len(others) == 0 {
		return
	}
	for k, v := range chosen.Slots {
		phrase := chosen.Phrases[k]
		if phrase == "" || k.Nested() || k.Name == choiceKey.Name || k.Name == confirmKey.Name || k.Name == sqlshape.SlotTables {
			continue
		}
		apart := true
		var opts []pendingOpt
		for _, o := range others {
			ov := o.Slots.Get(k)
			if ov.Equal(v) {
				apart = false
				break
			}
			opts = append(opts, pendingOpt{Value: ov})
		}
		if !apart {
			continue
		}
		if st.Chosen == nil {
			st.Chosen = map[sqlshape.SlotKey]sqlshape.SlotValue{}
		}
		st.Chosen[k] = v
		pq := &pendingQ{Key: k, Phrase: phrase, Options: append([]pendingOpt{{Value: v, Label: m.partLabel(k, v, nil, true, chosen)}}, opts...)}
		m.learn(ctx, st, who, pq, pq.Options[0])
	}
}

// maxLabelParts bounds the differences an option names.
const maxLabelParts = 3

// readingLabels words each reading by the parts where it differs from at
// least one other, plainest parts first; readings that would read the
// same are told apart by what they compute.
func (m *Manager) readingLabels(reps []*candState) []string {
	keys := map[sqlshape.SlotKey]bool{}
	for _, r := range reps {
		for k := range r.Slots {
			switch k.Name {
			case choiceKey.Name, confirmKey.Name, sqlshape.SlotTables:
			default:
				keys[k] = true
			}
		}
	}
	var differ []sqlshape.SlotKey
	for k := range keys {
		for _, r := range reps[1:] {
			if !r.Slots.Get(k).Equal(reps[0].Slots.Get(k)) {
				differ = append(differ, k)
				break
			}
		}
	}
	sort.Slice(differ, func(i, j int) bool {
		a, b := differ[i], differ[j]
		if a.Nested() != b.Nested() {
			return !a.Nested()
		}
		if slotPriority[a.Name] != slotPriority[b.Name] {
			return slotPriority[a.Name] > slotPriority[b.Name]
		}
		return a.String() < b.String()
	})
	out := make([]string, len(reps))
	for i, r := range reps {
		var parts []string
		// Columns a filter part already names: their where-parts say it again.
		filtered := map[string]bool{}
		for _, k := range differ {
			if k.Name != sqlshape.SlotFilterOn || k.Nested() {
				continue
			}
			for _, p := range r.Slots.Get(k).Parts {
				filtered[p.Expr] = true
			}
		}
		for _, k := range differ {
			if k.Name == sqlshape.SlotWhere && !k.Nested() && filtered[k.Arg] {
				continue
			}
			v := r.Slots.Get(k)
			var others []sqlshape.SlotValue
			fns := map[string]bool{firstFn(v): true}
			same := true
			for j, o := range reps {
				if j == i {
					continue
				}
				ov := o.Slots.Get(k)
				others = append(others, ov)
				if ov.Equal(v) {
					same = false
				}
				fns[firstFn(ov)] = true
			}
			if !same {
				continue // this reading shares the part with another: it does not set it apart
			}
			label := m.partLabel(k, v, others, len(fns) == 1, r)
			if k.Nested() {
				label += " (" + m.labels.scopeWords(k.Scope) + ")"
			}
			if !slices.Contains(parts, label) {
				parts = append(parts, label)
			}
			if len(parts) == maxLabelParts {
				break
			}
		}
		out[i] = strings.Join(parts, "; ")
	}
	// Empty or equal labels: say the whole reading.
	seen := map[string]int{}
	for _, l := range out {
		seen[l]++
	}
	for i, l := range out {
		if l == "" || seen[l] > 1 {
			if sh, err := sqlshape.Parse(reps[i].SQL, m.labels.TableOf); err == nil {
				out[i] = strings.TrimSuffix(sqlshape.Explain(sh, m.labels), ".")
			}
		}
		if l := []rune(out[i]); len(l) > 150 {
			out[i] = string(l[:149]) + "…"
		}
	}
	return out
}
