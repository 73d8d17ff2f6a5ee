package dialog

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/clarify-bot/clarify/dialog/link"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// stateVersion is bumped whenever the stored conversation format changes;
// older states are migrated when they are read (migrate.go).
const stateVersion = 2

// Conversation status values.
const (
	statusAsking   = "asking"   // a clarification is pending
	statusAnswered = "answered" // an answer was given; feedback or follow-ups may come
)

// StepKind says what ruled a candidate out.
type StepKind string

// Steps that rule candidates out.
const (
	StepAnswer StepKind = "answer" // the person answered clarification Ref
	StepChosen StepKind = "chosen" // an earlier answer about Key, applied to regenerated candidates
	StepFact   StepKind = "fact"   // remembered fact Ref decided
	StepReject StepKind = "reject" // the person said answer Ref was not what they meant
	StepNone   StepKind = "none"   // the person said none of clarification Ref's options (Ref "" for earlier ones)
)

// Step is what ruled a candidate out; the zero Step means it is alive.
type Step struct {
	Kind StepKind         `json:"kind,omitempty"`
	Ref  string           `json:"ref,omitempty"`
	Key  sqlshape.SlotKey `json:"key,omitzero"`
}

// IsZero reports whether no step ruled the candidate out.
func (s Step) IsZero() bool { return s.Kind == "" }

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
	// Chosen are the answers given so far; they are applied again to
	// regenerated candidates.
	Chosen map[sqlshape.SlotKey]sqlshape.SlotValue `json:"chosen,omitempty"`
	// Asked are the slot keys already asked about: never ask twice.
	Asked []sqlshape.SlotKey `json:"asked,omitempty"`
	// Applied are facts applied to this conversation's candidates.
	Applied []appliedFact `json:"applied,omitempty"`
	// Skipped facts are not applied again (rejected, or reopened with "change").
	Skipped []string `json:"skipped,omitempty"`
	// Excluded are values the person said none of.
	Excluded map[sqlshape.SlotKey][]sqlshape.SlotValue `json:"excluded,omitempty"`
	// Shown are the values each question offered, so that an answer never
	// uses a meaning of a word the person was asked about and not shown
	// (definitions.go); Typed the meanings typed under Other… (typed.go).
	Shown map[sqlshape.SlotKey][]sqlshape.SlotValue `json:"shown,omitempty"`
	Typed []typedAnswer                             `json:"typed,omitempty"`
	// Taught are the facts this conversation taught (teaching.go).
	Taught []taughtFact `json:"taught,omitempty"`
	// Words are the question's words read as schema elements (vocab.go);
	// WordsAsked the words asked about, never twice.
	Words      []wordUse `json:"words,omitempty"`
	WordsAsked []string  `json:"words_asked,omitempty"`

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
	// None is the calibrated belief that none of this round's readings is
	// meant (calibrate.go); Picks counts the options chosen since, each
	// of which makes it less likely.
	None  float64 `json:"none,omitempty"`
	Picks int     `json:"picks,omitempty"`
	// Calibrated is set when this round's priors are the calibrated belief.
	Calibrated bool `json:"calibrated,omitempty"`
	// AnswerP is the probability of the answered interpretation when it
	// was answered, for the evaluation's reliability table.
	AnswerP float64 `json:"answer_p,omitempty"`
	// Tokens are the model tokens the conversation spent in all (the audit
	// record's count starts again with each answer).
	Tokens int `json:"tokens,omitempty"`
	// Audit gathers what the next audit record of the question holds (audit.go).
	Audit auditTrail `json:"audit,omitzero"`
	// began is when this turn's handling started (or the last save), for
	// the bot's own time in Audit; not stored.
	began time.Time
	// pendingTyped is a meaning defined by a follow-up that the next
	// regenerated readings must hold (typed.go); not stored.
	pendingTyped *typedAnswer
}

type candState struct {
	SQL     string                      `json:"sql"`
	Prior   float64                     `json:"prior"`
	Group   int                         `json:"group"` // interpretation; -1 when it failed to run
	Slots   sqlshape.Slots              `json:"slots,omitempty"`
	Phrases map[sqlshape.SlotKey]string `json:"phrases,omitempty"`
	Display map[sqlshape.SlotKey]string `json:"display,omitempty"`
	// Unused are the question's words the reading leaves out.
	Unused []string `json:"unused,omitempty"`
	// Defines are the meanings the reading gives to words the schema does
	// not name.
	Defines []Definition `json:"defines,omitempty"`
	// Linked are the facts whose phrases the reading took as the columns
	// they define (Candidate.Linked), as the answer words them.
	Linked []appliedFact `json:"linked,omitempty"`
	// ElimBy is the step that ruled it out (zero while alive).
	ElimBy Step   `json:"elim,omitzero"`
	Err    string `json:"err,omitempty"`
	// Rows is the row count of its result, for choosing representatives;
	// Empty is set when the result has no rows or only NULLs (readings
	// that differ stay apart), Zero when it says nothing — no rows, or
	// only zeros and NULLs (a remembered choice that finds nothing,
	// applicable.go).
	Rows  int  `json:"rows"`
	Empty bool `json:"empty,omitempty"`
	Zero  bool `json:"zero,omitempty"`
	// Votes, Unlinked and Source are the engine's (Candidate); Own is the
	// prior the engine gave it among its own candidates.
	Votes    float64  `json:"votes,omitempty"`
	Unlinked []string `json:"unlinked,omitempty"`
	Source   string   `json:"source,omitempty"`
	Own      float64  `json:"own,omitempty"`
}

