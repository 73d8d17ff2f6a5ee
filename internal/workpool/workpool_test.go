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
