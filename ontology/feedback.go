package ontology

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// A confirmed answer is feedback, not a preference: someone said an answer
// was what they meant. It decides nothing by itself and is not listed
// among the person's preferences; admins see the confirmed answers as
// candidates for verified queries and may verify one (Verify), which makes
// it a KindQuery fact of their workspace.

// ConfirmedAnswer is an answer its asker marked correct.
type ConfirmedAnswer struct {
	ID string `json:"id"`
	// Owner is the asker's owner key ("slack:T1:U2").
	Owner     string `json:"owner"`
	Warehouse string `json:"warehouse"`
	// Phrase is the normalised question (internal/qnorm), the key it is
	// kept under; Question the words as asked.
	Phrase   string `json:"phrase"`
	Question string `json:"question"`
	SQL      string `json:"sql"`
	// Count is how many times the asker confirmed this SQL for the question.
	Count int       `json:"count"`
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// VerifiedAs holds the id of the verified query made from it, once an
	// admin verified it.
	VerifiedAs string `json:"verified_as,omitempty"`
}

type confirmedEnvelope struct {
	V      int             `json:"v"`
	Answer ConfirmedAnswer `json:"answer"`
}

func confirmedKey(a ConfirmedAnswer) []byte { return joinKey(a.Owner, a.Warehouse, a.Phrase) }

func encodeConfirmed(a ConfirmedAnswer) ([]byte, error) {
	return json.Marshal(confirmedEnvelope{V: 1, Answer: a})
}

func decodeConfirmed(b []byte) (ConfirmedAnswer, error) {
	var e confirmedEnvelope
	if err := json.Unmarshal(b, &e); err != nil {
		return ConfirmedAnswer{}, fmt.Errorf("decode confirmed answer: %w", err)
	}
	if e.V != 1 {
		return ConfirmedAnswer{}, fmt.Errorf("decode confirmed answer: version %d, this build reads 1", e.V)
	}
	return e.Answer, nil
}

// RecordConfirmed keeps an answer its asker marked correct, upserting by
// (Owner, Warehouse, Phrase): the same SQL again counts one more
// confirmation; other SQL replaces it (the answer to that question
// changed). It returns the stored record.
func (s *Store) RecordConfirmed(ctx context.Context, a ConfirmedAnswer) (ConfirmedAnswer, error) {
	a.Owner, a.Warehouse = strings.TrimSpace(a.Owner), strings.TrimSpace(a.Warehouse)
	a.Phrase, a.Question, a.SQL = NormalizePhrase(a.Phrase), strings.TrimSpace(a.Question), strings.TrimSpace(a.SQL)
	switch {
	case a.Owner == "" || a.Phrase == "" || a.SQL == "":
		return ConfirmedAnswer{}, invalidf("record confirmed answer: owner, question and SQL are required")
	case strings.ContainsRune(a.Owner, 0) || strings.ContainsRune(a.Warehouse, 0):
		return ConfirmedAnswer{}, invalidf("record confirmed answer: owner or warehouse contains a NUL byte")
	case len(a.Owner) > maxKeyField || len(a.Warehouse) > maxKeyField || len(a.Phrase) > maxKeyField:
		return ConfirmedAnswer{}, invalidf("record confirmed answer: owner, warehouse or question is longer than %d bytes", maxKeyField)
	case len(a.SQL) > maxTextField || len(a.Question) > maxTextField:
		return ConfirmedAnswer{}, invalidf("record confirmed answer: SQL or question is longer than %d bytes", maxTextField)
	}
	now := s.clock()
	var out ConfirmedAnswer
	err := s.update(ctx, func(tx kv.Tx) error {
		rec, err := putConfirmed(tx, a, now)
		out = rec
		return err
	})
	if err != nil {
		return ConfirmedAnswer{}, fmt.Errorf("record confirmed answer of %s: %w", a.Owner, err)
	}
	return out, nil
}

