package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// BenchmarkServeDemoMemory starts `bot serve` with the demo warehouse in
// process at its default size (demo_orders), puts a burst of questions to
// it at once — each in its own conversation, as many mentions would — and
// reports the process's resident memory and live heap once the burst is
// over and the garbage collector ran: what an idle replica keeps after a
// busy minute. BENCH_DEMO_ORDERS=100000 measures another size.
func BenchmarkServeDemoMemory(b *testing.B) {
	orders := 0 // the default
	if v := os.Getenv("BENCH_DEMO_ORDERS"); v != "" {
		orders, _ = strconv.Atoi(v)
	}
	const burst = 100
	questions := []string{"how many customers do we have?", "list customers in Ohio", "what was revenue in 2024?", "top 5 products by revenue", "orders by month in 2025"}
	var rss, peak, heap float64
	for b.Loop() {
		cfg := Config{DataDir: b.TempDir(), HTTP: HTTPConfig{Addr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: orders}}}
		cfg.ApplyDefaults()
		restore := applyMemoryLimit(cfg, slog.New(slog.DiscardHandler))
		ctx, cancel := context.WithCancel(context.Background())
		m, err := NewMainWith(ctx, cfg, slog.New(slog.DiscardHandler), MainOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range burst {
			wg.Go(func() {
				who := dialog.Who{Platform: "bench", Workspace: "w", Channel: "c", User: fmt.Sprintf("u%d", i)}
				if _, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: fmt.Sprintf("q%d", i), Who: who, Text: questions[i%len(questions)]}); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		// The collector runs as it would by itself; memory is not handed
		// back by force (debug.FreeOSMemory), as no replica does that.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss, peak, heap = procStatusMB(b, "VmRSS:"), procStatusMB(b, "VmHWM:"), float64(ms.HeapInuse)/(1<<20)
		cancel()
		m.Close()
		restore()
	}
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(peak, "peak-rss-MB")
	b.ReportMetric(heap, "heap-MB")
}

// procStatusMB is a memory line of /proc/self/status (VmRSS: resident
// now, VmHWM: the peak) in MB.
func procStatusMB(tb testing.TB, field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status here")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb / 1024
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}
