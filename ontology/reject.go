package ontology

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// What a person teaches must only change their own answers. "Not what I
// meant" on an answer weakens the facts that decided it for the person who
// said it, and only for them:
//
//   - their own (user) fact: its Rejections count; once rejections catch up
//     with confirmations it no longer decides, and they are asked again;
//   - a channel, workspace or glossary fact: the fact itself is untouched
//     (everyone else keeps it, and a glossary reload cannot bring back what
//     was never changed); the person's rejection is kept beside it and
//     weakens it for them alone (Fact.Overruled, set by Applicable);
//   - another person's fact: refused (ErrForbidden).
//
// Every rejection is audited (ActionReject), so admins see which meanings
// people keep overruling.

type overrideRecord struct {
	V  int       `json:"v"`
	N  int       `json:"n"`
	At time.Time `json:"at"`
}

// Reject notes that by (an owner key, "slack:T1:U2") said "not what I
// meant" to an answer that used fact id. It returns the fact as by now
// sees it (Overruled set for a shared fact).
func (s *Store) Reject(ctx context.Context, id, by string) (Fact, error) {
	if by == "" {
		return Fact{}, invalidf("reject fact %s: no person", id)
	}
	now := s.clock()
	var out Fact
	err := s.update(ctx, func(tx kv.Tx) error {
		f, err := getFact(tx, id)
		if err != nil {
			return err
		}
		before := f
		switch {
		case f.Scope == ScopeUser && f.Owner == by:
			f.Rejections++
			if err := putFact(tx, f, uniqueKey(f)); err != nil {
				return err
			}
			out = f
			return s.audit(tx, AuditEntry{Actor: by, Action: ActionReject, FactID: f.ID, Before: &before, After: &f,
				Note: fmt.Sprintf("not what the owner meant (%d of %d confirmations)", f.Rejections, f.Confirmations)})
		case f.Scope == ScopeUser:
			return fmt.Errorf("%s may not weaken a fact of %s: %w", by, f.Owner, ErrForbidden)
		}
		key := joinKey(by, f.ID)
		var rec overrideRecord
		if v := tx.Bucket(bucketOverrides).Get(key); v != nil {
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("override %s of %s: %w", f.ID, by, err)
			}
		}
		rec = overrideRecord{V: 1, N: rec.N + 1, At: now}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketOverrides).Put(key, b); err != nil {
			return fmt.Errorf("override %s of %s: %w", f.ID, by, err)
		}
		f.Overruled = rec.N
		out = f
		return s.audit(tx, AuditEntry{Actor: by, Action: ActionReject, FactID: f.ID, Source: sourceOf(f),
			Note: fmt.Sprintf("not what %s meant (%d times); set aside for them only", by, rec.N)})
	})
	if err != nil {
		return Fact{}, fmt.Errorf("reject fact %s for %s: %w", id, by, err)
	}
	s.log.Info("fact rejected", "id", id, "by", by, "scope", out.Scope, "active for them", out.Active())
	return out, nil
}

func sourceOf(f Fact) Source {
	if f.FromGlossary() {
		return f.Source
	}
	return ""
}

// overridesOf reads a person's rejections of shared facts: fact id → count.
func overridesOf(tx kv.Tx, person string) (map[string]int, error) {
	prefix := joinKey(person, "")
	var out map[string]int
	c := tx.Bucket(bucketOverrides).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var rec overrideRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return nil, fmt.Errorf("override %q: %w", k, err)
		}
		if out == nil {
			out = map[string]int{}
		}
		out[string(k[len(prefix):])] = rec.N
	}
	return out, nil
}

// Overrides lists, for admins, who set aside which shared facts: fact id →
// person → count.
func (s *Store) Overrides(ctx context.Context) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	err := s.view(ctx, func(tx kv.Tx) error {
		return tx.Bucket(bucketOverrides).ForEach(func(k, v []byte) error {
			person, id, ok := bytes.Cut(k, []byte{0})
			if !ok {
				return nil
			}
			var rec overrideRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("override %q: %w", k, err)
			}
			if out[string(id)] == nil {
				out[string(id)] = map[string]int{}
			}
			out[string(id)][string(person)] = rec.N
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read overrides: %w", err)
	}
	return out, nil
}

// clearOverrides removes a person's rejections of the shared facts of a
// phrase (they asked to forget what it means to them), or, with person
// "", everyone's rejections of fact id (its meaning changed).
func clearOverrides(tx kv.Tx, person, phrase, id string) error {
	b := tx.Bucket(bucketOverrides)
	var doomed [][]byte
	if person != "" {
		prefix := joinKey(person, "")
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			f, err := getFact(tx, string(k[len(prefix):]))
			if err != nil || f.Phrase == phrase {
				doomed = append(doomed, append([]byte(nil), k...))
			}
		}
	} else {
		suffix := append([]byte{0}, id...)
		err := b.ForEach(func(k, _ []byte) error {
			if bytes.HasSuffix(k, suffix) {
				doomed = append(doomed, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, k := range doomed {
		if err := b.Delete(k); err != nil {
			return fmt.Errorf("clear override: %w", err)
		}
	}
	return nil
}
