// Package ratestore keeps token buckets in a kv store, so that processes
// sharing the store (replicas behind a load balancer) share each person's
// and each channel's rate of questions. A bucket is one time per key, the
// generic cell rate algorithm's theoretical arrival time (TAT): a bucket
// whose TAT has passed is full, so idle keys cost nothing and are swept.
package ratestore

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// bucketRate holds key → TAT (8 bytes, Unix ns, big endian).
var bucketRate = []byte("rate")

// sweepEvery is how often a process removes full buckets; sweepMax bounds
// one sweep's transaction.
const (
	sweepEvery = time.Minute
	sweepMax   = 1000
)

// Limit is one token every Every, at most Burst held.
type Limit struct {
	Every time.Duration
	Burst int
}

// Request asks for one token from the bucket of Key.
type Request struct {
	Key   string
	Limit Limit
}

// Store is safe for concurrent use.
type Store struct {
	db     kv.DB
	sweeps kv.Sweeps
}

// New returns a store of buckets on db.
func New(db kv.DB) *Store { return &Store{db: db} }

// Take takes one token from every request's bucket at now, all or none,
// in one transaction (replicas serialise on it). When a bucket is empty
// it takes none and returns that request's index and how long until its
// token is there; otherwise refused is -1.
func (s *Store) Take(ctx context.Context, now time.Time, reqs ...Request) (refused int, wait time.Duration, err error) {
	at := now.UnixNano()
	err = s.db.Update(ctx, func(tx kv.Tx) error {
		refused, wait = -1, 0
		b := tx.Bucket(bucketRate)
		next := make([]int64, len(reqs))
		for i, r := range reqs {
			every := int64(r.Limit.Every)
			tolerance := every * int64(max(r.Limit.Burst, 1)-1)
			tat := at
			if v := b.Get([]byte(r.Key)); len(v) == 8 {
				tat = max(tat, int64(binary.BigEndian.Uint64(v)))
			}
			// The token is there once the TAT is within the burst's
			// tolerance of now.
			if early := tat - tolerance - at; early > 0 {
				refused, wait = i, time.Duration(early)
				return nil
			}
			next[i] = tat + every
		}
		for i, r := range reqs {
			if err := b.Put([]byte(r.Key), binary.BigEndian.AppendUint64(nil, uint64(next[i]))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return -1, 0, fmt.Errorf("take a question token: %w", err)
	}
	s.maybeSweep(ctx, now)
	return refused, wait, nil
}

// Peek is Take without taking: it reports which request's bucket is empty
// at now (-1: none) from a read-only transaction, so that a question the
// limits would refuse can be refused before any work, cheaply.
func (s *Store) Peek(ctx context.Context, now time.Time, reqs ...Request) (refused int, wait time.Duration, err error) {
	at := now.UnixNano()
	err = s.db.View(ctx, func(tx kv.Tx) error {
		refused, wait = -1, 0
		b := tx.Bucket(bucketRate)
		for i, r := range reqs {
			tolerance := int64(r.Limit.Every) * int64(max(r.Limit.Burst, 1)-1)
			if v := b.Get([]byte(r.Key)); len(v) == 8 {
				if early := int64(binary.BigEndian.Uint64(v)) - tolerance - at; early > 0 {
					refused, wait = i, time.Duration(early)
					return nil
				}
			}
		}
		return nil
	})
	if err != nil {
		return -1, 0, fmt.Errorf("peek at the question tokens: %w", err)
	}
	return refused, wait, nil
}

// maybeSweep removes full buckets, at most once a sweepEvery per process.
// A failed sweep is tried again next time; it never fails Take.
func (s *Store) maybeSweep(ctx context.Context, now time.Time) {
	if s.sweeps.Due(now, sweepEvery) {
		_, _ = s.Sweep(ctx, now)
	}
}

// Sweep removes up to sweepMax buckets that are full at now (their TAT
// has passed: a new bucket is the same) and returns how many.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	at := uint64(now.UnixNano())
	n := 0
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		n = 0
		b := tx.Bucket(bucketRate)
		var full [][]byte
		c := b.Cursor()
		for k, v := c.First(); k != nil && len(full) < sweepMax; k, v = c.Next() {
			if len(v) == 8 && binary.BigEndian.Uint64(v) <= at {
				full = append(full, append([]byte(nil), k...))
			}
		}
		// Delete after scanning: a cursor must not see its bucket change.
		for _, k := range full {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(full)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sweep question buckets: %w", err)
	}
	return n, nil
}

// Len is the number of buckets stored (for tests and metrics).
func (s *Store) Len(ctx context.Context) (int, error) {
	n := 0
	err := s.db.View(ctx, func(tx kv.Tx) error {
		n = 0
		return tx.Bucket(bucketRate).ForEach(func(_, _ []byte) error { n++; return nil })
	})
	return n, err
}
