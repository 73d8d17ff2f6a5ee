// Package dialog is the conversation manager: it turns a question into
// candidate SQL queries, runs them, finds where they differ, asks the most
// informative multiple-choice question, applies the answer, and remembers
// it in the asking person's ontology. It knows nothing of Slack or Discord:
// adapters translate platform events into Events and render Replies.
package dialog

import (
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/ontology"
)

// Who identifies the person behind an event and where it happened.
// User ids are only unique within a platform and workspace.
type Who struct {
	Platform  string `json:"platform"`  // "slack", "discord", "console"
	Workspace string `json:"workspace"` // Slack team id, Discord guild id ("" for DMs)
	Channel   string `json:"channel"`
	User      string `json:"user"`
	// Admin is set by the adapter after its own permission check.
	Admin bool `json:"admin,omitempty"`
	// Roles are the platform's role ids of the person (Discord), comma
	// separated so that Who stays comparable, for warehouses whose access
	// rules name roles.
	Roles string `json:"roles,omitempty"`
}

// Identity is the person and place of w, which formats their owner keys.
func (w Who) Identity() ontology.Identity {
	return ontology.Identity{Platform: w.Platform, Workspace: w.Workspace, Channel: w.Channel, User: w.User}
}

// ThreadKey is the Conversation of a thread known by its channel and the
// message that started it ("C0789:1712.5"): a Slack thread, or a Discord
// direct-message reply. Discord threads, which have ids of their own, use
// the id.
func ThreadKey(channel, thread string) string { return channel + ":" + thread }

// SplitThreadKey reads a ThreadKey; ok is false for a conversation that
// is not one (a Discord thread's id).
func SplitThreadKey(conv string) (channel, thread string, ok bool) {
	return strings.Cut(conv, ":")
}

// EventKind says what the person did.
type EventKind int

const (
	// EventMessage is a question, or a follow-up in an existing conversation
	// ("only 2024", "and by month?"); while a clarification is pending it is
	// taken as a free-text answer to it.
	EventMessage EventKind = iota + 1
	// EventChoose picks option Option of clarification Target.
	EventChoose
	// EventOther answers clarification Target with free text (the "Other…" field).
	EventOther
	// EventCorrect confirms answer Target.
	EventCorrect
	// EventWrong says answer Target is not what the person meant.
	EventWrong
	// EventShowSQL asks for the SQL of answer Target.
	EventShowSQL
	// EventChange reopens the decision that fact FactID made in answer Target.
	EventChange
	// EventPrefs lists the person's preferences (admins: Subject may name
	// another user, or "*" for everyone's).
	EventPrefs
	// EventForget deletes the person's preferences for the phrase in Text.
	EventForget
	// EventDeleteFact deletes fact FactID (own facts; admins any).
	EventDeleteFact
	// EventPromote makes fact FactID a channel- or workspace-wide fact
	// (Scope: ontology.ScopeChannel or ontology.ScopeWorkspace); admins only.
	EventPromote
	// EventEditFact changes the wording of fact FactID to Text; admins, or the owner.
	EventEditFact
	// EventMore shows the next rows of answer Target ("more", a Show more
	// button): from row Option when an adapter says how far it showed,
	// else after the rows shown so far.
	EventMore
	// EventAllRows shows every kept row of answer Target that was not shown yet.
	EventAllRows
	// EventCSV asks for the whole kept result of answer Target as a CSV file.
	EventCSV
)

// Event is one thing a person did, translated by an adapter.
type Event struct {
	Kind EventKind
	// Conversation is the adapter's key for the thread (unique per platform and workspace).
	Conversation string
	Who          Who
	// Text is what the person typed: a question, an answer, a phrase to
	// forget, a fact's new wording.
	Text string
	// Target names (by id) the clarification or answer the event refers to.
	Target string
	Option int
	FactID string
	// Scope is where EventPromote promotes a fact to.
	Scope ontology.Scope
	// Subject is whose preferences EventPrefs lists: "" for the asker, a
	// user id, or "*" for everyone's (admins only).
	Subject string
	// At is when it happened; zero means now.
	At time.Time
	// Locale is the BCP 47 tag of the person's language and region where
	// the platform says it ("de-DE"); numbers are written for it. "" is en-US.
	Locale string
	// Resume marks a turn that a process which stopped began and did not
	// finish, sent again by another: where the conversation already moved
	// on (a clarification waits), that is what comes back, instead of
	// reading the question as its answer or the click as stale.
	Resume bool `json:",omitempty"`
}

