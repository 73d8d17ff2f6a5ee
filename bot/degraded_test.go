package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/router"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// fastTimings make the checks and retries quick for tests.
var fastTimings = serveTimings{
	CheckEvery: 100 * time.Millisecond,
	RetryMin:   20 * time.Millisecond, RetryMax: 200 * time.Millisecond,
	PartialMin: 50 * time.Millisecond, PartialMax: 200 * time.Millisecond,
	Janitor: 200 * time.Millisecond,
}

// startMainWith is startMain with options.
func startMainWith(t *testing.T, cfg Config, opts MainOptions) (*Main, context.CancelFunc, func() error) {
	t.Helper()
	testwh.Quiet()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := NewMainWith(ctx, cfg, slog.New(slog.DiscardHandler), opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	var runErr error
	go func() { runErr = m.Run(ctx); close(done) }()
	wait := func() error {
		select {
		case <-done:
			return runErr
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after cancel")
			return nil
		}
	}
	t.Cleanup(func() {
		cancel()
		wait()
		m.Close()
	})
	return m, cancel, wait
}

// switchProxy forwards TCP to a warehouse while up; while down it closes
// every connection at once, as a server that went away (RST) does.
type switchProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  map[net.Conn]bool
}

func newSwitchProxy(t *testing.T, target string) *switchProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.set(false) })
	go p.serve()
	return p
}

func (p *switchProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up := p.up
		if up {
			p.conns[c] = true
		}
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		go func() {
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			p.conns[s] = true
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			io.Copy(c, s)
			c.Close()
		}()
	}
}

// set brings the warehouse up or down (closing what is open).
func (p *switchProxy) set(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = up
	if !up {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

const shopDumpForServe = `
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(80), state VARCHAR(40));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, ordered_at DATE, amount DECIMAL(10,2));
INSERT INTO customers VALUES (1,'Ann Lee','Texas'),(2,'Bo Chen','California'),(3,'Cy Diaz','Texas');
INSERT INTO orders VALUES (1,1,'2024-01-05',100.00),(2,1,'2024-02-01',50.50),(3,2,'2023-12-30',20.00),(4,3,'2025-03-03',10.00);
`

// TestDeadWarehouseAtStart: a warehouse that is down when the bot starts
// does not stop it: the other serves, /healthz says which is down (without
// its address), questions there get a plain reply; when it comes up it
// serves, when it goes down again it is noticed, and it comes back.
func TestDeadWarehouseAtStart(t *testing.T) {
	d := testwh.NewDatabase(t, testwh.Targets()[0], shopDumpForServe)
	proxy := newSwitchProxy(t, d.Config.Addr)
	mc := d.Config.Clone()
	mc.Addr = proxy.ln.Addr().String()
	mc.Timeout = time.Second
	m, _, _ := startMainWith(t, Config{Warehouses: []WarehouseConfig{
		{Name: "demo", Demo: true, DemoOrders: 300},
		{Name: "shop", DSN: mc.FormatDSN()},
	}}, MainOptions{Timings: fastTimings})

	h := waitHealth(t, m, func(h healthzBody) bool { return h.Components["warehouse:shop"].Failures >= 2 })
	shop := h.Components["warehouse:shop"]
	if h.Status != "degraded" || shop.State != stateDown || h.Warehouses["demo"] != "ok" || shop.NextRetry == nil {
		t.Fatalf("healthz with shop down: %+v", h)
	}
	if !strings.Contains(shop.Detail, "retrying") || strings.Contains(shop.Detail, "127.0.0.1") || strings.Contains(h.Warehouses["shop"], mc.Addr) {
		t.Fatalf("shop detail %q: say what, never where", shop.Detail)
	}

	ctx := context.Background()
	who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c-shop", User: "u"}
	if _, err := m.router.Choose(who, "shop"); err != nil {
		t.Fatal(err)
	}
	ask := func(conv, q string) dialog.Reply {
		t.Helper()
		replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: q})
		if err != nil || len(replies) == 0 {
			t.Fatalf("%s: %+v %v", q, replies, err)
		}
		return replies[0]
	}
	if r := ask("q1", "how many customers are there?"); r.Kind != dialog.ReplyNotice || r.Text != router.UnreachableText("shop") {
		t.Fatalf("a question to the dead warehouse: %+v", r)
	}
	// The other warehouse answers meanwhile.
	other := dialog.Who{Platform: "test", Workspace: "w", Channel: "c-demo", User: "u"}
	if replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "q0", Who: other, Text: "how many customers do we have?"}); err != nil || replies[0].Kind != dialog.ReplyAnswer {
		t.Fatalf("the live warehouse: %+v %v", replies, err)
	}

	proxy.set(true)
	waitHealth(t, m, func(h healthzBody) bool { return h.Components["warehouse:shop"].State == stateUp })
	if r := ask("q2", "how many customers are there?"); r.Kind != dialog.ReplyAnswer && r.Kind != dialog.ReplyClarification {
		t.Fatalf("after it came up: %+v", r)
	}

	// Down again while serving: the monitor notices, questions get the
	// plain reply, and it is checked until it is back.
	proxy.set(false)
	waitHealth(t, m, func(h healthzBody) bool { return h.Components["warehouse:shop"].State == stateDown })
	if r := ask("q3", "how many orders are there?"); r.Text != router.UnreachableText("shop") {
		t.Fatalf("while down again: %+v", r)
	}
	proxy.set(true)
	waitHealth(t, m, func(h healthzBody) bool { return h.Components["warehouse:shop"].State == stateUp })
}

