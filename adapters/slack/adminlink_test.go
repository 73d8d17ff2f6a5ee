package slack

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// linker is a fake admin console: it hands out a link per call and
// remembers whom for.
type linker struct {
	link func(who dialog.Who) (string, error)
	mu   sync.Mutex
	asks []dialog.Who
}

func (l *linker) AdminLink(_ context.Context, who dialog.Who) (string, error) {
	l.mu.Lock()
	l.asks = append(l.asks, who)
	l.mu.Unlock()
	return l.link(who)
}

func (l *linker) LinkTTL() time.Duration { return 10 * time.Minute }

// TestAdminCommand: /clarify admin gives an admin a sign-in link, privately
// (the response_url's ephemeral reply); anyone else a plain refusal and no
// link.
func TestAdminCommand(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	fake.SetAdmin("U0BOSS")
	l := &linker{link: func(who dialog.Who) (string, error) {
		return "https://clarify.example.com/admin/login?t=signed-for-" + who.User, nil
	}}
	h := start(t, fake, env.Manager, ModeHTTP, func(c *Config) { c.AdminLinks = l })

	for _, tc := range []struct {
		user, want, not string
	}{
		{"U0ANA", "Only admins can open the admin console", "login?t="},
		{"U0BOSS", "https://clarify.example.com/admin/login?t=signed-for-U0BOSS", "Only admins"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			form := formQuery(t, "slash_command.form")
			form.Set("text", "admin")
			form.Set("user_id", tc.user)
			form.Set("response_url", fake.ResponseURL("admin-"+tc.user))
			since := fake.Mark()
			if status, _ := h.send(CommandsPath, "application/x-www-form-urlencoded", []byte(form.Encode()), nil); status != 200 {
				t.Fatalf("command acknowledged with %d", status)
			}
			c := fake.Wait(t, since, "response_url", func(c slackfake.Call) bool { return c.Get("hook") == "admin-"+tc.user })
			text := c.Get("text")
			if !strings.Contains(text, tc.want) || strings.Contains(text, tc.not) {
				t.Errorf("reply to %s: %q, want %q and not %q", tc.user, text, tc.want, tc.not)
			}
			if c.Get("response_type") != "ephemeral" {
				t.Errorf("the reply is %q, want ephemeral (the link is a secret)", c.Get("response_type"))
			}
		})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.asks) != 1 || l.asks[0].User != "U0BOSS" || !l.asks[0].Admin || l.asks[0].Workspace != slackfake.TeamID {
		t.Errorf("links were asked for %+v, want one for the admin U0BOSS of %s", l.asks, slackfake.TeamID)
	}
	noViolations(t, fake)
}
