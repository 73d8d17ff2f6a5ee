// Package workpool runs the adapters' work after a platform event has been
// acknowledged: at most a fixed number of jobs at once, a bounded queue, a
// panic in one job logged and contained, and a draining stop. Slack and
// Discord use the same pool.
//
// The queue is fair rather than first-come: every job has a Key (a group,
// the warehouse it will ask, and an owner, the person), and the pool takes
// groups in turn and, within a group, owners in turn. A group may be
// capped (a slow warehouse cannot take every worker) and so may an owner
// (one person's burst cannot either). So a cheap question from one person
// does not wait behind eight slow ones from another.
package workpool

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// Key says whose a job is, for fairness: Group is what the job uses (a
// warehouse), Owner who asked. Jobs with the zero Key share one queue.
type Key struct {
	Group, Owner string
}

// Limits cap concurrent jobs; zero means only the pool's worker count.
type Limits struct {
	// PerGroup caps the running jobs of one group; GroupLimit, when set,
	// decides per group instead (a warehouse's own connection pool).
	PerGroup   int
	GroupLimit func(group string) int
	// PerOwner caps the running jobs of one owner within a group.
	PerOwner int
}

// Pool is a bounded, fair worker pool. Jobs submitted before Start wait in
// the queue; Close refuses new jobs and lets the queued ones run.
type Pool struct {
	name     string
	workers  int
	queueCap int
	limits   Limits
	log      *slog.Logger

	mu      sync.Mutex
	ctx     context.Context
	started bool
	closed  bool
	queued  int
	running int
	groups  map[string]*group
	ring    []string // groups with queued jobs, in turn order
	turn    int      // index in ring of the group whose turn it is
	// changed is closed and replaced whenever a job ends or leaves the
	// queue, so that Idle's callers and waiting Submits can look again.
	changed  chan struct{}
	finished chan struct{}
	done     bool
}

type group struct {
	name    string
	running int
	owners  map[string]*owner
	ring    []string // owners with queued jobs, in turn order
	turn    int
}

type owner struct {
	running int
	jobs    []job
}

type job struct {
	name string
	key  Key
	run  func(ctx context.Context)
}

// New makes a pool that runs at most workers jobs at once (at least one)
// with room for queue waiting jobs; logger may be nil.
func New(name string, workers, queue int, logger *slog.Logger) *Pool {
	return NewFair(name, workers, queue, Limits{}, logger)
}

// NewFair is New with limits per group and per owner.
func NewFair(name string, workers, queue int, limits Limits, logger *slog.Logger) *Pool {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{
		name: name, workers: max(workers, 1), queueCap: max(queue, 0), limits: limits, log: logger,
		groups: map[string]*group{}, changed: make(chan struct{}), finished: make(chan struct{}),
	}
}

// Start runs queued and later jobs with ctx as their context until Close.
// Only the first call starts anything.
func (p *Pool) Start(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.done {
		return
	}
	p.started, p.ctx = true, ctx
	p.pump()
}

// Submit queues a job with the zero Key; see SubmitKeyed.
func (p *Pool) Submit(name string, run func(ctx context.Context), wait time.Duration) bool {
	return p.SubmitKeyed(name, Key{}, run, wait)
}

