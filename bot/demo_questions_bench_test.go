package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkDemoQuestions puts the demo's questions through the bot end to
// end — candidates, the clarifications a simulated person answers from the
// gold SQL, the answer's query — and reports, over the questions, the
// median and the 95th percentile of each question's bot time (its median
// over the iterations). It only drives `bot eval --dataset demo --json`, so
// the same file runs unchanged on earlier releases for a figure side by side
// in one run. One pass takes about a minute: -benchtime=3x runs three.
// BENCH_DEMO_LIMIT=25 runs the first 25 questions.
func BenchmarkDemoQuestions(b *testing.B) {
	args := []string{"--dataset", "demo"}
	if lim := os.Getenv("BENCH_DEMO_LIMIT"); lim != "" {
		args = append(args, "--limit", lim)
	}
	each := map[string][]float64{}
	for b.Loop() {
		out := filepath.Join(b.TempDir(), "eval.json")
		if code := runEval(context.Background(), append(args, "--json", out), nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("bot eval exited with %d", code)
		}
		times, err := benchQuestionTimes(out)
		if err != nil {
			b.Fatal(err)
		}
		for id, s := range times {
			each[id] = append(each[id], s)
		}
	}
	medians := make([]float64, 0, len(each))
	for _, ts := range each {
		medians = append(medians, benchQuantile(ts, 0.5))
	}
	b.ReportMetric(benchQuantile(medians, 0.5)*1000, "median-ms/question")
	b.ReportMetric(benchQuantile(medians, 0.95)*1000, "p95-ms/question")
	b.ReportMetric(float64(len(medians)), "questions")
}

// benchQuestionTimes reads each question's bot seconds from `bot eval --json`.
func benchQuestionTimes(path string) (map[string]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Datasets []struct {
			Runs []struct {
				Results []struct {
					ID         string  `json:"id"`
					BotSeconds float64 `json:"bot_seconds"`
				} `json:"results"`
			} `json:"runs"`
		} `json:"datasets"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := map[string]float64{}
	for _, d := range rep.Datasets {
		for _, r := range d.Runs {
			for _, q := range r.Results {
				out[q.ID] = q.BotSeconds
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no question times", path)
	}
	return out, nil
}

// benchQuantile is the nearest-rank q-quantile of xs (0 for none).
func benchQuantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}
