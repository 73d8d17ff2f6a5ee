package slack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/dialog"
)

// AdminLinker issues one-time sign-in links to the admin console
// (adapters/adminweb). The adapter calls it only for admins.
type AdminLinker interface {
	AdminLink(ctx context.Context, who dialog.Who) (string, error)
	LinkTTL() time.Duration
}

// IsAdmin reports whether a Slack user is an admin now: a configured
// admin, or a workspace admin or owner (users.info, cached). known is
// false when Slack could not be asked, so that a passing API error does
// not end an admin's console session.
func (a *Adapter) IsAdmin(ctx context.Context, team, user string) (admin, known bool) {
	admin, err := a.admins.check(ctx, team, user)
	return admin, err == nil
}

// adminCommand is /clarify admin: a sign-in link for an admin, shown to
// them alone; a plain refusal for anyone else.
func (a *Adapter) adminCommand(ctx context.Context, who dialog.Who, note func(string)) {
	if a.cfg.AdminLinks == nil {
		note("The admin console is not enabled on this bot.")
		return
	}
	if !a.admins.isAdmin(ctx, who.Workspace, who.User) {
		note("Only admins can open the admin console. Ask a workspace admin, or one of the bot's configured admins.")
		return
	}
	who.Admin = true
	link, err := a.cfg.AdminLinks.AdminLink(ctx, who)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return
		}
		a.log.Error("cannot make an admin console link", "user", who.User, "err", err)
		note("I could not make a sign-in link just now; the details are in the bot's log.")
		return
	}
	note(fmt.Sprintf("Your sign-in link to the admin console (works once, for %s; don't share it):\n%s", humanTTL(a.cfg.AdminLinks.LinkTTL()), link))
}

func humanTTL(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		if d == time.Minute {
			return "a minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