// putConfirmed upserts a confirmed answer inside a transaction; a.ID is
// kept when the record is new and the id is free (the migration moves
// facts with their ids).
func putConfirmed(tx kv.Tx, a ConfirmedAnswer, now time.Time) (ConfirmedAnswer, error) {
	cur := a
	if v := tx.Bucket(bucketConfirmed).Get(confirmedKey(a)); v != nil {
		old, err := decodeConfirmed(v)
		if err != nil {
			return ConfirmedAnswer{}, err
		}
		cur = old
		if old.SQL == a.SQL {
			cur.Count += max(a.Count, 1)
		} else {
			cur.SQL, cur.Count, cur.VerifiedAs = a.SQL, max(a.Count, 1), ""
		}
		cur.Question, cur.Last = a.Question, now
	} else {
		if cur.ID == "" || !validID(cur.ID) || tx.Bucket(bucketConfirmedIDs).Get([]byte(cur.ID)) != nil || tx.Bucket(bucketIDs).Get([]byte(cur.ID)) != nil {
			id, err := newID(tx)
			if err != nil {
				return ConfirmedAnswer{}, err
			}
			cur.ID = id
		}
		cur.Count = max(cur.Count, 1)
		if cur.First.IsZero() {
			cur.First = now
		}
		cur.Last = now
	}
	return cur, writeConfirmed(tx, cur)
}

// writeConfirmed stores a confirmed answer as it is, under its key.
func writeConfirmed(tx kv.Tx, a ConfirmedAnswer) error {
	key := confirmedKey(a)
	v, err := encodeConfirmed(a)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketConfirmed).Put(key, v); err != nil {
		return err
	}
	return tx.Bucket(bucketConfirmedIDs).Put([]byte(a.ID), key)
}

// ConfirmedAnswers lists confirmed answers, newest first: one owner's
// (owner "" for everyone's), of one warehouse ("" for all).
func (s *Store) ConfirmedAnswers(ctx context.Context, owner, warehouse string) ([]ConfirmedAnswer, error) {
	var out []ConfirmedAnswer
	err := s.view(ctx, func(tx kv.Tx) error {
		var prefix []byte
		if owner != "" {
			prefix = joinKey(owner, "")
		}
		c := tx.Bucket(bucketConfirmed).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			a, err := decodeConfirmed(v)
			if err != nil {
				return fmt.Errorf("confirmed answer %q: %w", k, err)
			}
			if warehouse == "" || a.Warehouse == warehouse {
				out = append(out, a)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list confirmed answers: %w", err)
	}
	slices.SortStableFunc(out, func(a, b ConfirmedAnswer) int { return b.Last.Compare(a.Last) })
	return out, nil
}

// ConfirmedAnswer returns one confirmed answer by id, or ErrNotFound.
func (s *Store) ConfirmedAnswer(ctx context.Context, id string) (ConfirmedAnswer, error) {
	var out ConfirmedAnswer
	err := s.view(ctx, func(tx kv.Tx) error {
		a, err := getConfirmed(tx, id)
		out = a
		return err
	})
	if err != nil {
		return ConfirmedAnswer{}, fmt.Errorf("confirmed answer %s: %w", id, err)
	}
	return out, nil
}

func getConfirmed(tx kv.Tx, id string) (ConfirmedAnswer, error) {
	key := tx.Bucket(bucketConfirmedIDs).Get([]byte(id))
	if key == nil {
		return ConfirmedAnswer{}, ErrNotFound
	}
	v := tx.Bucket(bucketConfirmed).Get(key)
	if v == nil {
		return ConfirmedAnswer{}, fmt.Errorf("id index points to a missing record")
	}
	return decodeConfirmed(v)
}

// queryFact is the verified query a confirmed answer becomes.
func (a ConfirmedAnswer) queryFact() Fact {
	return Fact{
		Scope: ScopeUser, Owner: a.Owner, Warehouse: a.Warehouse, Phrase: a.Phrase, Kind: KindQuery,
		Question: a.Question, Meaning: "Answer marked correct: " + a.Question,
		Target: Target{Slot: "query", Choice: Term{Kind: TermSQL, Expr: a.SQL}},
	}
}
