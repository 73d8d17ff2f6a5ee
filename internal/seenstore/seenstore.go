// Package seenstore remembers keys (Slack event ids) for a while in a kv
// store, so that processes sharing the store agree on what was seen: an
// event that Slack delivers again to another replica is dropped there.
package seenstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// Key layout:
//
//	seen      key → expiry (8 bytes, Unix ns, big endian)
//	seen_exp  expiry (8 bytes) + key → ""   (ordered by time, for sweeping)
var (
	bucketSeen = []byte("seen")
	bucketExp  = []byte("seen_exp")
)

// sweepEvery is how often expired keys are removed; sweepMax bounds one
// sweep's transaction.
const (
	sweepEvery = time.Minute
	sweepMax   = 1000
)

// claimer is a server store's atomic claim of a key (mysqlkv): one
// INSERT IGNORE, or an UPDATE of an expired value, never a locking read
// followed by a write, which deadlocks under a burst of new keys.
type claimer interface {
	Claim(ctx context.Context, bucket, key, value, floor []byte) (bool, error)
	DeleteBelow(ctx context.Context, bucket, ceiling []byte, limit int) (int, error)
}

// Store is safe for concurrent use.
type Store struct {
	db     kv.DB
	now    func() time.Time
	sweeps kv.Sweeps
}

// New returns a store on db; now is the clock (nil: time.Now).
func New(db kv.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// First records key until ttl from now and reports whether it was not
// already recorded (and unexpired). Two processes racing on one key:
// exactly one sees true. On a server store that is one atomic statement;
// on a file, bbolt's single writer serialises the read and the write.
func (s *Store) First(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if key == "" {
		return true, nil
	}
	now := s.now()
	exp := uint64(now.Add(ttl).UnixNano())
	k := []byte(key)
	if c, ok := s.db.(claimer); ok {
		first, err := c.Claim(ctx, bucketSeen, k, binary.BigEndian.AppendUint64(nil, exp), binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano())))
		if err != nil {
			return false, fmt.Errorf("check seen %q: %w", key, err)
		}
		s.maybeSweep(ctx, now)
		return first, nil
	}
	var first bool
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		first = false
		seen, idx := tx.Bucket(bucketSeen), tx.Bucket(bucketExp)
		if v := seen.Get(k); len(v) == 8 {
			old := binary.BigEndian.Uint64(v)
			if uint64(now.UnixNano()) < old {
				return nil
			}
			if err := idx.Delete(expKey(old, k)); err != nil {
				return err
			}
		}
		if err := seen.Put(k, binary.BigEndian.AppendUint64(nil, exp)); err != nil {
			return err
		}
		first = true
		return idx.Put(expKey(exp, k), []byte{})
	})
	if err != nil {
		return false, fmt.Errorf("check seen %q: %w", key, err)
	}
	s.maybeSweep(ctx, now)
	return first, nil
}

// Forget removes key.
func (s *Store) Forget(ctx context.Context, key string) error {
	k := []byte(key)
	if _, ok := s.db.(claimer); ok {
		err := s.db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bucketSeen).Delete(k) })
		if err != nil {
			return fmt.Errorf("forget seen %q: %w", key, err)
		}
		return nil
	}
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		seen := tx.Bucket(bucketSeen)
		if v := seen.Get(k); len(v) == 8 {
			if err := tx.Bucket(bucketExp).Delete(expKey(binary.BigEndian.Uint64(v), k)); err != nil {
				return err
			}
		}
		return seen.Delete(k)
	})
	if err != nil {
		return fmt.Errorf("forget seen %q: %w", key, err)
	}
	return nil
}

// maybeSweep removes expired keys, at most once a sweepEvery per process.
// A failed sweep is retried next time; it does not fail First.
func (s *Store) maybeSweep(ctx context.Context, now time.Time) {
	if s.sweeps.Due(now, sweepEvery) {
		_, _ = s.Sweep(ctx, now)
	}
}

// Sweep removes up to sweepMax keys that expired before now and returns
// how many.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	limit := binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano()))
	if c, ok := s.db.(claimer); ok {
		// Claimed keys have no expiry index: their value is the expiry.
		n, err := c.DeleteBelow(ctx, bucketSeen, limit, sweepMax)
		if err != nil {
			return 0, fmt.Errorf("sweep seen keys: %w", err)
		}
		return n, nil
	}
	n := 0
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		n = 0
		seen, idx := tx.Bucket(bucketSeen), tx.Bucket(bucketExp)
		var doomed [][]byte
		c := idx.Cursor()
		for k, _ := c.First(); k != nil && len(k) >= 8 && bytes.Compare(k[:8], limit) < 0 && len(doomed) < sweepMax; k, _ = c.Next() {
			doomed = append(doomed, bytes.Clone(k))
		}
		// Delete after the scan: a cursor must not see its bucket change.
		for _, k := range doomed {
			if err := idx.Delete(k); err != nil {
				return err
			}
			// The key may have been recorded again since, with a later
			// expiry: remove it only if this entry is still its expiry.
			if v := seen.Get(k[8:]); bytes.Equal(v, k[:8]) {
				if err := seen.Delete(k[8:]); err != nil {
					return err
				}
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sweep seen keys: %w", err)
	}
	return n, nil
}

func expKey(exp uint64, key []byte) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(key)), exp), key...)
}
