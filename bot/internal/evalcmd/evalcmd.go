// Package evalcmd is `bot eval`: the dialog's accuracy on datasets of
// questions with gold SQL, against a simulated user.
package evalcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/embedded"
	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/eval"
)

// demoDataset is the --dataset name of the built-in demo questions, and
// personaDataset of the demo's two-person questions (connectors/demodata
// personas.jsonl), asked on the same demo warehouse.
const (
	demoDataset    = "demo"
	personaDataset = "demo-personas"
)

// onDemo reports whether a dataset runs on the built-in demo warehouse.
func onDemo(ds *eval.Dataset) bool {
	return (ds.Name == demoDataset || ds.Name == personaDataset) && ds.Schema == nil
}

// evalOptions are the parsed flags of `bot eval`.
type evalOptions struct {
	datasets   []string
	engine     string
	maxRounds  int
	strategies []string
	carry      bool
	askWords   bool
	jsonPath   string
	dsn        string
	limit      int
	filter     string
	timeout    time.Duration
	seed       uint64
	verbose    bool
	// glossary is a team glossary loaded as workspace facts of the
	// simulated users' workspace before each run.
	glossary   *glossary.Glossary
	configPath string
}

// Deps are what `bot eval` takes from the program: the configuration and
// the bot it measures.
type Deps struct {
	// LoadModel reads the model configuration of --engine llm from the
	// bot's configuration file at path (the environment alone when path is
	// empty) and returns the model's name, empty when none is set.
	LoadModel func(path string) (model string, err error)
	// NewBot builds a fresh bot for one run; closing releases it.
	NewBot func(ctx context.Context, o BotOptions) (d eval.Dialog, close func(), err error)
}

// BotOptions describe the bot of one run.
type BotOptions struct {
	// Dir is the run's own data directory (stores, snapshot).
	Dir string
	// DB is the warehouse, named Warehouse.
	DB        *warehouse.DB
	Warehouse string
	// Glossary, when set, is loaded as facts of Workspace, the simulated
	// users' workspace, and its joins join the schema's.
	Glossary  *glossary.Glossary
	Workspace string
	// Model: the candidates come from the model of --engine llm.
	Model  bool
	Dialog dialog.Config
	Logger *slog.Logger
}

