package ontology

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// QuestionRecord is the audit record of one answered (or refused) question:
// who asked where, what was asked and clarified, which facts decided it,
// the SQL that ran and what it cost. It never holds result values.
type QuestionRecord struct {
	// AskedAt is when the question arrived; the entry's At is when it was
	// recorded (answered), which keeps the log in time order.
	AskedAt      time.Time `json:"asked_at"`
	Platform     string    `json:"platform"`
	Workspace    string    `json:"workspace,omitempty"`
	Channel      string    `json:"channel,omitempty"`
	Thread       string    `json:"thread,omitempty"`
	Conversation string    `json:"conversation,omitempty"`
	// User is the asker's owner key ("slack:T1:U2").
	User      string `json:"user"`
	Warehouse string `json:"warehouse"`
	Question  string `json:"question"`
	// Steps are the clarifications asked and the answers given, and the
	// feedback that followed, in order.
	Steps []QuestionStep `json:"steps,omitempty"`
	// FactsUsed are the remembered meanings that decided without asking.
	FactsUsed []FactUse `json:"facts_used,omitempty"`
	// SQL is the statement whose result was the answer (several when the
	// answer was revised).
	SQL []string `json:"sql,omitempty"`
	// Rows is how many rows the answer returned.
	Rows int `json:"rows"`
	// Duration is the bot's own time over the whole conversation.
	Duration time.Duration `json:"duration_ns"`
	Engine   string        `json:"engine,omitempty"`
	// PromptTokens and CompletionTokens are the model tokens spent.
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// Outcome is "answered", "refused", "failed" or "confirmed" (the
	// person said an answer was what they meant).
	Outcome string `json:"outcome"`
	// Detail explains a refusal or failure (never result values).
	Detail string `json:"detail,omitempty"`
	// Unused are the question's words the answer left out and said so (a
	// caveated answer).
	Unused []string `json:"unused,omitempty"`
}

// QuestionStep is one exchange after the question: a clarification and
// its answer, or feedback on an answer.
type QuestionStep struct {
	At time.Time `json:"at"`
	// Kind is "clarification", "follow-up", "correct", "wrong" or "change".
	Kind string `json:"kind"`
	// Asked is the clarification's wording and Options its choices.
	Asked   string   `json:"asked,omitempty"`
	Options []string `json:"options,omitempty"`
	// Answer is what the person chose or wrote.
	Answer string `json:"answer,omitempty"`
	// Typed is set when the answer was written in the person's own words
	// ("Other…") rather than picked from Options.
	Typed bool `json:"typed,omitempty"`
}

// FactUse names a fact that decided part of an answer.
type FactUse struct {
	ID      string `json:"id"`
	Phrase  string `json:"phrase"`
	Scope   Scope  `json:"scope"`
	Source  Source `json:"source,omitempty"`
	Meaning string `json:"meaning,omitempty"`
}

// RecordQuestion appends a question to the audit log, with the asker as
// the entry's actor, at the current time.
func (s *Store) RecordQuestion(ctx context.Context, q QuestionRecord) error {
	if q.User == "" {
		return invalidf("record question: no user")
	}
	q.AskedAt = q.AskedAt.UTC().Round(0)
	err := s.update(ctx, func(tx kv.Tx) error {
		return s.audit(tx, AuditEntry{Actor: q.User, Action: ActionQuestion, Question: &q})
	})
	if err != nil {
		return fmt.Errorf("record question of %s: %w", q.User, err)
	}
	return nil
}

// AuditQuery returns the audit entries the filter selects, newest first.
// Entries are appended in time order, so a Since bound stops the scan.
func (s *Store) AuditQuery(ctx context.Context, fl AuditFilter) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.view(ctx, func(tx kv.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		for k, v := c.Last(); k != nil && (fl.Limit <= 0 || len(out) < fl.Limit); k, v = c.Prev() {
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			if !fl.Since.IsZero() && e.At.Before(fl.Since) {
				break
			}
			if fl.matches(e) {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query audit: %w", err)
	}
	return out, nil
}

func (fl AuditFilter) matches(e AuditEntry) bool {
	return (fl.Actor == "" || e.Actor == fl.Actor) &&
		(len(fl.Actions) == 0 || slices.Contains(fl.Actions, e.Action)) &&
		(fl.Since.IsZero() || !e.At.Before(fl.Since))
}

// PruneAudit deletes entries with one of the actions that are older than
// before, and returns how many went. It is how question records are kept
// only for the configured retention; fact history is usually kept.
func (s *Store) PruneAudit(ctx context.Context, before time.Time, actions ...string) (int, error) {
	if len(actions) == 0 {
		return 0, invalidf("prune audit: name the actions to prune")
	}
	n := 0
	err := s.update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketAudit)
		type doomed struct {
			key []byte
			e   AuditEntry
		}
		var drop []doomed
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			if !e.At.Before(before) {
				break
			}
			if slices.Contains(actions, e.Action) {
				drop = append(drop, doomed{append([]byte(nil), k...), e})
			}
		}
		idx := tx.Bucket(bucketAuditByFact)
		for _, d := range drop {
			if err := b.Delete(d.key); err != nil {
				return err
			}
			if d.e.FactID != "" {
				if err := idx.Delete(append(joinKey(d.e.FactID, ""), d.key...)); err != nil {
					return err
				}
			}
		}
		n = len(drop)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune audit before %s: %w", before.Format(time.RFC3339), err)
	}
	return n, nil
}
