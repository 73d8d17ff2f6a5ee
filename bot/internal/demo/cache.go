package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// A cached demo warehouse for `bot sql --demo`. Generating and loading
// the demo's 100,000 orders takes a second or two (more on a busy
// machine, and go run adds a build), once per statement. So the first
// `bot sql --demo` starts the embedded warehouse in a background process
// of its own (`bot demo-warehouse`, bound to 127.0.0.1 only) and later
// ones connect to it in milliseconds. The process describes itself in a
// small file in the data directory, each use touches that file, and the
// process exits by itself after Idle without use, removing the file.
// A dead process (killed, machine restarted) is noticed by the failed
// ping and replaced; a new build of the bot replaces one started by an
// older build. --fresh runs the statement on a warehouse of its own.

// Idle is how long a cached demo warehouse waits for its next use.
const Idle = 15 * time.Minute

// CacheState is what the state file says of a running cached warehouse.
type CacheState struct {
	PID     int       `json:"pid"`
	Addr    string    `json:"addr"`
	Orders  int       `json:"orders"`
	Started time.Time `json:"started"`
	// Build identifies the executable that started it (path, size, mtime):
	// another build may generate other data.
	Build string `json:"build"`
}

func CachePath(dataDir string, orders int) string {
	return filepath.Join(dataDir, "demo-warehouse", "orders-"+strconv.Itoa(orders)+".json")
}

// BuildID names the running executable's build.
func BuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
}

// ReadCache reads a state file; ok is false when there is none or it
// is unreadable.
func ReadCache(path string) (CacheState, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return CacheState{}, false
	}
	var st CacheState
	if json.Unmarshal(b, &st) != nil || st.Addr == "" {
		return CacheState{}, false
	}
	return st, true
}

// WriteCache writes the state file atomically (rename).
func WriteCache(path string, st CacheState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("demo warehouse cache directory: %w", err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write demo warehouse state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write demo warehouse state: %w", err)
	}
	return nil
}

// OpenCached connects to the cached demo warehouse of this build for
// orders, or returns ok false when there is none that answers.
func OpenCached(ctx context.Context, dataDir string, orders int, wcfg warehouse.Config) (*warehouse.DB, bool) {
	path := CachePath(dataDir, orders)
	st, ok := ReadCache(path)
	if !ok || st.Orders != orders {
		return nil, false
	}
	if st.Build != BuildID() {
		// Another build's warehouse: stop it, a new one replaces it.
		stopCache(path, st)
		return nil, false
	}
	mc := mysql.NewConfig()
	mc.User, mc.Net, mc.Addr, mc.DBName = "root", "tcp", st.Addr, Database
	mc.Timeout = 2 * time.Second
	wcfg.MySQL = mc
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	db, err := warehouse.Open(pctx, wcfg)
	if err != nil {
		// Gone (killed, rebooted): forget it.
		os.Remove(path)
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // a use: the idle clock starts again
	return db, true
}

// stopCache forgets a cached warehouse: its process sees its state
// file gone at its next look and exits by itself (no signal to a pid that
// may have been reused).
func stopCache(path string, _ CacheState) {
	os.Remove(path)
}

// StartCache starts `bot demo-warehouse` in the background, detached
// from this terminal, and waits until it has written its state file.
func StartCache(ctx context.Context, dataDir string, orders int, logger *slog.Logger) error {
	if testing.Testing() {
		// A test binary is not the bot: it cannot serve the warehouse.
		return errors.New("not started from a test")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the bot's executable: %w", err)
	}
	path := CachePath(dataDir, orders)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("demo warehouse cache directory: %w", err)
	}
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(path), "demo-warehouse.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("demo warehouse log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "demo-warehouse", "--data", dataDir, "--orders", strconv.Itoa(orders), "--idle", Idle.String())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives this command and its terminal
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the demo warehouse: %w", err)
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reaps it if it fails early
	logger.Info("starting a cached demo warehouse in the background", "pid", pid, "orders", orders, "idle", Idle)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("the demo warehouse exited at start (see %s): %v", logf.Name(), err)
		case <-deadline.C:
			_ = cmd.Process.Kill()
			return errors.New("the demo warehouse did not start within 2 minutes")
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if st, ok := ReadCache(path); ok && st.PID == pid {
				return nil
			}
		}
	}
}

// ServeOptions configure the background warehouse process.
type ServeOptions struct {
	DataDir string
	Orders  int
	Idle    time.Duration
	// Every is how often the idle clock is read; Now reads it.
	Every time.Duration
	Now   func() time.Time
	// Ready is closed once the state file is written (tests).
	Ready chan<- struct{}
}

// RunWarehouse is `bot demo-warehouse`: the process behind the cache.
func RunWarehouse(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("bot demo-warehouse", stderr,
		"usage: bot demo-warehouse [--data DIR] [--orders N] [--idle D]",
		"The background process behind the cached demo warehouse of `bot sql --demo`; it starts on its own.",
	)
	data := fs.String("data", cli.DefaultDataDir(), "data directory holding the cache's state file")
	orders := fs.Int("orders", demodata.DefaultOrders, "how many orders to generate")
	idle := fs.Duration("idle", Idle, "exit after this long without a use")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err := Serve(ctx, logger, ServeOptions{DataDir: *data, Orders: *orders, Idle: *idle, Every: 30 * time.Second, Now: time.Now})
	if err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("demo warehouse", "err", err)
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// Serve starts the demo warehouse, publishes it in the state
// file, and serves until ctx ends or the file has not been touched for
// opts.Idle; it removes the file when it stops (unless another process
// replaced it).
func Serve(ctx context.Context, logger *slog.Logger, opts ServeOptions) error {
	dw, err := Start(ctx, logger, opts.Orders, warehouse.Config{})
	if err != nil {
		return err
	}
	defer dw.Close()
	path := CachePath(opts.DataDir, opts.Orders)
	st := CacheState{PID: os.Getpid(), Addr: dw.Srv.Addr(), Orders: opts.Orders, Started: opts.Now(), Build: BuildID()}
	if err := WriteCache(path, st); err != nil {
		return err
	}
	defer func() {
		if cur, ok := ReadCache(path); ok && cur.PID == st.PID && cur.Addr == st.Addr {
			os.Remove(path)
		}
	}()
	logger.Info("demo warehouse serving", "addr", st.Addr, "orders", opts.Orders, "state", path, "idle", opts.Idle)
	if opts.Ready != nil {
		close(opts.Ready)
	}
	t := time.NewTicker(opts.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			fi, err := os.Stat(path)
			if err != nil {
				logger.Info("state file gone; stopping", "path", path)
				return nil
			}
			if cur, ok := ReadCache(path); !ok || cur.PID != st.PID || cur.Addr != st.Addr {
				logger.Info("replaced by another demo warehouse; stopping")
				return nil
			}
			if opts.Now().Sub(fi.ModTime()) > opts.Idle {
				logger.Info("idle; stopping", "last_use", fi.ModTime())
				return nil
			}
		}
	}
}
