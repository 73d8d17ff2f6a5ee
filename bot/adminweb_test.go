package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

var adminLinkRE = regexp.MustCompile(`http://\S+/admin/login\?t=[A-Za-z0-9_.%-]+`)

// signInWith follows a sign-in link as a browser would (the page, then
// its button) and returns a client holding the session.
func signInWith(t *testing.T, link string) (*http.Client, int) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("POST", u.Scheme+"://"+u.Host+u.Path, strings.NewReader(url.Values{"t": {u.Query().Get("t")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return c, resp.StatusCode
}

func getBody(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeAdminConsole: bot serve mounts the console; a Slack admin's
// /clarify admin gets a link to it that signs them in; a non-admin gets
// none; the console re-checks Slack's admins.
func TestServeAdminConsole(t *testing.T) {
	fake := slackfake.New(t)
	fake.SetAdmin("U0BOSS")
	m, _, _ := startMain(t, Config{
		Slack: SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
	})
	base := "http://" + m.Addr()
	command := func(user string) string {
		form := url.Values{"team_id": {slackfake.TeamID}, "channel_id": {"C0SALES"}, "user_id": {user}, "command": {"/clarify"},
			"text": {"admin"}, "response_url": {fake.ResponseURL("admin-" + user)}, "trigger_id": {"1.2.3"}}
		since := fake.Mark()
		if code, body := slackfake.Post(t, base+slackadapter.CommandsPath, slackfake.Secret, time.Now(), "application/x-www-form-urlencoded", []byte(form.Encode()), nil); code != http.StatusOK {
			t.Fatalf("command: %d %s", code, body)
		}
		return fake.Wait(t, since, "response_url", func(c slackfake.Call) bool { return c.Get("hook") == "admin-"+user }).Get("text")
	}
	if text := command("U0ANA"); !strings.Contains(text, "Only admins") || adminLinkRE.MatchString(text) {
		t.Fatalf("a non-admin's /clarify admin: %q", text)
	}
	text := command("U0BOSS")
	link := adminLinkRE.FindString(text)
	if link == "" || !strings.HasPrefix(link, base+"/admin/login?t=") {
		t.Fatalf("the admin's /clarify admin: %q, want a link to %s", text, base)
	}
	c, st := signInWith(t, link)
	if st != http.StatusOK {
		t.Fatalf("signing in with the Slack link: %d", st)
	}
	st, body := getBody(t, c, base+"/admin/phrases")
	if st != http.StatusOK || !strings.Contains(body, "U0BOSS · slack:"+slackfake.TeamID) {
		t.Fatalf("the console after sign-in: %d\n%s", st, body)
	}
	// A link for a Slack user who is not an admin (as bot admin-link could
	// print) is refused: the console asks Slack.
	other, err := m.adminLinkFor(t, "slack:"+slackfake.TeamID+":U0ANA")
	if err != nil {
		t.Fatal(err)
	}
	if _, st := signInWith(t, other); st != http.StatusForbidden {
		t.Errorf("a Slack non-admin's link: %d, want 403", st)
	}
}

// adminLinkFor signs a link with the running bot's key, as bot admin-link
// does from the same data directory.
func (m *Main) adminLinkFor(t *testing.T, user string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runAdminLink(context.Background(), []string{"--data", m.cfg.DataDir, "--url", "http://" + m.Addr(), "--user", user}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("bot admin-link: %d %s", code, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// TestServeAdminConsoleDisabled: admin.disable leaves /admin unserved and
// says so to /clarify admin.
func TestServeAdminConsoleDisabled(t *testing.T) {
	fake := slackfake.New(t)
	fake.SetAdmin("U0BOSS")
	m, _, _ := startMain(t, Config{
		Slack: SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: fake.APIURL()},
		Admin: AdminConfig{Disable: true},
	})
	base := "http://" + m.Addr()
	if st, _ := getBody(t, http.DefaultClient, base+"/admin/phrases"); st != http.StatusNotFound {
		t.Errorf("/admin with the console disabled: %d", st)
	}
	form := url.Values{"team_id": {slackfake.TeamID}, "channel_id": {"C0SALES"}, "user_id": {"U0BOSS"}, "command": {"/clarify"},
		"text": {"admin"}, "response_url": {fake.ResponseURL("off")}, "trigger_id": {"1.2.3"}}
	since := fake.Mark()
	slackfake.Post(t, base+slackadapter.CommandsPath, slackfake.Secret, time.Now(), "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
	if text := fake.Wait(t, since, "response_url", nil).Get("text"); !strings.Contains(text, "not enabled") {
		t.Errorf("/clarify admin with the console disabled: %q", text)
	}
	if _, err := os.Stat(filepath.Join(m.cfg.DataDir, adminweb.KeyFile)); err == nil {
		t.Errorf("a disabled console made a signing key")
	}
}

// TestAdminLinkCommand: bot admin-link prints a link signed with the key
// the bot uses (a 0600 file with bbolt files, the store with a server),
// and refuses what is not a person's key.
func TestAdminLinkCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := runAdminLink(context.Background(), []string{"--data", dir, "--user", "slack:T0123:U0456"}, nil, &out, &errb)
	if code != exitOK || !strings.HasPrefix(out.String(), "http://localhost:8080/admin/login?t=") {
		t.Fatalf("bot admin-link: %d %q %q", code, out.String(), errb.String())
	}
	fi, err := os.Stat(filepath.Join(dir, adminweb.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	for _, bad := range [][]string{{"--data", dir}, {"--data", dir, "--user", "U0456"}, {"--data", dir, "--user", "slack::U1"}} {
		out.Reset()
		errb.Reset()
		if code := runAdminLink(context.Background(), bad, nil, &out, &errb); code != exitUsage || out.Len() != 0 {
			t.Errorf("bot admin-link %v: %d %q", bad, code, out.String())
		}
	}
	// The bot on that data directory accepts the link.
	m, _, _ := startMain(t, Config{DataDir: dir})
	link, _ := m.adminLinkFor(t, "console:local:ana")
	if _, st := signInWith(t, link); st != http.StatusOK {
		t.Errorf("the bot refused bot admin-link's link: %d", st)
	}
}

// TestAdminLinkOnServerStore: with the store on a server the signing key
// lives there, so a link printed against the store works on every
// replica.
func TestAdminLinkOnServerStore(t *testing.T) {
	kvtest.SkipWithoutServer(t)
	dsn := kvtest.MustDatabase(t)
	m, _, _ := startMain(t, Config{Store: StoreConfig{DSN: dsn}})
	var out, errb bytes.Buffer
	code := runAdminLink(context.Background(), []string{"--store", dsn, "--data", t.TempDir(), "--url", "http://" + m.Addr(), "--user", "console:local:ana"}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("bot admin-link --store: %d %s", code, errb.String())
	}
	if _, st := signInWith(t, strings.TrimSpace(out.String())); st != http.StatusOK {
		t.Errorf("the bot refused a link signed with the store's key: %d", st)
	}
	if _, err := os.Stat(filepath.Join(m.cfg.DataDir, adminweb.StateFile)); err == nil {
		t.Errorf("with a server store the console kept a state file")
	}
}

// TestAdminSecretFromEnvironment: CLARIFY_ADMIN_SECRET sets admin.secret.
func TestAdminSecretFromEnvironment(t *testing.T) {
	cfg, err := LoadConfig("", func(k string) string {
		if k == "CLARIFY_ADMIN_SECRET" {
			return strings.Repeat("x", 40)
		}
		return ""
	})
	if err != nil || cfg.Admin.Secret != strings.Repeat("x", 40) {
		t.Errorf("CLARIFY_ADMIN_SECRET: %q %v", cfg.Admin.Secret, err)
	}
}
