package democmd

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/cli"
)

var adminLinkRE = regexp.MustCompile(`http://\S+/admin/login\?t=[A-Za-z0-9_.%-]+`)

// TestDemoAdminWithoutConsole: 'admin' in the demo without --admin-web
// says how to start the admin console instead of being read as a question.
func TestDemoAdminWithoutConsole(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"--data", t.TempDir(), "--orders", "300", "--user", "ana"}, strings.NewReader("admin\n"), &out, &errb)
	if code != cli.ExitOK {
		t.Fatalf("bot demo: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "Start the demo with --admin-web") || strings.Contains(out.String(), "couldn't match") {
		t.Fatalf("'admin' without the console:\n%s", out.String())
	}
}

// TestDemoAdminWeb: bot demo --admin-web prints a sign-in link at start
// and another for 'admin'.
func TestDemoAdminWeb(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"--data", t.TempDir(), "--orders", "400", "--user", "ana", "--admin-web"}, strings.NewReader("admin\n"), &out, &errb)
	if code != cli.ExitOK {
		t.Fatalf("bot demo --admin-web: %d %s", code, errb.String())
	}
	links := adminLinkRE.FindAllString(out.String(), -1)
	if len(links) != 2 || links[0] == links[1] {
		t.Fatalf("want two different links (start, 'admin'):\n%s", out.String())
	}
}
