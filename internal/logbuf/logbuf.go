// Package logbuf is a log sink for tests whose code logs from several
// goroutines: a buffer safe for concurrent writes and reads.
package logbuf

import (
	"bytes"
	"log/slog"
	"sync"
)

// Buffer collects log output.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Logger is a text logger writing into b.
func (b *Buffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }
