package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog"
)

// Run is the scored outcome of one pass over a dataset.
type Run struct {
	Dataset   string `json:"dataset"`
	Engine    string `json:"engine"`
	Strategy  string `json:"strategy"`
	Carry     bool   `json:"carry_ontology"`
	MaxRounds int    `json:"max_rounds"`

	Questions int `json:"questions"`
	Correct   int `json:"correct"`
	// AccuracyAfter[k] is the share answered correctly having asked at most k questions.
	AccuracyAfter []float64 `json:"accuracy_after_rounds"`
	Accuracy      float64   `json:"accuracy"`
	MeanQuestions float64   `json:"mean_questions"`
	MaxQuestions  int       `json:"max_questions"`
	// NothingAsked is the share of questions answered without a clarification.
	NothingAsked        float64 `json:"nothing_asked"`
	MeanCandidates      float64 `json:"mean_candidates"`
	MeanInterpretations float64 `json:"mean_interpretations"`
	// LowerBound is the mean over questions of the first round's entropy
	// divided by log2(MaxOptions+1): the fewest questions any strategy
	// could need on average.
	LowerBound float64 `json:"lower_bound_questions"`
	// Bot time per question, in seconds.
	MeanSeconds   float64 `json:"mean_seconds"`
	MedianSeconds float64 `json:"median_seconds"`
	// P95Seconds is the 95th percentile (nearest rank): what the slowest
	// one question in twenty waits at least.
	P95Seconds float64 `json:"p95_seconds"`
	MaxSeconds float64 `json:"max_seconds"`
	// MeanCheckSeconds is the harness's own time per question.
	MeanCheckSeconds float64 `json:"mean_check_seconds"`
	WallSeconds      float64 `json:"wall_seconds"`
	// TokensPerQuestion is the model tokens used per question (0 offline).
	TokensPerQuestion float64             `json:"tokens_per_question"`
	Failures          map[FailureKind]int `json:"failures"`
	// EmptyGolds counts the questions whose gold result has no rows (any
	// empty answer matches them); NonEmptyAccuracy is the accuracy on the others.
	EmptyGolds       int     `json:"empty_golds"`
	NonEmptyAccuracy float64 `json:"non_empty_accuracy"`
	// Reachable is the share answered right or with the gold among the
	// first round's candidates: what a perfect choice could reach.
	Reachable float64 `json:"reachable"`
	// ResolvedByFact counts questions where a remembered choice was applied.
	ResolvedByFact int `json:"resolved_by_fact"`
	// SilentWrong, Caveated and Abstained are shares of the questions: wrong
	// with nothing asked, no fact used and no caveat; wrong but saying what
	// was left out; not answered (see Outcome).
	SilentWrong float64 `json:"silent_wrong"`
	Caveated    float64 `json:"caveated"`
	Abstained   float64 `json:"abstained"`
	// CaveatedRight is the share of right answers that still said they left
	// words out: a note on a right answer teaches people to ignore notes.
	CaveatedRight float64 `json:"caveated_right"`
	// AnsweredBy counts the simulated user's answers by how it decided.
	AnsweredBy map[string]int `json:"answered_by"`
	// LinkingRecall is the share of the questions asked of a model whose
	// first prompt showed every table and column the gold reads; -1 when
	// no question had a prompt (the offline engine).
	LinkingRecall float64 `json:"linking_recall"`
	// Reliability bins the questions by how likely the bot found its
	// likeliest first reading, against how often that reading was right;
	// AnswerReliability does the same for the readings it answered with.
	// ECE and AnswerECE are their expected calibration errors.
	Reliability       []Bin            `json:"reliability,omitempty"`
	ECE               float64          `json:"ece"`
	AnswerReliability []Bin            `json:"answer_reliability,omitempty"`
	AnswerECE         float64          `json:"answer_ece"`
	Results           []QuestionResult `json:"results"`
}

// Bin is one row of a reliability table: the questions whose predicted
// probability is in [Lo, Hi).
type Bin struct {
	Lo, Hi float64
	N      int     `json:"n"`
	MeanP  float64 `json:"mean_p"`
	Right  float64 `json:"right"`
}