type appliedFact struct {
	FactID  string           `json:"fact"`
	Key     sqlshape.SlotKey `json:"key"`
	Token   ontology.Term    `json:"token"`
	Phrase  string           `json:"phrase"`
	Meaning string           `json:"meaning"`
	Scope   ontology.Scope   `json:"scope"`
	Step    Step             `json:"step"`
	// Source is the fact's origin (the team's glossary, see
	// ontology.Fact.Source), for the answer and the audit.
	Source ontology.Source `json:"source,omitempty"`
	// Word is set for a word read as a schema element (vocab.go).
	Word bool `json:"word,omitempty"`
}

// engineKey marks a question the engine proposed (options carry feedback).
var engineKey = sqlshape.SlotKey{Name: "engine"}

type pendingQ struct {
	ID      string           `json:"id"`
	Key     sqlshape.SlotKey `json:"key"`
	Phrase  string           `json:"phrase,omitempty"`
	Prompt  string           `json:"prompt"`
	Kind    AmbiguityKind    `json:"kind"`
	Options []pendingOpt     `json:"options"`
	// Change is the fact being reopened, if this question came from "change".
	Change string `json:"change,omitempty"`
	// Engine marks a question proposed by the engine (options carry feedback).
	Engine bool `json:"engine,omitempty"`
	// Whole is set when each option keeps one whole interpretation.
	Whole bool `json:"whole,omitempty"`
	// OneOff marks a question about a remembered choice that does not hold
	// here (applicable.go): the answer is for this question only.
	OneOff bool `json:"one_off,omitempty"`
}

type pendingOpt struct {
	Label   string             `json:"label"`
	Example string             `json:"example,omitempty"`
	Value   sqlshape.SlotValue `json:"value"`
	// Feedback is what an engine question's option feeds back when chosen.
	Feedback string `json:"feedback,omitempty"`
	// Element is what a word question's option takes the word for (vocab.go).
	Element *link.Element `json:"element,omitempty"`
}

type closedQ struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Choice string `json:"choice"`
}

type answerRec struct {
	ID  string `json:"id"`
	SQL string `json:"sql"`
	// Run is the statement that gave the figure beside the reading's rows
	// (figure.go), "" when there is none; Added counts those columns.
	Run   string `json:"run,omitempty"`
	Added int    `json:"added,omitempty"`
	// Shown is how many rows people have seen so far (the answer's and
	// the pages' after it), Rows how many were fetched, Truncated whether
	// the warehouse had more (paging.go).
	Shown     int        `json:"shown,omitempty"`
	Rows      int        `json:"rows,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
	Group     int        `json:"group"`
	UsedFacts []UsedFact `json:"used,omitempty"`
	Confirmed bool       `json:"confirmed,omitempty"`
}

// shownSQL is the statement whose select list lines up with what people
// saw: the figure statement when there is one.
func (a *answerRec) shownSQL() string {
	if a.Run != "" {
		return a.Run
	}
	return a.SQL
}

// sqlText is what "show SQL" shows: the reading, and where the figure
// beside it came from.
func (a *answerRec) sqlText() string {
	if a.Run == "" {
		return a.SQL
	}
	return a.SQL + "\n\n-- The figure beside each row:\n" + a.Run
}

func (s *convState) encode() ([]byte, error) {
	s.Version = stateVersion
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode conversation %s: %w", s.Key, err)
	}
	return b, nil
}

// decodeState reads a stored conversation; slots reads a candidate's
// slots, for migrating older formats.
func decodeState(b []byte, slots func(sql string) (sqlshape.Slots, map[sqlshape.SlotKey]string)) (*convState, error) {
	var v struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	switch v.Version {
	case stateVersion:
	case 1:
		return migrateStateV1(b, slots)
	default:
		return nil, fmt.Errorf("decode conversation: format %d, this build reads 1 and %d", v.Version, stateVersion)
	}
	var s convState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	return &s, nil
}

func (s *convState) live() []int {
	var out []int
	for i, c := range s.Candidates {
		if c.ElimBy.IsZero() && c.Group >= 0 {
			out = append(out, i)
		}
	}
	return out
}

func (s *convState) skipped(factID string) bool { return slices.Contains(s.Skipped, factID) }

// restore brings back the candidates a step ruled out.
func (s *convState) restore(step Step) {
	for i := range s.Candidates {
		if s.Candidates[i].ElimBy == step {
			s.Candidates[i].ElimBy = Step{}
		}
	}
}

// keepOnly rules out the live candidates whose slot value differs.
func (s *convState) keepOnly(key sqlshape.SlotKey, value sqlshape.SlotValue, step Step) {
	for _, i := range s.live() {
		if !s.Candidates[i].Slots.Get(key).Equal(value) {
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
