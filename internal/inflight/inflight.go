// Package inflight remembers the placeholders ("Looking…") a bot process
// has shown while it works, in a kv store that replicas share, so that
// when a process dies mid-work another one (or the same one restarted)
// can replace them with a note asking the person to try again, instead
// of leaving "Looking…" for ever.
//
// Each process has a replica id. With a server store a replica holds a
// lease (mysqlkv's lock, renewed by a heartbeat) for as long as it runs,
// and a placeholder whose replica's lease has lapsed is an orphan. With
// files there is one process, and every placeholder of an earlier run is
// one.
package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// Placeholder is a message shown while a turn is worked on.
type Placeholder struct {
	Replica   string `json:"replica"`
	Platform  string `json:"platform"`
	Workspace string `json:"workspace"`
	Channel   string `json:"channel"`
	Thread    string `json:"thread,omitempty"`
	// Message is the placeholder's id on the platform (Slack's ts).
	Message string `json:"message"`
	// Click: the turn was a click (say "click again"), not a question.
	Click bool      `json:"click,omitempty"`
	At    time.Time `json:"at"`
	// Turn is the platform's own record of the event being worked on
	// (opaque here), so that a survivor can finish it; placeholders
	// recorded without one get a note to try again.
	Turn json.RawMessage `json:"turn,omitempty"`
	// Takeovers counts the replicas that claimed the turn after the one
	// that began it stopped: a turn that stops every replica running it
	// (a query that exhausts memory) must not be run again for ever.
	Takeovers int `json:"takeovers,omitempty"`
}

var bucket = []byte("placeholders")

const schemaVersion = "1"

// Store is safe for concurrent use.
type Store struct {
	db      kv.DB
	replica string
	now     func() time.Time
}

// New opens the store on db for the replica (which names this process).
func New(ctx context.Context, db kv.DB, replica string, now func() time.Time) (*Store, error) {
	if replica == "" {
		return nil, errors.New("inflight: no replica id")
	}
	if now == nil {
		now = time.Now
	}
	if err := kv.Prepare(ctx, db, schemaVersion, nil, bucket); err != nil {
		return nil, fmt.Errorf("inflight store: %w", err)
	}
	return &Store{db: db, replica: replica, now: now}, nil
}

// Replica is this process's id.
func (s *Store) Replica() string { return s.replica }

func key(p Placeholder) []byte {
	var b bytes.Buffer
	for _, part := range []string{p.Replica, p.Platform, p.Workspace, p.Channel, p.Message} {
		b.WriteString(part)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// Track records a placeholder of this replica.
func (s *Store) Track(ctx context.Context, p Placeholder) error {
	p.Replica = s.replica
	if p.At.IsZero() {
		p.At = s.now()
	}
	v, err := json.Marshal(p)
	if err != nil {
		return err
	}
	k := key(p)
	if err := s.db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bucket).Put(k, v) }); err != nil {
		return fmt.Errorf("track placeholder: %w", err)
	}
	return nil
}

// Done forgets a placeholder (its turn was delivered, or it was replaced).
func (s *Store) Done(ctx context.Context, p Placeholder) error {
	if p.Replica == "" {
		p.Replica = s.replica
	}
	k := key(p)
	if err := s.db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bucket).Delete(k) }); err != nil {
		return fmt.Errorf("forget placeholder: %w", err)
	}
	return nil
}

// Claim takes over an orphan: its record moves to this replica in one
// transaction (the read locks it on a server store), so that of two
// survivors only one finishes it; ok is false when another took it
// first. The returned placeholder is this replica's now: Done forgets it
// once finished, Release gives it back if it cannot be.
func (s *Store) Claim(ctx context.Context, p Placeholder) (mine Placeholder, ok bool, err error) {
	mine = p
	mine.Replica = s.replica
	mine.Takeovers++
	err = s.db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucket)
		ok = false
		if b.Get(key(p)) == nil {
			return nil
		}
		v, err := json.Marshal(mine)
		if err != nil {
			return err
		}
		if err := b.Delete(key(p)); err != nil {
			return err
		}
		ok = true
		return b.Put(key(mine), v)
	})
	if err != nil {
		return p, false, fmt.Errorf("claim placeholder: %w", err)
	}
	return mine, ok, nil
}

// Release gives a claimed placeholder back to the replica it came from,
// for a later try.
func (s *Store) Release(ctx context.Context, mine, orig Placeholder) error {
	v, err := json.Marshal(orig)
	if err != nil {
		return err
	}
	err = s.db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucket)
		if err := b.Delete(key(mine)); err != nil {
			return err
		}
		return b.Put(key(orig), v)
	})
	if err != nil {
		return fmt.Errorf("release placeholder: %w", err)
	}
	return nil
}

// Orphans lists the placeholders of other replicas that alive says are
// gone (alive is asked once per replica). This replica's own are never
// orphans.
func (s *Store) Orphans(ctx context.Context, alive func(ctx context.Context, replica string) (bool, error)) ([]Placeholder, error) {
	var all []Placeholder
	err := s.db.View(ctx, func(tx kv.Tx) error {
		all = all[:0]
		return tx.Bucket(bucket).ForEach(func(_, v []byte) error {
			var p Placeholder
			if err := json.Unmarshal(v, &p); err != nil {
				return nil // unreadable: a newer build's; left to it
			}
			all = append(all, p)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list placeholders: %w", err)
	}
	verdict := map[string]bool{}
	var out []Placeholder
	for _, p := range all {
		if p.Replica == s.replica {
			continue
		}
		live, ok := verdict[p.Replica]
		if !ok {
			var err error
			if live, err = alive(ctx, p.Replica); err != nil {
				return nil, fmt.Errorf("is replica %s alive: %w", p.Replica, err)
			}
			verdict[p.Replica] = live
		}
		if !live {
			out = append(out, p)
		}
	}
	return out, nil
}