// binEdges are the reliability table's rows: finer where stopping is decided.
var binEdges = []float64{0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001}

// reliability bins (p, right) pairs and returns the expected calibration
// error, the N-weighted mean of |MeanP − Right|.
func reliability(ps []float64, right []bool) ([]Bin, float64) {
	if len(ps) == 0 {
		return nil, 0
	}
	bins := make([]Bin, len(binEdges)-1)
	for i := range bins {
		bins[i].Lo, bins[i].Hi = binEdges[i], min(binEdges[i+1], 1)
	}
	for i, p := range ps {
		for b := range bins {
			if p >= binEdges[b] && p < binEdges[b+1] {
				bins[b].N++
				bins[b].MeanP += p
				if right[i] {
					bins[b].Right++
				}
				break
			}
		}
	}
	var ece float64
	var out []Bin
	for _, b := range bins {
		if b.N == 0 {
			continue
		}
		b.MeanP /= float64(b.N)
		b.Right /= float64(b.N)
		ece += float64(b.N) * math.Abs(b.MeanP-b.Right)
		out = append(out, b)
	}
	return out, ece / float64(len(ps))
}

// Label names the run in tables: the strategy, "+carry" when carrying.
func (r *Run) Label() string {
	s := r.Strategy
	if s == "" {
		s = dialog.StrategyEIG
	}
	if r.Carry {
		s += "+carry"
	}
	return s
}

// summarise fills the aggregate fields from Results.
func (r *Run) summarise(wall time.Duration) {
	n := len(r.Results)
	r.Questions = n
	r.WallSeconds = wall.Seconds()
	r.Failures = map[FailureKind]int{}
	for _, k := range FailureKinds {
		r.Failures[k] = 0
	}
	r.AnsweredBy = map[string]int{BySlot: 0, ByResult: 0, ByTyped: 0, ByNone: 0}
	r.AccuracyAfter = make([]float64, r.MaxRounds+1)
	r.Correct, r.MaxQuestions, r.ResolvedByFact = 0, 0, 0
	if n == 0 {
		return
	}
	var asked, nothing, cands, interp, bound, secs, check, tokens, silent, caveated, abstained, noteOnRight float64
	var prompted, covered int
	var topP, answerP []float64
	var topRight, answerRight []bool
	r.EmptyGolds = 0
	nonEmptyRight := 0
	times := make([]float64, 0, n)
	perQuestion := math.Log2(dialog.MaxOptions + 1)
	for _, q := range r.Results {
		if q.GoldRows == 0 {
			r.EmptyGolds++
		} else if q.Correct {
			nonEmptyRight++
		}
		if q.Correct {
			r.Correct++
			if len(q.Unused) > 0 {
				noteOnRight++
			}
			for k := range r.AccuracyAfter {
				if q.Questions <= k {
					r.AccuracyAfter[k]++
				}
			}
		} else {
			r.Failures[q.Failure]++
		}
		switch q.Outcome {
		case OutcomeSilentWrong:
			silent++
		case OutcomeCaveated:
			caveated++
		case OutcomeAbstained:
			abstained++
		}
		asked += float64(q.Questions)
		r.MaxQuestions = max(r.MaxQuestions, q.Questions)
		if q.Questions == 0 {
			nothing++
		}
		if q.FactsUsed > 0 {
			r.ResolvedByFact++
		}
		for _, c := range q.Asked {
			r.AnsweredBy[c.By]++
		}
		cands += float64(q.Candidates)
		interp += float64(q.Interpretations)
		bound += q.Entropy / perQuestion
		secs += q.BotSeconds
		check += q.CheckSeconds
		tokens += float64(q.Tokens)
		times = append(times, q.BotSeconds)
		if q.PromptCovers != "" {
			prompted++
			if q.PromptCovers == "yes" {
				covered++
			}
		}
		if q.TopP > 0 {
			topP, topRight = append(topP, q.TopP), append(topRight, q.TopRight)
		}
		if q.AnswerP > 0 && q.AnswerSQL != "" {
			answerP, answerRight = append(answerP, q.AnswerP), append(answerRight, q.Correct)
		}
	}
	r.LinkingRecall = -1
	if prompted > 0 {
		r.LinkingRecall = float64(covered) / float64(prompted)
	}
	r.Reliability, r.ECE = reliability(topP, topRight)
	r.AnswerReliability, r.AnswerECE = reliability(answerP, answerRight)
	fn := float64(n)
	for k := range r.AccuracyAfter {
		r.AccuracyAfter[k] /= fn
	}
	r.Accuracy = float64(r.Correct) / fn
	r.SilentWrong, r.Caveated, r.Abstained = silent/fn, caveated/fn, abstained/fn
	r.CaveatedRight = 0
	if r.Correct > 0 {
		r.CaveatedRight = noteOnRight / float64(r.Correct)
	}
	r.Reachable = float64(r.Correct+r.Failures[FailWrongPick]) / fn
	r.NonEmptyAccuracy = 0
	if n > r.EmptyGolds {
		r.NonEmptyAccuracy = float64(nonEmptyRight) / float64(n-r.EmptyGolds)
	}
	r.MeanQuestions = asked / fn
	r.NothingAsked = nothing / fn
	r.MeanCandidates = cands / fn
	r.MeanInterpretations = interp / fn
	r.LowerBound = bound / fn
	r.MeanSeconds = secs / fn
	r.MeanCheckSeconds = check / fn
	r.TokensPerQuestion = tokens / fn
	sort.Float64s(times)
	r.MedianSeconds = times[n/2]
	if n%2 == 0 {
		r.MedianSeconds = (times[n/2-1] + times[n/2]) / 2
	}
	r.P95Seconds = times[int(math.Ceil(0.95*float64(n)))-1]
	r.MaxSeconds = times[n-1]
}

