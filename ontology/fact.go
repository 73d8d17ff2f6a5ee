// Package ontology is the knowledge Clarify learns from people's answers:
// each answer to a clarification becomes a Fact ("by revenue I mean net
// revenue after discounts"), owned by a user, a channel or a workspace, so
// the next question that uses the phrase needs no clarification.
//
// The Store keeps facts in a bbolt file. It knows nothing of chat platforms:
// owners are keys formatted from an Identity (see identity.go).
package ontology

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Sentinel errors callers branch on; every error returned by the Store wraps
// one of these or an I/O error, with context.
var (
	// ErrNotFound: no fact (or audit entry) with that id.
	ErrNotFound = errors.New("fact not found")
	// ErrInUse: the store file is locked by another process (usually a
	// running bot), and the lock was not released within Options.Timeout.
	ErrInUse = errors.New("store file is locked")
	// ErrForbidden: the actor may not make that change.
	ErrForbidden = errors.New("not allowed")
	// ErrInvalid: a fact, argument or import file is malformed.
	ErrInvalid = errors.New("invalid")
)

// invalidError is a validation problem: it reads as just the problem
// ("unknown kind \"colour\"") and matches ErrInvalid with errors.Is.
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// Scope says whose a fact is. Precedence, highest first: user, channel,
// workspace.
type Scope string

// Scopes.
const (
	ScopeUser      Scope = "user"
	ScopeChannel   Scope = "channel"
	ScopeWorkspace Scope = "workspace"
)

// scopes in precedence order; Applicable returns groups in this order.
var scopes = [...]Scope{ScopeUser, ScopeChannel, ScopeWorkspace}

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s.rank() < len(scopes) }

// rank is the precedence of s: 0 is highest. Unknown scopes rank last.
func (s Scope) rank() int {
	for i, x := range scopes {
		if s == x {
			return i
		}
	}
	return len(scopes)
}

// Kind says what part of a query a fact decides.
type Kind string

// Kinds.
const (
	KindColumn     Kind = "column"     // which column a word means
	KindValue      Kind = "value"      // which stored value a word means
	KindAggregate  Kind = "aggregate"  // how to aggregate ("total" = SUM)
	KindOutput     Kind = "output"     // what the answer should show
	KindTime       Kind = "time"       // which date column / period
	KindJoin       Kind = "join"       // which join path
	KindDefinition Kind = "definition" // a business term ("best customer")
	KindOrder      Kind = "order"      // ranking ("top" = by revenue)
	// KindQuery is a verified query: Phrase is the normalised question,
	// Target.Choice a TermSQL holding the statement that answers it.
	KindQuery Kind = "query"
	// KindWord is a person's word for a table, column or value that the
	// schema names otherwise: Phrase "clients", Target.Choice a TermTable
	// of customers (a TermColumn, or a TermValues with "=").
	KindWord Kind = "word"
)

// Kinds lists every known kind.
func Kinds() []Kind {
	return []Kind{KindColumn, KindValue, KindAggregate, KindOutput, KindTime, KindJoin, KindDefinition, KindOrder, KindQuery, KindWord}
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, x := range Kinds() {
		if k == x {
			return true
		}
	}
	return false
}

