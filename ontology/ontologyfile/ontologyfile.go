// Package ontologyfile keeps the ontology in one bbolt file: the store a
// single bot process uses (replicas share a server namespace instead,
// through ontology.New). The ontology itself knows only the kv interface.
package ontologyfile

import (
	"context"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/ontology"
)

// Open opens or creates the store in the bbolt file at path, creating the
// parent directory and the buckets. It fails with ontology.ErrInUse when
// another process holds the file for longer than opts.Timeout (zero:
// ontology.DefaultTimeout).
func Open(path string, opts ontology.Options) (*ontology.Store, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = ontology.DefaultTimeout
	}
	return boltkv.OpenStore(path, opts.Timeout, "ontology", ontology.ErrInUse, func(db kv.DB) (*ontology.Store, error) {
		return ontology.New(context.Background(), db, path, opts)
	})
}