// Run is `bot eval`: accuracy of the dialog against a simulated user who
// answers clarifications from the gold SQL.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, deps Deps) int {
	fs := cli.NewFlagSet("bot eval", stderr,
		"usage: bot eval --dataset DIR|demo [--engine offline|llm] [--max-rounds 4] [--strategy eig|random|max-prob|all]",
		"                [--carry-ontology] [--json FILE] [--dsn DSN] [--limit N] [--filter TAG] [--timeout 10s] [--glossary FILE] [-v]",
		"Puts every question through the dialog; a simulated user answers clarifications from the gold SQL.",
		"The last line of output is EX=<final accuracy> rounds=<mean questions asked>.",
	)
	var o evalOptions
	var datasets cli.StringList
	fs.Var(&datasets, "dataset", "dataset directory (schema.sql, questions.jsonl), \"demo\" or \"demo-personas\"; repeatable or comma-separated")
	fs.StringVar(&o.engine, "engine", "offline", "engine proposing candidate queries: offline or llm")
	fs.StringVar(&o.configPath, "config", "", "with --engine llm: the bot's YAML configuration (else OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL)")
	fs.IntVar(&o.maxRounds, "max-rounds", 4, "most clarifications per question (0: answer without asking, to measure what asking is worth)")
	strategy := fs.String("strategy", dialog.StrategyEIG, "how the decision point is chosen: eig, random, max-prob, or all (side by side)")
	fs.BoolVar(&o.askWords, "ask-words", true, "ask what words the schema does not use mean, as dialog.ask_about_words does (--ask-words=false: never)")
	fs.BoolVar(&o.carry, "carry-ontology", false, "keep each simulated user's learned preferences across the dataset, and compare with a run without")
	fs.StringVar(&o.jsonPath, "json", "", "also write the whole report, with every question, to this JSON file")
	fs.StringVar(&o.dsn, "dsn", "", "a warehouse that already holds the dataset (otherwise schema.sql is loaded into the embedded server)")
	fs.IntVar(&o.limit, "limit", 0, "run only the first N questions (after --filter)")
	fs.StringVar(&o.filter, "filter", "", "run only the questions with these tags or ids (comma-separated)")
	fs.DurationVar(&o.timeout, "timeout", warehouse.DefaultQueryTimeout, "time limit of each query (candidates, answers and gold checks)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random strategy")
	fs.BoolVar(&o.verbose, "v", false, "log each question to stderr")
	glossaryFile := fs.String("glossary", "", "a team glossary to load as workspace facts of the simulated users before running")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	o.datasets = datasets
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "bot eval: unexpected argument %q\n", fs.Arg(0))
		return cli.ExitUsage
	case len(o.datasets) == 0:
		fmt.Fprintln(stderr, "bot eval: give at least one --dataset (a directory, or demo)")
		return cli.ExitUsage
	case o.maxRounds < 0:
		fmt.Fprintln(stderr, "bot eval: --max-rounds must be 0 or more")
		return cli.ExitUsage
	case o.timeout <= 0:
		fmt.Fprintln(stderr, "bot eval: --timeout must be positive")
		return cli.ExitUsage
	case o.dsn != "" && len(o.datasets) > 1:
		fmt.Fprintln(stderr, "bot eval: --dsn names one warehouse; give one --dataset with it")
		return cli.ExitUsage
	}
	if *glossaryFile != "" {
		g, err := glossary.ReadFile(*glossaryFile)
		if err != nil {
			fmt.Fprintf(stderr, "bot eval: %v\n", err)
			return cli.ExitUsage
		}
		o.glossary = g
	}
	switch o.engine {
	case "offline":
	case "llm":
		model, err := deps.LoadModel(o.configPath)
		if err != nil {
			fmt.Fprintf(stderr, "bot eval: %v\n", err)
			return cli.ExitUsage
		}
		if strings.TrimSpace(model) == "" {
			fmt.Fprintln(stderr, "bot eval: --engine llm needs a model: set OPENAI_MODEL (and OPENAI_API_KEY / OPENAI_BASE_URL), or llm.model in --config")
			return cli.ExitUsage
		}
	default:
		fmt.Fprintf(stderr, "bot eval: unknown engine %q (want offline or llm)\n", o.engine)
		return cli.ExitUsage
	}
	switch *strategy {
	case dialog.StrategyEIG, dialog.StrategyRandom, dialog.StrategyMaxProb:
		o.strategies = []string{*strategy}
	case "all":
		o.strategies = []string{dialog.StrategyEIG, dialog.StrategyRandom, dialog.StrategyMaxProb}
	default:
		fmt.Fprintf(stderr, "bot eval: unknown strategy %q (want eig, random, max-prob or all)\n", *strategy)
		return cli.ExitUsage
	}
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	embedded.QuietEngineLogs(io.Discard, slog.LevelError)

	tmp, err := os.MkdirTemp("", "clarify-eval-")
	if err != nil {
		fmt.Fprintf(stderr, "bot eval: %v\n", err)
		return cli.ExitFailure
	}
	defer os.RemoveAll(tmp)

	env := &evalEnv{opts: o, deps: deps, logger: logger, stderr: stderr, tmp: tmp}
	defer env.Close()
	report := &eval.Report{Engine: o.engine, MaxRounds: o.maxRounds, Strategies: o.strategies, Carry: o.carry, Seed: o.seed, Started: time.Now().UTC()}
	code := cli.ExitOK
	for i, spec := range o.datasets {
		d := env.dataset(ctx, i, spec)
		report.Datasets = append(report.Datasets, d)
		if d.Error != "" {
			fmt.Fprintf(stderr, "bot eval: %s: %s\n", d.Name, d.Error)
			code = cli.ExitFailure
		}
		if ctx.Err() != nil {
			code = cli.ExitFailure
			break
		}
	}
	if o.jsonPath != "" {
		if err := report.WriteJSON(o.jsonPath); err != nil {
			fmt.Fprintf(stderr, "bot eval: %v\n", err)
			code = cli.ExitFailure
		}
	}
	if err := report.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "bot eval: %v\n", err)
		return cli.ExitFailure
	}
	return code
}

// roundsFor is the manager's and the harness's MaxRounds for --max-rounds:
// 0 there means their default, so "never ask" is dialog.NeverAsk.
func roundsFor(maxRounds int) int {
	if maxRounds == 0 {
		return dialog.NeverAsk
	}
	return maxRounds
}

// evalEnv holds what the datasets of one `bot eval` share: the embedded
// server (started on first use) and a temporary data directory.
type evalEnv struct {
	opts   evalOptions
	deps   Deps
	logger *slog.Logger
	stderr io.Writer
	tmp    string
	srv    *embedded.Server
	demo   *demo.Warehouse
}

