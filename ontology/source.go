package ontology

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// ReplaceSource makes the facts of source exactly facts, in one
// transaction: facts of the source that the new set no longer holds are
// deleted, new ones added, changed ones updated in place (keeping their ID
// and counters), identical ones left alone. Every fact gets Source =
// source. It is how a glossary is (re)loaded: a reader sees the old load
// or the new one, never a mix. A fact of the new set whose key a fact of
// another origin holds (an admin's promoted fact for the same phrase and
// kind) replaces it; the audit keeps what was there. Admins only.
func (s *Store) ReplaceSource(ctx context.Context, source Source, facts []Fact, actor Actor) (ImportStats, error) {
	return s.replaceSource(ctx, source, nil, facts, actor)
}

// ReplaceSourceFor is ReplaceSource limited to the facts of the given
// owners: the source's facts of other owners are left as they are, and
// every fact of the new set must belong to one of the owners. It is how
// one workspace's admin reloads a glossary that other workspaces loaded
// too, without touching theirs.
func (s *Store) ReplaceSourceFor(ctx context.Context, source Source, owners []string, facts []Fact, actor Actor) (ImportStats, error) {
	if len(owners) == 0 {
		return ImportStats{}, invalidf("replace facts of %s: no owners", source)
	}
	mine := make(map[string]bool, len(owners))
	for _, o := range owners {
		mine[strings.TrimSpace(o)] = true
	}
	for i, f := range facts {
		if !mine[strings.TrimSpace(f.Owner)] {
			return ImportStats{}, invalidf("replace facts of %s: fact %d (%q) belongs to %s, not to %s", source, i+1, f.Phrase, f.Owner, strings.Join(owners, ", "))
		}
	}
	return s.replaceSource(ctx, source, func(f Fact) bool { return mine[f.Owner] }, facts, actor)
}

// replaceSource replaces the facts of source that inScope accepts (all
// of them when it is nil).
func (s *Store) replaceSource(ctx context.Context, source Source, inScope func(Fact) bool, facts []Fact, actor Actor) (ImportStats, error) {
	var st ImportStats
	source = Source(strings.TrimSpace(string(source)))
	switch {
	case !actor.Admin:
		return st, fmt.Errorf("replace facts of %s: %s is not an admin: %w", source, actor.ID, ErrForbidden)
	case source == "":
		return st, invalidf("replace facts: no source")
	}
	next := make(map[string]Fact, len(facts))
	for i, f := range facts {
		f.normalize()
		f.ID, f.PromotedFrom, f.Source = "", "", source
		if err := f.validate(); err != nil {
			return st, fmt.Errorf("replace facts of %s: fact %d (%q): %w", source, i+1, f.Phrase, err)
		}
		k := string(uniqueKey(f))
		if _, dup := next[k]; dup {
			return st, invalidf("replace facts of %s: %q (%s) is declared twice for %s", source, f.Phrase, f.Kind, f.Owner)
		}
		next[k] = f
	}
	now := s.clock()
	err := s.update(ctx, func(tx kv.Tx) error {
		st = ImportStats{} // a server store may run this again after a conflict
		var old []Fact
		err := tx.Bucket(bucketFacts).ForEach(func(k, v []byte) error {
			f, err := decodeFact(v)
			if err != nil {
				return fmt.Errorf("fact %q: %w", k, err)
			}
			if f.Source == source && (inScope == nil || inScope(f)) {
				old = append(old, f)
			}
			return nil
		})
		if err != nil {
			return err
		}
		// Delete after scanning: a cursor must not see its bucket change.
		for _, f := range old {
			if _, kept := next[string(uniqueKey(f))]; kept {
				continue
			}
			if err := deleteFact(tx, f); err != nil {
				return err
			}
			st.Removed++
			if err := s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionGlossary, Source: source, FactID: f.ID, Before: &f}); err != nil {
				return err
			}
		}
		for _, f := range facts {
			f = next[string(uniqueKey(normalized(f)))]
			if err := s.replaceOne(tx, f, now, actor, source, &st); err != nil {
				return err
			}
		}
		note := fmt.Sprintf("%s loaded: %d added, %d updated, %d unchanged, %d removed", source, st.Added, st.Updated, st.Skipped, st.Removed)
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionGlossary, Source: source, Note: note})
	})
	if err != nil {
		return ImportStats{}, fmt.Errorf("replace facts of %s: %w", source, err)
	}
	s.log.Info("facts replaced", "source", source, "added", st.Added, "updated", st.Updated, "unchanged", st.Skipped, "removed", st.Removed, "actor", actor.ID)
	return st, nil
}

func normalized(f Fact) Fact {
	f.normalize()
	return f
}

// replaceOne stores one fact of a source load.
func (s *Store) replaceOne(tx kv.Tx, f Fact, now time.Time, actor Actor, source Source, st *ImportStats) error {
	key := uniqueKey(f)
	cur, found, err := getByKey(tx, key)
	if err != nil {
		return err
	}
	if !found {
		if f.ID, err = newID(tx); err != nil {
			return err
		}
		f.Created, f.LastUsed = now, now
		f.Uses, f.Confirmations, f.Rejections = 0, 1, 0
		if err := putFact(tx, f, nil); err != nil {
			return err
		}
		st.Added++
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionGlossary, Source: source, FactID: f.ID, After: &f})
	}
	if cur.Source == source && cur.Target.Equal(f.Target) && cur.Meaning == f.Meaning &&
		cur.Question == f.Question && cur.VerifiedBy == f.VerifiedBy {
		st.Skipped++
		return nil
	}
	before := cur
	cur.Target, cur.Meaning, cur.Question, cur.VerifiedBy, cur.Source = f.Target, f.Meaning, f.Question, f.VerifiedBy, source
	cur.PromotedFrom = ""
	// A team decision is active however people voted on what it replaced.
	if !cur.Active() || !before.Target.Equal(f.Target) {
		cur.Confirmations, cur.Rejections = 1, 0
	}
	if !before.Target.Equal(f.Target) {
		// A new meaning: what people set aside was the old one.
		if err := clearOverrides(tx, "", "", cur.ID); err != nil {
			return err
		}
	}
	if err := putFact(tx, cur, key); err != nil {
		return err
	}
	st.Updated++
	return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionGlossary, Source: source, FactID: cur.ID, Before: &before, After: &cur})
}
