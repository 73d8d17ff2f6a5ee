package warehouse

import (
	"container/list"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// CacheOptions turn on a cache of results. The dialog runs the same
// statements again and again: every reading of a question, then each again
// when a clarification widens the readings, then the chosen one as the
// answer, and the next person asks the same question. A warehouse whose data
// do not change while the bot runs (the demo) can answer them from memory.
type CacheOptions struct {
	// Entries is the most results kept, least recently used first out;
	// zero turns the cache off.
	Entries int
	// MaxAge is how long a result may be served; zero serves it until it
	// is evicted, which is right only for data that never change.
	MaxAge time.Duration
}

// resultCache keeps results by normalised statement. Concurrent calls for
// one statement share a single execution.
type resultCache struct {
	opts CacheOptions
	now  func() time.Time

	mu       sync.Mutex
	lru      *list.List // of *cacheEntry, most recent first
	entries  map[string]*list.Element
	inflight map[string]*cacheCall
}

type cacheEntry struct {
	key string
	res *Result
	at  time.Time
}

type cacheCall struct {
	done chan struct{}
	res  *Result
	err  error
}

func newResultCache(opts CacheOptions, now func() time.Time) *resultCache {
	if opts.Entries <= 0 {
		return nil
	}
	return &resultCache{opts: opts, now: now, lru: list.New(), entries: map[string]*list.Element{}, inflight: map[string]*cacheCall{}}
}

// query serves statement from the cache when a stored result answers lim,
// else runs it with run, sharing the run with concurrent callers.
func (c *resultCache) query(ctx context.Context, statement string, lim Limits, run func() (*Result, error)) (*Result, error) {
	key := normalizeStatement(statement)
	start := c.now()
	c.mu.Lock()
	if res := c.lookupLocked(key, lim); res != nil {
		c.mu.Unlock()
		return served(res, lim, c.now().Sub(start), true), nil
	}
	if call, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			return nil, classify(ctx, ctx.Err(), lim.Timeout, nil)
		}
		if call.err == nil && answers(call.res, lim) {
			return served(call.res, lim, c.now().Sub(start), true), nil
		}
		// The shared run failed (perhaps its caller gave up) or fetched
		// fewer rows than this caller wants: run it here.
		return run()
	}
	call := &cacheCall{done: make(chan struct{})}
	c.inflight[key] = call
	c.mu.Unlock()

	call.res, call.err = run()
	c.mu.Lock()
	delete(c.inflight, key)
	if call.err == nil {
		c.storeLocked(key, call.res)
	}
	c.mu.Unlock()
	close(call.done)
	if call.err != nil {
		return nil, call.err
	}
	return served(call.res, lim, call.res.Elapsed, false), nil
}

// Holds reports whether the result cache would answer statement under lim
// without running it. It is false without a cache.
func (w *DB) Holds(statement string, lim Limits) bool {
	if w.cache == nil {
		return false
	}
	st, err := w.guardStatement(statement)
	if err != nil {
		return false
	}
	lim = limitsOr(lim, w.cfg)
	c := w.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookupLocked(normalizeStatement(st.Text), lim) != nil
}

// Remember keeps res in the result cache as the result of statement, as if
// the statement had run; without a cache it does nothing. It is for results
// computed on the client from a statement that read the same rows (the
// dialog's shared scans), and res must be exactly what statement returns:
// complete, or cut at a row cap with Truncated set.
func (w *DB) Remember(statement string, res *Result) {
	if w.cache == nil || res == nil {
		return
	}
	st, err := w.guardStatement(statement)
	if err != nil {
		return
	}
	c := w.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.storeLocked(normalizeStatement(st.Text), res)
}

func (c *resultCache) lookupLocked(key string, lim Limits) *Result {
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if c.opts.MaxAge > 0 && c.now().Sub(e.at) > c.opts.MaxAge {
		c.lru.Remove(el)
		delete(c.entries, key)
		return nil
	}
	if !answers(e.res, lim) {
		return nil
	}
	c.lru.MoveToFront(el)
	return e.res
}

func (c *resultCache) storeLocked(key string, res *Result) {
	if el, ok := c.entries[key]; ok {
		el.Value = &cacheEntry{key: key, res: res, at: c.now()}
		c.lru.MoveToFront(el)
		return
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, res: res, at: c.now()})
	for c.lru.Len() > c.opts.Entries {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*cacheEntry).key)
	}
}

// answers reports whether res, fetched under some row cap, is the answer
// under lim: a complete result answers any cap, a truncated one only caps
// no larger than what it holds.
func answers(res *Result, lim Limits) bool {
	return !res.Truncated || lim.MaxRows <= len(res.Rows)
}

// served is res cut to lim's row cap, as a Result of the caller's own that
// shares the (read-only) rows.
func served(res *Result, lim Limits, elapsed time.Duration, cached bool) *Result {
	out := *res
	if len(out.Rows) > lim.MaxRows {
		out.Rows = out.Rows[:lim.MaxRows]
		out.Truncated = true
	}
	out.Rows = out.Rows[:len(out.Rows):len(out.Rows)]
	out.Cached = cached
	out.Elapsed = elapsed
	return &out
}

// normalizeStatement collapses runs of white space outside quotes and
// comments, so that the same statement laid out differently is one entry.
// Text inside quotes and comments is kept as it is: two statements that
// differ there stay apart.
func normalizeStatement(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	sc := &sqlscan.Scanner{Src: s, Mode: sqlscan.MySQL}
	for t := range sc.All() {
		text := s[t.Start:t.End]
		if t.Kind == sqlscan.Code && (text == " " || text == "\t" || text == "\n" || text == "\r") {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(text)
		// A line comment keeps the line feed that ends it: without it, what
		// follows would read as part of the comment.
		if t.Kind == sqlscan.Comment && text[0] != '/' && t.End < len(s) {
			b.WriteByte('\n')
			sc.Pos++
		}
	}
	return b.String()
}
