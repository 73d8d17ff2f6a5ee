package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog/eval"
	"github.com/clarify-bot/clarify/internal/testwh"
)

const evalSchema = `
CREATE TABLE depot (depot_name varchar(40) NOT NULL, flagship varchar(40), capacity int, area double, PRIMARY KEY (depot_name));
CREATE TABLE truck (truck_name varchar(40) NOT NULL, depot_name varchar(40) NOT NULL, capacity int);
INSERT INTO depot VALUES ('eastport', 'atlas', 12700, 11400), ('northfield', 'falcon', 28500, 26680), ('west hill', 'kestrel', 3790, 12159);
INSERT INTO truck VALUES ('atlas', 'eastport', 7900), ('bison', 'eastport', 3300), ('drake', 'northfield', 16000),
  ('ember', 'northfield', 9000), ('falcon', 'northfield', 3500), ('jaguar', 'west hill', 3300), ('kestrel', 'west hill', 490);
`

// evalQuestions: four questions (one tagged, one whose gold fails) and a broken line 3.
const evalQuestions = `{"id": "e1", "question": "how many trucks are there", "gold_sql": "SELECT COUNT(*) FROM truck", "ordered": false, "tags": ["count"]}
{"id": "e2", "question": "how large an area is west hill", "gold_sql": "SELECT area FROM depot WHERE depot_name = 'west hill'", "ordered": false}
{"id": "e3", "question": "broken
{"id": "e4", "question": "list the trucks kept in northfield", "gold_sql": "SELECT truck_name FROM truck WHERE depot_name = 'northfield'", "ordered": false, "user": "ana"}
{"id": "e5", "question": "how many routes are there", "gold_sql": "SELECT COUNT(*) FROM route", "ordered": false}
`

func evalDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runEvalCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runEval(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

var lastLine = regexp.MustCompile(`^EX=[01]\.\d{3} rounds=\d+\.\d{2}$`)

func finalLine(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !lastLine.MatchString(last) || !strings.HasSuffix(out, last+"\n") {
		t.Fatalf("last line %q is not EX=… rounds=…:\n%s", last, out)
	}
	return last
}

func readReport(t *testing.T, path string) *eval.Report {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r eval.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func TestEvalUsage(t *testing.T) {
	dir := evalDir(t, map[string]string{eval.SchemaFile: evalSchema, eval.QuestionsFile: evalQuestions})
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no dataset", nil, "give at least one --dataset"},
		{"llm engine without a model", []string{"--dataset", dir, "--engine", "llm"}, "--engine llm needs a model"},
		{"unknown engine", []string{"--dataset", dir, "--engine", "gpt"}, "unknown engine"},
		{"unknown strategy", []string{"--dataset", dir, "--strategy", "best"}, "unknown strategy"},
		{"dsn with two datasets", []string{"--dataset", dir + "," + dir, "--dsn", "root@tcp(127.0.0.1:1)/x"}, "give one --dataset"},
		{"negative rounds", []string{"--dataset", dir, "--max-rounds", "-1"}, "--max-rounds must be 0 or more"},
		{"stray argument", []string{"--dataset", dir, "extra"}, "unexpected argument"},
		{"bad flag", []string{"--nope"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runEvalCmd(t, tc.args...)
			if code != exitUsage || !strings.Contains(errOut, tc.stderr) || out != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q; want %d and %q", code, errOut, out, exitUsage, tc.stderr)
			}
		})
	}
}

