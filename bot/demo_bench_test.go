package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/stack"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// BenchmarkDemoStartup measures what `bot demo` does before its first
// prompt once the warehouse profile is cached (every start but the first):
// generate and load the warehouse, connect, open the stores and build the
// catalog and the dialog.
func BenchmarkDemoStartup(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	logger := slog.New(slog.DiscardHandler)
	start := func() func() {
		dw, err := demo.Start(ctx, logger, demodata.DefaultOrders, warehouse.Config{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := stack.OpenStores(dir, logger)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := stack.New(ctx, dw.DB, st, stack.Options{WarehouseName: "demo-bench", DataDir: dir, Logger: logger}); err != nil {
			b.Fatal(err)
		}
		return func() {
			st.Close()
			dw.Close()
		}
	}
	start()() // the first start profiles the warehouse and caches the snapshot
	n := 0
	for b.Loop() {
		stop := start()
		b.StopTimer()
		stop()
		b.StartTimer()
		n++
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(n), "startup-s")
}

// BenchmarkDemoEval puts the demo's questions through the bot as `bot eval
// --dataset demo` does (simulated people answering from the gold SQL) and
// reports the bot's time per question and the accuracy. One pass takes about
// a minute: run with -benchtime=1x. BENCH_DEMO_LIMIT=25 runs the first 25.
func BenchmarkDemoEval(b *testing.B) {
	args := []string{"--dataset", "demo"}
	if lim := os.Getenv("BENCH_DEMO_LIMIT"); lim != "" {
		args = append(args, "--limit", lim)
	}
	var run struct {
		Median, P95, Accuracy, Questions float64
	}
	for b.Loop() {
		out := filepath.Join(b.TempDir(), "eval.json")
		if code := runEval(context.Background(), append(args, "--json", out), nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("bot eval exited with %d", code)
		}
		r, err := readEvalRun(out)
		if err != nil {
			b.Fatal(err)
		}
		run.Median, run.P95, run.Accuracy, run.Questions = r.MedianSeconds, r.P95Seconds, r.Accuracy, r.MeanQuestions
	}
	b.ReportMetric(run.Median*1000, "median-ms/question")
	b.ReportMetric(run.P95*1000, "p95-ms/question")
	b.ReportMetric(run.Accuracy, "EX")
	b.ReportMetric(run.Questions, "asked/question")
}

type evalRun struct {
	MedianSeconds float64 `json:"median_seconds"`
	P95Seconds    float64 `json:"p95_seconds"`
	Accuracy      float64 `json:"accuracy"`
	MeanQuestions float64 `json:"mean_questions"`
}

func readEvalRun(path string) (evalRun, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return evalRun{}, err
	}
	var rep struct {
		Datasets []struct {
			Runs []evalRun `json:"runs"`
		} `json:"datasets"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return evalRun{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(rep.Datasets) == 0 || len(rep.Datasets[0].Runs) == 0 {
		return evalRun{}, fmt.Errorf("%s holds no run", path)
	}
	return rep.Datasets[0].Runs[0], nil
}
