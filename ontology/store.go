package ontology

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clarify-bot/clarify/internal/kv"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Key layout (all buckets are created by Open):
//
//	meta           "schema" → "2"
//	facts          scope 0 owner 0 warehouse 0 phrase 0 kind → 0x01 + record (codec.go)
//	fact_ids       id → the fact's key in facts
//	audit          seq (8 bytes, big endian) → {"v":1,"entry":{…}}
//	audit_by_fact  fact id 0 seq → ""
//	overrides      person 0 fact id → {"v":1,"n":…,"at":…} (reject.go)
//	confirmed      owner 0 warehouse 0 question → {"v":1,"answer":{…}} (feedback.go)
//	confirmed_ids  id → its key in confirmed
//
// Facts are stored under their unique key, which makes the key both the
// upsert index of Learn and the reason Applicable is cheap: the facts of
// one owner for one warehouse are the contiguous range under
// "scope 0 owner 0 warehouse 0", so a question costs three prefix scans
// reading only those records, with no lookup per fact. Lookups by ID (admin
// commands, RecordUse) take one extra Get through fact_ids. NUL cannot occur
// in the parts (validate rejects it), so a prefix never matches a longer
// owner.
var (
	bucketFacts       = []byte("facts")
	bucketIDs         = []byte("fact_ids")
	bucketAudit       = []byte("audit")
	bucketAuditByFact = []byte("audit_by_fact")
	// bucketOverrides holds each person's "not what I meant" on shared
	// facts: person 0 fact id → count (reject.go).
	bucketOverrides = []byte("overrides")
	// bucketConfirmed and bucketConfirmedIDs hold the answers people
	// marked correct (feedback.go).
	bucketConfirmed    = []byte("confirmed")
	bucketConfirmedIDs = []byte("confirmed_ids")
)

// schemaVersion is the layout above. An older file is migrated when it is
// opened (migrate.go); a file written by a newer layout is refused rather
// than misread.
const schemaVersion = "3"

// auditVersion is the envelope version of audit entries ({"v":1,"entry":…});
// the fact record version is in codec.go.
const auditVersion = 1

// DefaultTimeout is how long opening the store's file waits for its lock
// (ontologyfile.Open).
const DefaultTimeout = 2 * time.Second

// Options configure a Store.
type Options struct {
	// Timeout bounds the wait for the file lock held by another process;
	// zero or negative means DefaultTimeout (bbolt would wait forever).
	Timeout time.Duration
	Logger  *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Store is the ontology in a kv store: one bbolt file (ontologyfile.Open) or a
// namespace on a MySQL-protocol server (New). It is safe for concurrent
// use.
type Store struct {
	db   kv.DB
	path string
	log  *slog.Logger
	now  func() time.Time
}

// New opens the store on db, creating its buckets and migrating an older
// layout. name names the store in errors. The store closes db.
func New(ctx context.Context, db kv.DB, name string, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := kv.Prepare(ctx, db, schemaVersion, migrations, bucketFacts, bucketIDs, bucketAudit, bucketAuditByFact, bucketOverrides, bucketConfirmed, bucketConfirmedIDs); err != nil {
		return nil, fmt.Errorf("open ontology %s: %w", name, err)
	}
	return &Store{db: db, path: name, log: opts.Logger, now: opts.Now}, nil
}

// Close releases the file.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close ontology %s: %w", s.path, err)
	}
	return nil
}

// Path is the file the store was opened from (or the name given to New).
func (s *Store) Path() string { return s.path }

// clock returns the current time without a monotonic reading and in UTC,
// so that a fact compares equal to itself after a round trip through JSON.
func (s *Store) clock() time.Time { return s.now().UTC().Round(0) }

func (s *Store) update(ctx context.Context, fn func(kv.Tx) error) error {
	if via := viaOf(ctx); via != "" {
		// The audit entries the transaction writes say where the change came from (via.go).
		return s.db.Update(ctx, func(tx kv.Tx) error { return fn(viaTx{tx, via}) })
	}
	return s.db.Update(ctx, fn)
}

func (s *Store) view(ctx context.Context, fn func(kv.Tx) error) error {
	return s.db.View(ctx, fn)
}

