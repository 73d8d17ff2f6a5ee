package dialog

import (
	"math"
	"sort"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// alive is the view of one live candidate the information-gain step needs.
type alive struct {
	p     float64
	group int
	slots sqlshape.Slots
}

// point is a decision point: a slot whose value differs between live
// candidates. Values are sorted by probability, most likely first.
type point struct {
	Key    sqlshape.SlotKey
	Values []pointValue
	Gain   float64
	// Whole is set when each option keeps one whole interpretation (the
	// reading question, or a point that asks the same).
	Whole bool
}

type pointValue struct {
	Value sqlshape.SlotValue
	P     float64
}

// slotPriority breaks ties between equally informative points in favour of
// the ones that make the plainest questions.
var slotPriority = map[sqlshape.SlotName]int{
	sqlshape.SlotDefine: 10, sqlshape.SlotCount: 10, sqlshape.SlotFilterOn: 9, sqlshape.SlotMeasure: 8, sqlshape.SlotOutput: 7, sqlshape.SlotOrder: 6,
	sqlshape.SlotWhere: 5, sqlshape.SlotCond: 5, sqlshape.SlotGroup: 4, sqlshape.SlotLimit: 3, sqlshape.SlotTables: 2, sqlshape.SlotDistinct: 1,
}

// plainness discounts the gain of points that make awkward questions: which
// tables to join is usually settled by asking about the value or the
// column that needs the join.
var plainness = map[sqlshape.SlotName]float64{
	sqlshape.SlotDefine: 1, sqlshape.SlotCount: 1, sqlshape.SlotFilterOn: 1, sqlshape.SlotMeasure: 1, sqlshape.SlotOutput: 1, sqlshape.SlotOrder: 1,
	sqlshape.SlotWhere: 0.9, sqlshape.SlotCond: 0.9, sqlshape.SlotGroup: 0.9, sqlshape.SlotLimit: 0.8, sqlshape.SlotDistinct: 0.6, sqlshape.SlotTables: 0.5,
}

// nestedPlainness discounts points inside a subquery, a CTE or a later
// branch of a set operation: asked only when the outer query leaves the
// readings apart, or when they tell them apart far better.
const nestedPlainness = 0.85

// entropy of a distribution given as unnormalised weights, in bits.
func entropy(weights map[any]float64) float64 {
	var total float64
	for _, w := range weights {
		total += w
	}
	if total <= 0 {
		return 0
	}
	var h float64
	for _, w := range weights {
		if w > 0 {
			p := w / total
			h -= p * math.Log2(p)
		}
	}
	return h
}

// interpretationEntropy is H(Y) over the live interpretations.
func interpretationEntropy(cands []alive) float64 {
	w := map[any]float64{}
	for _, c := range cands {
		w[c.group] += c.p
	}
	return entropy(w)
}

// decisionPoints lists the slots that separate live candidates, each with
// its expected information gain I(X;Y) = H(Y) − H(Y|X) about which
// interpretation is meant, where X is the answer to the question (one of
// the first maxOptions values, or "something else" for the rest, reached
// through Other…). Points whose key is in skip are left out. The result is
// sorted best first.
func decisionPoints(cands []alive, skip map[sqlshape.SlotKey]bool, maxOptions int) []point {
	keys := map[sqlshape.SlotKey]bool{}
	for _, c := range cands {
		for k := range c.slots {
			keys[k] = true
		}
	}
	var pts []point
	for k := range keys {
		if skip[k] {
			continue
		}
		byValue := map[string]*pointValue{}
		for _, c := range cands {
			v := c.slots.Get(k)
			pv, ok := byValue[v.String()]
			if !ok {
				pv = &pointValue{Value: v}
				byValue[v.String()] = pv
			}
			pv.P += c.p
		}
		if len(byValue) < 2 {
			continue
		}
		pt := point{Key: k}
		for _, pv := range byValue {
			pt.Values = append(pt.Values, *pv)
		}
		sort.Slice(pt.Values, func(i, j int) bool {
			if pt.Values[i].P != pt.Values[j].P {
				return pt.Values[i].P > pt.Values[j].P
			}
			return pt.Values[i].Value.String() < pt.Values[j].Value.String()
		})
		pt.Gain = informationGain(cands, k, pt.Values, maxOptions) * plainness[k.Name]
		if k.Nested() {
			pt.Gain *= nestedPlainness
		}
		if pt.Gain > 1e-9 {
			pts = append(pts, pt)
		}
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].Gain != pts[j].Gain {
			return pts[i].Gain > pts[j].Gain
		}
		return pts[i].Key.String() < pts[j].Key.String()
	})
	// Within a tenth of a bit of the best, the plainer question goes first:
	// asking which column 'Texas' is in reads better than asking which
	// tables to join.
	if len(pts) > 1 {
		best := 0
		for i := 1; i < len(pts) && pts[0].Gain-pts[i].Gain <= 0.1; i++ {
			if pts[i].Key.Nested() && !pts[best].Key.Nested() {
				continue
			}
			if slotPriority[pts[i].Key.Name] > slotPriority[pts[best].Key.Name] || !pts[i].Key.Nested() && pts[best].Key.Nested() {
				best = i
			}
		}
		pts[0], pts[best] = pts[best], pts[0]
	}
	return pts
}

// informationGain computes I(X;Y) = H(X) + H(Y) − H(X,Y) for the answer X
// to the question about slot key, with the values beyond the shown options
// lumped into one "other" answer.
func informationGain(cands []alive, key sqlshape.SlotKey, values []pointValue, maxOptions int) float64 {
	shown := map[string]bool{}
	for i, v := range values {
		if i < maxOptions {
			shown[v.Value.String()] = true
		}
	}
	type xy struct {
		x string
		y int
	}
	px := map[any]float64{}
	py := map[any]float64{}
	pxy := map[any]float64{}
	for _, c := range cands {
		x := c.slots.Get(key).String()
		if !shown[x] {
			x = "\x00other"
		}
		px[x] += c.p
		py[c.group] += c.p
		pxy[xy{x, c.group}] += c.p
	}
	return entropy(px) + entropy(py) - entropy(pxy)
}

// Strategies for choosing which decision point to ask about.
const (
	StrategyEIG     = "eig"      // the most expected information gain
	StrategyRandom  = "random"   // any separating point, at random (ablation)
	StrategyMaxProb = "max-prob" // the point whose likeliest option is likeliest (ablation)
)

// pick chooses the point to ask about by the configured strategy; pts are
// sorted by gain.
func (m *Manager) pick(pts []point) point {
	switch m.cfg.Strategy {
	case StrategyRandom:
		m.rngMu.Lock()
		defer m.rngMu.Unlock()
		return pts[m.rng.IntN(len(pts))]
	case StrategyMaxProb:
		best := pts[0]
		for _, p := range pts[1:] {
			if p.Values[0].P > best.Values[0].P {
				best = p
			}
		}
		return best
	}
	return pts[0]
}