// CarryEffect compares a run that carried the ontology with one that did not.
type CarryEffect struct {
	Strategy string `json:"strategy"`
	// ResolvedByFact counts the carried run's questions where a remembered
	// choice was applied; Helped and Hurt count those of them that are
	// right only with carrying, or wrong only with carrying.
	ResolvedByFact   int     `json:"resolved_by_fact"`
	Helped           int     `json:"helped"`
	Hurt             int     `json:"hurt"`
	FewerQuestions   int     `json:"fewer_questions"`
	AccuracyWithout  float64 `json:"accuracy_without"`
	AccuracyWith     float64 `json:"accuracy_with"`
	QuestionsWithout float64 `json:"questions_without"`
	QuestionsWith    float64 `json:"questions_with"`
}

// Verdict is "helped", "hurt" or "no change" in final accuracy.
func (c CarryEffect) Verdict() string {
	switch {
	case c.AccuracyWith > c.AccuracyWithout:
		return "helped"
	case c.AccuracyWith < c.AccuracyWithout:
		return "hurt"
	}
	return "no change"
}

// CompareCarry matches the questions of two runs over the same questions.
func CompareCarry(without, with *Run) CarryEffect {
	c := CarryEffect{Strategy: with.Strategy, AccuracyWithout: without.Accuracy, AccuracyWith: with.Accuracy,
		QuestionsWithout: without.MeanQuestions, QuestionsWith: with.MeanQuestions}
	base := map[string]QuestionResult{}
	for _, q := range without.Results {
		base[q.ID] = q
	}
	for _, q := range with.Results {
		if q.FactsUsed == 0 {
			continue
		}
		c.ResolvedByFact++
		b, ok := base[q.ID]
		if !ok {
			continue
		}
		switch {
		case q.Correct && !b.Correct:
			c.Helped++
		case !q.Correct && b.Correct:
			c.Hurt++
		}
		if q.Questions < b.Questions {
			c.FewerQuestions++
		}
	}
	return c
}

