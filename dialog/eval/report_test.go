package eval

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestEvalSummarise(t *testing.T) {
	// Five questions, max 3 rounds: right after 0, 1, 1 and 3 questions;
	// one wrong after 2.
	results := []QuestionResult{
		{ID: "a", Correct: true, Questions: 0, Candidates: 1, Interpretations: 1, BotSeconds: 0.1, GoldRows: 0},
		{ID: "b", Correct: true, GoldRows: 3, Questions: 1, Candidates: 4, Interpretations: 2, Entropy: 1, BotSeconds: 0.3, Asked: []Choice{{By: BySlot}}},
		{ID: "c", Correct: true, GoldRows: 1, Questions: 1, Candidates: 6, Interpretations: 3, Entropy: 2, BotSeconds: 0.2, FactsUsed: 1, Asked: []Choice{{By: ByResult}}},
		{ID: "d", Correct: true, GoldRows: 1, Questions: 3, Candidates: 9, Interpretations: 4, Entropy: 2, BotSeconds: 0.5, Asked: []Choice{{By: BySlot}, {By: ByNone}, {By: BySlot}}},
		{ID: "e", Correct: false, GoldRows: 2, Failure: FailWrongPick, Questions: 2, Candidates: 5, Interpretations: 2, Entropy: 1, BotSeconds: 0.4, Tokens: 100, Asked: []Choice{{By: ByNone}, {By: ByResult}}},
	}
	r := &Run{MaxRounds: 3, Results: results}
	r.summarise(2 * time.Second)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	wantAfter := []float64{0.2, 0.6, 0.6, 0.8}
	for k, w := range wantAfter {
		if !near(r.AccuracyAfter[k], w) {
			t.Errorf("accuracy after %d = %v, want %v", k, r.AccuracyAfter[k], w)
		}
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"accuracy", r.Accuracy, 0.8},
		{"reachable", r.Reachable, 1},
		{"empty golds", float64(r.EmptyGolds), 1},
		{"non-empty accuracy", r.NonEmptyAccuracy, 0.75},
		{"mean questions", r.MeanQuestions, 7.0 / 5},
		{"max questions", float64(r.MaxQuestions), 3},
		{"nothing asked", r.NothingAsked, 0.2},
		{"candidates", r.MeanCandidates, 5},
		{"interpretations", r.MeanInterpretations, 12.0 / 5},
		{"lower bound", r.LowerBound, 6.0 / 2 / 5}, // log2(3+1) = 2 options' worth per question
		{"mean seconds", r.MeanSeconds, 0.3},
		{"median seconds", r.MedianSeconds, 0.3},
		{"p95 seconds", r.P95Seconds, 0.5},
		{"max seconds", r.MaxSeconds, 0.5},
		{"tokens", r.TokensPerQuestion, 20},
		{"wall", r.WallSeconds, 2},
		{"resolved by fact", float64(r.ResolvedByFact), 1},
		{"wrong picks", float64(r.Failures[FailWrongPick]), 1},
		{"no candidate", float64(r.Failures[FailNoCandidate]), 0},
		{"by slot", float64(r.AnsweredBy[BySlot]), 3},
		{"by result", float64(r.AnsweredBy[ByResult]), 2},
		{"by none", float64(r.AnsweredBy[ByNone]), 2},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !near(c.got, c.want) {
				t.Fatalf("%s = %v, want %v", c.name, c.got, c.want)
			}
		})
	}
	t.Run("empty run", func(t *testing.T) {
		r := &Run{MaxRounds: 2}
		r.summarise(0)
		if r.Accuracy != 0 || len(r.AccuracyAfter) != 3 || r.Failures == nil {
			t.Fatalf("%+v", r)
		}
	})
}

func TestEvalCompareCarry(t *testing.T) {
	without := &Run{Accuracy: 0.5, MeanQuestions: 1.5, Results: []QuestionResult{
		{ID: "a", Correct: true, Questions: 1}, {ID: "b", Correct: false, Questions: 2}, {ID: "c", Correct: true, Questions: 1}, {ID: "d", Correct: false, Questions: 2},
	}}
	with := &Run{Strategy: "eig", Carry: true, Accuracy: 0.5, MeanQuestions: 0.75, Results: []QuestionResult{
		{ID: "a", Correct: true, Questions: 0, FactsUsed: 1},  // same, fewer questions
		{ID: "b", Correct: true, Questions: 0, FactsUsed: 2},  // helped
		{ID: "c", Correct: false, Questions: 1, FactsUsed: 1}, // hurt
		{ID: "d", Correct: false, Questions: 2},               // no fact
	}}
	c := CompareCarry(without, with)
	if c.ResolvedByFact != 3 || c.Helped != 1 || c.Hurt != 1 || c.FewerQuestions != 2 || c.Verdict() != "no change" {
		t.Fatalf("%+v verdict %s", c, c.Verdict())
	}
	for _, tc := range []struct {
		with float64
		want string
	}{{0.6, "helped"}, {0.4, "hurt"}} {
		c.AccuracyWith = tc.with
		if c.Verdict() != tc.want {
			t.Errorf("with %v: %s, want %s", tc.with, c.Verdict(), tc.want)
		}
	}
}