func TestEvalCommand(t *testing.T) {
	dir := evalDir(t, map[string]string{eval.SchemaFile: evalSchema, eval.QuestionsFile: evalQuestions})
	qfile := filepath.Join(dir, eval.QuestionsFile)

	t.Run("all strategies", func(t *testing.T) {
		jsonPath := filepath.Join(t.TempDir(), "report.json")
		code, out, errOut := runEvalCmd(t, "--dataset", dir, "--strategy", "all", "--json", jsonPath)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		for _, want := range []string{
			qfile + ":3: broken JSON",
			qfile + ":5: e5: gold_sql fails",
			"questions: 4 run of 4 loaded",
			"accuracy after 4 questions",
			"failed: execution error",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if !regexp.MustCompile(`(?m)^\s+eig\s+random\s+max-prob$`).MatchString(out) {
			t.Errorf("the strategies are not side by side:\n%s", out)
		}
		rep := readReport(t, jsonPath)
		d := rep.Datasets[0]
		if len(d.Runs) != 3 || d.Runs[0].Strategy != "eig" || d.Runs[1].Strategy != "random" || d.Runs[2].Strategy != "max-prob" || d.Headline != 0 {
			t.Fatalf("runs %+v", d.Runs)
		}
		eig := d.Runs[0]
		if want := fmt.Sprintf("EX=%.3f rounds=%.2f", eig.Accuracy, eig.MeanQuestions); finalLine(t, out) != want {
			t.Fatalf("last line %q, want %q (the eig run)", finalLine(t, out), want)
		}
		for _, run := range d.Runs {
			if run.Questions != 4 || run.Failures[eval.FailExecution] < 1 || len(run.Results) != 4 {
				t.Errorf("%s: %+v", run.Strategy, run)
			}
		}
		if r := eig.Results[0]; r.ID != "e1" || !r.Correct {
			t.Errorf("e1 should be right: %+v", r)
		}
	})

	t.Run("no questions", func(t *testing.T) {
		jsonPath := filepath.Join(t.TempDir(), "report.json")
		code, out, errOut := runEvalCmd(t, "--dataset", dir, "--max-rounds", "0", "--json", jsonPath)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		if !strings.Contains(out, "at most 0 questions") || strings.Contains(out, "accuracy after 1 question") {
			t.Errorf("the report should be of a run that never asks:\n%s", out)
		}
		run := readReport(t, jsonPath).Datasets[0].Runs[0]
		if run.MaxRounds != 0 || run.MeanQuestions != 0 || len(run.AccuracyAfter) != 1 {
			t.Fatalf("asked with --max-rounds 0: %+v", run)
		}
		for _, r := range run.Results {
			if len(r.Asked) != 0 {
				t.Errorf("%s was asked about: %+v", r.ID, r.Asked)
			}
		}
	})

	t.Run("carry ontology", func(t *testing.T) {
		jsonPath := filepath.Join(t.TempDir(), "report.json")
		code, out, errOut := runEvalCmd(t, "--dataset", dir, "--carry-ontology", "--json", jsonPath)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		if !regexp.MustCompile(`(?m)^\s+eig\s+eig\+carry$`).MatchString(out) || !strings.Contains(out, "carry-ontology (eig): ") || !strings.Contains(out, "resolved by a fact") {
			t.Fatalf("no carry comparison:\n%s", out)
		}
		d := readReport(t, jsonPath).Datasets[0]
		if len(d.Runs) != 2 || d.Runs[d.Headline].Label() != "eig+carry" || len(d.Carry) != 1 {
			t.Fatalf("runs %+v carry %+v headline %d", d.Runs, d.Carry, d.Headline)
		}
		h := d.Runs[d.Headline]
		if want := fmt.Sprintf("EX=%.3f rounds=%.2f", h.Accuracy, h.MeanQuestions); finalLine(t, out) != want {
			t.Fatalf("last line %q, want %q", finalLine(t, out), want)
		}
	})

	t.Run("filter and limit", func(t *testing.T) {
		code, out, errOut := runEvalCmd(t, "--dataset", dir, "--filter", "count")
		if code != exitOK || !strings.Contains(out, "questions: 1 run of 4 loaded") || finalLine(t, out) != "EX=1.000 rounds=0.00" {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		code, out, _ = runEvalCmd(t, "--dataset", dir, "--limit", "2")
		if code != exitOK || !strings.Contains(out, "questions: 2 run of 4 loaded") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})

	t.Run("a broken dataset does not stop the others", func(t *testing.T) {
		noSchema := evalDir(t, map[string]string{eval.QuestionsFile: evalQuestions})
		missing := filepath.Join(t.TempDir(), "nowhere")
		code, out, errOut := runEvalCmd(t, "--dataset", missing, "--dataset", noSchema+","+dir, "--limit", "1")
		if code != exitFailure {
			t.Fatalf("exit %d, want %d: %s", code, exitFailure, errOut)
		}
		for _, want := range []string{
			"not run: dataset " + missing,
			filepath.Join(noSchema, eval.SchemaFile) + ": file missing",
			"not run: " + filepath.Join(noSchema, eval.SchemaFile) + " is missing and no --dsn was given",
			"questions: 1 run of 4 loaded",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if finalLine(t, out) != "EX=1.000 rounds=0.00" {
			t.Fatalf("the dataset that ran should be the headline:\n%s", out)
		}
	})
}

// TestEvalDSN runs the command against a warehouse that already holds the
// data (--dsn): a real MySQL/MariaDB when MYSQL_TEST_DSN is set.
func TestEvalDSN(t *testing.T) {
	for _, target := range testwh.Targets() {
		if !target.Real {
			continue
		}
		t.Run(target.Name, func(t *testing.T) {
			db := testwh.NewDatabase(t, target, evalSchema)
			dir := evalDir(t, map[string]string{eval.QuestionsFile: evalQuestions}) // no schema.sql needed
			jsonPath := filepath.Join(t.TempDir(), "report.json")
			code, out, errOut := runEvalCmd(t, "--dataset", dir, "--dsn", db.Config.FormatDSN(), "--json", jsonPath)
			if code != exitOK {
				t.Fatalf("exit %d: %s\n%s", code, errOut, out)
			}
			d := readReport(t, jsonPath).Datasets[0]
			if !strings.HasSuffix(d.Warehouse, "/"+db.Name) || d.Runs[0].Questions != 4 {
				t.Fatalf("dataset %+v", d)
			}
			if r := d.Runs[0].Results[0]; !r.Correct {
				t.Fatalf("e1 on %s: %+v", target.Name, r)
			}
			finalLine(t, out)
		})
	}
}

// TestEvalWithTheModelEngine runs `bot eval --engine llm` against a fake
// OpenAI-compatible server: the model writes the gold query for the
// question and its review finds nothing ambiguous.
func TestEvalWithTheModelEngine(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fallback(func(tb testing.TB, c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.System(), "review") || strings.Contains(c.User(), "ambigu") {
			return llmtest.Text(`{"ambiguous": false}`)
		}
		return llmtest.SQL("SELECT COUNT(*) FROM truck")
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_MODEL", "gpt-4o-mini")
	dir := evalDir(t, map[string]string{eval.SchemaFile: evalSchema, eval.QuestionsFile: `{"id": "e1", "question": "how many trucks are there", "gold_sql": "SELECT COUNT(*) FROM truck", "ordered": false}` + "\n"})
	code, out, errOut := runEvalCmd(t, "--dataset", dir, "--engine", "llm")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := finalLine(t, out); got != "EX=1.000 rounds=0.00" {
		t.Fatalf("last line %q\n%s", got, out)
	}
	if len(srv.Calls()) == 0 {
		t.Fatal("the model was never called")
	}
	if !strings.Contains(out, "tokens per question") {
		t.Fatalf("report lacks token use:\n%s", out)
	}
}
