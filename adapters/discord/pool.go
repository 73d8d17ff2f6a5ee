package discord

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
)

// pool runs jobs on a fixed number of goroutines from a bounded queue,
// recovering panics per job. Submitting never blocks: a full queue is
// reported so that the caller can tell the person the bot is busy.
type pool struct {
	name     string
	workers  int
	ctx      context.Context
	log      *slog.Logger
	jobs     chan func(context.Context)
	mu       sync.RWMutex // guards closed against sends on a closed channel
	closed   bool
	finished chan struct{}

	// pending counts queued and running jobs; changed is closed and
	// replaced whenever a job ends (tests wait for quiet on it).
	stateMu sync.Mutex
	pending int
	changed chan struct{}
}

func newPool(name string, workers, queue int, log *slog.Logger) *pool {
	return &pool{
		name: name, log: log, workers: workers, jobs: make(chan func(context.Context), queue),
		finished: make(chan struct{}), changed: make(chan struct{}),
	}
}

// start runs the workers; jobs get ctx.
func (p *pool) start(ctx context.Context) {
	p.ctx = ctx
	var wg sync.WaitGroup
	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range p.jobs {
				p.run(job)
			}
		}()
	}
	go func() { wg.Wait(); close(p.finished) }()
}

func (p *pool) run(job func(context.Context)) {
	defer p.finish()
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("panic while handling a Discord event", "pool", p.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	job(p.ctx)
}

func (p *pool) finish() {
	p.stateMu.Lock()
	p.pending--
	close(p.changed)
	p.changed = make(chan struct{})
	p.stateMu.Unlock()
}

// idle reports whether no job is queued or running, and a channel closed
// when that may have changed.
func (p *pool) idle() (bool, <-chan struct{}) {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	return p.pending == 0, p.changed
}

// submit queues a job; false means the queue is full or the pool stopped.
func (p *pool) submit(job func(context.Context)) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	p.stateMu.Lock()
	p.pending++
	p.stateMu.Unlock()
	select {
	case p.jobs <- job:
		return true
	default:
		p.stateMu.Lock()
		p.pending--
		p.stateMu.Unlock()
		return false
	}
}

// close stops intake; queued jobs still run.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
}

// done is closed when every worker has returned (after close).
func (p *pool) done() <-chan struct{} { return p.finished }
