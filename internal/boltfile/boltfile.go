// Package boltfile opens the bot's bbolt files the same way everywhere: with
// a lock timeout (bbolt waits forever by default), buckets created on open
// and a schema version checked, so a file from another format is refused.
package boltfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrLocked means another process holds the file.
var ErrLocked = errors.New("the file is locked by another process")

var (
	bucketMeta = []byte("meta")
	keySchema  = []byte("schema")
)

// Open opens (creating it and its directory if needed) the bbolt file at
// path, creates buckets, and records or checks the schema version.
func Open(path string, timeout time.Duration, version string, buckets ...[]byte) (*bolt.DB, error) {
	if timeout <= 0 {
		return nil, errors.New("boltfile: a lock timeout is required")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (waited %s)", ErrLocked, timeout)
	}
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range append([][]byte{bucketMeta}, buckets...) {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get(keySchema); {
		case v == nil:
			return meta.Put(keySchema, []byte(version))
		case string(v) != version:
			return fmt.Errorf("file has schema version %q, this build reads %q", v, version)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
