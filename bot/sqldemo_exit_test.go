package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/demo"
)

// TestSQLDemoLeavesNothingRunning: `bot sql --demo` (the real executable:
// a test binary cannot start the background warehouse) runs its statement
// on a warehouse of its own and stops it on exit: no cached warehouse is
// published and no process is left; --keep is what starts one.
func TestSQLDemoLeavesNothingRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bot")
	}
	exe := filepath.Join(t.TempDir(), "bot")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	path := demo.CachePath(dir, 200)
	t.Cleanup(func() {
		// Stop what a failing run left behind.
		if st, ok := demo.ReadCache(path); ok {
			_ = syscall.Kill(st.PID, syscall.SIGTERM)
		}
	})
	out, err := exec.Command(exe, "sql", "--demo", "--orders", "200", "--data", dir, "SELECT COUNT(*) AS n FROM orders").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "200") {
		t.Fatalf("bot sql --demo: %v\n%s", err, out)
	}
	if st, ok := demo.ReadCache(path); ok {
		t.Fatalf("a demo warehouse was left running (pid %d)", st.PID)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo-warehouse")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a background warehouse was started: %v", err)
	}
}
