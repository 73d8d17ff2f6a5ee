package ontology

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// migrations upgrade older ontology files when they are opened.
var migrations = []kv.Migration{
	// Schema 2: fact targets are typed (record version 2) instead of one
	// "key => token || alts" string.
	{From: "1", To: "2", Run: rewriteFacts},
	// Schema 3: answers marked correct are feedback, not preferences
	// (feedback.go), and facts learned from badly worded options are
	// dropped (wording.go), both audited as ActionMigrate; definitions are
	// keyed by their subject table too (uniqueKey).
	{From: "2", To: "3", Run: cleanFacts},
}

// rewriteFacts re-encodes every fact record in the current record
// version. Keys do not change, so the id index stays valid.
func rewriteFacts(tx kv.Tx) error {
	b := tx.Bucket(bucketFacts)
	type rec struct {
		key []byte
		f   Fact
	}
	var recs []rec
	err := b.ForEach(func(k, v []byte) error {
		f, err := decodeFact(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
		}
		recs = append(recs, rec{key: append([]byte(nil), k...), f: f})
		return nil
	})
	if err != nil {
		return err
	}
	// Write after reading: a cursor must not see its bucket change.
	for _, r := range recs {
		if err := b.Put(r.key, encodeFact(r.f)); err != nil {
			return fmt.Errorf("rewrite fact %s: %w", r.f.ID, err)
		}
	}
	return nil
}

// migrationActor is the audit actor of schema migrations.
const migrationActor = "clarify:migration"

// cleanFacts moves confirmed answers kept as query facts of their asker
// (unverified, from no glossary) into the confirmed answers, keeping their
// ids, and deletes the learned facts JunkFact refuses. Facts of a glossary,
// promoted by an admin or verified are kept as they are.
func cleanFacts(tx kv.Tx) error {
	var moved, junk []Fact
	var why []string
	type rekey struct {
		old []byte
		f   Fact
	}
	var rekeyed []rekey
	keys := map[string][]byte{} // fact id → the key it is stored under
	err := tx.Bucket(bucketFacts).ForEach(func(k, v []byte) error {
		f, err := decodeFact(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
		}
		keys[f.ID] = append([]byte(nil), k...)
		if !bytes.Equal(k, uniqueKey(f)) {
			rekeyed = append(rekeyed, rekey{old: append([]byte(nil), k...), f: f})
		}
		if f.Scope != ScopeUser || f.Source != "" || f.PromotedFrom != "" || f.VerifiedBy != "" {
			return nil
		}
		if f.Kind == KindQuery {
			moved = append(moved, f)
			return nil
		}
		if w := JunkFact(f); w != "" {
			junk = append(junk, f)
			why = append(why, w)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range rekeyed {
		if slices.ContainsFunc(junk, func(j Fact) bool { return j.ID == r.f.ID }) || slices.ContainsFunc(moved, func(m Fact) bool { return m.ID == r.f.ID }) {
			continue
		}
		if err := putFact(tx, r.f, r.old); err != nil {
			return fmt.Errorf("key fact %s by its subject: %w", r.f.ID, err)
		}
	}
	// The audit entries of a migration carry the time it ran.
	now := time.Now().UTC().Round(0)
	a := &Store{now: func() time.Time { return now }}
	for _, f := range moved {
		if f.Target.Choice.Kind != TermSQL || f.Target.Choice.Expr == "" {
			continue
		}
		c := ConfirmedAnswer{ID: f.ID, Owner: f.Owner, Warehouse: f.Warehouse, Phrase: f.Phrase, Question: f.Question,
			SQL: f.Target.Choice.Expr, Count: max(f.Confirmations, 1), First: f.Created}
		if err := deleteStored(tx, keys[f.ID], f.ID); err != nil {
			return err
		}
		if _, err := putConfirmed(tx, c, f.LastUsed); err != nil {
			return fmt.Errorf("move confirmed answer %s: %w", f.ID, err)
		}
		if err := a.audit(tx, AuditEntry{Actor: migrationActor, Action: ActionMigrate, FactID: f.ID, Before: &f,
			Note: "an answer marked correct is feedback, not a preference: kept as a confirmed answer"}); err != nil {
			return err
		}
	}
	for i, f := range junk {
		if err := deleteStored(tx, keys[f.ID], f.ID); err != nil {
			return err
		}
		if err := a.audit(tx, AuditEntry{Actor: migrationActor, Action: ActionMigrate, FactID: f.ID, Before: &f,
			Note: "removed: " + why[i]}); err != nil {
			return err
		}
	}
	return nil
}

// deleteStored deletes the fact stored under key, and its id.
func deleteStored(tx kv.Tx, key []byte, id string) error {
	if err := tx.Bucket(bucketFacts).Delete(key); err != nil {
		return fmt.Errorf("delete fact %s: %w", id, err)
	}
	if err := tx.Bucket(bucketIDs).Delete([]byte(id)); err != nil {
		return fmt.Errorf("unindex fact %s: %w", id, err)
	}
	return nil
}
