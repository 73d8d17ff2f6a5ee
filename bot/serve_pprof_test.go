package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/config"
)

// TestPprofOnLoopbackOnly: Go's profiles are served only when asked for,
// on a loopback address of their own (never on the bot's port); any other
// address is refused by the configuration and by bot serve --pprof.
func TestPprofOnLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"", true}, {"127.0.0.1:6060", true}, {"[::1]:6060", true}, {"localhost:0", true},
		{"0.0.0.0:6060", false}, {":6060", false}, {"10.1.2.3:6060", false}, {"example.com:6060", false}, {"127.0.0.1", false},
	} {
		cfg := Config{DataDir: t.TempDir(), HTTP: HTTPConfig{PprofAddr: tc.addr}, Warehouses: []WarehouseConfig{{Name: "demo", Demo: true}}}
		cfg.ApplyDefaults()
		if err := cfg.Validate(); (err == nil) != tc.ok || err != nil && !strings.Contains(err.Error(), "pprof_addr") {
			t.Errorf("http.pprof_addr %q: %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
	if code, _, errOut := runBot(t, "", "serve", "--config", "/nonexistent.yml", "--pprof", "0.0.0.0:6060"); code != exitUsage || !strings.Contains(errOut, "loopback address only") {
		t.Errorf("bot serve --pprof on every interface: exit %d %s", code, errOut)
	}

	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	m, _, _ := startMain(t, Config{HTTP: HTTPConfig{PprofAddr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 200}}})
	if st, body := get("http://" + m.pprofAddr + "/debug/pprof/"); st != http.StatusOK || !strings.Contains(body, "heap") {
		t.Fatalf("profiles: %d %.200s", st, body)
	}
	if st, _ := get("http://" + m.pprofAddr + "/debug/pprof/heap?debug=1"); st != http.StatusOK {
		t.Fatalf("heap profile: %d", st)
	}
	if st, _ := get("http://" + m.Addr() + "/debug/pprof/"); st == http.StatusOK {
		t.Fatal("profiles are served on the bot's own port")
	}
	off, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 200}}})
	if off.pprofAddr != "" {
		t.Fatalf("profiles served without being asked for at %s", off.pprofAddr)
	}
}

// TestServeDemoMemoryDefaults: bot serve's demo warehouse defaults to a
// size that keeps a replica under 300 MB resident after a burst (measured
// by BenchmarkServeDemoMemory), with a soft memory limit that grows with
// the demo's size; a real warehouse beside it leaves the runtime alone.
func TestServeDemoMemoryDefaults(t *testing.T) {
	cfg := Config{}
	cfg.ApplyDefaults()
	if len(cfg.Warehouses) != 1 || cfg.Warehouses[0].DemoOrders != config.ServeDemoOrders {
		t.Fatalf("default warehouses %+v", cfg.Warehouses)
	}
	small := demoMemoryLimit(cfg)
	if small <= 0 || small > 300<<20 {
		t.Fatalf("soft limit for the default demo: %d", small)
	}
	big := Config{Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 100_000}}}
	if l := demoMemoryLimit(big); l <= small {
		t.Fatalf("a larger demo gets no more room: %d <= %d", l, small)
	}
	mixed := Config{Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 20_000}, {Name: "shop", DSN: "u@tcp(h:3306)/shop"}}}
	if l := demoMemoryLimit(mixed); l != 0 {
		t.Fatalf("a real warehouse beside the demo: limit %d, want none", l)
	}
}