// ReplyKind says how an adapter should render a Reply.
type ReplyKind int

const (
	ReplyClarification ReplyKind = iota + 1 // a question with options
	ReplyAnswer                             // a result table with an explanation
	ReplyNotice                             // a short plain message (also errors and refusals)
	ReplyPrefs                              // a list of learned preferences
	ReplySQL                                // the SQL of an answer
	ReplyRows                               // more rows of an earlier answer (Answer, from Answer.Offset)
	ReplyFile                               // a file to download (File), e.g. an answer's CSV
)

// Reply is what the bot says back. Text always holds a plain-text rendering
// of the whole reply, for logs and platforms without rich messages.
type Reply struct {
	Kind         ReplyKind
	Conversation string
	Text         string
	// Ephemeral replies are shown only to the person who acted, where the platform can.
	Ephemeral     bool
	Clarification *Clarification
	Answer        *Answer
	Prefs         *Prefs
	// SQL is set for ReplySQL.
	SQL string
	// Resolved is set when an event closed a clarification: adapters update
	// the question's message to show the choice and remove its buttons.
	Resolved *Resolved
	// File is set for ReplyFile.
	File *File
}

// File is a file for the person to download.
type File struct {
	Name        string // "clarify-abc12.csv"
	ContentType string // "text/csv"
	Title       string // "Result (181 rows)"
	Data        []byte
	// Rows is how many result rows the file holds (CSV).
	Rows int
}

// Resolved tells which clarification an event answered and how.
type Resolved struct {
	ClarificationID string
	Prompt          string
	Choice          string
}

// AmbiguityKind is the kind of doubt a clarification resolves.
type AmbiguityKind string

const (
	AmbColumn   AmbiguityKind = "column"   // which column a word means
	AmbOutput   AmbiguityKind = "output"   // what the answer should show
	AmbQuestion AmbiguityKind = "question" // what the question means
	AmbValue    AmbiguityKind = "value"    // which stored value a word means
)

// Clarification is a multiple-choice question: at most MaxOptions closed
// options, plus a free-text "Other…".
type Clarification struct {
	ID   string
	Kind AmbiguityKind
	// Key is the decision point asked about; for tools such as the
	// evaluation harness.
	Key     sqlshape.SlotKey
	Prompt  string
	Options []Option
	// Phrase is the part of the question it is about, when known ("revenue").
	Phrase string
	Round  int
	// MaxRounds is the most questions this conversation may still ask in all.
	MaxRounds int
}

// MaxOptions is the most closed options a clarification offers.
const MaxOptions = 3

// OtherLabel is the label of the free-text option.
const OtherLabel = "Other…"

// Option is one closed choice.
type Option struct {
	Label string
	// Example is a short illustration from the data ("e.g. 1,204.50"), may be empty.
	Example string
	// Value is the option's meaning as a slot value, and Readings the SQL
	// of the candidates it keeps; adapters ignore both, the evaluation
	// harness's simulated user reads them.
	Value    sqlshape.SlotValue
	Readings []string
	// Element is the schema element ("customers", "shipments.carrier") a
	// word question's option takes the word for.
	Element string `json:",omitempty"`
}