// DatasetReport is everything measured on one dataset.
type DatasetReport struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Warehouse says where the data was: "embedded" or the DSN's address.
	Warehouse string `json:"warehouse"`
	// Loaded is the questions read; Selected those run (after --filter, --limit).
	Loaded   int       `json:"loaded"`
	Selected int       `json:"selected"`
	Problems []Problem `json:"problems,omitempty"`
	// Error is set when the dataset could not be run at all.
	Error string        `json:"error,omitempty"`
	Runs  []*Run        `json:"runs"`
	Carry []CarryEffect `json:"carry,omitempty"`
	// Headline is the index in Runs of the run the final line reports.
	Headline int `json:"headline"`
}

// Report is the whole of one `bot eval` run.
type Report struct {
	Engine     string           `json:"engine"`
	MaxRounds  int              `json:"max_rounds"`
	Strategies []string         `json:"strategies"`
	Carry      bool             `json:"carry_ontology"`
	Seed       uint64           `json:"seed"`
	Started    time.Time        `json:"started"`
	Datasets   []*DatasetReport `json:"datasets"`
}

// Headline is the final accuracy and mean questions of the headline runs,
// pooled over the datasets' questions.
func (r *Report) Headline() (accuracy, questions float64, n int) {
	var correct, asked float64
	for _, d := range r.Datasets {
		if d.Headline < 0 || d.Headline >= len(d.Runs) {
			continue
		}
		run := d.Runs[d.Headline]
		n += run.Questions
		correct += float64(run.Correct)
		asked += run.MeanQuestions * float64(run.Questions)
	}
	if n == 0 {
		return 0, 0, 0
	}
	return correct / float64(n), asked / float64(n), n
}

