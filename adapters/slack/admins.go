package slack

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/slack-go/slack"
)

// adminTTL is how long a users.info answer is trusted.
const adminTTL = 10 * time.Minute

// admins decides who may review and promote what was learned: the
// configured user ids, else workspace admins and owners (users.info,
// cached so that a busy channel costs one call per person per ten minutes).
type admins struct {
	fixed  map[string]bool
	lookup func(ctx context.Context, user string) (*slack.User, error)
	now    func() time.Time
	log    *slog.Logger
	mu     sync.Mutex
	cache  map[string]adminEntry
}

type adminEntry struct {
	admin bool
	// locale is the person's Slack locale ("de-DE"), which users.info
	// returns beside the admin flags; answers write numbers for it.
	locale  string
	expires time.Time
}

func (a *admins) isAdmin(ctx context.Context, team, user string) bool {
	admin, _ := a.person(ctx, team, user)
	return admin
}

// person says whether user is an admin and which locale they read numbers
// in ("" when Slack did not say); a failed users.info is a "no" this time.
func (a *admins) person(ctx context.Context, team, user string) (admin bool, locale string) {
	admin, locale, err := a.lookupPerson(ctx, team, user)
	if err != nil {
		// Not an admin this time; ask again on the next event.
		a.log.Warn("users.info failed; treating the user as not an admin", "user", user, "err", err)
		return false, ""
	}
	return admin, locale
}

// check is isAdmin that tells a failed users.info from a "no".
func (a *admins) check(ctx context.Context, team, user string) (bool, error) {
	admin, _, err := a.lookupPerson(ctx, team, user)
	return admin, err
}

// lookupPerson reads whether user is an admin, and their locale, from the
// cache or users.info.
func (a *admins) lookupPerson(ctx context.Context, team, user string) (admin bool, locale string, err error) {
	if user == "" {
		return false, "", nil
	}
	if a.fixed[user] {
		// Configured admins cost no users.info call (their locale is the default).
		return true, "", nil
	}
	key := personKey(team, user)
	now := a.now()
	a.mu.Lock()
	e, ok := a.cache[key]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.admin, e.locale, nil
	}
	u, err := a.lookup(ctx, user)
	if err != nil {
		return false, "", err
	}
	admin = !u.IsBot && (u.IsAdmin || u.IsOwner || u.IsPrimaryOwner)
	a.mu.Lock()
	if len(a.cache) > 10000 {
		clear(a.cache)
	}
	a.cache[key] = adminEntry{admin: admin, locale: u.Locale, expires: now.Add(adminTTL)}
	a.mu.Unlock()
	return admin, u.Locale, nil
}
