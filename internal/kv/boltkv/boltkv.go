// Package boltkv is kv on a bbolt file: a thin wrapper, so the embedded
// store costs what bbolt costs.
package boltkv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/clarify-bot/clarify/internal/kv"
)

// ErrLocked means another process holds the file.
var ErrLocked = errors.New("the file is locked by another process")

// Options configure Open.
type Options struct {
	// Timeout bounds the wait for the file lock (required: bbolt would
	// wait forever).
	Timeout time.Duration
	// ReadOnly opens an existing file with bbolt's shared lock, alongside
	// a process that may hold it for writing.
	ReadOnly bool
}

// DB is a bbolt file.
type DB struct {
	db       *bolt.DB
	readOnly bool
}

var _ kv.DB = (*DB)(nil)

// Open opens (creating it and its directory unless ReadOnly) the file.
func Open(path string, opts Options) (*DB, error) {
	if opts.Timeout <= 0 {
		return nil, errors.New("boltkv: a lock timeout is required")
	}
	if opts.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (waited %s)", ErrLocked, opts.Timeout)
	}
	if err != nil {
		return nil, err
	}
	return &DB{db: db, readOnly: opts.ReadOnly}, nil
}

// OpenStore opens the file at path for a store, waiting at most timeout
// for its lock, and builds the store on it with build, which owns the file
// from then on; the file is closed when build fails. what names the store
// in errors ("ontology"); a lock still held after timeout fails with
// inUse, the store's own sentinel.
func OpenStore[S any](path string, timeout time.Duration, what string, inUse error, build func(kv.DB) (S, error)) (S, error) {
	var none S
	db, err := Open(path, Options{Timeout: timeout})
	if errors.Is(err, ErrLocked) {
		return none, fmt.Errorf("open %s %s: %w after %s; is another Clarify process running?", what, path, inUse, timeout)
	}
	if err != nil {
		return none, fmt.Errorf("open %s %s: %w", what, path, err)
	}
	s, err := build(db)
	if err != nil {
		db.Close()
		return none, err
	}
	return s, nil
}

// Bolt is the underlying file, for tests that corrupt it on purpose.
func (d *DB) Bolt() *bolt.DB { return d.db }

// Close releases the file.
func (d *DB) Close() error { return d.db.Close() }

// Update runs fn in a bbolt read-write transaction.
func (d *DB) Update(ctx context.Context, fn func(kv.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.readOnly {
		return kv.ErrReadOnly
	}
	return d.db.Update(func(t *bolt.Tx) error { return fn(tx{t}) })
}

// View runs fn in a bbolt read-only transaction.
func (d *DB) View(ctx context.Context, fn func(kv.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.db.View(func(t *bolt.Tx) error { return fn(tx{t}) })
}

// The wrappers are single-pointer structs, so storing them in an interface
// does not allocate.
type tx struct{ t *bolt.Tx }

func (t tx) Bucket(name []byte) kv.Bucket {
	if b := t.t.Bucket(name); b != nil {
		return bucket{b}
	}
	if !t.t.Writable() {
		return empty{}
	}
	b, err := t.t.CreateBucketIfNotExists(name)
	if err != nil {
		return failed{fmt.Errorf("create bucket %s: %w", name, err)}
	}
	return bucket{b}
}

func (t tx) Buckets() ([][]byte, error) {
	var out [][]byte
	err := t.t.ForEach(func(name []byte, _ *bolt.Bucket) error {
		out = append(out, append([]byte(nil), name...))
		return nil
	})
	return out, err
}

type bucket struct{ b *bolt.Bucket }

func (b bucket) Get(k []byte) []byte                      { return b.b.Get(k) }
func (b bucket) Put(k, v []byte) error                    { return b.b.Put(k, v) }
func (b bucket) Delete(k []byte) error                    { return b.b.Delete(k) }
func (b bucket) Cursor() kv.Cursor                        { return cursor{b.b.Cursor()} }
func (b bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }
func (b bucket) NextSequence() (uint64, error)            { return b.b.NextSequence() }
func (b bucket) Sequence() uint64                         { return b.b.Sequence() }
func (b bucket) SetSequence(v uint64) error               { return b.b.SetSequence(v) }

type cursor struct{ c *bolt.Cursor }

func (c cursor) First() ([]byte, []byte)        { return c.c.First() }
func (c cursor) Last() ([]byte, []byte)         { return c.c.Last() }
func (c cursor) Seek(s []byte) ([]byte, []byte) { return c.c.Seek(s) }
func (c cursor) Next() ([]byte, []byte)         { return c.c.Next() }
func (c cursor) Prev() ([]byte, []byte)         { return c.c.Prev() }

// empty is a missing bucket in a read-only transaction.
type empty struct{}

func (empty) Get([]byte) []byte                     { return nil }
func (empty) Put([]byte, []byte) error              { return kv.ErrReadOnly }
func (empty) Delete([]byte) error                   { return kv.ErrReadOnly }
func (empty) Cursor() kv.Cursor                     { return emptyCursor{} }
func (empty) ForEach(func(k, v []byte) error) error { return nil }
func (empty) NextSequence() (uint64, error)         { return 0, kv.ErrReadOnly }
func (empty) Sequence() uint64                      { return 0 }
func (empty) SetSequence(uint64) error              { return kv.ErrReadOnly }

type emptyCursor struct{}

func (emptyCursor) First() ([]byte, []byte)      { return nil, nil }
func (emptyCursor) Last() ([]byte, []byte)       { return nil, nil }
func (emptyCursor) Seek([]byte) ([]byte, []byte) { return nil, nil }
func (emptyCursor) Next() ([]byte, []byte)       { return nil, nil }
func (emptyCursor) Prev() ([]byte, []byte)       { return nil, nil }

// failed is a bucket that could not be created; every write reports why.
type failed struct{ err error }

func (f failed) Get([]byte) []byte                     { return nil }
func (f failed) Put([]byte, []byte) error              { return f.err }
func (f failed) Delete([]byte) error                   { return f.err }
func (f failed) Cursor() kv.Cursor                     { return emptyCursor{} }
func (f failed) ForEach(func(k, v []byte) error) error { return f.err }
func (f failed) NextSequence() (uint64, error)         { return 0, f.err }
func (f failed) Sequence() uint64                      { return 0 }
func (f failed) SetSequence(uint64) error              { return f.err }
