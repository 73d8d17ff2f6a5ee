// Package boltfile opens the bot's bbolt files the same way everywhere: with
// a lock timeout (bbolt waits forever by default), buckets created on open
// and a schema version checked, so a file from another format is refused.
package boltfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// Migration upgrades a file from schema version From to To, inside the
// transaction that opens it: either every change lands or none does.
type Migration struct {
	From, To string
	Run      func(tx *bolt.Tx) error
}

// Open opens (creating it and its directory if needed) the bbolt file at
// path, creates buckets, and records or checks the schema version.
func Open(path string, timeout time.Duration, version string, buckets ...[]byte) (*bolt.DB, error) {
	return OpenMigrating(path, timeout, version, nil, buckets...)
}

// OpenMigrating is Open for a file whose format has changed: a file at an
// older schema version is upgraded by the chain of migrations that leads
// to version; a file at any other version (a newer build's) is refused.
func OpenMigrating(path string, timeout time.Duration, version string, migrations []Migration, buckets ...[]byte) (*bolt.DB, error) {
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
		v := meta.Get(keySchema)
		if v == nil {
			return meta.Put(keySchema, []byte(version))
		}
		return migrate(tx, string(v), version, migrations)
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrate runs the migrations from the stored version to want.
func migrate(tx *bolt.Tx, have, want string, migrations []Migration) error {
	for have != want {
		i := slices.IndexFunc(migrations, func(m Migration) bool { return m.From == have })
		if i < 0 {
			return fmt.Errorf("file has schema version %q, this build reads %q", have, want)
		}
		m := migrations[i]
		if err := m.Run(tx); err != nil {
			return fmt.Errorf("migrate schema %s → %s: %w", m.From, m.To, err)
		}
		have = m.To
		if err := tx.Bucket(bucketMeta).Put(keySchema, []byte(have)); err != nil {
			return fmt.Errorf("migrate schema %s → %s: %w", m.From, m.To, err)
		}
	}
	return nil
}

// OpenReadOnly opens an existing file for reading, alongside a process
// that may hold it for writing (bbolt's shared lock), and checks its
// schema version when it records one.
func OpenReadOnly(path string, timeout time.Duration, version string) (*bolt.DB, error) {
	if timeout <= 0 {
		return nil, errors.New("boltfile: a lock timeout is required")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (waited %s)", ErrLocked, timeout)
	}
	if err != nil {
		return nil, err
	}
	err = db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		if v := meta.Get(keySchema); v != nil && string(v) != version {
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
