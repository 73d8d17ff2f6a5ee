// Package ratelimit caps how fast new questions may come, per person and
// per channel, with token buckets: in memory for one process, or in the
// server store (internal/ratestore) when replicas must share each rate.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/ratestore"
)

// Limits are the configured rates; zero means no limit. They have the
// fields of the bot's LimitsConfig, which converts to them.
type Limits struct {
	UserQuestionsPerMinute    int
	ChannelQuestionsPerMinute int
	// Burst is how many questions one person may ask at once before the
	// rate applies; ChannelBurst how many a channel takes at once (0:
	// Burst).
	Burst        int
	ChannelBurst int
}

// Limiter caps new questions per person and per channel with token
// buckets. The dialog asks it only when a new question starts, so
// answers and clicks never wait behind it.
type Limiter struct {
	user, channel *buckets // nil: that limit is off
	now           func() time.Time
	// shared keeps the buckets in the server store instead, so that
	// replicas share each person's and channel's rate (nil: in memory).
	shared *ratestore.Store
	log    *slog.Logger
}

// Share moves the buckets to the server store of replicas.
func (l *Limiter) Share(s *ratestore.Store, logger *slog.Logger) {
	if l != nil {
		l.shared, l.log = s, logger
	}
}

var _ dialog.Gate = (*Limiter)(nil)

// New returns nil when no limit is configured; now is the clock
// (time.Now).
func New(cfg Limits, now func() time.Time) *Limiter {
	if cfg.UserQuestionsPerMinute <= 0 && cfg.ChannelQuestionsPerMinute <= 0 {
		return nil
	}
	burst := max(cfg.Burst, 1)
	channelBurst := cfg.ChannelBurst
	if channelBurst <= 0 {
		channelBurst = burst
	}
	return &Limiter{
		user:    newBuckets(cfg.UserQuestionsPerMinute, burst),
		channel: newBuckets(cfg.ChannelQuestionsPerMinute, channelBurst),
		now:     now,
	}
}

// Gate is the limiter as the dialog's Gate; nil (not a typed nil) when off.
func (l *Limiter) Gate() dialog.Gate {
	if l == nil {
		return nil
	}
	return l
}

// SetClock replaces the clock; call it before the first question (tests).
func (l *Limiter) SetClock(now func() time.Time) { l.now = now }

// Admit takes a token from the person's bucket and the channel's; if
// either is empty, it takes none and says when to come back.
func (l *Limiter) Admit(ctx context.Context, who dialog.Who) *dialog.Refusal {
	now := l.now()
	if l.shared != nil {
		return l.admitShared(ctx, who, now)
	}
	var taken *rate.Reservation
	if l.user != nil {
		r := l.user.reserve(who.Identity().UserKey(), now)
		if wait := r.DelayFrom(now); wait > 0 {
			r.CancelAt(now)
			return refusal(fmt.Sprintf("You're asking faster than I can take questions from one person (%s a minute).", questions(l.user.perMinute)), wait)
		}
		taken = r
	}
	if l.channel != nil {
		r := l.channel.reserve(who.Identity().ChannelKey(), now)
		if wait := r.DelayFrom(now); wait > 0 {
			r.CancelAt(now)
			if taken != nil {
				// The person's token goes back: the question was not asked.
				taken.CancelAt(now)
			}
			return refusal(fmt.Sprintf("You're asking faster than this channel allows (%s a minute).", questions(l.channel.perMinute)), wait)
		}
	}
	return nil
}

// Precheck says why a new question would be refused now ("" when it
// would not), taking nothing: the adapters refuse with one message before
// any work, and the dialog's Admit takes the tokens when it starts. A
// store that fails says nothing (Admit decides).
func (l *Limiter) Precheck(ctx context.Context, who dialog.Who) string {
	if l == nil {
		return ""
	}
	now := l.now()
	reqs, whys := l.requests(who)
	if l.shared != nil {
		refused, wait, err := l.shared.Peek(ctx, now, reqs...)
		if err != nil || refused < 0 {
			return ""
		}
		return refusal(whys[refused], wait).Text
	}
	for i, b := range []*buckets{l.user, l.channel} {
		if b == nil {
			continue
		}
		key := who.Identity().UserKey()
		why := whys[0]
		if i == 1 {
			key, why = who.Identity().ChannelKey(), whys[len(whys)-1]
		}
		if wait := b.peek(key, now); wait > 0 {
			return refusal(why, wait).Text
		}
	}
	return ""
}