func TestEvalReportText(t *testing.T) {
	run := func(strategy string, carry bool, results ...QuestionResult) *Run {
		r := &Run{Strategy: strategy, Carry: carry, MaxRounds: 2, Results: results}
		r.summarise(time.Second)
		return r
	}
	q := func(correct bool, asked int) QuestionResult {
		f := FailureKind("")
		if !correct {
			f = FailGoldMissing
		}
		return QuestionResult{Correct: correct, Questions: asked, Failure: f}
	}
	rep := &Report{Engine: "offline", MaxRounds: 2, Strategies: []string{"eig", "random", "max-prob"}, Datasets: []*DatasetReport{
		{Name: "one", Dir: "/d/one", Warehouse: "embedded", Loaded: 3, Selected: 2, Headline: 0,
			Problems: []Problem{{File: "/d/one/questions.jsonl", Line: 4, Reason: "broken JSON: unexpected EOF"}},
			Runs:     []*Run{run("eig", false, q(true, 1), q(false, 2)), run("random", false, q(false, 2), q(false, 1)), run("max-prob", false, q(true, 2), q(true, 0))}},
		{Name: "two", Dir: "/d/two", Warehouse: "127.0.0.1:3306/two", Loaded: 2, Selected: 2, Headline: 1,
			Runs: []*Run{run("eig", false, q(false, 0), q(false, 0)), run("eig", true, q(true, 1), q(true, 2))}},
		{Name: "three", Dir: "/d/three", Error: "schema.sql is missing", Headline: -1},
	}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// Headlines: one/eig 1 of 2 right with 3 questions, two/eig+carry 2 of 2 with 3.
	if last := lines[len(lines)-1]; last != "EX=0.750 rounds=1.50" {
		t.Fatalf("last line %q\n%s", last, out)
	}
	for _, want := range []string{
		"/d/one/questions.jsonl:4: broken JSON: unexpected EOF",
		"accuracy after 0 questions",
		"accuracy after 1 question ",
		"failed: gold not among candidates",
		"not run: schema.sql is missing",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, header := range []string{`(?m)^\s+eig\s+random\s+max-prob$`, `(?m)^\s+eig\s+eig\+carry$`} {
		if !regexp.MustCompile(header).MatchString(out) {
			t.Errorf("no header %s:\n%s", header, out)
		}
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := rep.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Datasets) != 3 || back.Datasets[0].Runs[2].Accuracy != 1 || back.Datasets[0].Runs[0].Failures[FailGoldMissing] != 1 {
		t.Fatalf("JSON round trip lost data: %s", raw)
	}
}

func TestReliabilityTable(t *testing.T) {
	ps := []float64{0.95, 0.97, 0.99, 0.96, 0.3, 0.35, 0.6}
	right := []bool{true, true, true, false, false, true, true}
	bins, ece := reliability(ps, right)
	if len(bins) != 3 {
		t.Fatalf("bins %+v", bins)
	}
	top := bins[len(bins)-1]
	if top.N != 4 || math.Abs(top.MeanP-0.9675) > 1e-9 || top.Right != 0.75 {
		t.Fatalf("top bin %+v", top)
	}
	// ECE: the N-weighted mean gap between predicted and right.
	want := (4*math.Abs(0.9675-0.75) + 2*math.Abs(0.325-0.5) + 1*math.Abs(0.6-1)) / 7
	if math.Abs(ece-want) > 1e-9 {
		t.Fatalf("ece %v, want %v", ece, want)
	}
	if b, e := reliability(nil, nil); b != nil || e != 0 {
		t.Fatal("no questions, no table")
	}
}

func TestLinkingRecallAndReliabilityAreReported(t *testing.T) {
	r := &Run{MaxRounds: 2, Results: []QuestionResult{
		{Correct: true, PromptCovers: "yes", TopP: 0.9, TopRight: true, AnswerP: 0.9, AnswerSQL: "x"},
		{Correct: false, Failure: FailWrongPick, PromptCovers: "no", PromptMissing: []string{"trips.km"}, TopP: 0.6, AnswerP: 0.85, AnswerSQL: "y"},
		{Correct: true, PromptCovers: "yes", TopP: 0.92, TopRight: true, AnswerP: 0.92, AnswerSQL: "z"},
	}}
	r.summarise(time.Second)
	if math.Abs(r.LinkingRecall-2.0/3) > 1e-9 || len(r.Reliability) != 2 || len(r.AnswerReliability) != 2 {
		t.Fatalf("recall %v reliability %+v answers %+v", r.LinkingRecall, r.Reliability, r.AnswerReliability)
	}
	off := &Run{MaxRounds: 2, Results: []QuestionResult{{Correct: true}}}
	off.summarise(time.Second)
	if off.LinkingRecall != -1 || off.Reliability != nil {
		t.Fatalf("without a model: recall %v reliability %v", off.LinkingRecall, off.Reliability)
	}
	rep := &Report{Engine: "llm", MaxRounds: 2, Datasets: []*DatasetReport{{Name: "fleet", Runs: []*Run{r}}}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"66.7%", "reliability (eig, first reading)", "reliability (eig, answer)", "p 0.90–0.95  n=2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
