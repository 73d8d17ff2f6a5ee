package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/doctor"
	"github.com/clarify-bot/clarify/bot/internal/stack"
)

// bot doctor's checks live in bot/internal/doctor; this file picks them
// from the configuration.

type (
	checkStatus  = doctor.Status
	checkResult  = doctor.Result
	doctorEnv    = doctor.Env
	storeChecker = doctor.StoreChecker
)

const (
	statusOK    = doctor.StatusOK
	statusWarn  = doctor.StatusWarn
	statusError = doctor.StatusError
)

// storeCheckers are the checks of the stores the configuration uses.
func storeCheckers(cfg Config) []storeChecker {
	if cfg.Store.DSN != "" {
		return []storeChecker{func(ctx context.Context) []checkResult { return []checkResult{checkServerStore(ctx, cfg.Store.DSN)} }}
	}
	return []storeChecker{func(ctx context.Context) []checkResult { return checkBoltStore(ctx, cfg.DataDir) }}
}

// runDoctor runs every check the configuration calls for, in order:
// platforms, warehouses, model, store. Each check has env.Timeout; no check
// writes to a warehouse.
func runDoctor(ctx context.Context, cfg Config, env doctorEnv) []checkResult {
	if env.DiscordAPI == "" {
		// The Discord API the bot itself calls (discord.api_url).
		env.DiscordAPI = doctor.DiscordREST(cfg.Discord.APIURL)
	}
	env = env.WithDefaults()
	if env.Stores == nil {
		env.Stores = storeCheckers(cfg)
	}
	var out []checkResult
	bounded := func(check func(context.Context) []checkResult) {
		cctx, cancel := context.WithTimeout(ctx, env.Timeout)
		defer cancel()
		out = append(out, check(cctx)...)
	}
	if cfg.Slack.BotToken != "" {
		bounded(func(ctx context.Context) []checkResult { return checkSlack(ctx, cfg.Slack, env) })
	}
	if cfg.Discord.Token != "" {
		bounded(func(ctx context.Context) []checkResult { return checkDiscord(ctx, cfg.Discord, env) })
	}
	for _, w := range cfg.Warehouses {
		bounded(func(ctx context.Context) []checkResult { return []checkResult{checkWarehouse(ctx, w)} })
		bounded(func(ctx context.Context) []checkResult { return checkAccess(ctx, w) })
	}
	out = append(out, checkProfiles(cfg)...)
	bounded(func(ctx context.Context) []checkResult { return []checkResult{checkModel(ctx, cfg.LLM, env)} })
	for _, st := range env.Stores {
		bounded(st)
	}
	return out
}

// logDoctor runs the checks at serve start-up, before the stores are
// opened (so their files are not yet locked by this process), and logs one
// summary line; it never stops the bot: NewMain fails on what it cannot
// work without.
func logDoctor(ctx context.Context, cfg Config, env doctorEnv, logger *slog.Logger) {
	results := runDoctor(ctx, cfg, env)
	line, worst := doctorSummary(results)
	level := slog.LevelInfo
	if worst > statusOK {
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, line)
}

// runDoctorCmd is `bot doctor --config FILE`.
func runDoctorCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("bot doctor", stderr,
		"usage: bot doctor --config FILE",
		"Checks the platforms' tokens and scopes, the warehouses (reachable, read-only account, access rules refused by the server's own privileges), the model and the data directory.",
		"Exits 1 when a check fails; warnings do not fail.",
	)
	path := fs.String("config", "", "YAML configuration file (secrets may come from the environment)")
	manifest := fs.String("manifest", "", "Slack app manifest whose bot scopes must be granted (default: the manifest.yml built in)")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit of each check")
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	cfg, err := LoadConfig(*path, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "bot doctor: %v\n", err)
		return exitUsage
	}
	env := doctorEnv{Timeout: *timeout}
	if *manifest != "" {
		if env.Manifest, err = os.ReadFile(*manifest); err != nil {
			fmt.Fprintf(stderr, "bot doctor: %v\n", err)
			return exitUsage
		}
	}
	if printResults(stdout, runDoctor(ctx, cfg, env)) {
		return exitFailure
	}
	return exitOK
}

func checkSlack(ctx context.Context, sc SlackConfig, env doctorEnv) []checkResult {
	return doctor.CheckSlack(ctx, doctor.Slack{BotToken: sc.BotToken, AppToken: sc.AppToken, APIURL: sc.APIURL, Mode: sc.Mode}, env)
}

func checkDiscord(ctx context.Context, dc DiscordConfig, env doctorEnv) []checkResult {
	return doctor.CheckDiscord(ctx, doctor.Discord{Token: dc.Token, ApplicationID: dc.ApplicationID}, env)
}

func checkWarehouse(ctx context.Context, wc WarehouseConfig) checkResult {
	return doctor.CheckWarehouse(ctx, doctor.Warehouse{Name: wc.Name, DSN: wc.DSN, Demo: wc.Demo, DemoOrders: wc.DemoOrders,
		Access: len(wc.Access.Hidden)+len(wc.Access.Sensitive)+len(wc.Access.Levels) > 0})
}

func checkModel(ctx context.Context, lc LLMConfig, env doctorEnv) checkResult {
	return doctor.CheckModel(ctx, doctor.Model{Model: lc.Model, APIKey: lc.APIKey, BaseURL: lc.BaseURL, APIVersion: lc.APIVersion, Azure: lc.Azure}, env)
}

// checkProfiles reports the cached profile of each warehouse.
func checkProfiles(cfg Config) []checkResult {
	names := make([]string, len(cfg.Warehouses))
	for i, w := range cfg.Warehouses {
		names[i] = w.Name
	}
	return doctor.CheckProfiles(names, func(name string) string { return stack.SnapshotPath(cfg.DataDir, name) })
}

func checkServerStore(ctx context.Context, dsn string) checkResult {
	return doctor.CheckServerStore(ctx, dsn)
}
func checkBoltStore(ctx context.Context, dir string) []checkResult {
	return doctor.CheckBoltStore(ctx, dir)
}
func checkDataDir(dir string) checkResult                       { return doctor.CheckDataDir(dir) }
func printResults(w io.Writer, results []checkResult) bool      { return doctor.PrintResults(w, results) }
func doctorSummary(results []checkResult) (string, checkStatus) { return doctor.Summary(results) }