// WriteJSON saves the whole report to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// WriteText prints the report as tables, one per dataset, with the runs
// side by side. The last line is "EX=<accuracy> rounds=<mean questions>"
// of the headline runs.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Datasets {
		writeDataset(&b, r, d)
		b.WriteByte('\n')
	}
	ex, rounds, _ := r.Headline()
	fmt.Fprintf(&b, "EX=%.3f rounds=%.2f\n", ex, rounds)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDataset(b *strings.Builder, r *Report, d *DatasetReport) {
	fmt.Fprintf(b, "== %s (%s; warehouse %s; engine %s; at most %d questions)\n", d.Name, d.Dir, d.Warehouse, r.Engine, r.MaxRounds)
	fmt.Fprintf(b, "questions: %d run of %d loaded\n", d.Selected, d.Loaded)
	if len(d.Problems) > 0 {
		fmt.Fprintf(b, "problems (%d):\n", len(d.Problems))
		for _, p := range d.Problems {
			fmt.Fprintf(b, "  %s\n", p)
		}
	}
	if d.Error != "" {
		fmt.Fprintf(b, "not run: %s\n", d.Error)
	}
	if len(d.Runs) == 0 {
		return
	}
	t := &table{}
	head := []string{""}
	for _, run := range d.Runs {
		head = append(head, run.Label())
	}
	t.add(head...)
	row := func(name string, f func(*Run) string) {
		cells := []string{name}
		for _, run := range d.Runs {
			cells = append(cells, f(run))
		}
		t.add(cells...)
	}
	for k := 0; k <= r.MaxRounds; k++ {
		row(fmt.Sprintf("accuracy after %d question%s", k, plural(k)), func(run *Run) string {
			if k < len(run.AccuracyAfter) {
				return fmt.Sprintf("%.3f", run.AccuracyAfter[k])
			}
			return "-"
		})
	}
	row("accuracy (final)", func(run *Run) string { return fmt.Sprintf("%.3f", run.Accuracy) })
	row("silent wrong (nothing asked, no fact, no caveat)", func(run *Run) string { return pct(run.SilentWrong) })
	row("caveated (wrong, said what it left out)", func(run *Run) string { return pct(run.Caveated) })
	row("right answers with a caveat", func(run *Run) string { return pct(run.CaveatedRight) })
	row("abstained (no answer)", func(run *Run) string { return pct(run.Abstained) })
	row("correct", func(run *Run) string { return fmt.Sprintf("%d/%d", run.Correct, run.Questions) })
	row("accuracy on non-empty golds", func(run *Run) string { return fmt.Sprintf("%.3f", run.NonEmptyAccuracy) })
	row("empty golds", func(run *Run) string { return fmt.Sprintf("%d", run.EmptyGolds) })
	row("reachable (right, or gold among candidates)", func(run *Run) string { return fmt.Sprintf("%.3f", run.Reachable) })
	row("questions asked, mean", func(run *Run) string { return fmt.Sprintf("%.2f", run.MeanQuestions) })
	row("questions asked, max", func(run *Run) string { return fmt.Sprintf("%d", run.MaxQuestions) })
	row("nothing asked", func(run *Run) string { return pct(run.NothingAsked) })
	row("lower bound on questions", func(run *Run) string { return fmt.Sprintf("%.2f", run.LowerBound) })
	row("candidates per question", func(run *Run) string { return fmt.Sprintf("%.1f", run.MeanCandidates) })
	row("interpretations per question", func(run *Run) string { return fmt.Sprintf("%.1f", run.MeanInterpretations) })
	row("time per question, mean", func(run *Run) string { return secs(run.MeanSeconds) })
	row("time per question, median", func(run *Run) string { return secs(run.MedianSeconds) })
	row("time per question, p95", func(run *Run) string { return secs(run.P95Seconds) })
	row("time per question, max", func(run *Run) string { return secs(run.MaxSeconds) })
	row("harness time per question", func(run *Run) string { return secs(run.MeanCheckSeconds) })
	row("tokens per question", func(run *Run) string { return fmt.Sprintf("%.0f", run.TokensPerQuestion) })
	row("linking recall (gold's tables and columns in the prompt)", func(run *Run) string {
		if run.LinkingRecall < 0 {
			return "-"
		}
		return pct(run.LinkingRecall)
	})
	row("calibration error (first reading / answer)", func(run *Run) string {
		if len(run.Reliability) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f / %.3f", run.ECE, run.AnswerECE)
	})
	for _, k := range FailureKinds {
		row("failed: "+string(k), func(run *Run) string { return fmt.Sprintf("%d", run.Failures[k]) })
	}
	row("user answered by slot/result/typed/none", func(run *Run) string {
		return fmt.Sprintf("%d/%d/%d/%d", run.AnsweredBy[BySlot], run.AnsweredBy[ByResult], run.AnsweredBy[ByTyped], run.AnsweredBy[ByNone])
	})
	if r.Carry {
		row("resolved by a fact", func(run *Run) string { return fmt.Sprintf("%d", run.ResolvedByFact) })
	}
	t.write(b)
	for _, run := range d.Runs {
		writeReliability(b, run)
	}
	for _, c := range d.Carry {
		fmt.Fprintf(b, "carry-ontology (%s): %d questions resolved by a fact; %s accuracy (%.3f → %.3f; %d right only when carrying, %d wrong only when carrying); questions %.2f → %.2f (%d asked fewer)\n",
			c.Strategy, c.ResolvedByFact, c.Verdict(), c.AccuracyWithout, c.AccuracyWith, c.Helped, c.Hurt, c.QuestionsWithout, c.QuestionsWith, c.FewerQuestions)
	}
}

// writeReliability prints a run's reliability tables: of the questions
// whose likeliest reading the bot found p likely, how many it got right.
func writeReliability(b *strings.Builder, run *Run) {
	for _, tbl := range []struct {
		name string
		bins []Bin
	}{{"first reading", run.Reliability}, {"answer", run.AnswerReliability}} {
		if len(tbl.bins) == 0 {
			continue
		}
		fmt.Fprintf(b, "reliability (%s, %s): predicted → right\n", run.Label(), tbl.name)
		for _, bin := range tbl.bins {
			fmt.Fprintf(b, "  p %.2f–%.2f  n=%-4d  predicted %.3f  right %.3f\n", bin.Lo, bin.Hi, bin.N, bin.MeanP, bin.Right)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// table is a small left-aligned text table.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(b *strings.Builder) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := widths[i] - len([]rune(c))
			if i == 0 {
				line.WriteString(c + strings.Repeat(" ", pad))
			} else {
				line.WriteString(strings.Repeat(" ", pad) + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
