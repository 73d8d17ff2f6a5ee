package convstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// MustOpen opens a store at path (a temp file when empty), closed at cleanup.
func MustOpen(tb testing.TB, path string, clk *testClock) *Store {
	tb.Helper()
	if kvtest.OnServer(tb) && path == "" {
		s, err := New(context.Background(), kvtest.MustServer(tb).Namespace("conversations"), "test", Options{Now: clk.Now})
		if err != nil {
			tb.Fatalf("New: %v", err)
		}
		return s
	}
	if path == "" {
		path = filepath.Join(tb.TempDir(), "conversations.db")
	}
	s, err := Open(path, Options{Now: clk.Now})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	clk := &testClock{t: t0}
	s := MustOpen(t, "", clk)
	for _, tc := range []struct {
		name  string
		id    string
		state []byte
	}{
		{"json", "slack:T1:C1:1712345678.000100", []byte(`{"round":1,"pending":"clr-1"}`)},
		{"empty state", "console:1", []byte{}},
		{"binary and odd id", "discord:g/c 1 \x00 ü", []byte{0, 1, 2, 255}},
		{"longest id", strings.Repeat("x", MaxIDLen), []byte("{}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Save(ctx, tc.id, tc.state, t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(ctx, tc.id)
			if err != nil || !bytes.Equal(got, tc.state) {
				t.Errorf("Load = %q, %v; want %q", got, err, tc.state)
			}
		})
	}
	t.Run("overwrite", func(t *testing.T) {
		if err := s.Save(ctx, "c", []byte("one"), t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(ctx, "c", []byte("two"), time.Time{}); err != nil {
			t.Fatal(err)
		}
		clk.Set(t0.Add(time.Hour)) // past the first deadline, which no longer applies
		defer clk.Set(t0)
		if got, err := s.Load(ctx, "c"); err != nil || string(got) != "two" {
			t.Errorf("Load = %q, %v", got, err)
		}
		if n, err := s.Sweep(ctx, t0.Add(time.Hour)); err != nil || n != 0 {
			t.Errorf("Sweep removed %d (%v): the old deadline must not sweep the new state", n, err)
		}
	})
	t.Run("not found and delete", func(t *testing.T) {
		if _, err := s.Load(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load missing: %v", err)
		}
		if err := s.Delete(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(ctx, "c"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load deleted: %v", err)
		}
		if err := s.Delete(ctx, "c"); err != nil {
			t.Errorf("Delete missing: %v", err)
		}
	})
}

func TestInvalidID(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t, "", &testClock{t: t0})
	for _, tc := range []struct {
		name string
		id   string
		want string
	}{
		{"empty", "", "empty"},
		{"too long", strings.Repeat("x", MaxIDLen+1), "513 bytes, the limit is 512"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for op, err := range map[string]error{
				"Save":   s.Save(ctx, tc.id, nil, time.Time{}),
				"Load":   func() error { _, err := s.Load(ctx, tc.id); return err }(),
				"Delete": s.Delete(ctx, tc.id),
			} {
				if !errors.Is(err, ErrInvalidID) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want ErrInvalidID mentioning %q", op, err, tc.want)
				}
			}
		})
	}
}

func TestExpiryAndSweep(t *testing.T) {
	ctx := context.Background()
	clk := &testClock{t: t0}
	s := MustOpen(t, "", clk)
	for i, d := range []time.Duration{time.Minute, 2 * time.Minute, 10 * time.Minute, 0} {
		exp := time.Time{}
		if d != 0 {
			exp = t0.Add(d)
		}
		if err := s.Save(ctx, fmt.Sprint("c", i), []byte("s"), exp); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name        string
		now         time.Time
		sweepBefore time.Time
		wantSwept   int
		want        map[string]error // id → Load error
	}{
		{"before any deadline", t0, t0, 0, map[string]error{"c0": nil, "c1": nil, "c2": nil, "c3": nil}},
		{"at the first deadline", t0.Add(time.Minute), t0, 0, map[string]error{"c0": ErrExpired, "c1": nil, "c2": nil, "c3": nil}},
		{"expired are kept until swept", t0.Add(5 * time.Minute), t0.Add(time.Minute), 0,
			map[string]error{"c0": ErrExpired, "c1": ErrExpired, "c2": nil, "c3": nil}},
		{"sweep the older one", t0.Add(5 * time.Minute), t0.Add(90 * time.Second), 1,
			map[string]error{"c0": ErrNotFound, "c1": ErrExpired, "c2": nil, "c3": nil}},
		{"sweep everything expired; never-expiring stays", t0.Add(time.Hour), t0.Add(time.Hour), 2,
			map[string]error{"c0": ErrNotFound, "c1": ErrNotFound, "c2": ErrNotFound, "c3": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.Set(tc.now)
			n, err := s.Sweep(ctx, tc.sweepBefore)
			if err != nil || n != tc.wantSwept {
				t.Errorf("Sweep = %d, %v; want %d", n, err, tc.wantSwept)
			}
			for id, want := range tc.want {
				got, err := s.Load(ctx, id)
				if !errors.Is(err, want) {
					t.Errorf("Load(%s) = %q, %v; want %v", id, got, err, want)
				}
			}
		})
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	clk := &testClock{t: t0}
	path := filepath.Join(t.TempDir(), "conversations.db")
	s, err := Open(path, Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, "c1", []byte(`{"a":1}`), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, "c2", []byte(`{"b":2}`), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(time.Minute))
	s2 := MustOpen(t, path, clk)
	if got, err := s2.Load(ctx, "c1"); err != nil || string(got) != `{"a":1}` {
		t.Errorf("c1 after reopen: %q, %v", got, err)
	}
	if _, err := s2.Load(ctx, "c2"); !errors.Is(err, ErrExpired) {
		t.Errorf("c2 after reopen: %v, want ErrExpired", err)
	}
	if n, err := s2.Sweep(ctx, clk.Now()); err != nil || n != 1 {
		t.Errorf("Sweep after reopen: %d, %v (the expiry index must survive)", n, err)
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "conversations.db")
	MustOpen(t, path, &testClock{t: t0})
	done := make(chan error, 1)
	go func() {
		s, err := Open(path, Options{Timeout: 100 * time.Millisecond})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another Clarify process") {
			t.Errorf("second Open: %v, want ErrInUse naming the path", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("second Open did not return")
	}
}

func TestCanceledContext(t *testing.T) {
	s := MustOpen(t, "", &testClock{t: t0})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Save(ctx, "c", nil, time.Time{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Save with canceled ctx: %v", err)
	}
}