// Fact is one learned meaning of a phrase. The JSON form is both the
// stored form (inside a versioned envelope) and the export format.
type Fact struct {
	// ID is random, URL-safe and short; stable for the fact's life.
	ID    string `json:"id"`
	Scope Scope  `json:"scope"`
	// Owner is the owner's key, formatted by Identity: user "slack:T1:U2",
	// channel "slack:T1:C3", workspace "slack:T1".
	Owner     string `json:"owner"`
	Warehouse string `json:"warehouse"`
	// Phrase is normalised (see NormalizePhrase).
	Phrase string `json:"phrase"`
	Kind   Kind   `json:"kind"`
	// Target is the machine form of the meaning.
	Target Target `json:"target"`
	// Meaning is the human wording of Target.
	Meaning string `json:"meaning,omitempty"`
	// Question is the question the fact was learned from.
	Question string    `json:"question,omitempty"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	// Uses counts answers the fact decided without asking.
	Uses int `json:"uses"`
	// Confirmations counts the times the person chose or confirmed this
	// meaning (1 when learned).
	Confirmations int `json:"confirmations"`
	// Rejections counts "not what I meant" on answers that used it, said
	// by its owner (for shared facts: by anyone, see Overruled).
	Rejections int `json:"rejections"`
	// Overruled is set by Applicable on a channel or workspace fact: how
	// many times the person asking said "not what I meant" to an answer
	// that used it. It weakens the fact for that person only and is not
	// stored on the fact (see Store.Reject).
	Overruled int `json:"-"`
	// PromotedFrom holds the id of the fact this one was promoted from.
	PromotedFrom string `json:"promoted_from,omitempty"`
	// Source is where the fact came from when no person's answer taught
	// it: a team glossary load (see ReplaceSource), or "" for a learned or
	// promoted fact.
	Source Source `json:"source,omitempty"`
	// VerifiedBy names who vouched for the fact: the verifier of a
	// glossary's verified query, or the admin who promoted an answer to one.
	VerifiedBy string `json:"verified_by,omitempty"`
}

// Source is where facts came from when no person's answer taught them.
// It is stored as it reads: "glossary:NAME" for a team glossary's facts,
// "" for learned and promoted ones.
type Source string

// SourceGlossary prefixes the Source of facts loaded from a glossary.
const SourceGlossary = "glossary:"

// GlossarySource is the Source of the facts of the glossary named name.
func GlossarySource(name string) Source { return Source(SourceGlossary + name) }

// IsGlossary reports whether s is a team glossary.
func (s Source) IsGlossary() bool { return strings.HasPrefix(string(s), SourceGlossary) }

// Glossary names the glossary s is, or "" when it is none.
func (s Source) Glossary() string {
	if name, ok := strings.CutPrefix(string(s), SourceGlossary); ok {
		return name
	}
	return ""
}

// FromGlossary reports whether the fact was loaded from a team glossary.
func (f Fact) FromGlossary() bool { return f.Source.IsGlossary() }

// Active reports whether the fact may decide an answer. An inactive fact
// (rejected at least as often as confirmed, by its owner or, for a shared
// fact, by the person asking) is asked about again.
func (f Fact) Active() bool { return f.Confirmations > f.Rejections+f.Overruled }

// Weakened reports whether people said "not what I meant" to answers that
// used the fact: admins review such facts.
func (f Fact) Weakened() bool { return f.Rejections > 0 || f.Overruled > 0 }

// NormalizePhrase is the form phrases are stored and matched in: lower
// case, control characters dropped, runs of white space collapsed to one
// space, trimmed. "  Best\tCustomer " → "best customer".
func NormalizePhrase(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Limits on field sizes. Owner, Warehouse and Phrase are part of a bbolt
// key, which must stay well under bbolt's 32 KiB key limit; the text fields
// are bounded so that a runaway caller cannot bloat every Applicable call.
const (
	maxKeyField  = 512
	maxTextField = 16 << 10
)

// normalize puts the user-supplied fields of f into stored form.
func (f *Fact) normalize() {
	f.Phrase = NormalizePhrase(f.Phrase)
	f.Owner = strings.TrimSpace(f.Owner)
	f.Warehouse = strings.TrimSpace(f.Warehouse)
	f.Meaning = strings.TrimSpace(f.Meaning)
	f.Question = strings.TrimSpace(f.Question)
	f.Source = Source(strings.TrimSpace(string(f.Source)))
	f.VerifiedBy = strings.TrimSpace(f.VerifiedBy)
}

// validate checks the fields every stored fact must have. The returned
// error wraps ErrInvalid and names the field.
func (f Fact) validate() error {
	var problem string
	switch {
	case f.Scope == "":
		problem = "scope is empty"
	case !f.Scope.Valid():
		problem = fmt.Sprintf("unknown scope %q (want user, channel or workspace)", f.Scope)
	case f.Owner == "":
		problem = "owner is empty"
	case f.Phrase == "":
		problem = "phrase is empty"
	case f.Kind == "":
		problem = "kind is empty"
	case !f.Kind.Valid():
		problem = fmt.Sprintf("unknown kind %q", f.Kind)
	case f.Target.Choice.Kind == "":
		problem = "target is empty"
	case f.Target.validate() != nil:
		problem = f.Target.validate().Error()
	case strings.ContainsRune(f.Owner, 0) || strings.ContainsRune(f.Warehouse, 0):
		// NUL separates the parts of index keys.
		problem = "owner or warehouse contains a NUL byte"
	case len(f.Owner) > maxKeyField, len(f.Warehouse) > maxKeyField, len(f.Phrase) > maxKeyField:
		problem = fmt.Sprintf("owner, warehouse or phrase is longer than %d bytes", maxKeyField)
	case len(f.Source) > maxKeyField, len(f.VerifiedBy) > maxKeyField:
		problem = fmt.Sprintf("source or verified_by is longer than %d bytes", maxKeyField)
	case targetSize(f.Target) > maxTextField, len(f.Meaning) > maxTextField, len(f.Question) > maxTextField:
		problem = fmt.Sprintf("target, meaning or question is longer than %d bytes", maxTextField)
	case f.ID != "" && !validID(f.ID):
		problem = fmt.Sprintf("id %q is not 1-64 letters, digits, '-' or '_'", f.ID)
	default:
		return nil
	}
	return invalidf("%s", problem)
}

func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}

// Resolve keeps, for each (Phrase, Kind) — and a definition's subject
// table — only the active fact of highest
// precedence: a user fact over a channel fact over a workspace fact; within
// one scope the most recently used. Inactive facts never win, so a
// rejected user fact lets a channel fact through. Winners keep their order
// in facts.
func Resolve(facts []Fact) []Fact {
	type key struct {
		phrase  string
		kind    Kind
		subject string // a definition's table: "active" customers and orders
	}
	best := make(map[key]int, len(facts))
	for i, f := range facts {
		if !f.Active() {
			continue
		}
		k := key{f.Phrase, f.Kind, definitionSubject(f)}
		j, ok := best[k]
		if !ok || outranks(f, facts[j]) {
			best[k] = i
		}
	}
	out := make([]Fact, 0, len(best))
	for i, f := range facts {
		if j, ok := best[key{f.Phrase, f.Kind, definitionSubject(f)}]; ok && j == i {
			out = append(out, f)
		}
	}
	return out
}

func outranks(a, b Fact) bool {
	if ra, rb := a.Scope.rank(), b.Scope.rank(); ra != rb {
		return ra < rb
	}
	return a.LastUsed.After(b.LastUsed)
}

// Actor is who makes a change. Admins may change any fact; others only
// their own user facts (Owner == ID).
type Actor struct {
	ID    string
	Admin bool
}

// owns reports whether a may change f without being an admin.
func (a Actor) owns(f Fact) bool {
	return a.ID != "" && f.Scope == ScopeUser && f.Owner == a.ID
}

// Owners are the three owners whose facts apply to one question.
type Owners struct {
	User, Channel, Workspace string
}

// Filter selects facts for List. Empty fields match everything.
type Filter struct {
	Scope                    Scope
	Owner, Warehouse, Phrase string
	// IncludeInactive lists facts that were rejected as often as confirmed.
	IncludeInactive bool
}

// Audit actions.
const (
	ActionDelete  = "delete"
	ActionEdit    = "edit"
	ActionPromote = "promote"
	ActionImport  = "import"
	ActionForget  = "forget"
	// ActionGlossary is a change made by loading a glossary (ReplaceSource).
	ActionGlossary = "glossary"
	// ActionQuestion records one answered question (RecordQuestion).
	ActionQuestion = "question"
	// ActionRollback undoes an earlier change (Revert).
	ActionRollback = "rollback"
	// ActionReject records a "not what I meant" on an answer that used a
	// fact (Reject): the fact is weakened for the person who said it.
	ActionReject = "reject"
	// ActionMigrate records a fact a schema migration removed or moved
	// (a badly worded option, a confirmation kept as a preference).
	ActionMigrate = "migrate"
)

// AuditEntry records one change made by an actor. Before is nil for a
// fact that was created, After is nil for one that was deleted.
type AuditEntry struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	FactID string    `json:"fact_id"`
	Before *Fact     `json:"before,omitempty"`
	After  *Fact     `json:"after,omitempty"`
	// Source is the glossary a glossary entry came from.
	Source Source `json:"source,omitempty"`
	// Note words an entry that is not about one fact ("glossary team.yml
	// loaded: 3 added, 1 updated, 0 removed").
	Note string `json:"note,omitempty"`
	// Question is the record of an answered question (ActionQuestion).
	Question *QuestionRecord `json:"question,omitempty"`
	// Via says where the change was made from ("admin console from
	// 192.0.2.7"), when the caller said so with WithVia.
	Via string `json:"via,omitempty"`
	// Undoes is the sequence number of the change a roll back undid
	// (ActionRollback).
	Undoes uint64 `json:"undoes,omitempty"`
}

// AuditFilter selects audit entries. Empty fields match everything.
type AuditFilter struct {
	// Actor is an owner key ("slack:T1:U2"): the person who asked or changed.
	Actor string
	// Actions keeps entries with one of these actions.
	Actions []string
	// Since drops entries older than this.
	Since time.Time
	// Limit caps the entries returned, newest first; <= 0 means all.
	Limit int
}

// ImportStats counts what an import did. Skipped facts were identical to
// the stored ones.
type ImportStats struct {
	Added, Updated, Skipped int
	// Removed counts facts of a replaced source that the new load dropped.
	Removed int
}

// targetSize is the encoded size of a target.
func targetSize(t Target) int {
	e := encoder{}
	e.target(t)
	return len(e.b)
}