// Answer is a result with what it means.
type Answer struct {
	ID string
	// Columns are the columns' plain names for people ("Customer", "Net
	// revenue", "Orders"), from the parsed select list and the catalog;
	// the SQL's own names are only in the SQL (and Result).
	Columns []string
	// Rows are formatted for people (NULL, thousands separators, currency)
	// in the asker's locale; at most DisplayRows of them, starting at row
	// Offset of the result. Result holds all fetched rows, typed, for files.
	Rows [][]string
	// Offset is the index of the first of Rows in the result: 0 for an
	// answer, more for a later page of it (ReplyRows).
	Offset   int
	RowCount int
	// Truncated is true when the warehouse had more rows than were fetched.
	Truncated bool
	Result    *sqlresult.Result
	// Added counts the last columns of Result that the reading did not ask
	// for and the answer shows beside it: the figure a ranking is ordered
	// by ("California" with its 766 customers). Reading() leaves them out.
	Added int `json:",omitempty"`
	// Formats say how each column reads (money, dates, periods…), and
	// Headings repeat Columns; both line up with Columns, for charts and
	// rich tables.
	Formats  []colfmt.Format `json:",omitempty"`
	Headings []string        `json:",omitempty"`
	// Headline says the answer in a sentence when it is a ranking or a
	// superlative: "California, with 766 customers."
	Headline string `json:",omitempty"`
	// Locale is the tag Rows are written for (Event.Locale), so that
	// adapters count rows the same way ("1.234 Zeilen").
	Locale      string `json:",omitempty"`
	Explanation string
	SQL         string
	// UsedFacts are the earlier choices that decided this answer without asking.
	UsedFacts []UsedFact
	// Unused are words of the question this answer did not take into
	// account; the reply says so and invites the person to say what they mean.
	Unused []string
	// Notes are short remarks (engine fallbacks, empty results, value hints).
	Notes []string
}

// Reading is the result of the reading itself: Result without the columns
// added beside it for people (Added), as the reading's own SQL returns it.
func (a *Answer) Reading() *sqlresult.Result {
	if a == nil || a.Result == nil || a.Added <= 0 || a.Added >= len(a.Result.Columns) {
		if a == nil {
			return nil
		}
		return a.Result
	}
	n := len(a.Result.Columns) - a.Added
	out := *a.Result
	out.Columns = a.Result.Columns[:n]
	out.Rows = make([][]any, len(a.Result.Rows))
	for i, r := range a.Result.Rows {
		out.Rows[i] = r[:min(n, len(r))]
	}
	return &out
}

// More is how many kept rows come after the ones shown.
func (a *Answer) More() int {
	if a == nil {
		return 0
	}
	return max(a.RowCount-a.Offset-len(a.Rows), 0)
}

// UsedFact is a remembered choice applied to an answer.
type UsedFact struct {
	FactID  string
	Phrase  string
	Meaning string
	Scope   ontology.Scope
	// Definition is set for the meaning of a word the schema does not name.
	Definition bool `json:",omitempty"`
	// Team is set for a fact of the team glossary: a meaning decided once
	// for everyone, not someone's earlier answer.
	Team bool `json:",omitempty"`
	// Word is set for a word of the person's (or the team's) read as a
	// table, column or value: "clients" = customers.
	Word bool `json:",omitempty"`
}

// Whose says whose choice a used fact was: "your earlier choice", "this
// channel's choice", "the <workspace>'s choice", where workspace is the
// platform's word for it ("workspace", "server"), or "the team's
// definition" for the team glossary's.
func (f UsedFact) Whose(workspace string) string {
	if f.Word {
		if f.Team || f.Scope != ontology.ScopeUser && f.Scope != "" {
			return "the team's word"
		}
		return "your word"
	}
	if f.Team {
		return "the team's definition"
	}
	what := "choice"
	if f.Definition {
		what = "definition"
	}
	switch f.Scope {
	case ontology.ScopeChannel:
		return "this channel's " + what
	case ontology.ScopeWorkspace:
		return "the " + workspace + "'s " + what
	}
	if f.Definition {
		return "your definition"
	}
	return "your earlier choice"
}

// Prefs is a list of learned preferences.
type Prefs struct {
	// Subject is whose preferences these are (the asker, or the user an admin asked about).
	Subject string
	Facts   []FactView
	// CanAdmin says the viewer may promote, edit and delete any fact.
	CanAdmin bool
}

// FactView is a fact as shown to people.
type FactView struct {
	ID      string
	Phrase  string
	Meaning string
	Kind    string
	Scope   ontology.Scope
	Owner   string
	Learned time.Time
	Uses    int
	// Source says where it came from: "your answer", "team glossary
	// 'demo'", "promoted by an admin", "verified query (verified by ana)",
	// "answer marked correct" (a candidate).
	Source string `json:",omitempty"`
	// Active is false once "not what I meant" set it aside for the viewer.
	Active bool
	// Rejections counts "not what I meant" on answers that used it (the
	// owner's, or for a shared fact the viewer's).
	Rejections int `json:",omitempty"`
	// Candidate marks an answer someone marked correct, which an admin
	// may verify (promote to the workspace); it is not a preference.
	Candidate bool `json:",omitempty"`
}
