package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
)

// NsInflight is the store namespace of placeholders shown while work runs
// (and of the replicas' heartbeat leases).
const NsInflight = "inflight"

// InflightFile holds the placeholders with file stores (one process).
const InflightFile = "inflight.db"

// Replica is this process among the bot's replicas: an id, a heartbeat
// lease in a server store (held while the process lives, renewed by the
// store's lock), and the placeholders it shows. Another replica that sees
// the lease lapse replaces those placeholders with a note to try again.
type Replica struct {
	ID    string
	Store *inflight.Store
	// Alive reports whether another replica still runs.
	Alive   func(ctx context.Context, id string) (bool, error)
	release func()
	closeDB func() error
}

// leaseHolder is a server namespace's view of its locks.
type leaseHolder interface {
	kv.Locker
	Held(ctx context.Context, key string) (bool, error)
}

func newReplicaID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OpenReplica takes this process's heartbeat lease (server store) or
// opens the placeholder file (files: every placeholder of an earlier run
// is an orphan, since only one process runs).
func OpenReplica(ctx context.Context, st *Stores, dataDir string) (*Replica, error) {
	r := &Replica{ID: newReplicaID(), release: func() {}, closeDB: func() error { return nil }}
	var db kv.DB
	if st.Server != nil {
		ns := st.Server.Namespace(NsInflight)
		lh, ok := ns.(leaseHolder)
		if !ok {
			return nil, errors.New("the store's server keeps no leases")
		}
		unlock, err := lh.Lock(ctx, "replica:"+r.ID)
		if err != nil {
			return nil, fmt.Errorf("replica lease: %w", err)
		}
		r.release = unlock
		r.Alive = func(ctx context.Context, id string) (bool, error) { return lh.Held(ctx, "replica:"+id) }
		db = ns
	} else {
		bdb, err := boltkv.Open(filepath.Join(dataDir, InflightFile), boltkv.Options{Timeout: 2 * time.Second})
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", InflightFile, err)
		}
		r.closeDB = bdb.Close
		r.Alive = func(context.Context, string) (bool, error) { return false, nil }
		db = bdb
	}
	s, err := inflight.New(ctx, db, r.ID, nil)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.Store = s
	return r, nil
}

// Close gives the lease back and closes the placeholders' file.
func (r *Replica) Close() error {
	r.release()
	return r.closeDB()
}
