// Package workpool runs the adapters' work after a platform event has been
// acknowledged: a fixed number of workers reading a bounded queue, a panic
// in one job logged and contained, and a draining stop. Slack and Discord
// use the same pool.
package workpool

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Pool is a bounded worker pool. Jobs submitted before Start wait in the
// queue; Close refuses new jobs and lets the workers finish queued ones.
type Pool struct {
	name    string
	workers int
	log     *slog.Logger
	jobs    chan job
	// mu guards closed against sends on a closed channel.
	mu       sync.RWMutex
	closed   bool
	started  sync.Once
	finished chan struct{}

	// pending counts queued and running jobs; changed is closed and
	// replaced whenever a job ends, so that callers can wait for quiet.
	stateMu sync.Mutex
	pending int
	changed chan struct{}
}

type job struct {
	name string
	run  func(ctx context.Context)
}

// New makes a pool of workers goroutines (at least one) and a queue of
// queue jobs; logger may be nil.
func New(name string, workers, queue int, logger *slog.Logger) *Pool {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{
		name: name, workers: max(workers, 1), log: logger, jobs: make(chan job, max(queue, 0)),
		finished: make(chan struct{}), changed: make(chan struct{}),
	}
}

// Start runs the workers until Close; ctx is the jobs' context. Only the
// first call starts anything.
func (p *Pool) Start(ctx context.Context) {
	p.started.Do(func() {
		var wg sync.WaitGroup
		for range p.workers {
			wg.Go(func() {
				for j := range p.jobs {
					p.run(ctx, j)
				}
			})
		}
		go func() { wg.Wait(); close(p.finished) }()
	})
}

func (p *Pool) run(ctx context.Context, j job) {
	defer p.finish()
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("panic in a job", "pool", p.name, "job", j.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	j.run(ctx)
}

func (p *Pool) finish() {
	p.stateMu.Lock()
	p.pending--
	close(p.changed)
	p.changed = make(chan struct{})
	p.stateMu.Unlock()
}

// Submit queues a job, waiting at most wait for room (not at all when
// wait <= 0). It reports false when the queue stayed full or the pool is
// closed, so that the caller can tell the person the bot is busy.
func (p *Pool) Submit(name string, run func(ctx context.Context), wait time.Duration) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	p.stateMu.Lock()
	p.pending++
	p.stateMu.Unlock()
	j := job{name: name, run: run}
	if p.enqueue(j, wait) {
		return true
	}
	p.stateMu.Lock()
	p.pending--
	p.stateMu.Unlock()
	return false
}

func (p *Pool) enqueue(j job, wait time.Duration) bool {
	select {
	case p.jobs <- j:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case p.jobs <- j:
		return true
	case <-t.C:
		return false
	}
}

// Idle reports whether no job is queued or running, and a channel closed
// when that may have changed.
func (p *Pool) Idle() (bool, <-chan struct{}) {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	return p.pending == 0, p.changed
}

// Close stops intake; queued jobs still run.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
}

// Done is closed when every worker has returned, after Close (a pool that
// was never started is done once closed).
func (p *Pool) Done() <-chan struct{} {
	p.mu.RLock()
	closed := p.closed
	p.mu.RUnlock()
	if closed {
		// Workers that never started leave nothing to wait for.
		p.started.Do(func() { close(p.finished) })
	}
	return p.finished
}

// Stop closes the pool and waits until the queued and running jobs are done.
func (p *Pool) Stop() {
	p.Close()
	<-p.Done()
}

// Name is the pool's name, for logs.
func (p *Pool) Name() string { return p.name }