// SubmitKeyed queues a job, waiting at most wait for room (not at all when
// wait <= 0). It reports false when the queue stayed full or the pool is
// closed, so that the caller can tell the person the bot is busy.
func (p *Pool) SubmitKeyed(name string, key Key, run func(ctx context.Context), wait time.Duration) bool {
	var deadline *time.Timer
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return false
		}
		if p.queued < p.queueCap || p.started && p.running < p.workers && p.queued == 0 && p.runnable(key) {
			p.enqueue(job{name: name, key: key, run: run})
			p.pump()
			p.mu.Unlock()
			return true
		}
		changed := p.changed
		p.mu.Unlock()
		if wait <= 0 {
			return false
		}
		if deadline == nil {
			deadline = time.NewTimer(wait)
			defer deadline.Stop()
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// runnable reports whether a job with key could start now (p.mu held).
func (p *Pool) runnable(key Key) bool {
	g := p.groups[key.Group]
	if g == nil {
		return true
	}
	if l := p.groupLimit(key.Group); l > 0 && g.running >= l {
		return false
	}
	o := g.owners[key.Owner]
	return o == nil || p.limits.PerOwner <= 0 || o.running < p.limits.PerOwner
}

func (p *Pool) groupLimit(name string) int {
	if p.limits.GroupLimit != nil {
		if l := p.limits.GroupLimit(name); l > 0 {
			return l
		}
	}
	return p.limits.PerGroup
}

func (p *Pool) enqueue(j job) {
	g := p.groups[j.key.Group]
	if g == nil {
		g = &group{name: j.key.Group, owners: map[string]*owner{}}
		p.groups[j.key.Group] = g
	}
	o := g.owners[j.key.Owner]
	if o == nil {
		o = &owner{}
		g.owners[j.key.Owner] = o
	}
	if len(o.jobs) == 0 {
		g.ring = append(g.ring, j.key.Owner)
		if len(g.ring) == 1 {
			p.ring = append(p.ring, g.name)
		}
	}
	o.jobs = append(o.jobs, j)
	p.queued++
}

// pump starts queued jobs while workers are free and some job may run
// (p.mu held).
func (p *Pool) pump() {
	if !p.started {
		return
	}
	for p.running < p.workers {
		j, ok := p.next()
		if !ok {
			return
		}
		p.running++
		go p.run(j)
	}
}

// next takes the next job in turn: groups round-robin, owners round-robin
// within the group, each skipped while at its limit (p.mu held).
func (p *Pool) next() (job, bool) {
	for gi := range len(p.ring) {
		gidx := (p.turn + gi) % len(p.ring)
		g := p.groups[p.ring[gidx]]
		if l := p.groupLimit(g.name); l > 0 && g.running >= l {
			continue
		}
		for oi := range len(g.ring) {
			oidx := (g.turn + oi) % len(g.ring)
			name := g.ring[oidx]
			o := g.owners[name]
			if p.limits.PerOwner > 0 && o.running >= p.limits.PerOwner {
				continue
			}
			j := o.jobs[0]
			o.jobs[0] = job{}
			o.jobs = o.jobs[1:]
			o.running++
			g.running++
			p.queued--
			// The owner's turn is over: the next owner goes first next time.
			if len(o.jobs) == 0 {
				g.ring = append(g.ring[:oidx], g.ring[oidx+1:]...)
				g.turn = oidx
			} else {
				g.turn = oidx + 1
			}
			if len(g.ring) > 0 {
				g.turn %= len(g.ring)
			} else {
				g.turn = 0
			}
			if len(g.ring) == 0 {
				p.ring = append(p.ring[:gidx], p.ring[gidx+1:]...)
				p.turn = gidx
			} else {
				p.turn = gidx + 1
			}
			if len(p.ring) > 0 {
				p.turn %= len(p.ring)
			} else {
				p.turn = 0
			}
			p.signal()
			return j, true
		}
	}
	return job{}, false
}

func (p *Pool) run(j job) {
	defer p.finish(j.key)
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("panic in a job", "pool", p.name, "job", j.name, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	j.run(p.ctx)
}

func (p *Pool) finish(key Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	g := p.groups[key.Group]
	g.running--
	o := g.owners[key.Owner]
	o.running--
	if o.running == 0 && len(o.jobs) == 0 {
		delete(g.owners, key.Owner)
	}
	if g.running == 0 && len(g.owners) == 0 {
		delete(p.groups, key.Group)
	}
	p.pump()
	p.signal()
	p.checkDone()
}

// signal wakes whoever waits for a change (p.mu held).
func (p *Pool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// checkDone closes finished once a closed pool has nothing left (p.mu held).
func (p *Pool) checkDone() {
	if p.closed && !p.done && (!p.started || p.queued == 0 && p.running == 0) {
		p.done = true
		close(p.finished)
	}
}

// Idle reports whether no job is queued or running, and a channel closed
// when that may have changed.
func (p *Pool) Idle() (bool, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queued == 0 && p.running == 0, p.changed
}

// Depth is the number of jobs waiting to start.
func (p *Pool) Depth() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queued
}

// Running is the number of jobs running.
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}

// Close stops intake; queued jobs still run (a pool never started drops
// them).
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		p.signal()
	}
	p.checkDone()
}

// Done is closed when every job has ended after Close (a pool that was
// never started is done once closed).
func (p *Pool) Done() <-chan struct{} { return p.finished }

// Stop closes the pool and waits until the queued and running jobs are done.
func (p *Pool) Stop() {
	p.Close()
	<-p.Done()
}

// Name is the pool's name, for logs.
func (p *Pool) Name() string { return p.name }
