package readingscmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/offline/read"
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

// TestRunUsage: a missing warehouse or question is a usage error that
// says what is missing.
func TestRunUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"how many customers?"}, "give exactly one of --demo or --dsn"},
		{[]string{"--demo", "--dsn", "x", "how many?"}, "give exactly one of --demo or --dsn"},
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
		Mentions: []read.Mention{{Kind: "table", Phrase: "vans", At: 2, End: 3, Means: []string{"vans"}}},
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
