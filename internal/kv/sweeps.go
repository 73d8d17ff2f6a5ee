package kv

import (
	"sync"
	"time"
)

// Sweeps paces a store's removal of expired keys: at most once a period
// per process, run by whichever call finds it due, so that no goroutine
// has to own it. The zero value is due at once. A failed sweep waits for
// the next period like a good one: it only delays the clean-up.
type Sweeps struct {
	mu   sync.Mutex
	next time.Time // when this process sweeps next
}

// Due reports whether a sweep is due at now; when it is, the next one is
// due a period later.
func (s *Sweeps) Due(now time.Time, period time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.next) {
		return false
	}
	s.next = now.Add(period)
	return true
}
