package discord

import (
	"context"
	"log/slog"
	"testing"
)

func TestPoolBoundsRecoversAndDrains(t *testing.T) {
	p := newPool("test", 1, 1, slog.New(slog.DiscardHandler))
	p.start(context.Background())
	block, running, ran := make(chan struct{}), make(chan struct{}), make(chan string, 4)
	if !p.submit(func(context.Context) { close(running); <-block; panic("boom") }) {
		t.Fatal("first job refused")
	}
	<-running
	// One worker busy, one queue slot: the second is queued, the third refused.
	if !p.submit(func(context.Context) { ran <- "second" }) {
		t.Fatal("second job refused")
	}
	if p.submit(func(context.Context) { ran <- "third" }) {
		t.Fatal("a full queue accepted a job")
	}
	close(block)
	if got := <-ran; got != "second" {
		t.Fatalf("ran %q", got)
	}
	p.close()
	<-p.done()
	if p.submit(func(context.Context) {}) {
		t.Fatal("a closed pool accepted a job")
	}
	if idle, _ := p.idle(); !idle {
		t.Fatal("not idle after draining")
	}
}
