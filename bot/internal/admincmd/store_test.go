package admincmd

import (
	"bytes"
	"context"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// Files → server → files: everything arrives, counts are verified, prefs
// works against the server, and a non-empty destination is refused.
func TestStoreCopyRoundTrip(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	ctx := context.Background()
	dir, ids := seedPrefs(t)
	convs, err := convstore.Open(filepath.Join(dir, cli.ConversationsFile), convstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := convs.Save(ctx, "slack:T1:C1:1.0", []byte(`{"q":"revenue?"}`), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	convs.Close()
	usage, err := llmusage.Open(filepath.Join(dir, llmusage.File), llmusage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := usage.Record(ctx, llmusage.Record{User: prefsAlice, Workspace: prefsTeam, Model: "m", PromptTokens: 10, CompletionTokens: 5, Calls: 1}); err != nil {
		t.Fatal(err)
	}

	run := func(cmd func(context.Context, []string, io.Reader, io.Writer, io.Writer) int, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cmd(ctx, args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	store := RunStore
	prefs := func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return RunPrefs(ctx, args, stdin, stdout, stderr, nil)
	}

	code, out, errs := run(store, "copy", "--from", dir, "--to", dsn)
	if code != cli.ExitOK {
		t.Fatalf("copy to the server: exit %d: %s", code, errs)
	}
	for _, want := range []string{"facts", "fact_ids", "audit", "conv", "records", "daily", "meta"} {
		if !strings.Contains(out, want) {
			t.Errorf("copy report lacks bucket %s:\n%s", want, out)
		}
	}

	// prefs reads the server.
	code, out, errs = run(prefs, "--store", dsn, "show", ids["alice-texas"])
	if code != cli.ExitOK || !strings.Contains(out, "customers.state is Texas") {
		t.Fatalf("prefs show on the server: exit %d, %s%s", code, out, errs)
	}

	// Copying again into the filled server is refused.
	if code, _, errs = run(store, "copy", "--from", dir, "--to", dsn); code != cli.ExitFailure || !strings.Contains(errs, "copy only into an empty store") {
		t.Errorf("copy into a non-empty store: exit %d, %s", code, errs)
	}

	back := t.TempDir()
	if code, _, errs = run(store, "copy", "--from", dsn, "--to", back); code != cli.ExitOK {
		t.Fatalf("copy back to files: exit %d: %s", code, errs)
	}
	listAll := func(path string) []ontology.Fact {
		s, err := ontologyfile.Open(path, ontology.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		fs, err := s.List(ctx, ontology.Filter{IncludeInactive: true})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if a, b := listAll(filepath.Join(dir, cli.OntologyFile)), listAll(filepath.Join(back, cli.OntologyFile)); len(a) != 5 || !reflect.DeepEqual(a, b) {
		t.Errorf("facts differ after a round trip: %d before, %d after", len(a), len(b))
	}
	c2, err := convstore.Open(filepath.Join(back, cli.ConversationsFile), convstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if st, err := c2.Load(ctx, "slack:T1:C1:1.0"); err != nil || string(st) != `{"q":"revenue?"}` {
		t.Errorf("conversation after a round trip: %q, %v", st, err)
	}
	u2, err := llmusage.Open(filepath.Join(back, llmusage.File), llmusage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := u2.Report(ctx, llmusage.Query{Since: time.Now().Add(-time.Hour)})
	if err != nil || rep.Total.Tokens() != 15 {
		t.Errorf("usage after a round trip: %+v, %v", rep, err)
	}
}
