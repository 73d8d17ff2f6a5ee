package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// startCachedDemo runs the background warehouse's loop in this process
// and waits until it has published itself.
func startCachedDemo(t *testing.T, dir string, orders int, now func() time.Time) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- demo.Serve(ctx, slog.New(slog.DiscardHandler), demo.ServeOptions{
			DataDir: dir, Orders: orders, Idle: time.Hour, Every: 5 * time.Millisecond, Now: now, Ready: ready,
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("the demo warehouse did not start: %v", err)
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatal("the demo warehouse did not start in time")
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			return errors.New("did not stop")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// TestSQLDemoReusesTheCachedWarehouse: with a cached demo warehouse
// running, `bot sql --demo` connects to it instead of generating one; the
// use is recorded (the state file is touched), and --fresh still generates.
func TestSQLDemoReusesTheCachedWarehouse(t *testing.T) {
	dir := t.TempDir()
	startCachedDemo(t, dir, 300, time.Now)
	path := demo.CachePath(dir, 300)
	st, ok := demo.ReadCache(path)
	if !ok || st.PID != os.Getpid() || st.Orders != 300 || st.Build != demo.BuildID() {
		t.Fatalf("state file %+v (%v)", st, ok)
	}
	// Older than a use now, still inside the idle hour (an hour ago would
	// race the warehouse's own idle check).
	old := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runBot(t, "", "sql", "--demo", "--orders", "300", "--data", dir, "-v", "SELECT COUNT(*) AS n FROM orders")
	if code != exitOK || !strings.Contains(out, "300") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "addr="+st.Addr) || strings.Contains(errOut, "demo warehouse ready") {
		t.Fatalf("want the cached warehouse at %s, not a new one:\n%s", st.Addr, errOut)
	}
	if fi, err := os.Stat(path); err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Fatalf("the use should touch the state file: %v %v", fi.ModTime(), err)
	}
	// Still the guard: a write is refused before anything runs.
	if code, _, errOut := runBot(t, "", "sql", "--demo", "--orders", "300", "--data", dir, "DELETE FROM orders"); code != exitRefused {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut = runBot(t, "", "sql", "--demo", "--orders", "300", "--data", dir, "--fresh", "-v", "SELECT COUNT(*) AS n FROM orders")
	if code != exitOK || !strings.Contains(out, "300") || !strings.Contains(errOut, "demo warehouse ready") {
		t.Fatalf("--fresh should generate its own: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCachedDemoWarehouseStopsWhenIdle: unused for longer than its idle
// time, the background warehouse stops and removes its state file.
func TestCachedDemoWarehouseStopsWhenIdle(t *testing.T) {
	dir := t.TempDir()
	var clock atomicTime
	clock.set(time.Now())
	stop := startCachedDemo(t, dir, 200, clock.get)
	clock.set(time.Now().Add(2 * time.Hour)) // past the hour of idle time
	done := make(chan error, 1)
	go func() { done <- stop() }()
	deadline := time.After(time.Minute)
	for {
		if _, err := os.Stat(demo.CachePath(dir, 200)); errors.Is(err, os.ErrNotExist) {
			break
		}
		select {
		case <-deadline:
			t.Fatal("the idle warehouse kept its state file")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestSQLDemoForgetsADeadCachedWarehouse: a state file whose process is
// gone (killed, machine restarted) is removed, and the statement runs on
// a warehouse generated for it.
func TestSQLDemoForgetsADeadCachedWarehouse(t *testing.T) {
	dir := t.TempDir()
	path := demo.CachePath(dir, 200)
	if err := demo.WriteCache(path, demo.CacheState{PID: 1 << 30, Addr: "127.0.0.1:1", Orders: 200, Started: time.Now(), Build: demo.BuildID()}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBot(t, "", "sql", "--demo", "--orders", "200", "--data", dir, "SELECT COUNT(*) AS n FROM orders")
	if code != exitOK || !strings.Contains(out, "200") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the dead warehouse's state file should be gone: %v", err)
	}
	// Another build's warehouse is not used either.
	if err := demo.WriteCache(path, demo.CacheState{PID: 1 << 30, Addr: "127.0.0.1:1", Orders: 200, Started: time.Now(), Build: "another build"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := demo.OpenCached(context.Background(), dir, 200, testWarehouseConfig()); ok {
		t.Fatal("another build's warehouse was used")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("another build's state file should be gone: %v", err)
	}
}

// atomicTime is a clock tests move.
type atomicTime struct {
	mu sync.Mutex
	t  time.Time
}

func (a *atomicTime) set(t time.Time) { a.mu.Lock(); a.t = t; a.mu.Unlock() }

func (a *atomicTime) get() time.Time { a.mu.Lock(); defer a.mu.Unlock(); return a.t }

func testWarehouseConfig() warehouse.Config { return warehouse.Config{} }
