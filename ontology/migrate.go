package ontology

import (
	"fmt"
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
	// dropped (wording.go). Both are audited as ActionMigrate.
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
	err := tx.Bucket(bucketFacts).ForEach(func(k, v []byte) error {
		f, err := decodeFact(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
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
	// The audit entries of a migration carry the time it ran.
	now := time.Now().UTC().Round(0)
	a := &Store{now: func() time.Time { return now }}
	for _, f := range moved {
		if f.Target.Choice.Kind != TermSQL || f.Target.Choice.Expr == "" {
			continue
		}
		c := ConfirmedAnswer{ID: f.ID, Owner: f.Owner, Warehouse: f.Warehouse, Phrase: f.Phrase, Question: f.Question,
			SQL: f.Target.Choice.Expr, Count: max(f.Confirmations, 1), First: f.Created}
		if err := deleteFact(tx, f); err != nil {
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
		if err := deleteFact(tx, f); err != nil {
			return err
		}
		if err := a.audit(tx, AuditEntry{Actor: migrationActor, Action: ActionMigrate, FactID: f.ID, Before: &f,
			Note: "removed: " + why[i]}); err != nil {
			return err
		}
	}
	return nil
}