func (e *evalEnv) Close() {
	if e.demo != nil {
		e.demo.Close()
	}
	if e.srv != nil {
		e.srv.Close()
	}
}

// safeName turns a dataset name into a database or directory name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(s))
}

// dataset loads, runs and scores one dataset; failures land in the report.
func (e *evalEnv) dataset(ctx context.Context, index int, spec string) *eval.DatasetReport {
	o := e.opts
	var ds *eval.Dataset
	switch spec {
	case demoDataset:
		ds = &eval.Dataset{Name: demoDataset, Dir: demoDataset}
		ds.Questions, ds.Problems = eval.ParseQuestions(ds.QuestionsPath(), bytes.NewReader(demodata.Questions()))
	case personaDataset:
		ds = &eval.Dataset{Name: personaDataset, Dir: personaDataset}
		ds.Questions, ds.Problems = eval.ParseQuestions(ds.QuestionsPath(), bytes.NewReader(demodata.PersonaQuestions()))
	default:
		var err error
		ds, err = eval.Load(spec)
		if err != nil {
			return &eval.DatasetReport{Name: filepath.Base(spec), Dir: spec, Error: err.Error(), Headline: -1}
		}
	}
	qs := eval.Select(ds.Questions, o.filter, o.limit)
	dr := &eval.DatasetReport{Name: ds.Name, Dir: ds.Dir, Loaded: len(ds.Questions), Selected: len(qs), Problems: ds.Problems, Headline: -1}
	if len(qs) == 0 {
		dr.Error = "no questions to run"
		if o.filter != "" {
			dr.Error += fmt.Sprintf(" (none tagged %q)", o.filter)
		}
		return dr
	}

	mc, where, err := e.warehouse(ctx, index, ds)
	if err != nil {
		dr.Error = err.Error()
		return dr
	}
	dr.Warehouse = where
	wcfg := warehouse.Config{MySQL: mc, QueryTimeout: o.timeout, Logger: e.logger}
	hdb, err := warehouse.Open(ctx, wcfg)
	if err != nil {
		dr.Error = err.Error()
		return dr
	}
	defer hdb.Close()
	start := time.Now()
	// The demo is profiled as `bot demo` profiles it.
	var profile warehouse.ProfileOptions
	if onDemo(ds) && o.dsn == "" {
		profile = demo.ProfileOptions()
	}
	// A measurement must not depend on how busy the machine is: a table
	// cut short by its time budget loses its values, and with them answers.
	profile.TableBudget = max(profile.TableBudget, 3*o.timeout, 30*time.Second)
	snap, err := hdb.TakeSnapshot(ctx, profile)
	if err != nil {
		dr.Error = fmt.Sprintf("profile warehouse: %v", err)
		return dr
	}
	e.logger.Info("warehouse profiled", "dataset", ds.Name, "tables", len(snap.Schema.Tables), "took", time.Since(start).Round(time.Millisecond))
	h := eval.New(hdb, snap, eval.Options{Limits: warehouse.Limits{Timeout: o.timeout}, Logger: e.logger})

	golds := make([]*eval.Gold, 0, len(qs))
	for _, q := range qs {
		g, probs := h.PrepareGold(ctx, ds.QuestionsPath(), q)
		golds = append(golds, g)
		dr.Problems = append(dr.Problems, probs...)
		if ctx.Err() != nil {
			dr.Error = ctx.Err().Error()
			return dr
		}
	}

	whName := "eval-" + ds.Name
	// The bot runs on the demo warehouse as `bot demo` runs it, with its
	// result cache; every run starts with an empty one.
	var cache warehouse.CacheOptions
	if onDemo(ds) && o.dsn == "" {
		cache = demo.CacheOptions()
	}
	base := map[string]*eval.Run{}
	for _, strategy := range o.strategies {
		carries := []bool{false}
		if o.carry {
			carries = append(carries, true)
		}
		for _, carry := range carries {
			run, err := e.run(ctx, h, snap, mc, cache, whName, ds.Name, golds, strategy, carry)
			if run != nil {
				dr.Runs = append(dr.Runs, run)
			}
			if err != nil {
				dr.Error = err.Error()
				return dr
			}
			if !carry {
				base[strategy] = run
			} else if b := base[strategy]; b != nil {
				dr.Carry = append(dr.Carry, eval.CompareCarry(b, run))
			}
		}
	}
	// The headline is the first strategy's run, carrying when asked to.
	for i, run := range dr.Runs {
		if run.Strategy == o.strategies[0] && run.Carry == o.carry {
			dr.Headline = i
			break
		}
	}
	return dr
}

