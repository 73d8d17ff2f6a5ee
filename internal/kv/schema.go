package kv

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

var (
	bucketMeta = []byte("meta")
	keySchema  = []byte("schema")
)

// ErrSchemaNewer means the store was written by a newer build.
var ErrSchemaNewer = errors.New("the store has a schema version this build does not read")

// Migration upgrades a store's logical layout from version From to To,
// inside the transaction that prepares it: every change lands or none does.
type Migration struct {
	From, To string
	Run      func(tx Tx) error
}

// Prepare creates the buckets and records the schema version in the meta
// bucket, or upgrades an older version through the chain of migrations
// that leads to version; any other version (a newer build's) is refused
// with ErrSchemaNewer.
func Prepare(ctx context.Context, db DB, version string, migrations []Migration, buckets ...[]byte) error {
	return db.Update(ctx, func(tx Tx) error {
		for _, name := range append([][]byte{bucketMeta}, buckets...) {
			tx.Bucket(name)
		}
		meta := tx.Bucket(bucketMeta)
		v := meta.Get(keySchema)
		if v == nil {
			return meta.Put(keySchema, []byte(version))
		}
		return migrate(tx, string(v), version, migrations)
	})
}

func migrate(tx Tx, have, want string, migrations []Migration) error {
	for have != want {
		i := slices.IndexFunc(migrations, func(m Migration) bool { return m.From == have })
		if i < 0 {
			return fmt.Errorf("store has schema version %q, this build reads %q: %w", have, want, ErrSchemaNewer)
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

// CheckVersion checks, without writing, that a store records version (or
// no version yet), for readers that must not migrate.
func CheckVersion(ctx context.Context, db DB, version string) error {
	return db.View(ctx, func(tx Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keySchema); v != nil && string(v) != version {
			return fmt.Errorf("store has schema version %q, this build reads %q: %w", v, version, ErrSchemaNewer)
		}
		return nil
	})
}
