package ontology

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/clarify-bot/clarify/internal/kv"
)

// ErrConflict: a roll back would overwrite a change made after the one it
// undoes; roll that one back first.
var ErrConflict = errors.New("changed since")

// Change is an audit entry with its sequence number: the handle History
// lists and Revert takes. Sequence numbers grow with time and are never
// reused.
type Change struct {
	Seq uint64 `json:"seq"`
	AuditEntry
}

// HistoryFilter selects changes for History.
type HistoryFilter struct {
	// Before lists changes older than this sequence number (the next
	// page); 0 starts at the newest.
	Before uint64
	// Limit caps the changes returned; <= 0 means 100.
	Limit int
	// Keep selects changes; nil keeps every one.
	Keep func(Change) bool
	// Questions lists the question records instead of the changes (by
	// default History is the record of changes only).
	Questions bool
}

// historyScanMax bounds the entries one History call reads, so that a log
// of many question records cannot make a page slow; the caller pages on
// from the last change returned.
const historyScanMax = 50_000

// questionMark is how a question record's envelope starts its action; an
// entry holding it is skipped without decoding (a string value cannot
// hold it unescaped).
var questionMark = []byte(`"action":"question"`)

// History returns changes to facts, glossary loads and roll backs (or,
// with Questions, the question records), newest first, each with its
// sequence number.
func (s *Store) History(ctx context.Context, fl HistoryFilter) ([]Change, error) {
	if fl.Limit <= 0 {
		fl.Limit = 100
	}
	var out []Change
	err := s.view(ctx, func(tx kv.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		var k, v []byte
		if fl.Before > 0 {
			if k, _ = c.Seek(seqKey(fl.Before)); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		} else {
			k, v = c.Last()
		}
		for n := 0; k != nil && len(out) < fl.Limit && n < historyScanMax; k, v = c.Prev() {
			n++
			if bytes.Contains(v, questionMark) != fl.Questions {
				continue
			}
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			ch := Change{Seq: binary.BigEndian.Uint64(k), AuditEntry: e}
			if (e.Action == ActionQuestion) != fl.Questions || fl.Keep != nil && !fl.Keep(ch) {
				continue
			}
			out = append(out, ch)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return out, nil
}

// ChangeAt returns the audit entry with sequence number seq, or
// ErrNotFound.
func (s *Store) ChangeAt(ctx context.Context, seq uint64) (Change, error) {
	var ch Change
	err := s.view(ctx, func(tx kv.Tx) error {
		v := tx.Bucket(bucketAudit).Get(seqKey(seq))
		if v == nil {
			return ErrNotFound
		}
		e, err := decodeAudit(v)
		if err != nil {
			return err
		}
		ch = Change{Seq: seq, AuditEntry: e}
		return nil
	})
	if err != nil {
		return Change{}, fmt.Errorf("change #%d: %w", seq, err)
	}
	return ch, nil
}

// LoadChanges returns the fact changes of the glossary load whose summary
// entry (the one with the note "… loaded: …") has sequence number seq,
// newest first. A load is one transaction, so its entries are the ones
// just before its summary with the same source.
func (s *Store) LoadChanges(ctx context.Context, seq uint64) ([]Change, error) {
	var out []Change
	err := s.view(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketAudit)
		v := b.Get(seqKey(seq))
		if v == nil {
			return ErrNotFound
		}
		note, err := decodeAudit(v)
		if err != nil {
			return err
		}
		if note.Action != ActionGlossary || note.FactID != "" {
			return invalidf("change #%d is not a glossary load", seq)
		}
		c := b.Cursor()
		c.Seek(seqKey(seq))
		for k, v := c.Prev(); k != nil; k, v = c.Prev() {
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			if e.Action != ActionGlossary || e.Source != note.Source || e.FactID == "" {
				break
			}
			out = append(out, Change{Seq: binary.BigEndian.Uint64(k), AuditEntry: e})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("glossary load #%d: %w", seq, err)
	}
	return out, nil
}

// RevertStats counts what a roll back did.
type RevertStats struct {
	// Restored counts facts put back as they were; Unchanged the changes
	// that needed nothing (the fact was already gone or back).
	Restored, Unchanged int
}

// Revert undoes changes to facts, newest first, in one transaction, each
// audited as a roll back (Undoes = the change's number) by actor: a fact
// the change created is deleted, one it deleted is put back with its id
// and counters, one it changed gets its earlier state back. If a fact was
// changed again after the change being undone, nothing is undone and the
// error wraps ErrConflict and names the fact; allowed (nil: any) must
// accept every fact involved, before and after, else ErrForbidden.
// Admins only.
func (s *Store) Revert(ctx context.Context, seqs []uint64, actor Actor, allowed func(Fact) bool) (RevertStats, error) {
	var st RevertStats
	if !actor.Admin {
		return st, fmt.Errorf("roll back: %s is not an admin: %w", actor.ID, ErrForbidden)
	}
	if len(seqs) == 0 {
		return st, invalidf("roll back: no change given")
	}
	order := slices.Clone(seqs)
	slices.Sort(order)
	order = slices.Compact(order)
	slices.Reverse(order)
	err := s.update(ctx, func(tx kv.Tx) error {
		st = RevertStats{}
		for _, seq := range order {
			v := tx.Bucket(bucketAudit).Get(seqKey(seq))
			if v == nil {
				return fmt.Errorf("change #%d: %w", seq, ErrNotFound)
			}
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			if err := s.revertOne(tx, seq, e, actor, allowed, &st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return RevertStats{}, fmt.Errorf("roll back: %w", err)
	}
	s.log.Info("changes rolled back", "changes", len(order), "restored", st.Restored, "actor", actor.ID)
	return st, nil
}

// revertOne undoes one change inside Revert's transaction.
func (s *Store) revertOne(tx kv.Tx, seq uint64, e AuditEntry, actor Actor, allowed func(Fact) bool, st *RevertStats) error {
	if e.Action == ActionQuestion || e.Before == nil && e.After == nil {
		return invalidf("change #%d changed no fact; there is nothing to roll back", seq)
	}
	for _, f := range []*Fact{e.Before, e.After} {
		if f != nil && allowed != nil && !allowed(*f) {
			return fmt.Errorf("change #%d is about %s's facts: %w", seq, f.Owner, ErrForbidden)
		}
	}
	id := e.FactID
	cur, err := getFact(tx, id)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	conflict := func(why string) error {
		return fmt.Errorf("%q (%s of %s) %s after change #%d; roll back the later change first: %w", factPhrase(e), factScope(e), factOwner(e), why, seq, ErrConflict)
	}
	rollback := AuditEntry{Actor: actor.ID, Action: ActionRollback, FactID: id, Undoes: seq,
		Note: fmt.Sprintf("rolled back change #%d (%s by %s)", seq, e.Action, e.Actor)}
	switch {
	case e.Before == nil: // created: delete it
		if !found {
			st.Unchanged++
			return nil
		}
		if !sameState(cur, *e.After) {
			return conflict("was changed")
		}
		if err := deleteFact(tx, cur); err != nil {
			return err
		}
		rollback.Before = &cur
	case e.After == nil: // deleted: put it back
		if found {
			if sameState(cur, *e.Before) {
				st.Unchanged++
				return nil
			}
			return conflict("was created again differently")
		}
		back := *e.Before
		if holder, held, err := getByKey(tx, uniqueKey(back)); err != nil {
			return err
		} else if held {
			return fmt.Errorf("%q (%s of %s) has another meaning now (%s) since change #%d; delete or roll back that one first: %w", back.Phrase, back.Scope, back.Owner, holder.Meaning, seq, ErrConflict)
		}
		if err := putFact(tx, back, nil); err != nil {
			return err
		}
		rollback.After = &back
	default: // changed: the earlier state again
		if !found {
			return conflict("was deleted")
		}
		if !sameState(cur, *e.After) {
			return conflict("was changed again")
		}
		back := *e.Before
		back.ID = cur.ID
		if !bytes.Equal(uniqueKey(back), uniqueKey(cur)) {
			if _, held, err := getByKey(tx, uniqueKey(back)); err != nil {
				return err
			} else if held {
				return conflict("has a new holder of its earlier key")
			}
		}
		if err := putFact(tx, back, uniqueKey(cur)); err != nil {
			return err
		}
		rollback.Before, rollback.After = &cur, &back
	}
	st.Restored++
	return s.audit(tx, rollback)
}

// sameState reports whether a fact is still what a change left it as:
// the same meaning for the same owner, whatever its use since.
func sameState(a, b Fact) bool {
	return a.Scope == b.Scope && a.Owner == b.Owner && a.Warehouse == b.Warehouse &&
		a.Phrase == b.Phrase && a.Kind == b.Kind && a.Target.Equal(b.Target) &&
		a.Meaning == b.Meaning && a.Source == b.Source && a.VerifiedBy == b.VerifiedBy
}

// factOf is the fact an entry is about (its state after, else before).
func factOf(e AuditEntry) Fact {
	if e.After != nil {
		return *e.After
	}
	if e.Before != nil {
		return *e.Before
	}
	return Fact{}
}

func factPhrase(e AuditEntry) string { return factOf(e).Phrase }
func factScope(e AuditEntry) Scope   { return factOf(e).Scope }
func factOwner(e AuditEntry) string  { return factOf(e).Owner }

// seqKey is the audit key of sequence number seq.
func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