// TestPartialProfileRetriedInBackground: a cached snapshot with a partial
// table is used (the bot starts), reported by /healthz and bot doctor,
// and retaken in the background; the cache then holds the complete one.
func TestPartialProfileRetriedInBackground(t *testing.T) {
	d := testwh.NewDatabase(t, testwh.Targets()[0], shopDumpForServe)
	dir := t.TempDir()
	w := d.Open(t, warehouse.Config{})
	snap, err := w.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range snap.Profiles {
		if p := &snap.Profiles[i]; p.Table == "customers" {
			p.Partial, p.Values, p.Top, p.Samples, p.ValuesComplete = true, nil, nil, nil, false
		}
	}
	path := filepath.Join(dir, "snapshots", "shop.json.gz")
	if err := warehouse.SaveSnapshot(path, snap); err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: dir, HTTP: HTTPConfig{Addr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{{Name: "shop", DSN: d.Config.FormatDSN()}}}
	cfg.ApplyDefaults()
	if got := checkProfiles(cfg); len(got) != 1 || got[0].Status != statusWarn || !strings.Contains(got[0].Detail, "partial for customers") {
		t.Fatalf("doctor on the partial cache: %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timings := fastTimings
	timings.PartialMin, timings.PartialMax = 300*time.Millisecond, time.Second
	m, err := NewMainWith(ctx, cfg, slog.New(slog.DiscardHandler), MainOptions{Timings: timings})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if st, _ := m.health.get("warehouse:shop"); st.State != stateUp || !strings.Contains(st.Detail, "partial profile of customers") {
		t.Fatalf("shop at start: %+v", st)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitHealth(t, m, func(h healthzBody) bool {
		s := h.Components["warehouse:shop"]
		return s.State == stateUp && s.Detail == ""
	})
	if p := m.slots[0].Current().Snap.PartialTables(); len(p) != 0 {
		t.Fatalf("the stack still has partial tables %v", p)
	}
	if st := m.slots[0].Current().Snap.Profile("customers", "state"); st == nil || len(st.Values) != 2 {
		t.Fatalf("customers.state after the retake: %+v", st)
	}
	if got := checkProfiles(cfg); len(got) != 1 || got[0].Status != statusOK {
		t.Fatalf("doctor after the retake: %+v", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
