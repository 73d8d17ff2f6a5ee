package dialog

import (
	"encoding/json"
	"fmt"
	"time"
)

// stateVersion is bumped whenever the stored conversation format changes.
const stateVersion = 1

// Conversation status values.
const (
	statusAsking   = "asking"   // a clarification is pending
	statusAnswered = "answered" // an answer was given; feedback or follow-ups may come
)

// convState is everything needed to resume a conversation after a restart.
// Candidate results are not kept (they can be large): group membership and
// slots are, and the chosen query runs again when it is answered.
type convState struct {
	Version   int        `json:"v"`
	Key       string     `json:"key"`
	Who       Who        `json:"who"`
	Warehouse string     `json:"warehouse"`
	Question  string     `json:"question"`
	Feedback  []Feedback `json:"feedback,omitempty"`
	Status    string     `json:"status"`
	Created   time.Time  `json:"created"`
	Updated   time.Time  `json:"updated"`

	Candidates []candState `json:"candidates"`
	// Chosen are the answers given so far (slot key → value); they are
	// applied again to regenerated candidates.
	Chosen map[string]string `json:"chosen,omitempty"`
	// Asked are the slot keys already asked about: never ask twice.
	Asked []string `json:"asked,omitempty"`
	// Applied are facts applied to this conversation's candidates.
	Applied []appliedFact `json:"applied,omitempty"`
	// Skipped facts are not applied again (rejected, or reopened with "change").
	Skipped []string `json:"skipped,omitempty"`
	// Excluded are values the person said none of (slot key → values).
	Excluded map[string][]string `json:"excluded,omitempty"`

	Pending   *pendingQ   `json:"pending,omitempty"`
	History   []closedQ   `json:"history,omitempty"`
	Answer    *answerRec  `json:"answer,omitempty"`
	Answers   []answerRec `json:"answers,omitempty"` // earlier answers, for late clicks
	Round     int         `json:"round"`
	Widen     int         `json:"widen,omitempty"`
	Rejected  int         `json:"rejected,omitempty"`
	Engine    string      `json:"engine,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
	Questions int         `json:"questions"` // clarifications asked in all
	// EngineAsk is the engine's own question for this round (asked when the
	// candidates leave nothing to ask); EnginePrompts are those asked.
	EngineAsk     *EngineQuestion `json:"engine_ask,omitempty"`
	EnginePrompts []string        `json:"engine_prompts,omitempty"`
	// First describes the first round of candidates, for evaluation.
	First *Trace `json:"first,omitempty"`
}

type candState struct {
	SQL     string            `json:"sql"`
	Prior   float64           `json:"prior"`
	Group   int               `json:"group"` // interpretation; -1 when it failed to run
	Slots   map[string]string `json:"slots,omitempty"`
	Phrases map[string]string `json:"phrases,omitempty"`
	Display map[string]string `json:"display,omitempty"`
	// ElimBy names the step that ruled it out ("" while alive).
	ElimBy string `json:"elim,omitempty"`
	Err    string `json:"err,omitempty"`
	// Rows is the row count of its result, for choosing representatives.
	Rows int `json:"rows"`
}

type appliedFact struct {
	FactID  string `json:"fact"`
	Key     string `json:"key"`
	Token   string `json:"token"`
	Phrase  string `json:"phrase"`
	Meaning string `json:"meaning"`
	Scope   string `json:"scope"`
	Step    string `json:"step"`
}

type pendingQ struct {
	ID      string        `json:"id"`
	Key     string        `json:"key"`
	Phrase  string        `json:"phrase,omitempty"`
	Prompt  string        `json:"prompt"`
	Kind    AmbiguityKind `json:"kind"`
	Options []pendingOpt  `json:"options"`
	// Change is the fact being reopened, if this question came from "change".
	Change string `json:"change,omitempty"`
	// Engine marks a question proposed by the engine (options carry feedback).
	Engine bool `json:"engine,omitempty"`
}

type pendingOpt struct {
	Label    string `json:"label"`
	Example  string `json:"example,omitempty"`
	Value    string `json:"value"`
	Feedback string `json:"feedback,omitempty"`
}

type closedQ struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Choice string `json:"choice"`
}

type answerRec struct {
	ID        string     `json:"id"`
	SQL       string     `json:"sql"`
	Group     int        `json:"group"`
	UsedFacts []UsedFact `json:"used,omitempty"`
	Confirmed bool       `json:"confirmed,omitempty"`
}

func (s *convState) encode() ([]byte, error) {
	s.Version = stateVersion
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode conversation %s: %w", s.Key, err)
	}
	return b, nil
}

func decodeState(b []byte) (*convState, error) {
	var s convState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("decode conversation: format %d, want %d", s.Version, stateVersion)
	}
	return &s, nil
}

func (s *convState) live() []int {
	var out []int
	for i, c := range s.Candidates {
		if c.ElimBy == "" && c.Group >= 0 {
			out = append(out, i)
		}
	}
	return out
}

func (s *convState) wasAsked(key string) bool {
	for _, k := range s.Asked {
		if k == key {
			return true
		}
	}
	return false
}

func (s *convState) skipped(factID string) bool {
	for _, id := range s.Skipped {
		if id == factID {
			return true
		}
	}
	return false
}

// restore brings back the candidates a step ruled out.
func (s *convState) restore(step string) {
	for i := range s.Candidates {
		if s.Candidates[i].ElimBy == step {
			s.Candidates[i].ElimBy = ""
		}
	}
}

// keepOnly rules out the live candidates whose slot value differs.
func (s *convState) keepOnly(key, value, step string) {
	for _, i := range s.live() {
		if s.Candidates[i].Slots[key] != value {
			s.Candidates[i].ElimBy = step
		}
	}
}

func (s *convState) findAnswer(id string) *answerRec {
	if s.Answer != nil && s.Answer.ID == id {
		return s.Answer
	}
	for i := range s.Answers {
		if s.Answers[i].ID == id {
			return &s.Answers[i]
		}
	}
	return nil
}
