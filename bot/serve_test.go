package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/logbuf"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// startMain runs the whole bot on a free port with a temp data dir.
func startMain(t *testing.T, cfg Config) (*Main, context.CancelFunc, func() error) {
	t.Helper()
	testwh.Quiet()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	cfg.HTTP.Addr = "127.0.0.1:0"
	if len(cfg.Warehouses) == 0 {
		cfg.Warehouses = []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 400}}
	}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := NewMain(ctx, cfg, slog.New(slog.DiscardHandler))
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

func TestServeHealthAndShutdown(t *testing.T) {
	m, cancel, wait := startMain(t, Config{})
	resp, err := http.Get("http://" + m.Addr() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var h struct {
		Status     string            `json:"status"`
		Warehouses map[string]string `json:"warehouses"`
	}
	if err := json.Unmarshal(body, &h); err != nil || resp.StatusCode != 200 || h.Status != "ok" || h.Warehouses["demo"] != "ok" {
		t.Fatalf("healthz %d %s (%v)", resp.StatusCode, body, err)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestRouterSwitchesWarehouses(t *testing.T) {
	m, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{
		{Name: "one", Demo: true, DemoOrders: 300},
		{Name: "two", Demo: true, DemoOrders: 300},
	}})
	who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "u"}
	ctx := context.Background()
	replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "x", Who: who, Text: "warehouse three"})
	if err != nil || len(replies) != 1 || replies[0].Text == "" || m.router.Current(who) != "one" {
		t.Fatalf("unknown warehouse: %+v %v", replies, err)
	}
	if _, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "x", Who: who, Text: "warehouse two"}); err != nil || m.router.Current(who) != "two" {
		t.Fatalf("switch failed: %v, current %s", err, m.router.Current(who))
	}
	replies, err = m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "q1", Who: who, Text: "how many customers do we have?"})
	if err != nil || len(replies) == 0 || replies[0].Kind != dialog.ReplyAnswer {
		t.Fatalf("question: %+v %v", replies, err)
	}
	mgr, _ := m.router.Manager("two")
	owns, err := mgr.Owns(ctx, who, "q1")
	if err != nil || !owns {
		t.Fatalf("conversation should belong to warehouse two: %v %v", owns, err)
	}
}

// waitHealth reads /healthz until want holds, waking at each change of a
// component's status (no polling on a timer).
func waitHealth(t *testing.T, m *Main, want func(healthzBody) bool) healthzBody {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		changed := m.health.Watch()
		resp, err := http.Get("http://" + m.Addr() + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		var h healthzBody
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("healthz %d: %v", resp.StatusCode, err)
		}
		if want(h) {
			return h
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("healthz never reached the wanted state: %+v", h)
		}
	}
}

// TestShutdownIsLogged: the signal that stops the bot is in the log, and
// so is the end of the drain.
func TestShutdownIsLogged(t *testing.T) {
	testwh.Quiet()
	var logs logbuf.Buffer
	cfg := Config{DataDir: t.TempDir(), HTTP: HTTPConfig{Addr: "127.0.0.1:0"}, Warehouses: []WarehouseConfig{{Name: "demo", Demo: true, DemoOrders: 200}}}
	cfg.ApplyDefaults()
	ctx, cancel := context.WithCancelCause(context.Background())
	m, err := NewMain(ctx, cfg, logs.Logger())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	cancel(errors.New("terminated signal received"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); !strings.Contains(out, "shutting down") || !strings.Contains(out, "terminated signal received") {
		t.Fatalf("no shutdown line with its cause:\n%s", out)
	}
}
