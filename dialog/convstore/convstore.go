// Package convstore keeps conversation state in a kv store (a bbolt file
// or a MySQL-protocol server), so a bot
// restarted in the middle of a clarification resumes it. The state is
// opaque bytes (the dialog stores JSON); this package only adds expiry.
package convstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"log/slog"
	"time"
)

// Sentinel errors.
var (
	// ErrNotFound: no conversation with that id (the dialog's error, so
	// that the manager can tell it apart without knowing this package).
	ErrNotFound = dialog.ErrConversationNotFound
	// ErrExpired: the conversation exists but expired; it is kept until
	// Sweep so that the caller can say so instead of "unknown".
	ErrExpired = dialog.ErrConversationExpired
	// ErrInUse: the file is locked by another process.
	ErrInUse = errors.New("store file is locked")
	// ErrInvalidID: an empty id, or one longer than MaxIDLen.
	ErrInvalidID = errors.New("invalid conversation id")
)

// MaxIDLen is the longest conversation id accepted, in bytes.
const MaxIDLen = 512

// DefaultTimeout is how long Open waits for the file lock.
const DefaultTimeout = 2 * time.Second

// Key layout (buckets created by Open):
//
//	meta     "schema" → "1"
//	conv     id → 0x01 + expires (8 bytes, Unix ns, big endian; 0 = never) + state
//	expiry   expires (8 bytes) + id → ""   (only for entries that expire)
//
// expiry is ordered by time, so Sweep reads only what it removes instead
// of every conversation.
var (
	bucketConv   = []byte("conv")
	bucketExpiry = []byte("expiry")
)

const (
	schemaVersion = "1"
	recordVersion = 1
	headerLen     = 1 + 8
)

// Options configure a Store.
type Options struct {
	// Timeout bounds the wait for the file lock; zero or negative means
	// DefaultTimeout (bbolt would wait forever).
	Timeout time.Duration
	// Now is the clock that decides expiry; default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Store holds conversation states in a kv store: a bbolt file (Open) or a
// namespace on a MySQL-protocol server (New). It is safe for concurrent
// use.
type Store struct {
	db   kv.DB
	path string
	now  func() time.Time
	log  *slog.Logger
}

// Open opens or creates the store in the bbolt file at path, creating the
// parent directory and the buckets. It fails with ErrInUse when another
// process holds the file longer than opts.Timeout.
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return boltkv.OpenStore(path, opts.Timeout, "conversations", ErrInUse, func(db kv.DB) (*Store, error) {
		return New(context.Background(), db, path, opts)
	})
}

// New opens the store on db (which it closes), creating the buckets.
func New(ctx context.Context, db kv.DB, name string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := kv.Prepare(ctx, db, schemaVersion, nil, bucketConv, bucketExpiry); err != nil {
		return nil, fmt.Errorf("open conversations %s: %w", name, err)
	}
	return &Store{db: db, path: name, now: opts.Now, log: opts.Logger}, nil
}

// KV is the store's database, for state kept with the conversations (a
// channel's chosen warehouse), so that it survives restarts and copies
// alike. The Store still owns it: closing what KV returns does nothing.
func (s *Store) KV() kv.DB { return borrowed{s.db} }

type borrowed struct{ kv.DB }

func (borrowed) Close() error { return nil }

// Close releases the store.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close conversations %s: %w", s.path, err)
	}
	return nil
}

// Lock holds a conversation against other processes sharing the store,
// when the store is shared (a server); for a file, which one process
// holds, it returns at once and the dialog's own mutexes suffice.
func (s *Store) Lock(ctx context.Context, id string) (func(), error) {
	if l, ok := s.db.(kv.Locker); ok {
		return l.Lock(ctx, "conv:"+id)
	}
	return func() {}, nil
}

func checkID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("conversation id is empty: %w", ErrInvalidID)
	case len(id) > MaxIDLen:
		return fmt.Errorf("conversation id is %d bytes, the limit is %d: %w", len(id), MaxIDLen, ErrInvalidID)
	}
	return nil
}