// warehouse finds or loads the dataset's data and returns how to reach it
// and a description for the report.
func (e *evalEnv) warehouse(ctx context.Context, index int, ds *eval.Dataset) (*mysql.Config, string, error) {
	o := e.opts
	if o.dsn != "" {
		mc, err := mysql.ParseDSN(o.dsn)
		if err != nil {
			return nil, "", fmt.Errorf("--dsn: %w", err)
		}
		return mc, mc.Addr + "/" + mc.DBName, nil
	}
	if onDemo(ds) {
		if e.demo == nil {
			dw, err := demo.Start(ctx, e.logger, demodata.DefaultOrders, warehouse.Config{QueryTimeout: o.timeout})
			if err != nil {
				return nil, "", err
			}
			e.demo = dw
		}
		return e.demo.Srv.Config(demo.Database), "embedded (demo data)", nil
	}
	if ds.Schema == nil {
		return nil, "", fmt.Errorf("%s is missing and no --dsn was given", filepath.Join(ds.Dir, eval.SchemaFile))
	}
	if e.srv == nil {
		srv, err := embedded.Start(ctx, e.logger)
		if err != nil {
			return nil, "", err
		}
		e.srv = srv
	}
	db := fmt.Sprintf("eval%d_%s", index, safeName(ds.Name))
	start := time.Now()
	if err := e.srv.LoadDump(ctx, db, bytes.NewReader(ds.Schema)); err != nil {
		return nil, "", fmt.Errorf("load %s: %w", filepath.Join(ds.Dir, eval.SchemaFile), err)
	}
	e.logger.Info("schema loaded into the embedded server", "dataset", ds.Name, "took", time.Since(start).Round(time.Millisecond))
	return e.srv.Config(db), "embedded", nil
}

// run builds a fresh bot (stores in a temporary directory of its own, the
// snapshot already taken, its own connection pool) and puts the questions
// through it.
func (e *evalEnv) run(ctx context.Context, h *eval.Harness, snap *warehouse.Snapshot, mc *mysql.Config, cache warehouse.CacheOptions, whName, dataset string, golds []*eval.Gold, strategy string, carry bool) (*eval.Run, error) {
	o := e.opts
	label := strategy
	if carry {
		label += "-carry"
	}
	dir := filepath.Join(e.tmp, safeName(dataset)+"-"+label)
	if err := warehouse.SaveSnapshot(filepath.Join(dir, "snapshots", whName+".json.gz"), snap); err != nil {
		return nil, err
	}
	db, err := warehouse.Open(ctx, warehouse.Config{MySQL: mc, QueryTimeout: o.timeout, Cache: cache, Logger: e.logger})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	bot, closeBot, err := e.deps.NewBot(ctx, BotOptions{
		Dir: dir, DB: db, Warehouse: whName,
		// The simulated users' workspace (dialog/eval: platform "eval",
		// workspace = the dataset).
		Glossary: o.glossary, Workspace: "eval:" + dataset,
		Model: o.engine == "llm",
		Dialog: dialog.Config{
			MaxRounds:       roundsFor(o.maxRounds),
			NoWordQuestions: !o.askWords,
			Strategy:        strategy,
			Seed:            o.seed,
			CandidateLimits: warehouse.Limits{Timeout: o.timeout},
			AnswerLimits:    warehouse.Limits{Timeout: o.timeout},
		},
		Logger: e.logger,
	})
	if err != nil {
		return nil, err
	}
	defer closeBot()
	name := dataset + " " + label
	correct := 0
	cfg := eval.RunConfig{
		Dataset: dataset, Engine: o.engine, Strategy: strategy, MaxRounds: roundsFor(o.maxRounds), Carry: carry,
		Progress: func(done, total int, r *eval.QuestionResult) {
			if r.Correct {
				correct++
			}
			e.logger.Info("question", "run", name, "id", r.ID, "correct", r.Correct, "failure", string(r.Failure), "asked", r.Questions, "seconds", fmt.Sprintf("%.2f", r.BotSeconds))
			if done%50 == 0 || done == total {
				fmt.Fprintf(e.stderr, "%s: %d/%d questions, %d correct\n", name, done, total, correct)
			}
		},
	}
	// Each question's tokens come from its conversation (QuestionResult.Tokens).
	run, err := h.Run(ctx, bot, golds, cfg)
	if err != nil && errors.Is(err, context.Canceled) {
		return run, fmt.Errorf("interrupted: %w", err)
	}
	return run, err
}