// Learn records that the fact's owner means f.Target by f.Phrase. It
// upserts by (Scope, Owner, Warehouse, Phrase, Kind):
//   - new: an ID is assigned, Created and LastUsed are now, Confirmations 1;
//   - same choice (Target.SameChoice): Confirmations+1, LastUsed now, the
//     options it was chosen over merged, the newer wording kept;
//   - different Target: the person changed their mind, so Target, Meaning
//     and Question are replaced and the counters start again
//     (Confirmations 1, Rejections 0, Uses 0: the old uses were the old
//     meaning's). The ID stays.
//
// Counters, times, ID and PromotedFrom of f are ignored. It returns the
// stored fact.
func (s *Store) Learn(ctx context.Context, f Fact) (Fact, error) {
	f.normalize()
	f.ID, f.PromotedFrom = "", ""
	if err := f.validate(); err != nil {
		return Fact{}, fmt.Errorf("learn %q: %w", f.Phrase, err)
	}
	now := s.clock()
	var out Fact
	err := s.update(ctx, func(tx kv.Tx) error {
		key := uniqueKey(f)
		old, found, err := getByKey(tx, key)
		if err != nil {
			return err
		}
		if !found {
			nid, err := newID(tx)
			if err != nil {
				return err
			}
			f.ID = nid
			f.Created, f.LastUsed = now, now
			f.Uses, f.Confirmations, f.Rejections = 0, 1, 0
			out = f
			return putFact(tx, f, nil)
		}
		cur := old
		cur.LastUsed = now
		if cur.Target.SameChoice(f.Target) {
			// The same choice again, perhaps over other options or for
			// another year: one more confirmation, nothing forgotten.
			cur.Confirmations++
			cur.Target = cur.Target.merge(f.Target)
			if f.Meaning != "" {
				cur.Meaning = f.Meaning
			}
		} else {
			cur.Target, cur.Meaning, cur.Question = f.Target, f.Meaning, f.Question
			cur.Source, cur.VerifiedBy = f.Source, f.VerifiedBy
			cur.Confirmations, cur.Rejections, cur.Uses = 1, 0, 0
		}
		out = cur
		return putFact(tx, cur, key)
	})
	if err != nil {
		return Fact{}, fmt.Errorf("learn %q for %s: %w", f.Phrase, f.Owner, err)
	}
	s.log.Debug("fact learned", "id", out.ID, "owner", out.Owner, "phrase", out.Phrase, "kind", out.Kind, "confirmations", out.Confirmations)
	return out, nil
}

// Get returns the fact with the given id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Fact, error) {
	var f Fact
	err := s.view(ctx, func(tx kv.Tx) error {
		var err error
		f, err = getFact(tx, id)
		return err
	})
	if err != nil {
		return Fact{}, fmt.Errorf("get fact %s: %w", id, err)
	}
	return f, nil
}

// Delete removes a fact. Admins may delete any fact, others their own user
// facts. Every delete is audited.
func (s *Store) Delete(ctx context.Context, id string, actor Actor) error {
	err := s.update(ctx, func(tx kv.Tx) error {
		f, err := getFact(tx, id)
		if err != nil {
			return err
		}
		if !actor.Admin && !actor.owns(f) {
			return fmt.Errorf("%s may not delete a %s fact of %s: %w", actor.ID, f.Scope, f.Owner, ErrForbidden)
		}
		if err := deleteFact(tx, f); err != nil {
			return err
		}
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionDelete, FactID: f.ID, Before: &f})
	})
	if err != nil {
		return fmt.Errorf("delete fact %s: %w", id, err)
	}
	s.log.Info("fact deleted", "id", id, "actor", actor.ID)
	return nil
}

