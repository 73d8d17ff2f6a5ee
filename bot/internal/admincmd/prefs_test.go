package admincmd

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

const (
	prefsAlice = "slack:T1:U1"
	prefsBob   = "slack:T1:U2"
	prefsChan  = "slack:T1:C1"
	prefsTeam  = "slack:T1"
)

// seedPrefs fills an ontology in a fresh data dir and returns the dir and
// the fact ids by name: alice-revenue, alice-revenue-col, alice-texas,
// bob-revenue (inactive), chan-texas.
// netSum is the target of "revenue" = net revenue.
var netSum = ontology.Target{Slot: "measure", Choice: ontology.Term{Kind: ontology.TermMeasure, Fn: "SUM", Expr: "orders.net_amount"}}

func seedPrefs(t *testing.T) (string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := ontologyfile.Open(filepath.Join(dir, cli.OntologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := map[string]string{}
	for _, x := range []struct {
		name string
		f    ontology.Fact
	}{
		{"alice-revenue", ontology.Fact{Scope: ontology.ScopeUser, Owner: prefsAlice, Warehouse: "shop", Phrase: "revenue", Kind: ontology.KindAggregate,
			Target: netSum, Meaning: "net revenue after discounts", Question: "revenue by month?"}},
		{"alice-revenue-col", ontology.Fact{Scope: ontology.ScopeUser, Owner: prefsAlice, Warehouse: "shop", Phrase: "revenue", Kind: ontology.KindColumn,
			Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount")}, Meaning: "orders.net_amount"}},
		{"alice-texas", ontology.Fact{Scope: ontology.ScopeUser, Owner: prefsAlice, Warehouse: "shop", Phrase: "Texas", Kind: ontology.KindValue,
			Target: ontology.Target{Slot: "filteron", Arg: "texas", Choice: ontology.ColumnTerm("customers.state")}, Meaning: "customers.state is Texas"}},
		{"bob-revenue", ontology.Fact{Scope: ontology.ScopeUser, Owner: prefsBob, Warehouse: "shop", Phrase: "revenue", Kind: ontology.KindAggregate,
			Target: ontology.Target{Slot: "measure", Choice: ontology.Term{Kind: ontology.TermMeasure, Fn: "SUM", Expr: "orders.gross_amount"}}, Meaning: "gross revenue"}},
		{"chan-texas", ontology.Fact{Scope: ontology.ScopeChannel, Owner: prefsChan, Warehouse: "shop", Phrase: "texas", Kind: ontology.KindValue,
			Target: ontology.Target{Slot: "filteron", Arg: "tx", Choice: ontology.ColumnTerm("stores.state")}, Meaning: "stores in Texas"}},
	} {
		f, err := s.Learn(ctx, x.f)
		if err != nil {
			t.Fatal(err)
		}
		ids[x.name] = f.ID
	}
	if _, err := s.Reject(ctx, ids["bob-revenue"], prefsBob); err != nil {
		t.Fatal(err)
	}
	return dir, ids
}

// openPrefs opens the ontology of a data dir for checks after a command.
func openPrefs(t *testing.T, dir string) *ontology.Store {
	t.Helper()
	s, err := ontologyfile.Open(filepath.Join(dir, cli.OntologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runPrefsT(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = RunPrefs(context.Background(), args, strings.NewReader(stdin), &out, &errOut, nil)
	return code, out.String(), errOut.String()
}

// expand replaces {name} with the id of the seeded fact and {dir} with the
// data dir.
func expand(args []string, dir string, ids map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, "{dir}", dir)
		for name, id := range ids {
			a = strings.ReplaceAll(a, "{"+name+"}", id)
		}
		out[i] = a
	}
	return out
}

func TestPrefsCommand(t *testing.T) {
	t.Setenv("USER", "tester")
	ctx := context.Background()
	type check func(t *testing.T, s *ontology.Store, ids map[string]string)
	cases := []struct {
		name      string
		before    [][]string // commands run first (they must succeed)
		args      []string   // --data {dir} is prepended
		stdin     string
		code      int
		stdout    []string
		notStdout []string
		stderr    []string
		check     check
	}{
		{name: "list", args: []string{"list"}, code: cli.ExitOK,
			stdout:    []string{"ID  ", "SCOPE", "OWNER", "PHRASE", "MEANING", "USES", "LEARNED", "{alice-revenue}  user", "net revenue after discounts", "stores in Texas", "(4 preferences)"},
			notStdout: []string{"{bob-revenue}", "ACTIVE"}},
		{name: "list one user", args: []string{"list", "--user", prefsAlice}, code: cli.ExitOK,
			stdout: []string{"{alice-revenue}", "{alice-texas}", "(3 preferences)"}, notStdout: []string{"{chan-texas}"}},
		{name: "list by scope", args: []string{"list", "--scope", "channel"}, code: cli.ExitOK,
			stdout: []string{"{chan-texas}", "(1 preference)"}, notStdout: []string{"{alice-texas}"}},
		{name: "list all includes inactive", args: []string{"list", "--all", "--warehouse", "shop"}, code: cli.ExitOK,
			stdout: []string{"ACTIVE", "{bob-revenue}", "gross revenue", "no", "(5 preferences)"}},
		{name: "list nothing", args: []string{"list", "--warehouse", "crm"}, code: cli.ExitOK, stdout: []string{"no preferences match"}},
		{name: "list bad scope", args: []string{"list", "--scope", "team"}, code: cli.ExitUsage, stderr: []string{`--scope "team"`}},
		{name: "list json", args: []string{"list", "--json", "--user", prefsAlice}, code: cli.ExitOK, stdout: []string{`"phrase": "texas"`, `"column": "customers.state"`}},

		{name: "show", args: []string{"show", "{alice-revenue}"}, code: cli.ExitOK,
			stdout: []string{"id:            {alice-revenue}", "owner:         " + prefsAlice, "target:        measure: SUM(orders.net_amount)",
				"question:      revenue by month?", "confirmations: 1", "active:        yes", "history: no admin changes"}},
		{name: "show with history, flags after the id", before: [][]string{{"edit", "{alice-texas}", "--meaning", "customers in Texas"}},
			args: []string{"show", "{alice-texas}", "--lock-timeout", "1s"}, code: cli.ExitOK,
			stdout: []string{"meaning:       customers in Texas", "history:", "cli:tester", "edit", `meaning "customers.state is Texas" → "customers in Texas"`}},
		{name: "show unknown", args: []string{"show", "nosuchid"}, code: cli.ExitFailure, stderr: []string{`no preference with id "nosuchid"`}},
		{name: "show deleted", before: [][]string{{"delete", "{alice-texas}"}}, args: []string{"show", "{alice-texas}"}, code: cli.ExitFailure,
			stderr: []string{"was deleted (delete by cli:tester"}},
		{name: "show without id", args: []string{"show"}, code: cli.ExitUsage, stderr: []string{"missing the preference ID", "usage: bot prefs show ID"}},

		{name: "delete", args: []string{"delete", "{alice-texas}"}, code: cli.ExitOK, stdout: []string{"deleted {alice-texas}", "customers.state is Texas"},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				if _, err := s.Get(ctx, ids["alice-texas"]); err == nil {
					t.Error("fact still there")
				}
				audit, err := s.Audit(ctx, 1)
				if err != nil || len(audit) != 1 || audit[0].Actor != "cli:tester" || audit[0].Action != "delete" || audit[0].Before == nil {
					t.Errorf("audit: %+v, %v", audit, err)
				}
			}},
		{name: "delete unknown", args: []string{"delete", "nosuchid"}, code: cli.ExitFailure, stderr: []string{`no preference with id "nosuchid"`}},
		{name: "delete two ids", args: []string{"delete", "a", "b"}, code: cli.ExitUsage, stderr: []string{`unexpected arguments ["b"]`}},

		{name: "forget", args: []string{"forget", "--user", prefsAlice, "Revenue"}, code: cli.ExitOK, stdout: []string{`forgot 2 preferences of ` + prefsAlice + ` for "revenue"`},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				left, _ := s.List(ctx, ontology.Filter{Owner: prefsAlice})
				if len(left) != 1 || left[0].ID != ids["alice-texas"] {
					t.Errorf("left: %+v", left)
				}
				if _, err := s.Get(ctx, ids["bob-revenue"]); err != nil {
					t.Errorf("bob's fact: %v", err)
				}
			}},
		{name: "forget multi-word phrase, nothing there", args: []string{"forget", "--user", prefsAlice, "best", "customer"}, code: cli.ExitOK,
			stdout: []string{`nothing to forget: ` + prefsAlice + ` has no preferences for "best customer"`}},
		{name: "forget without user", args: []string{"forget", "revenue"}, code: cli.ExitUsage, stderr: []string{"give --user OWNER and a PHRASE"}},

		{name: "promote", args: []string{"promote", "{alice-revenue}", "--to", "workspace", "--owner", prefsTeam}, code: cli.ExitOK,
			stdout: []string{"promoted {alice-revenue} to workspace " + prefsTeam + " as "},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				got, _ := s.List(ctx, ontology.Filter{Scope: "workspace", Owner: prefsTeam})
				if len(got) != 1 || got[0].PromotedFrom != ids["alice-revenue"] || !got[0].Target.Equal(netSum) {
					t.Errorf("workspace facts: %+v", got)
				}
			}},
		{name: "promote to user", args: []string{"promote", "{alice-revenue}", "--to", "user", "--owner", prefsBob}, code: cli.ExitUsage,
			stderr: []string{"give --to channel|workspace and --owner KEY"}},
		{name: "promote unknown", args: []string{"promote", "nosuchid", "--to", "channel", "--owner", prefsChan}, code: cli.ExitFailure,
			stderr: []string{`no preference with id "nosuchid"`}},

		{name: "edit", args: []string{"edit", "{bob-revenue}", "--target", `{"slot":"measure","choice":{"kind":"measure","fn":"SUM","expr":"orders.net_amount"}}`, "--meaning", "net revenue"}, code: cli.ExitOK,
			stdout: []string{`edited {bob-revenue}: "revenue" → net revenue`},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				f, err := s.Get(ctx, ids["bob-revenue"])
				if err != nil || !f.Target.Equal(netSum) || !f.Active() {
					t.Errorf("edited: %+v, %v", f, err)
				}
			}},
		{name: "edit without changes", args: []string{"edit", "{bob-revenue}"}, code: cli.ExitUsage, stderr: []string{"give --target, --meaning or both"}},

		{name: "audit", before: [][]string{{"delete", "{alice-texas}"}, {"edit", "{bob-revenue}", "--meaning", "gross sales"}},
			args: []string{"audit", "--limit", "5"}, code: cli.ExitOK,
			stdout: []string{"AT (UTC)", "ACTOR", "cli:tester   edit", "cli:tester   delete", "removed: customers.state is Texas", `meaning "gross revenue" → "gross sales"`}},
		{name: "audit limited", before: [][]string{{"delete", "{alice-texas}"}, {"delete", "{chan-texas}"}},
			args: []string{"audit", "--limit", "1"}, code: cli.ExitOK, stdout: []string{"{chan-texas}"}, notStdout: []string{"{alice-texas}"}},
		// The owner's "not what I meant" in setup weakened their fact: admins see it.
		{name: "audit shows rejections", args: []string{"audit"}, code: cli.ExitOK, stdout: []string{"slack:T1:U2  reject", "not what the owner meant (1 of 1 confirmations)"}},

		{name: "export", args: []string{"export"}, code: cli.ExitOK, stdout: []string{"{\n  \"version\": 2,", `"id": "{bob-revenue}"`, `"rejections": 1`}},
		{name: "import stdin", stdin: `{"version":1,"facts":[{"scope":"workspace","owner":"slack:T1","warehouse":"shop","phrase":"Best Customer","kind":"definition","target":"rank=SUM(net) DESC"}]}`,
			args: []string{"import", "-"}, code: cli.ExitOK, stdout: []string{"imported -: 1 added, 0 updated, 0 unchanged"},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				got, _ := s.List(ctx, ontology.Filter{Phrase: "best customer"})
				if len(got) != 1 || got[0].Owner != prefsTeam {
					t.Errorf("imported: %+v", got)
				}
			}},
		{name: "import malformed", stdin: `{"version":1,"facts":[{"scope":"user","owner":"u","phrase":"a","kind":"value","target":"t"},{"scope":"user","owner":"u","phrase":"Colour","kind":"colour","target":"t"}]}`,
			args: []string{"import", "-"}, code: cli.ExitFailure,
			stderr: []string{"- is not a valid export; nothing was imported", `facts[1] ("colour"): unknown kind "colour"`},
			check: func(t *testing.T, s *ontology.Store, ids map[string]string) {
				if got, _ := s.List(ctx, ontology.Filter{Owner: "u", IncludeInactive: true}); len(got) != 0 {
					t.Errorf("a malformed import added %d facts", len(got))
				}
			}},
		{name: "import wrong version", stdin: `{"version":7,"facts":[]}`, args: []string{"import", "-"}, code: cli.ExitFailure,
			stderr: []string{"export version 7 is not supported"}},
		{name: "import missing file", args: []string{"import", "{dir}/nope.json"}, code: cli.ExitFailure, stderr: []string{"nope.json"}},
		{name: "import without file", args: []string{"import"}, code: cli.ExitUsage, stderr: []string{"missing the file to import"}},

		{name: "no subcommand", args: nil, code: cli.ExitUsage, stderr: []string{"usage: bot prefs", "promote"}},
		{name: "unknown subcommand", args: []string{"frobnicate"}, code: cli.ExitUsage, stderr: []string{`unknown subcommand "frobnicate"`}},
		{name: "help", args: []string{"list", "-h"}, code: cli.ExitOK, stdout: []string{"usage: bot prefs list", "-scope"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, ids := seedPrefs(t)
			for _, b := range tc.before {
				if code, _, errOut := runPrefsT(t, "", append([]string{"--data", dir}, expand(b, dir, ids)...)...); code != cli.ExitOK {
					t.Fatalf("%v: exit %d: %s", b, code, errOut)
				}
			}
			code, out, errOut := runPrefsT(t, tc.stdin, append([]string{"--data", dir}, expand(tc.args, dir, ids)...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, s := range expand(tc.stdout, dir, ids) {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range expand(tc.notStdout, dir, ids) {
				if strings.Contains(out, s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
			for _, s := range expand(tc.stderr, dir, ids) {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
			if tc.check != nil {
				tc.check(t, openPrefs(t, dir), ids)
			}
		})
	}
}

func TestPrefsListJSON(t *testing.T) {
	dir, ids := seedPrefs(t)
	code, out, errOut := runPrefsT(t, "", "list", "--json", "--all", "--data", dir)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var facts []ontology.Fact
	if err := json.Unmarshal([]byte(out), &facts); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(facts) != len(ids) {
		t.Errorf("%d facts, want %d", len(facts), len(ids))
	}
}

func TestPrefsExportImportFile(t *testing.T) {
	t.Setenv("USER", "tester")
	dir, ids := seedPrefs(t)
	file := filepath.Join(t.TempDir(), "prefs.json")
	if code, _, errOut := runPrefsT(t, "", "--data", dir, "export", "--out", file); code != cli.ExitOK || !strings.Contains(errOut, "exported to "+file) {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	// Into an empty data dir: import creates the ontology.
	fresh := filepath.Join(t.TempDir(), "new")
	code, out, errOut := runPrefsT(t, "", "--data", fresh, "import", file)
	if code != cli.ExitOK || !strings.Contains(out, "5 added, 0 updated, 0 unchanged") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runPrefsT(t, "", "--data", fresh, "import", file)
	if code != cli.ExitOK || !strings.Contains(out, "0 added, 0 updated, 5 unchanged") {
		t.Errorf("re-import: exit %d: %s", code, out)
	}
	f, err := openPrefs(t, fresh).Get(context.Background(), ids["alice-revenue"])
	if err != nil || f.Meaning != "net revenue after discounts" {
		t.Errorf("imported fact: %+v, %v", f, err)
	}
}

func TestPrefsLockedByRunningBot(t *testing.T) {
	dir, _ := seedPrefs(t)
	openPrefs(t, dir) // the "running bot" holds the file
	code, _, errOut := runPrefsT(t, "", "--data", dir, "--lock-timeout", "100ms", "list")
	if code != cli.ExitFailure || !strings.Contains(errOut, "is locked, probably by a running bot: stop the bot or use the chat commands") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestPrefsMissingOntology(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runPrefsT(t, "", "--data", dir, "list")
	if code != cli.ExitFailure || !strings.Contains(errOut, "no ontology at "+filepath.Join(dir, cli.OntologyFile)) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, cli.OntologyFile)); err == nil {
		t.Error("list created an empty ontology")
	}
}

func TestOwnerKeyArg(t *testing.T) {
	for arg, want := range map[string]string{
		"":            "",
		"ana":         "console:local:ana", // the demo's person, as the console keys her
		"slack:T1:U2": "slack:T1:U2",
		"slack:T1":    "slack:T1",
		"discord::U9": "discord::U9",
	} {
		if got := ownerKeyArg(arg); got != want {
			t.Errorf("ownerKeyArg(%q) = %q, want %q", arg, got, want)
		}
	}
}

// `bot prefs --user ana` names the console's (the demo's) person ana.
func TestPrefsUserByConsoleName(t *testing.T) {
	t.Setenv("USER", "tester")
	ctx := context.Background()
	dir := t.TempDir()
	s, err := ontologyfile.Open(filepath.Join(dir, cli.OntologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "console:local:ana", Warehouse: "shop", Phrase: "revenue",
		Kind: ontology.KindAggregate, Target: netSum, Meaning: "net revenue after discounts"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	code, out, errOut := runPrefsT(t, "", "--data", dir, "list", "--user", "ana")
	if code != cli.ExitOK || !strings.Contains(out, f.ID) || !strings.Contains(out, "(1 preference)") {
		t.Fatalf("list --user ana: code %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runPrefsT(t, "", "--data", dir, "forget", "--user", "ana", "revenue")
	if code != cli.ExitOK || !strings.Contains(out, "forgot 1 preference of console:local:ana") {
		t.Fatalf("forget --user ana: code %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if left, err := openPrefs(t, dir).List(ctx, ontology.Filter{Owner: "console:local:ana"}); err != nil || len(left) != 0 {
		t.Errorf("after forget: %d facts, %v", len(left), err)
	}
}
