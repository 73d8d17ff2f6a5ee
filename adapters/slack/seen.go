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

// firstEvent reports whether an event id is new. When the shared store
// fails, the event is handled: answering twice beats never answering.
func (a *Adapter) firstEvent(id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), dedupWait)
	defer cancel()
	ok, err := a.events.First(ctx, id, dedupTTL)
	if err != nil {
		a.log.Warn("cannot check the event id; handling the event", "event_id", id, "err", err)
		return true
	}
	return ok
}

func (a *Adapter) forgetEvent(id string) {
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
