package dialog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Conversation states of format 1 held slot keys, slot values and
// elimination steps as strings ("filteron:texas", "customers.state =",
// "fact:<id>"). They are read once more here and brought to the current
// form: slots are read again from each candidate's SQL, and the old value
// strings are matched to the values whose canonical form they were.

type stateV1 struct {
	convState
	Candidates []candV1            `json:"candidates"`
	Chosen     map[string]string   `json:"chosen,omitempty"`
	Asked      []string            `json:"asked,omitempty"`
	Applied    []appliedV1         `json:"applied,omitempty"`
	Excluded   map[string][]string `json:"excluded,omitempty"`
	Pending    *pendingV1          `json:"pending,omitempty"`
}

type candV1 struct {
	SQL     string            `json:"sql"`
	Prior   float64           `json:"prior"`
	Group   int               `json:"group"`
	Phrases map[string]string `json:"phrases,omitempty"`
	ElimBy  string            `json:"elim,omitempty"`
	Err     string            `json:"err,omitempty"`
	Rows    int               `json:"rows"`
}

type appliedV1 struct {
	FactID  string `json:"fact"`
	Key     string `json:"key"`
	Token   string `json:"token"`
	Phrase  string `json:"phrase"`
	Meaning string `json:"meaning"`
	Scope   string `json:"scope"`
	Step    string `json:"step"`
}

type pendingV1 struct {
	pendingQ
	Key     string `json:"key"`
	Options []struct {
		Label    string `json:"label"`
		Example  string `json:"example,omitempty"`
		Value    string `json:"value"`
		Feedback string `json:"feedback,omitempty"`
	} `json:"options"`
}

func migrateStateV1(b []byte, slots func(sql string) (sqlshape.Slots, map[sqlshape.SlotKey]string)) (*convState, error) {
	var old stateV1
	if err := json.Unmarshal(b, &old); err != nil {
		return nil, fmt.Errorf("decode conversation (format 1): %w", err)
	}
	st := old.convState
	st.Version = stateVersion
	// The typed values, by key and canonical form, of every candidate.
	values := map[sqlshape.SlotKey]map[string]sqlshape.SlotValue{}
	value := func(key sqlshape.SlotKey, s string) sqlshape.SlotValue {
		if v, ok := values[key][s]; ok {
			return v
		}
		return sqlshape.SlotValue{Slot: key.Name}
	}
	st.Candidates = make([]candState, len(old.Candidates))
	for i, c := range old.Candidates {
		cs := candState{SQL: c.SQL, Prior: c.Prior, Group: c.Group, Err: c.Err, Rows: c.Rows, ElimBy: legacyStep(c.ElimBy)}
		if c.Group >= 0 {
			cs.Slots, cs.Display = slots(c.SQL)
			for k, v := range cs.Slots {
				if values[k] == nil {
					values[k] = map[string]sqlshape.SlotValue{}
				}
				values[k][v.String()] = v
			}
		}
		if len(c.Phrases) > 0 {
			cs.Phrases = map[sqlshape.SlotKey]string{}
			for k, p := range c.Phrases {
				cs.Phrases[sqlshape.ParseSlotKey(k)] = p
			}
		}
		st.Candidates[i] = cs
	}
	if len(old.Chosen) > 0 {
		st.Chosen = map[sqlshape.SlotKey]sqlshape.SlotValue{}
		for k, v := range old.Chosen {
			key := sqlshape.ParseSlotKey(k)
			st.Chosen[key] = value(key, v)
		}
	}
	for _, k := range old.Asked {
		st.Asked = append(st.Asked, sqlshape.ParseSlotKey(k))
	}
	for _, a := range old.Applied {
		key := sqlshape.ParseSlotKey(a.Key)
		st.Applied = append(st.Applied, appliedFact{
			FactID: a.FactID, Key: key, Token: ontology.LegacyTerm(string(key.Name), a.Token),
			Phrase: a.Phrase, Meaning: a.Meaning, Scope: ontology.Scope(a.Scope), Step: legacyStep(a.Step),
		})
	}
	if len(old.Excluded) > 0 {
		st.Excluded = map[sqlshape.SlotKey][]sqlshape.SlotValue{}
		for k, vs := range old.Excluded {
			key := sqlshape.ParseSlotKey(k)
			for _, v := range vs {
				st.Excluded[key] = append(st.Excluded[key], value(key, v))
			}
		}
	}
	if p := old.Pending; p != nil {
		q := p.pendingQ
		q.Key = sqlshape.ParseSlotKey(p.Key)
		q.Options = nil
		for _, o := range p.Options {
			opt := pendingOpt{Label: o.Label, Example: o.Example, Feedback: o.Feedback}
			if !q.Engine {
				opt.Value = value(q.Key, o.Value)
			}
			q.Options = append(q.Options, opt)
		}
		st.Pending = &q
	}
	return &st, nil
}

// legacyStep reads a format 1 elimination step: "fact:<id>",
// "chosen:<key>", "answer:<id>", "none:<id>", "none", "reject:<id>".
func legacyStep(s string) Step {
	if s == "" {
		return Step{}
	}
	kind, ref, _ := strings.Cut(s, ":")
	st := Step{Kind: StepKind(kind), Ref: ref}
	if st.Kind == StepChosen {
		st.Key, st.Ref = sqlshape.ParseSlotKey(ref), ""
	}
	return st
}
