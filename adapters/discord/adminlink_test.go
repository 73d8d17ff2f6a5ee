package discord

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// linker is a fake admin console.
type linker struct {
	mu   sync.Mutex
	asks []dialog.Who
}

func (l *linker) AdminLink(_ context.Context, who dialog.Who) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asks = append(l.asks, who)
	return "https://clarify.example.com/admin/login?t=for-" + who.User, nil
}

func (l *linker) LinkTTL() time.Duration { return 10 * time.Minute }

// TestClarifyAdmin: /clarify admin is registered, answers an admin (Manage
// Server, or the admin role) with a private sign-in link as the first
// response, and refuses others and direct messages plainly.
func TestClarifyAdmin(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, demoOrders, dialog.Config{})
	fake := newFake(t, discordtest.Options{})
	l := &linker{}
	cfg := testConfig(t, fake)
	cfg.AdminLinks = l
	h := start(t, fake, cfg, env.Manager)

	var cmds []struct {
		Name    string `json:"name"`
		Options []struct {
			Name string `json:"name"`
			Type int    `json:"type"`
		} `json:"options"`
	}
	if err := json.Unmarshal(fake.Commands("/api/v9/applications/"+fake.AppID()+"/guilds/"+guildID+"/commands"), &cmds); err != nil {
		t.Fatal(err)
	}
	registered := false
	for _, c := range cmds {
		if c.Name == "clarify" && len(c.Options) == 1 && c.Options[0].Name == "admin" && c.Options[0].Type == 1 {
			registered = true
		}
	}
	if !registered {
		t.Fatalf("/clarify admin is not registered: %+v", cmds)
	}

	for _, tc := range []struct {
		name    string
		from    person
		channel string
		want    string
	}{
		{"plain member", alicePerson, dataCh, "Only admins can open the admin console"},
		{"manage server", bobPerson, dataCh, "https://clarify.example.com/admin/login?t=for-" + bob},
		{"admin role", carolPerson, otherCh, "https://clarify.example.com/admin/login?t=for-" + carol},
		{"direct message", bobPerson, dmCh, "not in a direct message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.quiet()
			in := h.command(tc.channel, tc.from, "data_clarify_admin.json", map[string]any{})
			cb := h.firstResponse(in)
			if cb.Type != 4 || cb.Data.Flags != 64 || !strings.Contains(cb.Data.Content, tc.want) {
				t.Fatalf("response %+v, want an ephemeral message containing %q", cb, tc.want)
			}
		})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.asks) != 2 || l.asks[0].Workspace != guildID || !l.asks[0].Admin {
		t.Errorf("links asked for %+v, want two admins of the guild", l.asks)
	}
}
