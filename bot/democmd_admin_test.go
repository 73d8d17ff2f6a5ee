package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemoAdminWithoutConsole: 'admin' in the demo without --admin-web
// says how to start the admin console instead of being read as a question.
func TestDemoAdminWithoutConsole(t *testing.T) {
	var out, errb bytes.Buffer
	code := runDemo(context.Background(), []string{"--data", t.TempDir(), "--orders", "300", "--user", "ana"}, strings.NewReader("admin\n"), &out, &errb)
	if code != exitOK {
		t.Fatalf("bot demo: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "Start the demo with --admin-web") || strings.Contains(out.String(), "couldn't match") {
		t.Fatalf("'admin' without the console:\n%s", out.String())
	}
}
