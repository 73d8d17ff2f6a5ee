package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/bot/internal/healthz"
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

// OrphanReplacer is a platform that can take over a placeholder a dead
// process left (Slack): it finishes the turn recorded with it (resumed;
// it forgets the placeholder once delivered) or replaces it with a note.
type OrphanReplacer interface {
	Orphaned(ctx context.Context, p inflight.Placeholder) (resumed bool, err error)
}

// maxTakeovers is how many times a turn whose replica stopped is run
// again elsewhere: once, so that a turn which itself kills replicas stops
// two of them at most.
const maxTakeovers = 1

// Takeover is what the replica needs of the running bot to take over the
// placeholders of replicas that died.
type Takeover struct {
	// Replacers are the platforms this process runs that can take over a
	// placeholder, by name.
	Replacers map[string]OrphanReplacer
	// Health records whether the store answers (component "store").
	Health *healthz.Registry
	// Resumed and Replaced count the placeholders taken over.
	Resumed, Replaced func(platform string)
	Logger            *slog.Logger
}

// ReplaceOrphans takes over the placeholders of replicas that died: each
// is claimed first, so that of two survivors one finishes it; those of
// platforms this process does not run are left to a replica that does.
// Reading them is also the store's health check.
func (r *Replica) ReplaceOrphans(ctx context.Context, t Takeover) {
	orphans, err := r.Store.Orphans(ctx, r.Alive)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		if st, _ := t.Health.Get("store"); st.State == healthz.Up {
			t.Logger.Warn("the store does not answer; events are left for the platforms to send again until it does", "err", err)
		}
		t.Health.Set("store", healthz.Down, "not answering; retrying", 0, 0)
		return
	}
	if st, _ := t.Health.Get("store"); st.State != healthz.Up {
		t.Logger.Info("the store answers again")
		t.Health.Set("store", healthz.Up, "", 0, 0)
	}
	for _, p := range orphans {
		rep := t.Replacers[p.Platform]
		if rep == nil {
			continue
		}
		mine, ok, err := r.Store.Claim(ctx, p)
		if err != nil || !ok {
			if err != nil {
				t.Logger.Warn("cannot take over a placeholder left by a stopped replica; retrying later", "err", err)
			}
			continue
		}
		if mine.Takeovers > maxTakeovers && len(mine.Turn) > 0 {
			// The replica that ran it again stopped too: the turn itself
			// may be what stops them (a query that exhausts memory).
			t.Logger.Warn("a turn stopped the replica that took it over; asking the person to try again instead of running it a third time",
				"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "takeovers", mine.Takeovers)
			mine.Turn = nil
		}
		resumed, err := rep.Orphaned(ctx, mine)
		// Once the platform has been told, the record must follow even if
		// the process is stopping now: a record left behind would replace
		// the same message again at the next start.
		settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		r.settle(settle, t, mine, p, resumed, err)
		cancel()
	}
}

// settleTimeout bounds the store write that follows a takeover when the
// process is stopping.
const settleTimeout = 5 * time.Second

// settle records what became of a claimed placeholder: given back when the
// platform could not be reached, forgotten once replaced by the note.
func (r *Replica) settle(ctx context.Context, t Takeover, mine, p inflight.Placeholder, resumed bool, err error) {
	var se slack.SlackErrorResponse
	if err != nil && !(errors.As(err, &se) && (se.Err == "message_not_found" || se.Err == "channel_not_found" || se.Err == "cant_update_message")) {
		t.Logger.Warn("cannot replace a placeholder left by a stopped replica; retrying later", "platform", p.Platform, "channel", p.Channel, "err", err)
		if err := r.Store.Release(ctx, mine, p); err != nil {
			t.Logger.Warn("cannot give back a placeholder", "err", err)
		}
		return
	}
	if resumed {
		t.Resumed(p.Platform)
		t.Logger.Info("took over a turn left by a stopped replica; finishing it in its thread",
			"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "replica", p.Replica, "click", p.Click)
		return
	}
	if err := r.Store.Done(ctx, mine); err != nil {
		t.Logger.Warn("cannot forget a replaced placeholder", "err", err)
		return
	}
	t.Replaced(p.Platform)
	t.Logger.Info("replaced a placeholder left by a stopped replica; the person was asked to try again",
		"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "replica", p.Replica, "click", p.Click)
}

// Janitor looks for orphaned placeholders at start and then every tick.
func (r *Replica) Janitor(ctx context.Context, every time.Duration, t Takeover) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		r.ReplaceOrphans(ctx, t)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
