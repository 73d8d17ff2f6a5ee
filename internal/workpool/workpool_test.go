package workpool

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/logbuf"
)

func TestBoundsRecoversAndDrains(t *testing.T) {
	var logs logbuf.Buffer
	p := New("test", 1, 1, logs.Logger())
	p.Start(context.Background())
	running, block := make(chan struct{}), make(chan struct{})
	if !p.Submit("boom", func(context.Context) { close(running); <-block; panic("boom") }, 0) {
		t.Fatal("first job refused")
	}
	<-running
	ran := make(chan string, 3)
	if !p.Submit("second", func(context.Context) { ran <- "second" }, 0) {
		t.Fatal("second job refused: the queue has room for one")
	}
	if p.Submit("third", func(context.Context) { ran <- "third" }, 0) {
		t.Fatal("third job accepted: the queue is full")
	}
	if p.Submit("third", func(context.Context) { ran <- "third" }, 10*time.Millisecond) {
		t.Fatal("third job accepted after waiting: the queue stayed full")
	}
	if idle, _ := p.Idle(); idle {
		t.Fatal("idle while jobs run")
	}
	close(block)
	p.Close()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the pool did not drain")
	}
	if got := <-ran; got != "second" {
		t.Fatalf("ran %q", got)
	}
	if p.Submit("late", func(context.Context) { t.Error("a job submitted after Close ran") }, 0) {
		t.Fatal("accepted after Close")
	}
	if idle, _ := p.Idle(); !idle {
		t.Fatal("not idle after draining")
	}
	if !strings.Contains(logs.String(), "panic in a job") || !strings.Contains(logs.String(), "job=boom") {
		t.Fatalf("the panic is not logged with the job's name:\n%s", logs.String())
	}
}

func TestJobsQueuedBeforeStartRunAndStopWaits(t *testing.T) {
	p := New("test", 2, 8, nil)
	var mu sync.Mutex
	done := 0
	for range 5 {
		if !p.Submit("j", func(context.Context) { mu.Lock(); done++; mu.Unlock() }, 0) {
			t.Fatal("refused")
		}
	}
	p.Start(context.Background())
	p.Stop()
	mu.Lock()
	defer mu.Unlock()
	if done != 5 {
		t.Fatalf("%d of 5 jobs ran before Stop returned", done)
	}
}

func TestIdleSignalsChanges(t *testing.T) {
	p := New("test", 1, 1, nil)
	p.Start(context.Background())
	defer p.Stop()
	release := make(chan struct{})
	p.Submit("j", func(context.Context) { <-release }, 0)
	idle, changed := p.Idle()
	if idle {
		t.Fatal("idle with a job running")
	}
	close(release)
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no change signalled when the job ended")
	}
	if idle, _ := p.Idle(); !idle {
		t.Fatal("not idle after the job ended")
	}
}

func TestUnstartedPoolIsDoneOnceClosed(t *testing.T) {
	p := New("test", 1, 1, nil)
	p.Close()
	select {
	case <-p.Done():
	case <-time.After(time.Second):
		t.Fatal("an unstarted, closed pool should be done")
	}
}

// TestFairAcrossOwners: one person's eight slow jobs are queued first;
// another person's job still starts as soon as a worker is free, not after
// the eight.
func TestFairAcrossOwners(t *testing.T) {
	p := NewFair("test", 1, 16, Limits{}, nil)
	release := make(chan struct{})
	order := make(chan string, 16)
	slow := Key{Group: "wh", Owner: "ana"}
	for i := range 8 {
		name := "ana" + string(rune('0'+i))
		if !p.SubmitKeyed(name, slow, func(context.Context) { order <- name; <-release }, 0) {
			t.Fatal("refused")
		}
	}
	if !p.SubmitKeyed("bob", Key{Group: "wh", Owner: "bob"}, func(context.Context) { order <- "bob" }, 0) {
		t.Fatal("refused")
	}
	p.Start(context.Background())
	if got := <-order; got != "ana0" {
		t.Fatalf("first job %q", got)
	}
	release <- struct{}{}
	if got := <-order; got != "bob" {
		t.Fatalf("after ana's first job came %q, want bob's", got)
	}
	close(release)
	p.Stop()
}

// TestGroupLimit: a group at its limit leaves the other workers to other
// groups (a slow warehouse cannot take every worker).
func TestGroupLimit(t *testing.T) {
	p := NewFair("test", 3, 16, Limits{GroupLimit: func(g string) int {
		if g == "slow" {
			return 2
		}
		return 0
	}}, nil)
	p.Start(context.Background())
	defer p.Stop()
	release := make(chan struct{})
	started := make(chan string, 16)
	for i := range 5 {
		p.SubmitKeyed("slow", Key{Group: "slow", Owner: string(rune('a' + i))}, func(context.Context) { started <- "slow"; <-release }, 0)
	}
	<-started
	<-started
	p.SubmitKeyed("fast", Key{Group: "fast", Owner: "z"}, func(context.Context) { started <- "fast" }, 0)
	if got := <-started; got != "fast" {
		t.Fatalf("a third slow job started (%q) beyond the group's limit of 2", got)
	}
	if d := p.Depth(); d != 3 {
		t.Fatalf("depth %d, want the three slow jobs over the limit waiting", d)
	}
	close(release)
}

// TestOwnerLimit: one person runs at most PerOwner jobs at once.
func TestOwnerLimit(t *testing.T) {
	p := NewFair("test", 4, 16, Limits{PerOwner: 1}, nil)
	p.Start(context.Background())
	release := make(chan struct{})
	started := make(chan string, 8)
	for range 3 {
		p.SubmitKeyed("ana", Key{Owner: "ana"}, func(context.Context) { started <- "ana"; <-release }, 0)
	}
	p.SubmitKeyed("bob", Key{Owner: "bob"}, func(context.Context) { started <- "bob"; <-release }, 0)
	got := map[string]int{}
	got[<-started]++
	got[<-started]++
	if got["ana"] != 1 || got["bob"] != 1 {
		t.Fatalf("started %v, want one of ana's and bob's", got)
	}
	if d := p.Depth(); d != 2 {
		t.Fatalf("depth %d, want ana's other two waiting", d)
	}
	close(release)
	p.Stop()
}

// TestSubmitWaitsForRoom: a Submit with a wait gets in when a queued job
// starts.
func TestSubmitWaitsForRoom(t *testing.T) {
	p := New("test", 1, 1, nil)
	p.Start(context.Background())
	defer p.Stop()
	release := make(chan struct{})
	running := make(chan struct{})
	p.Submit("a", func(context.Context) { close(running); <-release }, 0)
	<-running
	p.Submit("b", func(context.Context) {}, 0)
	ok := make(chan bool)
	go func() { ok <- p.Submit("c", func(context.Context) {}, time.Minute) }()
	close(release)
	if !<-ok {
		t.Fatal("the waiting Submit was refused although room was made")
	}
}
