package slack

import (
	"context"
	"sync"
	"time"
)

// Dedup remembers keys for a while, across processes when it is backed by
// a shared store.
type Dedup interface {
	// First records key for ttl and reports whether it was not already
	// there (unexpired).
	First(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// Forget removes key, so that a retry of something refused is handled.
	Forget(ctx context.Context, key string) error
}

var _ Dedup = (*seenSet)(nil)

// dedupWait bounds a shared Dedup's round trip in the receive path, which
// must acknowledge Slack within 3 seconds.
const dedupWait = time.Second

// firstEvent reports whether an event id is new, checked against this
// process's memory first and then the store replicas share. It never
// handles an event it could not check: when the shared store fails, ok is
// false and the event is not acknowledged, so that Slack sends it again
// later (answering twice is what the check is for).
func (a *Adapter) firstEvent(id string) (first, ok bool) {
	if !a.local.first(id) {
		return false, true
	}
	if a.events == Dedup(a.local) {
		return true, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), dedupWait)
	defer cancel()
	first, err := a.events.First(ctx, id, dedupTTL)
	if err != nil {
		a.local.forget(id)
		a.cfg.Hooks.dedupUnavailable()
		a.log.Warn("cannot check the event id with the store; leaving the event for Slack to send again", "event_id", id, "err", err)
		return false, false
	}
	return first, true
}

func (a *Adapter) forgetEvent(id string) {
	a.local.forget(id)
	if a.events == Dedup(a.local) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dedupWait)
	defer cancel()
	if err := a.events.Forget(ctx, id); err != nil {
		a.log.Warn("cannot forget the event id; Slack's retry will be dropped", "event_id", id, "err", err)
	}
}

// First is first, for the Dedup interface (the in-memory set has its own ttl).
func (s *seenSet) First(_ context.Context, key string, _ time.Duration) (bool, error) {
	return s.first(key), nil
}

// Forget is forget, for the Dedup interface.
func (s *seenSet) Forget(_ context.Context, key string) error {
	s.forget(key)
	return nil
}

// seenSet remembers keys for a while: event ids (Slack retries an event it
// thinks was not acknowledged up to three times, the last about five
// minutes later; ids are kept two hours) and request signatures (replays). It is in memory: after a restart a retry
// may be handled again, which the dialog tolerates (a duplicate question).
type seenSet struct {
	ttl  time.Duration
	now  func() time.Time
	mu   sync.Mutex
	keys map[string]time.Time // key → expiry
	next time.Time            // next sweep
}

func newSeenSet(ttl time.Duration, now func() time.Time) *seenSet {
	return &seenSet{ttl: ttl, now: now, keys: map[string]time.Time{}}
}

// first records key and reports whether it was not already there.
func (s *seenSet) first(key string) bool {
	if key == "" {
		return true
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.After(s.next) {
		for k, exp := range s.keys {
			if now.After(exp) {
				delete(s.keys, k)
			}
		}
		s.next = now.Add(time.Minute)
	}
	if exp, ok := s.keys[key]; ok && !now.After(exp) {
		return false
	}
	s.keys[key] = now.Add(s.ttl)
	return true
}

// forget removes key, so that a retry of something refused is handled.
func (s *seenSet) forget(key string) {
	s.mu.Lock()
	delete(s.keys, key)
	s.mu.Unlock()
}