// Forget deletes the owner's facts for a phrase, of every kind and scope;
// warehouse "" means every warehouse. Admins may forget for anyone, others
// only for themselves (owner == actor.ID). It returns how many facts were
// deleted; zero is not an error.
func (s *Store) Forget(ctx context.Context, owner, warehouse, phrase string, actor Actor) (int, error) {
	phrase = NormalizePhrase(phrase)
	if owner == "" || phrase == "" {
		return 0, invalidf("forget: owner and phrase are required")
	}
	if !actor.Admin && actor.ID != owner {
		return 0, fmt.Errorf("forget %q for %s: %s may only forget their own facts: %w", phrase, owner, actor.ID, ErrForbidden)
	}
	n := 0
	err := s.update(ctx, func(tx kv.Tx) error {
		var doomed []Fact
		for _, sc := range scopes {
			err := scanPrefix(tx, ownerPrefix(sc, owner, warehouse, warehouse != ""), func(f Fact) error {
				if f.Phrase == phrase {
					doomed = append(doomed, f)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		// Delete after scanning: bbolt cursors must not see their bucket
		// change under them.
		for _, f := range doomed {
			if err := deleteFact(tx, f); err != nil {
				return err
			}
			if err := s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionForget, FactID: f.ID, Before: &f}); err != nil {
				return err
			}
		}
		n = len(doomed)
		// Shared meanings they had set aside apply to them again.
		return clearOverrides(tx, owner, phrase, "")
	})
	if err != nil {
		return 0, fmt.Errorf("forget %q for %s: %w", phrase, owner, err)
	}
	if n > 0 {
		s.log.Info("facts forgotten", "owner", owner, "phrase", phrase, "count", n, "actor", actor.ID)
	}
	return n, nil
}

// Applicable returns the facts of the three owners for a warehouse: user
// facts first, then channel, then workspace, each group most recently used
// first. Channel and workspace facts carry the user's own rejections of
// them in Overruled (see Reject). Inactive facts are included (the dialog may offer their old
// meaning when it asks again); Resolve picks the winners. Empty owners are
// skipped. It runs on every question, so it reads only the three owners'
// key ranges.
func (s *Store) Applicable(ctx context.Context, owners Owners, warehouse string) ([]Fact, error) {
	var out, group []Fact
	var order []int
	err := s.view(ctx, func(tx kv.Tx) error {
		for i, owner := range [...]string{owners.User, owners.Channel, owners.Workspace} {
			if owner == "" {
				continue
			}
			group = group[:0]
			err := scanPrefix(tx, ownerPrefix(scopes[i], owner, warehouse, true), func(f Fact) error {
				group = append(group, f)
				return nil
			})
			if err != nil {
				return err
			}
			// Sort positions, not Facts: moving the large structs around
			// cost more than reading them.
			order = order[:0]
			for j := range group {
				order = append(order, j)
			}
			slices.SortFunc(order, func(a, b int) int { return byRecency(group[a], group[b]) })
			out = slices.Grow(out, len(group))
			for _, j := range order {
				out = append(out, group[j])
			}
		}
		if owners.User == "" {
			return nil
		}
		// The asker's own "not what I meant" on shared facts.
		overruled, err := overridesOf(tx, owners.User)
		if err != nil {
			return err
		}
		for i := range out {
			if out[i].Scope != ScopeUser {
				out[i].Overruled = overruled[out[i].ID]
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("applicable facts for %s in %s: %w", owners.User, warehouse, err)
	}
	return out, nil
}

func byRecency(a, b Fact) int {
	if c := b.LastUsed.Compare(a.LastUsed); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// List returns the facts matching the filter, sorted by Owner, then
// Phrase (then Warehouse, Kind, Scope). With Scope and Owner set (or Owner
// alone) it reads only the owner's key range.
func (s *Store) List(ctx context.Context, fl Filter) ([]Fact, error) {
	if fl.Scope != "" && !fl.Scope.Valid() {
		return nil, invalidf("list facts: unknown scope %q", fl.Scope)
	}
	fl.Phrase = NormalizePhrase(fl.Phrase)
	match := func(f Fact) bool {
		return (fl.Scope == "" || f.Scope == fl.Scope) &&
			(fl.Owner == "" || f.Owner == fl.Owner) &&
			(fl.Warehouse == "" || f.Warehouse == fl.Warehouse) &&
			(fl.Phrase == "" || f.Phrase == fl.Phrase) &&
			(fl.IncludeInactive || f.Active())
	}
	var out []Fact
	err := s.view(ctx, func(tx kv.Tx) error {
		if fl.Owner == "" {
			return tx.Bucket(bucketFacts).ForEach(func(k, v []byte) error {
				f, err := decodeFact(v)
				if err != nil {
					return fmt.Errorf("fact %q: %w", k, err)
				}
				if match(f) {
					out = append(out, f)
				}
				return nil
			})
		}
		for _, sc := range scopes {
			if fl.Scope != "" && sc != fl.Scope {
				continue
			}
			err := scanPrefix(tx, ownerPrefix(sc, fl.Owner, fl.Warehouse, fl.Warehouse != ""), func(f Fact) error {
				if match(f) {
					out = append(out, f)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	slices.SortFunc(out, func(a, b Fact) int {
		for _, c := range [...]int{
			strings.Compare(a.Owner, b.Owner),
			strings.Compare(a.Phrase, b.Phrase),
			strings.Compare(a.Warehouse, b.Warehouse),
			strings.Compare(string(a.Kind), string(b.Kind)),
			a.Scope.rank() - b.Scope.rank(),
		} {
			if c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// RecordUse notes that the fact decided an answer without asking.
func (s *Store) RecordUse(ctx context.Context, id string) error {
	now := s.clock()
	return s.modify(ctx, "record use of", id, func(f *Fact) { f.Uses++; f.LastUsed = now })
}

// Confirm notes that the person confirmed an answer that used the fact.
func (s *Store) Confirm(ctx context.Context, id string) error {
	return s.modify(ctx, "confirm", id, func(f *Fact) { f.Confirmations++ })
}

// modify applies fn to one fact in a single transaction. fn must not
// change the unique key.
func (s *Store) modify(ctx context.Context, what, id string, fn func(*Fact)) error {
	err := s.update(ctx, func(tx kv.Tx) error {
		f, err := getFact(tx, id)
		if err != nil {
			return err
		}
		fn(&f)
		return putFact(tx, f, uniqueKey(f))
	})
	if err != nil {
		return fmt.Errorf("%s fact %s: %w", what, id, err)
	}
	return nil
}

// Promote copies a fact to channel or workspace scope under owner, so it
// applies to everyone there. The copy gets a new ID and PromotedFrom; if
// the owner already has a fact for the phrase and kind, its target is
// replaced instead (keeping its ID). Admins only.
func (s *Store) Promote(ctx context.Context, id string, to Scope, owner string, actor Actor) (Fact, error) {
	if !actor.Admin {
		return Fact{}, fmt.Errorf("promote fact %s: %s is not an admin: %w", id, actor.ID, ErrForbidden)
	}
	if to != ScopeChannel && to != ScopeWorkspace {
		return Fact{}, invalidf("promote fact %s: scope %q: want channel or workspace", id, to)
	}
	owner = strings.TrimSpace(owner)
	if owner == "" {
		return Fact{}, invalidf("promote fact %s: owner is required", id)
	}
	now := s.clock()
	var out Fact
	err := s.update(ctx, func(tx kv.Tx) error {
		src, err := getFact(tx, id)
		if err != nil {
			return err
		}
		if src.Scope == to && src.Owner == owner {
			return invalidf("it is already a %s fact of %s", to, owner)
		}
		// The copy is the admin's decision, not the glossary's: a reload
		// of the glossary must not remove it.
		nf, before, err := copyUp(tx, src, to, owner, now, func(f *Fact) { f.Source = "" })
		if err != nil {
			return err
		}
		out = nf
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionPromote, FactID: nf.ID, Before: before, After: &nf}, src.ID)
	})
	if err != nil {
		return Fact{}, fmt.Errorf("promote fact %s to %s %s: %w", id, to, owner, err)
	}
	s.log.Info("fact promoted", "from", id, "id", out.ID, "scope", to, "owner", owner, "actor", actor.ID)
	return out, nil
}

// copyUp stores a copy of src at scope to for owner, fresh (counters and
// times restarted, PromotedFrom = src), after adjust changes it; a fact
// the owner already has for the phrase and kind is replaced in place
// (keeping its ID and Created) and returned as before.
func copyUp(tx kv.Tx, src Fact, to Scope, owner string, now time.Time, adjust func(*Fact)) (nf Fact, before *Fact, err error) {
	nf = src
	nf.Scope, nf.Owner, nf.PromotedFrom = to, owner, src.ID
	nf.Created, nf.LastUsed = now, now
	nf.Uses, nf.Confirmations, nf.Rejections = 0, 1, 0
	if adjust != nil {
		adjust(&nf)
	}
	if err := nf.validate(); err != nil {
		return Fact{}, nil, err
	}
	key := uniqueKey(nf)
	old, found, err := getByKey(tx, key)
	if err != nil {
		return Fact{}, nil, err
	}
	if found {
		before = &old
		nf.ID, nf.Created = old.ID, old.Created
		if !old.Target.Equal(nf.Target) {
			// A new meaning: what people set aside was the old one.
			if err := clearOverrides(tx, "", "", nf.ID); err != nil {
				return Fact{}, nil, err
			}
		}
	} else if nf.ID, err = newID(tx); err != nil {
		return Fact{}, nil, err
	}
	if err := putFact(tx, nf, key); err != nil {
		return Fact{}, nil, err
	}
	return nf, before, nil
}

// Edit corrects a fact's target and/or meaning (a nil target or an empty
// meaning keeps the current value). Admins may edit any fact, others their
// own user facts. A new target restarts the counters, as in Learn. Audited.
func (s *Store) Edit(ctx context.Context, id string, target *Target, meaning string, actor Actor) (Fact, error) {
	meaning = strings.TrimSpace(meaning)
	if target == nil && meaning == "" {
		return Fact{}, invalidf("edit fact %s: give a target or a meaning", id)
	}
	var out Fact
	err := s.update(ctx, func(tx kv.Tx) error {
		old, err := getFact(tx, id)
		if err != nil {
			return err
		}
		if !actor.Admin && !actor.owns(old) {
			return fmt.Errorf("%s may not edit a %s fact of %s: %w", actor.ID, old.Scope, old.Owner, ErrForbidden)
		}
		f := old
		if target != nil && !target.Equal(f.Target) {
			f.Target = *target
			f.Confirmations, f.Rejections, f.Uses = 1, 0, 0
			if err := clearOverrides(tx, "", "", f.ID); err != nil {
				return err
			}
		}
		if meaning != "" {
			f.Meaning = meaning
		}
		if err := f.validate(); err != nil {
			return err
		}
		if k := uniqueKey(f); !bytes.Equal(k, uniqueKey(old)) {
			// A new subject for a definition: it must not take another's place.
			if other, found, err := getByKey(tx, k); err != nil {
				return err
			} else if found {
				return invalidf("%q already has a definition on %s (fact %s)", f.Phrase, definitionSubject(f), other.ID)
			}
		}
		if err := putFact(tx, f, uniqueKey(old)); err != nil {
			return err
		}
		out = f
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionEdit, FactID: f.ID, Before: &old, After: &f})
	})
	if err != nil {
		return Fact{}, fmt.Errorf("edit fact %s: %w", id, err)
	}
	s.log.Info("fact edited", "id", id, "actor", actor.ID)
	return out, nil
}

// --- storage helpers; all run inside a transaction ---

// getFact finds a fact by ID, or returns ErrNotFound.
func getFact(tx kv.Tx, id string) (Fact, error) {
	key := tx.Bucket(bucketIDs).Get([]byte(id))
	if key == nil {
		return Fact{}, ErrNotFound
	}
	f, found, err := getByKey(tx, key)
	if err != nil {
		return Fact{}, fmt.Errorf("fact %s: %w", id, err)
	}
	if !found || f.ID != id {
		return Fact{}, fmt.Errorf("fact %s: id index points to a missing record", id)
	}
	return f, nil
}

// getByKey finds a fact by its unique key.
func getByKey(tx kv.Tx, key []byte) (Fact, bool, error) {
	v := tx.Bucket(bucketFacts).Get(key)
	if v == nil {
		return Fact{}, false, nil
	}
	f, err := decodeFact(v)
	if err != nil {
		return Fact{}, false, fmt.Errorf("fact %q: %w", key, err)
	}
	return f, true, nil
}

// putFact stores f under its unique key and indexes its ID. oldKey is the
// key the fact was stored under before (nil for a new fact); the old
// record is removed when the key differs.
func putFact(tx kv.Tx, f Fact, oldKey []byte) error {
	facts := tx.Bucket(bucketFacts)
	key := uniqueKey(f)
	if oldKey != nil && !bytes.Equal(oldKey, key) {
		if err := facts.Delete(oldKey); err != nil {
			return fmt.Errorf("move fact %s: %w", f.ID, err)
		}
	}
	if err := facts.Put(key, encodeFact(f)); err != nil {
		return fmt.Errorf("put fact %s: %w", f.ID, err)
	}
	if err := tx.Bucket(bucketIDs).Put([]byte(f.ID), key); err != nil {
		return fmt.Errorf("index fact %s: %w", f.ID, err)
	}
	return nil
}

func deleteFact(tx kv.Tx, f Fact) error {
	if err := tx.Bucket(bucketFacts).Delete(uniqueKey(f)); err != nil {
		return fmt.Errorf("delete fact %s: %w", f.ID, err)
	}
	if err := tx.Bucket(bucketIDs).Delete([]byte(f.ID)); err != nil {
		return fmt.Errorf("unindex fact %s: %w", f.ID, err)
	}
	return nil
}

// uniqueKey is scope 0 owner 0 warehouse 0 phrase 0 kind, and 0 subject
// for a definition of the rows of one table: a person may mean one thing
// by "active" customers and another by "active" orders.
func uniqueKey(f Fact) []byte {
	if s := definitionSubject(f); s != "" {
		return joinKey(string(f.Scope), f.Owner, f.Warehouse, f.Phrase, string(f.Kind), s)
	}
	return joinKey(string(f.Scope), f.Owner, f.Warehouse, f.Phrase, string(f.Kind))
}

// definitionSubject is the table a definition qualifies, lower-case, or "".
func definitionSubject(f Fact) string {
	if f.Kind != KindDefinition {
		return ""
	}
	return strings.ToLower(f.Target.Choice.Subject)
}

// ownerPrefix is the key range of an owner's facts: scope 0 owner 0, and
// with withWarehouse also warehouse 0.
func ownerPrefix(sc Scope, owner, warehouse string, withWarehouse bool) []byte {
	if withWarehouse {
		return joinKey(string(sc), owner, warehouse, "")
	}
	return joinKey(string(sc), owner, "")
}

func joinKey(parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return b
}

// scanPrefix calls fn with each fact whose key starts with prefix, in key
// order. fn must not modify the facts bucket.
func scanPrefix(tx kv.Tx, prefix []byte, fn func(Fact) error) error {
	c := tx.Bucket(bucketFacts).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		f, err := decodeFact(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// idEncoding is lower-case base32: URL-safe, case-insensitive to read
// aloud, no padding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// idLen is 10 base32 characters: 50 random bits, so a collision (checked
// anyway) is unlikely below millions of facts.
const idLen = 10

func newID(tx kv.Tx) (string, error) {
	ids := tx.Bucket(bucketIDs)
	var b [7]byte
	for range 8 {
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("new fact id: %w", err)
		}
		id := idEncoding.EncodeToString(b[:])[:idLen]
		if ids.Get([]byte(id)) == nil {
			return id, nil
		}
	}
	return "", errors.New("new fact id: too many collisions")
}

// --- audit ---

type auditEnvelope struct {
	V     int        `json:"v"`
	Entry AuditEntry `json:"entry"`
}

// audit appends an entry, indexed under its fact and the extra ids (the
// source of a promotion), so that a fact's history is a prefix scan.
func (s *Store) audit(tx kv.Tx, e AuditEntry, also ...string) error {
	if e.At.IsZero() {
		e.At = s.clock()
	}
	if vt, ok := tx.(viaTx); ok && e.Via == "" {
		e.Via = vt.via
	}
	b := tx.Bucket(bucketAudit)
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	key := binary.BigEndian.AppendUint64(nil, seq)
	v, err := json.Marshal(auditEnvelope{V: auditVersion, Entry: e})
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	if err := b.Put(key, v); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	idx := tx.Bucket(bucketAuditByFact)
	for _, id := range append([]string{e.FactID}, also...) {
		if id == "" {
			continue
		}
		if err := idx.Put(append(joinKey(id, ""), key...), []byte{}); err != nil {
			return fmt.Errorf("audit index: %w", err)
		}
	}
	return nil
}

func decodeAudit(b []byte) (AuditEntry, error) {
	var e auditEnvelope
	if err := json.Unmarshal(b, &e); err != nil {
		return AuditEntry{}, fmt.Errorf("decode audit entry: %w", err)
	}
	if e.V != auditVersion {
		return AuditEntry{}, fmt.Errorf("decode audit entry: envelope version %d, this build reads %d", e.V, auditVersion)
	}
	return e.Entry, nil
}

// Audit returns the newest audit entries first; limit <= 0 returns all.
func (s *Store) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.view(ctx, func(tx kv.Tx) error {
		c := tx.Bucket(bucketAudit).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return out, nil
}

// AuditOf returns the audit entries about one fact, newest first,
// including promotions of it to other scopes. A deleted fact keeps its
// history.
func (s *Store) AuditOf(ctx context.Context, id string) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.view(ctx, func(tx kv.Tx) error {
		entries := tx.Bucket(bucketAudit)
		c := tx.Bucket(bucketAuditByFact).Cursor()
		prefix := joinKey(id, "")
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			v := entries.Get(k[len(prefix):])
			if v == nil {
				continue
			}
			e, err := decodeAudit(v)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read audit of %s: %w", id, err)
	}
	slices.Reverse(out)
	return out, nil
}
