// Package kv is the small transactional, ordered key-value interface the
// bot's stores are written against: the subset of bbolt that ontology,
// convstore, llmusage and the event de-duplication use. Two implementations
// keep one copy of every rule: boltkv (an embedded bbolt file, the default)
// and mysqlkv (a MySQL-protocol server shared by replicas).
//
// Semantics follow bbolt: keys are ordered bytewise; values returned by
// Get and cursors are valid only inside the transaction; a cursor must not
// see its bucket change under it (collect, then write). Update may run fn
// more than once when a server transaction conflicts with another
// replica's, so fn must not accumulate into variables declared outside it.
//
// Get and the cursor moves return no error, as in bbolt. A server
// implementation records the first read error in the transaction, makes
// every later operation fail, rolls back and returns that error from
// Update or View: a failed read can never lead to a committed write.
package kv

import (
	"context"
	"errors"
)

// DB is a store of named buckets.
type DB interface {
	// Update runs fn in a read-write transaction, committed when fn
	// returns nil and rolled back otherwise.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction with a consistent view.
	View(ctx context.Context, fn func(Tx) error) error
	Close() error
}

// Tx is one transaction.
type Tx interface {
	// Bucket returns the named bucket. In a read-write transaction a
	// missing bucket is created; in a read-only one it reads as empty.
	Bucket(name []byte) Bucket
	// Buckets lists the buckets that exist (for copying a store).
	Buckets() ([][]byte, error)
}

// Bucket is an ordered map of keys to values.
type Bucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	Cursor() Cursor
	ForEach(fn func(k, v []byte) error) error
	// NextSequence increments and returns the bucket's sequence.
	NextSequence() (uint64, error)
	Sequence() uint64
	SetSequence(v uint64) error
}

// Cursor moves over a bucket in key order; a nil key means past the end.
type Cursor interface {
	First() (k, v []byte)
	Last() (k, v []byte)
	Seek(seek []byte) (k, v []byte)
	Next() (k, v []byte)
	Prev() (k, v []byte)
}

// Locker is implemented by stores shared by several processes: Lock holds
// key against every process until unlock is called.
type Locker interface {
	Lock(ctx context.Context, key string) (func(), error)
}

// ErrReadOnly is returned by Update on a store opened read-only.
var ErrReadOnly = errors.New("the store is open read-only")

// ErrKeyTooLong is returned by Put for a key the implementation cannot
// store.
var ErrKeyTooLong = errors.New("key too long")
