package dialog

import (
	"context"

	"github.com/clarify-bot/clarify/dialog/link"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// Engine proposes candidate SQL queries for a question. The offline engine
// (dialog/offline) interprets the question against the schema catalog; the
// LLM engine samples a model. The manager runs, groups and compares the
// candidates and decides what to ask, whichever engine made them.
type Engine interface {
	Name() string
	Candidates(ctx context.Context, req Request) (*Proposal, error)
}

// Request is what an engine gets for one round of generation.
type Request struct {
	Question string
	// Feedback holds what the person added since: follow-ups ("only 2024"),
	// free-text answers ("use ship date"), oldest first.
	Feedback  []Feedback
	Who       Who
	Warehouse string
	// Facts are the asker's active preferences (user over channel over
	// workspace already resolved); engines may use them as definitions.
	Facts []ontology.Fact
	// Widen asks for more alternatives than usual: the person said none of
	// the offered readings fit. 0 is the normal breadth.
	Widen int
	// Exclude lists SQL already rejected in this conversation.
	Exclude []string
	// Links are the question's words linked to the schema (dialog/link),
	// the person's own words among them; Question already says those in
	// the schema's words.
	Links []link.Link `json:",omitempty"`
}

// FeedbackKind classifies free-text feedback (after FISQL).
type FeedbackKind string

const (
	FeedbackAdd    FeedbackKind = "add"    // "only 2024", "and by month"
	FeedbackRemove FeedbackKind = "remove" // "drop the email column", "without cancelled orders"
	FeedbackEdit   FeedbackKind = "edit"   // "use ship date", "I meant gross"
)

// Feedback is one piece of free text the person gave.
type Feedback struct {
	Kind FeedbackKind
	Text string
	// About is the phrase of the clarification it answered, if any.
	About string
	// Author is the owner key of the person who wrote it: in a shared
	// thread it may not be the asker, and what it teaches is theirs.
	Author string `json:",omitempty"`
	// Term is what the dialog understood the text to mean for About, when
	// it read it (freetext.go): a measure or one computed from others, a
	// condition defining the phrase, a column. Engines that build typed
	// readings use it instead of the words; Text then says it plainly.
	Term *ontology.Term `json:",omitempty"`
}

// Proposal is an engine's answer to a Request.
type Proposal struct {
	Candidates []Candidate
	// Notes are shown with the answer (e.g. "the model was unavailable").
	Notes []string
	// Ask is a question the engine itself wants asked (the LLM's
	// summarize-review-ask step), used when the candidates agree.
	Ask *EngineQuestion
	// PromptTokens and CompletionTokens are the model tokens this round
	// spent (zero for the offline engine), for the question's audit record.
	PromptTokens, CompletionTokens int
	// Samples is how many independent samples of a model the candidates'
	// Votes are out of; zero when the priors are not sample shares (the
	// offline engine, revisions of earlier readings). With it the manager
	// calibrates how likely each interpretation is (calibrate.go).
	Samples int
	// Prompt lists the "table.column" names (lower-case) the model was
	// shown, for the eval harness's linking gold-check.
	Prompt []string
}

// Candidate is one reading of the question as SQL.
type Candidate struct {
	SQL   string
	Prior float64
	// Phrases maps slot keys to the words of the question they came from
	// (measure → "revenue"), for wording clarifications and remembering
	// answers.
	Phrases map[sqlshape.SlotKey]string
	// Unused are the words of the question this reading does not take into
	// account ("active" in "how many active plants"), in question order.
	Unused []string
	// Defines are the meanings this reading gives words the schema does not
	// name: "active" = the status is Operational.
	Defines []Definition
	// Readings are decisions this reading makes that its SQL's shape does
	// not word (how often a repeated thing counts): each a slot of its own,
	// worded by the engine.
	Readings []Reading `json:",omitempty"`
	// Linked lists the ids of facts (Request.Facts) whose phrases this
	// reading took as the columns they define ("sales region" =
	// regions.name): the answer says it used them, like any remembered
	// choice.
	Linked []string `json:",omitempty"`
	// Votes is how many of the Proposal's Samples gave this reading.
	Votes float64 `json:",omitempty"`
	// Unlinked are the columns the reading uses that no word of the
	// question names (keys and join columns aside): a reading that
	// brings in what nobody asked about is less likely than one that
	// does not.
	Unlinked []string `json:",omitempty"`
	// Source is the engine that proposed the reading when candidates of
	// two engines are pooled ("" for the main engine).
	Source string `json:",omitempty"`
}

// Reading is one engine-worded decision of a candidate: its value in the
// slot Key, the plain words for it, and the question words it concerns.
type Reading struct {
	Key    sqlshape.SlotKey
	Value  string
	Label  string
	Phrase string
}

// Definition is what a reading takes a phrase to mean, as a condition on
// (or a measure of) named tables and columns.
type Definition struct {
	Phrase string
	Term   ontology.Term
	// Label words it for people: "Status is Operational".
	Label string
	// Stated is set when the person said it in their own words (an answer
	// typed under Other…, "active means …"): it is remembered once used.
	Stated bool `json:",omitempty"`
}

// ConditionRead is what an engine read a person's words for a term as: a
// condition on the rows of Term.Subject (Term.Kind predicate, Op "read",
// the words in Items, the condition in Expr), and SQL listing the keys of
// the rows that meet it, for saying it in plain words.
type ConditionRead struct {
	Term ontology.Term
	SQL  string
	// Label words the conditions the engine words itself ("has no
	// visits"), for those the SQL's shape does not word.
	Label string
}

// ConditionReader reads a definition typed in words ("customers with 25
// or more orders") with the engine's question reader; ok is false when
// the words cannot be read as a condition on subject's rows.
type ConditionReader interface {
	ReadCondition(ctx context.Context, subject, words string, facts []ontology.Fact) (ConditionRead, bool)
}

// EngineQuestion is a clarification proposed by an engine: each option
// carries the feedback to apply when chosen.
type EngineQuestion struct {
	Kind    AmbiguityKind
	Prompt  string
	Phrase  string
	Options []EngineOption
}

// EngineOption is one choice of an EngineQuestion.
type EngineOption struct {
	Label    string
	Feedback string
}
