package discord

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/dialog"
)

// TestRefusedGatewayStopsWithTheFix: Discord closing the gateway with
// 4014 (disallowed intents) or 4004 (bad token) ends Run with an error
// that names the fix, after one attempt: retrying cannot help.
func TestRefusedGatewayStopsWithTheFix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code int
		want []string
	}{
		{4014, []string{"Message Content intent", "developer portal", "Privileged Gateway Intents", "4014"}},
		{4004, []string{"DISCORD_BOT_TOKEN", "Reset Token", "4004"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			fake := newFake(t, discordtest.Options{CloseCode: tc.code})
			cfg := testConfig(t, fake)
			cfg.RetryMin, cfg.RetryMax = time.Millisecond, 5*time.Millisecond
			var states []string
			cfg.Status = func(up bool, detail string) { states = append(states, fmt.Sprint(up, " ", detail)) }
			a, err := New(cfg, dialogFunc(func(context.Context, dialog.Event) ([]dialog.Reply, error) { return nil, nil }))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- a.Run(context.Background()) }()
			fake.Identified(t)
			var runErr error
			select {
			case runErr = <-done:
			case <-time.After(discordtest.Wait):
				t.Fatal("Run kept going after Discord refused the gateway")
			}
			if !errors.Is(runErr, ErrRefused) {
				t.Fatalf("Run: %v, want ErrRefused", runErr)
			}
			for _, w := range tc.want {
				if !strings.Contains(runErr.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, runErr)
				}
			}
			select {
			case <-fake.IdentifiedCh():
				t.Fatal("identified again after a refusal")
			default:
			}
			if len(states) != 1 || !strings.HasPrefix(states[0], "false discord: Discord refused") {
				t.Fatalf("status reports %q", states)
			}
		})
	}
}

// TestBurstOfClicksDeferredInTime: sixty clicks at once with 250 ms of
// latency on every REST call and a slow dialog behind four workers: every
// first response reaches Discord within its 3 seconds (the fake refuses
// later ones, as Discord does), and every click's work still runs.
func TestBurstOfClicksDeferredInTime(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a load test of sixty clicks with injected latency (runs in the full suite)")
	}
	const clicks, latency = 60, 250 * time.Millisecond
	fake := newFake(t, discordtest.Options{Latency: latency})
	worked := make(chan string, clicks)
	d := dialogFunc(func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		select { // a slow warehouse: the work, not the response, waits
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
		}
		worked <- ev.Target
		return nil, nil
	})
	cfg := testConfig(t, fake)
	cfg.Workers = 4
	h := start(t, fake, cfg, d)
	h.quiet()
	for i := range clicks {
		id := fake.NewID()
		fake.AddMessage(discordtest.Message{ID: id, ChannelID: dataCh, AuthorID: fake.BotID(), Content: "question"})
		h.interact(3, dataCh, alicePerson, "data_button.json", map[string]any{"CustomID": fmt.Sprintf("choose|%s|clar%02d|0", id, i)}, id)
	}
	deadline := time.After(discordtest.Wait)
	for n := range clicks {
		select {
		case <-worked:
		case <-deadline:
			t.Fatalf("%d of %d clicks worked on; answered too late (Discord refused them): %v", n, clicks, fake.Expired(true))
		}
	}
	h.quiet()
	if late := fake.Expired(true); len(late) > 0 {
		t.Fatalf("%d of %d clicks not answered within 3 s: %v", len(late), clicks, late)
	}
	rs := fake.FirstResponses()
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	if len(rs) != clicks {
		t.Fatalf("%d first responses for %d clicks", len(rs), clicks)
	}
	t.Logf("%d clicks, %s latency: first responses p50 %s, max %s (Discord allows 3s)", clicks, latency, rs[len(rs)/2].Round(time.Millisecond), rs[len(rs)-1].Round(time.Millisecond))
}

// TestReconnectsAfterADrop: a gateway connection that drops is opened
// again (the adapter reconnects itself; discordgo's own loop is off).
func TestReconnectsAfterADrop(t *testing.T) {
	t.Parallel()
	fake := newFake(t, discordtest.Options{})
	cfg := testConfig(t, fake)
	cfg.RetryMin, cfg.RetryMax = time.Millisecond, 5*time.Millisecond
	ups := make(chan bool, 16)
	cfg.Status = func(up bool, _ string) { ups <- up }
	start(t, fake, cfg, dialogFunc(func(context.Context, dialog.Event) ([]dialog.Reply, error) { return nil, nil }))
	if !<-ups {
		t.Fatal("not up after connecting")
	}
	fake.Drop()
	if <-ups {
		t.Fatal("a drop did not report down")
	}
	if !<-ups {
		t.Fatal("not up again after reconnecting")
	}
}
