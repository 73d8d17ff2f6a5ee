package readingscmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/offline/links"
)

// TestRunOnDemo: on the demo warehouse the command shows each stage: the
// words, what they were linked to, the plans and the readings with SQL.
func TestRunOnDemo(t *testing.T) {
	var out, errs bytes.Buffer
	code := Run(context.Background(), []string{"--demo", "--orders", "200", "--top", "2", "how many customers are in Texas?"}, nil, &out, &errs)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"Words (token):  how · many · customers", `table       "customers" → customers`, `value       "Texas" → customers.state = "Texas"`, "Plans (plan):", "1. weight", "SELECT COUNT(*)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRunOnSchema: a dump of our own is loaded into the embedded server
// and read against; a dump that does not load says which file.
func TestRunOnSchema(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "fleet.sql")
	dump := "CREATE TABLE vans (van_id INT PRIMARY KEY, plate VARCHAR(10), depot VARCHAR(20));\n" +
		"INSERT INTO vans VALUES (1, 'AB12', 'Leeds'), (2, 'CD34', 'York'), (3, 'EF56', 'Leeds');\n"
	if err := os.WriteFile(good, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := Run(context.Background(), []string{"--schema", good, "how many vans are in Leeds?"}, nil, &out, &errs); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{`value       "Leeds" → vans.depot = "Leeds"`, "SELECT COUNT(*)", "WHERE vans.depot = 'Leeds'"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// Feedback is read after the question, in its own clause.
	out.Reset()
	if code := Run(context.Background(), []string{"--schema", good, "--feedback", "only York", "how many vans are there?"}, nil, &out, &errs); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), "WHERE vans.depot = 'York'") {
		t.Errorf("the feedback was not read:\n%s", out.String())
	}
	bad := filepath.Join(dir, "broken.sql")
	if err := os.WriteFile(bad, []byte("CREATE TABLE vans (van_id INT PRIMARY KEY,"), 0o644); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	if code := Run(context.Background(), []string{"--schema", bad, "how many vans?"}, nil, &out, &errs); code != cli.ExitFailure || !strings.Contains(errs.String(), "broken.sql") {
		t.Errorf("a dump that does not load: exit %d, %q", code, errs.String())
	}
}

// TestRunUsage: a missing warehouse or question is a usage error that
// says what is missing.
func TestRunUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"how many customers?"}, "give exactly one of --demo, --dsn or --schema"},
		{[]string{"--demo", "--dsn", "x", "how many?"}, "give exactly one of --demo, --dsn or --schema"},
		{[]string{"--demo"}, "no question given"},
	} {
		var out, errs bytes.Buffer
		if code := Run(context.Background(), c.args, nil, &out, &errs); code != cli.ExitUsage || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%q: exit %d, %q; want usage error %q", c.args, code, errs.String(), c.want)
		}
	}
}

// TestPrint: readings beyond --top are counted, not shown; the words a
// reading leaves unused are named.
func TestPrint(t *testing.T) {
	x := &offline.Explanation{
		Words:    []string{"list", "the", "vans"},
		Mentions: []links.Mention{{Kind: "table", Phrase: "vans", At: 2, End: 3, Means: []string{"vans"}}},
		Plans:    3,
		Candidates: []dialog.Candidate{
			{SQL: "SELECT vans.plate\nFROM vans", Prior: 0.7},
			{SQL: "SELECT vans.id\nFROM vans", Prior: 0.2, Unused: []string{"list"}},
			{SQL: "SELECT *\nFROM vans", Prior: 0.1},
		},
	}
	var b bytes.Buffer
	Print(&b, x, 2)
	got := b.String()
	for _, want := range []string{`table       "vans" → vans`, "Plans (plan):   3", "Readings (offline): 3", "     FROM vans", "leaves unused: list", "… 1 more (--top)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SELECT *") {
		t.Errorf("a reading beyond --top was shown:\n%s", got)
	}
}
