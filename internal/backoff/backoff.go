// Package backoff spaces out retries of something that failed (a
// warehouse that does not answer, a platform that refused to connect):
// doubling waits with jitter between a minimum and a maximum, so that a
// dependency that is down is not hammered and one that comes back is
// noticed soon.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff hands out waits: Min, then about twice the last, up to Max.
// The zero value waits 1s to 5min. It is not safe for concurrent use.
type Backoff struct {
	Min, Max time.Duration
	n        int
}

// Next is the wait before the next attempt.
func (b *Backoff) Next() time.Duration {
	lo, hi := b.Min, b.Max
	if lo <= 0 {
		lo = time.Second
	}
	if hi <= 0 {
		hi = 5 * time.Minute
	}
	d := lo
	for i := 0; i < b.n && d < hi; i++ {
		d *= 2
	}
	b.n++
	d = min(d, hi)
	// ±20% so that replicas retrying one dependency spread out.
	return d - d/5 + rand.N(2*d/5+1)
}

// Reset starts again from Min (after a success).
func (b *Backoff) Reset() { b.n = 0 }

// Failures is how many waits were handed out since the last Reset.
func (b *Backoff) Failures() int { return b.n }

// Sleep waits d or until ctx ends, reporting ctx's error then.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
