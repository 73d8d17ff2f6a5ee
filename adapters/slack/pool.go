package slack

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// job is one piece of work done after Slack was acknowledged.
type job struct {
	name string
	run  func(ctx context.Context)
}

// pool runs jobs on a fixed number of workers. Jobs submitted before start
// wait in the queue; stop refuses new jobs, lets the workers finish the
// queued ones and waits for them.
type pool struct {
	name   string
	log    *slog.Logger
	jobs   chan job
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

func newPool(name string, queue int, log *slog.Logger) *pool {
	return &pool{name: name, log: log, jobs: make(chan job, queue)}
}

// start runs workers until stop; ctx is the jobs' context.
func (p *pool) start(ctx context.Context, workers int) {
	for range workers {
		p.wg.Go(func() {
			for j := range p.jobs {
				p.runOne(ctx, j)
			}
		})
	}
}

func (p *pool) runOne(ctx context.Context, j job) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("panic in slack job", "pool", p.name, "job", j.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	j.run(ctx)
}

// submit queues j, waiting at most wait for room. It reports false when the
// queue stayed full or the pool is stopping.
func (p *pool) submit(j job, wait time.Duration) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
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

// stop refuses new jobs and waits until the queued and running ones are done.
func (p *pool) stop() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	p.mu.Unlock()
	p.wg.Wait()
}