// requests are the buckets a question takes from, and the refusal of each.
func (l *Limiter) requests(who dialog.Who) ([]ratestore.Request, []string) {
	var reqs []ratestore.Request
	var whys []string
	if l.user != nil {
		reqs = append(reqs, ratestore.Request{Key: "u:" + who.Identity().UserKey(), Limit: l.user.shared()})
		whys = append(whys, fmt.Sprintf("You're asking faster than I can take questions from one person (%s a minute).", questions(l.user.perMinute)))
	}
	if l.channel != nil {
		reqs = append(reqs, ratestore.Request{Key: "c:" + who.Identity().ChannelKey(), Limit: l.channel.shared()})
		whys = append(whys, fmt.Sprintf("You're asking faster than this channel allows (%s a minute).", questions(l.channel.perMinute)))
	}
	return reqs, whys
}

// admitShared is Admit on the buckets in the server store: one
// transaction takes the person's token and the channel's, or neither. A
// store that fails lets the question through (and logs it): the limits
// protect the warehouse, and refusing everyone would be worse.
func (l *Limiter) admitShared(ctx context.Context, who dialog.Who, now time.Time) *dialog.Refusal {
	reqs, whys := l.requests(who)
	refused, wait, err := l.shared.Take(ctx, now, reqs...)
	if err != nil {
		l.log.Warn("rate limits unavailable; letting the question through", "err", err)
		return nil
	}
	if refused < 0 {
		return nil
	}
	return refusal(whys[refused], wait)
}

func refusal(why string, wait time.Duration) *dialog.Refusal {
	return &dialog.Refusal{Reason: dialog.RefuseRateLimited, Text: why + " Please try again in " + about(wait) + "."}
}

func questions(n int) string {
	if n == 1 {
		return "1 question"
	}
	return fmt.Sprintf("%d questions", n)
}

// about words a wait (at most a minute: one token at one a minute),
// rounded up so that trying again then works.
func about(d time.Duration) string {
	if s := int(math.Ceil(d.Seconds())); s > 1 {
		return fmt.Sprintf("about %d seconds", s)
	}
	return "a second"
}

// buckets are token buckets by key. A bucket left alone for idle (the
// time it takes to refill) is full, the same as a new one, so it is
// dropped: memory follows the keys active lately, not all keys ever seen.
type buckets struct {
	perMinute int
	limit     rate.Limit
	burst     int
	idle      time.Duration

	mu        sync.Mutex
	m         map[string]*bucket
	nextSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// newBuckets returns nil for a limit of zero (no limit).
func newBuckets(perMinute, burst int) *buckets {
	if perMinute <= 0 {
		return nil
	}
	per := time.Minute / time.Duration(perMinute)
	return &buckets{
		perMinute: perMinute, limit: rate.Every(per), burst: burst,
		idle: per * time.Duration(burst), m: map[string]*bucket{},
	}
}

// reserve takes a token from key's bucket at now; the reservation says
// how long until the token was really there (0: it was).
func (b *buckets) reserve(key string, now time.Time) *rate.Reservation {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !now.Before(b.nextSweep) {
		for k, bk := range b.m {
			if now.Sub(bk.last) >= b.idle {
				delete(b.m, k)
			}
		}
		b.nextSweep = now.Add(b.idle)
	}
	bk, ok := b.m[key]
	if !ok {
		bk = &bucket{lim: rate.NewLimiter(b.limit, b.burst)}
		b.m[key] = bk
	}
	bk.last = now
	return bk.lim.ReserveN(now, 1)
}

// peek is how long until key's bucket has a token at now (0: it has).
func (b *buckets) peek(key string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk, ok := b.m[key]
	if !ok {
		return 0
	}
	if tokens := bk.lim.TokensAt(now); tokens < 1 {
		return time.Duration((1 - tokens) / float64(b.limit) * float64(time.Second))
	}
	return 0
}

// shared is the limit as the server store's buckets take it.
func (b *buckets) shared() ratestore.Limit {
	return ratestore.Limit{Every: time.Minute / time.Duration(b.perMinute), Burst: b.burst}
}

// size is the number of buckets held.
func (b *buckets) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}
