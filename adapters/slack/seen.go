package slack

import (
	"sync"
	"time"
)

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