// Save stores the state of conversation id, replacing any earlier state.
// A zero expires means it never expires.
func (s *Store) Save(ctx context.Context, id string, state []byte, expires time.Time) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("save conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save conversation %q: %w", id, err)
	}
	exp := unixNano(expires)
	rec := make([]byte, headerLen, headerLen+len(state))
	rec[0] = recordVersion
	binary.BigEndian.PutUint64(rec[1:], exp)
	rec = append(rec, state...)
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		conv, expiry := tx.Bucket(bucketConv), tx.Bucket(bucketExpiry)
		if old := conv.Get([]byte(id)); old != nil {
			if oldExp, _, err := decode(old); err == nil && oldExp != 0 {
				if err := expiry.Delete(expiryKey(oldExp, id)); err != nil {
					return err
				}
			}
		}
		if err := conv.Put([]byte(id), rec); err != nil {
			return err
		}
		if exp != 0 {
			return expiry.Put(expiryKey(exp, id), []byte{})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save conversation %q: %w", id, err)
	}
	return nil
}

// Load returns the state saved for id: ErrNotFound if there is none,
// ErrExpired if it expired (and Sweep has not removed it yet).
func (s *Store) Load(ctx context.Context, id string) ([]byte, error) {
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("load conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load conversation %q: %w", id, err)
	}
	var state []byte
	var exp uint64
	err := s.db.View(ctx, func(tx kv.Tx) error {
		v := tx.Bucket(bucketConv).Get([]byte(id))
		if v == nil {
			return ErrNotFound
		}
		var st []byte
		var err error
		exp, st, err = decode(v)
		if err != nil {
			return err
		}
		// bbolt's bytes are only valid inside the transaction.
		state = append([]byte{}, st...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load conversation %q: %w", id, err)
	}
	if exp != 0 && !s.now().Before(time.Unix(0, int64(exp))) {
		return nil, fmt.Errorf("load conversation %q: %w at %s", id, ErrExpired, time.Unix(0, int64(exp)).UTC().Format(time.RFC3339))
	}
	return state, nil
}

// Delete removes a conversation; deleting a missing one is not an error.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("delete conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete conversation %q: %w", id, err)
	}
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		conv := tx.Bucket(bucketConv)
		v := conv.Get([]byte(id))
		if v == nil {
			return nil
		}
		if exp, _, err := decode(v); err == nil && exp != 0 {
			if err := tx.Bucket(bucketExpiry).Delete(expiryKey(exp, id)); err != nil {
				return err
			}
		}
		return conv.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("delete conversation %q: %w", id, err)
	}
	return nil
}

// Sweep removes the conversations that expired before olderThan and
// returns how many. Callers pass a time some while in the past, so that a
// person coming back to a just-expired conversation hears it expired.
func (s *Store) Sweep(ctx context.Context, olderThan time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sweep conversations: %w", err)
	}
	limit := unixNano(olderThan)
	n := 0
	err := s.db.Update(ctx, func(tx kv.Tx) error {
		n = 0 // a server store may run this again after a conflict
		conv, expiry := tx.Bucket(bucketConv), tx.Bucket(bucketExpiry)
		var doomed [][]byte
		c := expiry.Cursor()
		for k, _ := c.First(); k != nil && len(k) >= 8 && binary.BigEndian.Uint64(k) < limit; k, _ = c.Next() {
			doomed = append(doomed, bytes.Clone(k))
		}
		// Delete after the scan: a cursor must not see its bucket change.
		for _, k := range doomed {
			id := k[8:]
			// Remove the conversation only if this entry is still its
			// expiry: Save moves the entry when it extends the deadline.
			if v := conv.Get(id); v != nil {
				if exp, _, err := decode(v); err != nil || exp == binary.BigEndian.Uint64(k) {
					if err := conv.Delete(id); err != nil {
						return err
					}
					n++
				}
			}
			if err := expiry.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sweep conversations: %w", err)
	}
	if n > 0 {
		s.log.Debug("conversations swept", "count", n)
	}
	return n, nil
}

// decode splits a stored record; state aliases v.
func decode(v []byte) (expires uint64, state []byte, err error) {
	if len(v) < headerLen {
		return 0, nil, errors.New("truncated record")
	}
	if v[0] != recordVersion {
		return 0, nil, fmt.Errorf("record version %d, this build reads %d", v[0], recordVersion)
	}
	return binary.BigEndian.Uint64(v[1:headerLen]), v[headerLen:], nil
}

func expiryKey(exp uint64, id string) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(id)), exp)
	return append(k, id...)
}

// unixNano maps a time to the stored form: 0 for the zero time (never),
// times before 1970 to 1 so that they stay distinct from "never".
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	n := t.UnixNano()
	if n <= 0 {
		return 1
	}
	return uint64(n)
}
