package ontology

import (
	"context"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
)

// Open opens the store in a bbolt file, for this package's tests (the
// product opens it through ontologyfile, which this package cannot import).
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return boltkv.OpenStore(path, opts.Timeout, "ontology", ErrInUse, func(db kv.DB) (*Store, error) {
		return New(context.Background(), db, path, opts)
	})
}
