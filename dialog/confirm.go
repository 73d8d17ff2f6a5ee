package dialog

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// maxPooled bounds the pooled engine's readings per round: its likeliest
// ones are evidence enough, and each one runs on the warehouse.
const maxPooled = 6

// pool adds the pooled engine's likeliest readings to a sampled proposal
// (Deps.Pool): the offline engine beside a model. They are marked with
// the engine's name; calibrate.go weighs them.
func (m *Manager) pool(ctx context.Context, req Request, prop *Proposal) {
	if m.deps.Pool == nil || prop.Samples == 0 {
		return
	}
	start := time.Now()
	op, err := m.deps.Pool.Candidates(ctx, req)
	m.obs.EngineDone(m.deps.Pool.Name(), time.Since(start), err)
	if err != nil || op == nil {
		m.log.Info("pooled engine gave no readings", "engine", m.deps.Pool.Name(), "err", err)
		return
	}
	have := map[string]bool{}
	for _, c := range prop.Candidates {
		have[c.SQL] = true
	}
	cands := slices.Clone(op.Candidates)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Prior > cands[j].Prior })
	n := 0
	for _, c := range cands {
		if n == maxPooled {
			break
		}
		if have[c.SQL] {
			continue
		}
		have[c.SQL] = true
		c.Source, c.Votes = m.deps.Pool.Name(), 0
		prop.Candidates = append(prop.Candidates, c)
		n++
	}
}

// confirmKey marks the question whether the likeliest reading is the one
// meant: asked when nothing separates the readings left but the belief
// that none of them is meant keeps the likeliest below the stop.
var confirmKey = sqlshape.SlotKey{Name: "confirm"}

// confirmYes is the confirmed reading's value of confirmKey.
var confirmYes = sqlshape.NewValue("confirm", []sqlshape.Part{{Expr: "yes"}}, nil)

// confirmPoint makes the confirmation a decision point: the readings of
// interpretation best hold confirmYes. Only a calibrated belief (one with
// a "none of them") asks it, once per round of readings.
func (st *convState) confirmPoint(best int, bestP, tau float64) (point, bool) {
	if !st.Calibrated || st.None <= 0 || best < 0 || bestP >= tau || slices.Contains(st.Asked, confirmKey) {
		return point{}, false
	}
	for _, i := range st.live() {
		c := &st.Candidates[i]
		if c.Group == best {
			if c.Slots == nil {
				c.Slots = sqlshape.Slots{}
			}
			c.Slots[confirmKey] = confirmYes
		} else {
			delete(c.Slots, confirmKey)
		}
	}
	return point{Key: confirmKey, Values: []pointValue{{Value: confirmYes, P: bestP}}}, true
}

// confirmQuestion words the confirmation: what the reading computes, and
// one option that keeps it; "Other…" says it is not.
func (m *Manager) confirmQuestion(st *convState) {
	prompt := "Is this what you mean?"
	for _, i := range st.live() {
		c := st.Candidates[i]
		if !c.Slots.Get(confirmKey).Equal(confirmYes) {
			continue
		}
		if sh, err := sqlshape.Parse(c.SQL, m.labels.TableOf); err == nil {
			if e := sqlshape.Explain(sh, m.labels); e != "" {
				prompt = "I read this as: " + e + " Is that what you mean?"
			}
		}
		break
	}
	st.Pending = &pendingQ{ID: newID(), Key: confirmKey, Prompt: prompt, Kind: AmbQuestion,
		Options: []pendingOpt{{Label: "Yes, that's it", Value: confirmYes}}}
	st.Status = statusAsking
	st.Asked = appendUnique(st.Asked, confirmKey)
	st.Round++
	st.Questions++
}
