package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clarify-bot/clarify/internal/grants"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	openai "github.com/sashabaranov/go-openai"
	"github.com/slack-go/slack"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.yaml.in/yaml/v3"

	clarify "github.com/clarify-bot/clarify"
)

// checkStatus is how a doctor check came out.
type checkStatus int

const (
	statusOK checkStatus = iota
	statusWarn
	statusError
)

func (s checkStatus) String() string {
	return [...]string{"ok", "warn", "error"}[s]
}

// checkResult is one line of bot doctor.
type checkResult struct {
	Status checkStatus
	What   string // "warehouse shop", "slack bot token"
	Detail string
	// Short is the detail for the one-line summary at serve start-up
	// (default: Detail).
	Short string
	// Extra lines printed under the result (the SQL that fixes it).
	Extra []string
}

// discordREST is the REST base the bot's Discord calls reach: discord.com,
// or the scheme and host of discord.api_url with Discord's own paths, as
// the adapter sends them (a fake, a staging proxy).
func discordREST(apiURL string) string {
	const path = "/api/v9"
	if u, err := url.Parse(apiURL); apiURL != "" && err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + path
	}
	return "https://discord.com" + path
}

// doctorEnv is what the checks reach the outside world with; tests point
// it at fakes.
type doctorEnv struct {
	HTTP *http.Client
	// DiscordAPI is Discord's REST base (default: discord.api_url's host,
	// else https://discord.com/api/v9).
	DiscordAPI string
	// Manifest is the Slack app manifest whose bot scopes must be granted
	// (default: the embedded manifest.yml).
	Manifest []byte
	// Timeout bounds each check (default 10s).
	Timeout time.Duration
	// Stores checks the conversation and fact stores; default storeCheckers(cfg).
	Stores []storeChecker
}

func (e doctorEnv) withDefaults(cfg Config) doctorEnv {
	if e.HTTP == nil {
		e.HTTP = &http.Client{}
	}
	if e.DiscordAPI == "" {
		e.DiscordAPI = discordREST(cfg.Discord.APIURL)
	}
	if e.Manifest == nil {
		e.Manifest = clarify.SlackManifest
	}
	if e.Timeout <= 0 {
		e.Timeout = 10 * time.Second
	}
	if e.Stores == nil {
		e.Stores = storeCheckers(cfg)
	}
	return e
}

// storeChecker checks one store the bot keeps its state in. The bbolt
// files are one; another store kind (chosen by the configuration) adds
// its own checker in storeCheckers.
type storeChecker func(ctx context.Context) []checkResult

// storeCheckers are the checks of the stores the configuration uses.
func storeCheckers(cfg Config) []storeChecker {
	if cfg.Store.DSN != "" {
		return []storeChecker{func(ctx context.Context) []checkResult { return []checkResult{checkServerStore(ctx, cfg.Store.DSN)} }}
	}
	return []storeChecker{func(ctx context.Context) []checkResult { return checkBoltStore(ctx, cfg.DataDir) }}
}

// checkServerStore: the store's server answers, its tables are at a schema
// version this build reads (or not created yet), and the account can
// write them. Nothing is changed.
func checkServerStore(ctx context.Context, dsn string) checkResult {
	what := "store " + describeStore(dsn)
	in, err := mysqlkv.Inspect(ctx, dsn)
	switch {
	case err != nil:
		return checkResult{Status: statusError, What: what, Detail: err.Error(), Short: "unreachable or not writable"}
	case in.Schema > in.Known:
		return checkResult{Status: statusError, What: what,
			Detail: fmt.Sprintf("server %s; the tables have schema version %d, newer than this build's %d: run the newer build", in.ServerVersion, in.Schema, in.Known),
			Short:  "schema newer than this build"}
	case in.Schema == 0:
		return checkResult{What: what, Detail: fmt.Sprintf("server %s; no tables yet: the bot creates them at first start (it needs CREATE on the database)", in.ServerVersion)}
	}
	note := ""
	if in.Schema < in.Known {
		note = fmt.Sprintf("; the bot migrates them to %d at start", in.Known)
	}
	return checkResult{What: what, Detail: fmt.Sprintf("server %s; schema version %d%s; writable", in.ServerVersion, in.Schema, note)}
}

// runDoctor runs every check the configuration calls for, in order:
// platforms, warehouses, model, store. Each check has env.Timeout; no check
// writes to a warehouse.
func runDoctor(ctx context.Context, cfg Config, env doctorEnv) []checkResult {
	env = env.withDefaults(cfg)
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

// --- Slack ---

// checkSlack: the bot token works (auth.test), the scopes Slack granted
// cover the manifest's bot scopes, and in socket mode the app token opens
// a connection URL (without connecting to it).
func checkSlack(ctx context.Context, sc SlackConfig, env doctorEnv) []checkResult {
	opts := []slack.Option{slack.OptionHTTPClient(env.HTTP)}
	if sc.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(sc.APIURL))
	}
	if sc.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(sc.AppToken))
	}
	api := slack.New(sc.BotToken, opts...)
	var out []checkResult
	auth, err := api.AuthTestContext(ctx)
	if err != nil {
		return append(out, checkResult{Status: statusError, What: "slack bot token", Detail: fmt.Sprintf("auth.test: %v (check SLACK_BOT_TOKEN)", err)})
	}
	out = append(out, checkResult{What: "slack bot token", Detail: fmt.Sprintf("workspace %q (%s) as @%s", auth.Team, auth.TeamID, auth.User)})
	out = append(out, compareScopes(auth.Header, env.Manifest))

	if sc.Mode == "socket" {
		if _, _, err := api.StartSocketModeContext(ctx); err != nil {
			out = append(out, checkResult{Status: statusError, What: "slack app token", Detail: fmt.Sprintf("apps.connections.open: %v (check SLACK_APP_TOKEN and its connections:write scope)", err)})
		} else {
			out = append(out, checkResult{What: "slack app token", Detail: "socket mode: apps.connections.open works"})
		}
	}
	return out
}

// compareScopes checks the X-OAuth-Scopes Slack sent against the
// manifest's bot scopes: a missing one is an error, extra ones are fine.
func compareScopes(h http.Header, manifest []byte) checkResult {
	const what = "slack scopes"
	want, err := manifestBotScopes(manifest)
	if err != nil {
		return checkResult{Status: statusWarn, What: what, Detail: err.Error()}
	}
	raw := h.Get("X-OAuth-Scopes")
	if raw == "" {
		return checkResult{Status: statusWarn, What: what, Detail: "Slack sent no X-OAuth-Scopes header; cannot compare with manifest.yml"}
	}
	granted := map[string]bool{}
	for _, s := range strings.Split(raw, ",") {
		granted[strings.TrimSpace(s)] = true
	}
	var missing, followUps []string
	for _, s := range want {
		switch {
		case granted[s]:
		case followUpScopes[s]:
			followUps = append(followUps, s)
		default:
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		missing = append(missing, followUps...)
		return checkResult{Status: statusError, What: what,
			Detail: fmt.Sprintf("missing %s (add them to the app's bot scopes as in manifest.yml and reinstall the app)", strings.Join(missing, ", ")),
			Short:  "missing " + strings.Join(missing, ", ")}
	}
	if len(followUps) > 0 {
		// An app installed before thread follow-ups still answers mentions.
		return checkResult{Status: statusWarn, What: what,
			Detail: fmt.Sprintf("missing %s: replies in a thread need an @mention until they are granted (add them and the message.channels and message.groups events as in manifest.yml, then reinstall the app)", strings.Join(followUps, ", ")),
			Short:  "missing " + strings.Join(followUps, ", ")}
	}
	return checkResult{What: what, Detail: fmt.Sprintf("all %d bot scopes of manifest.yml granted", len(want))}
}

// followUpScopes are the scopes only thread follow-ups without a mention
// need (message.channels, message.groups).
var followUpScopes = map[string]bool{"channels:history": true, "groups:history": true}

func manifestBotScopes(manifest []byte) ([]string, error) {
	var m struct {
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
	}
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("read the manifest: %w", err)
	}
	if len(m.OAuth.Scopes.Bot) == 0 {
		return nil, errors.New("the manifest lists no bot scopes (oauth_config.scopes.bot)")
	}
	return m.OAuth.Scopes.Bot, nil
}

// --- Discord ---

// checkDiscord: the token is a valid bot token (GET /users/@me) and
// belongs to the configured application (GET /oauth2/applications/@me).
func checkDiscord(ctx context.Context, dc DiscordConfig, env doctorEnv) []checkResult {
	var me struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Bot      bool   `json:"bot"`
	}
	if err := discordGet(ctx, env, dc.Token, "/users/@me", &me); err != nil {
		return []checkResult{{Status: statusError, What: "discord token", Detail: fmt.Sprintf("%v (check DISCORD_BOT_TOKEN)", err)}}
	}
	if !me.Bot {
		return []checkResult{{Status: statusError, What: "discord token", Detail: fmt.Sprintf("the token belongs to %s (%s), which is not a bot", me.Username, me.ID)}}
	}
	out := []checkResult{{What: "discord token", Detail: fmt.Sprintf("bot %s (%s)", me.Username, me.ID)}}
	var app struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	const what = "discord application"
	switch err := discordGet(ctx, env, dc.Token, "/oauth2/applications/@me", &app); {
	case err != nil:
		out = append(out, checkResult{Status: statusWarn, What: what, Detail: fmt.Sprintf("cannot read the application: %v", err)})
	case dc.ApplicationID == "":
		out = append(out, checkResult{What: what, Detail: fmt.Sprintf("%s (%s); application_id not set, taken from the gateway", app.Name, app.ID)})
	case dc.ApplicationID != app.ID:
		out = append(out, checkResult{Status: statusError, What: what,
			Detail: fmt.Sprintf("application_id is %s but the token belongs to application %s (%s)", dc.ApplicationID, app.ID, app.Name),
			Short:  "application_id does not match the token"})
	default:
		out = append(out, checkResult{What: what, Detail: fmt.Sprintf("%s (%s) matches application_id", app.Name, app.ID)})
	}
	return out
}

func discordGet(ctx context.Context, env doctorEnv, token, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(env.DiscordAPI, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bot "+token)
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/clarify-bot/clarify, doctor)")
	resp, err := env.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, clip(strings.TrimSpace(string(body)), 120))
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// clip shortens s to n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// --- warehouses ---

// checkWarehouse connects, reads the server version and the account's
// grants. Only SELECT VERSION() and SHOW GRANTS are sent: nothing that
// can write.
func checkWarehouse(ctx context.Context, wc WarehouseConfig) checkResult {
	what := "warehouse " + wc.Name
	if wc.Demo {
		return checkResult{What: what, Detail: fmt.Sprintf("built-in demo warehouse (%d orders)", wc.DemoOrders)}
	}
	mc, err := mysql.ParseDSN(wc.DSN)
	if err != nil {
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("invalid dsn: %v", err)}
	}
	if deadline, ok := ctx.Deadline(); ok && mc.Timeout <= 0 {
		mc.Timeout = time.Until(deadline)
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("connector: %v", err)}
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("cannot reach %s as %q: %v", mc.Addr, mc.User, err), Short: "unreachable"}
	}
	stmts, err := grants.Show(ctx, db)
	if err != nil {
		return checkResult{Status: statusWarn, What: what,
			Detail: fmt.Sprintf("%s, server %s; cannot read the account's grants (%v), so cannot tell whether it is read-only", mc.Addr, version, err),
			Short:  "cannot read the account's grants"}
	}
	f, perr := grants.Analyze(stmts, mc.DBName)
	var problems []string
	if len(f.Write) > 0 {
		problems = append(problems, "the account can write ("+strings.Join(f.Write, "; ")+")")
	}
	if len(f.System) > 0 {
		problems = append(problems, "the account can read mysql.* ("+strings.Join(f.System, "; ")+")")
	}
	if len(f.Risky) > 0 {
		problems = append(problems, "the account has "+strings.Join(f.Risky, ", "))
	}
	if len(problems) == 0 {
		detail := fmt.Sprintf("%s, server %s, read-only account", mc.Addr, version)
		if len(f.Roles) > 0 {
			detail += fmt.Sprintf(" (roles %s not inspected)", strings.Join(f.Roles, ", "))
		}
		if perr != nil {
			return checkResult{Status: statusWarn, What: what, Detail: detail + fmt.Sprintf("; some grants unreadable: %v", perr), Short: "some grants unreadable"}
		}
		return checkResult{What: what, Detail: detail}
	}
	short := "the account can write"
	switch {
	case len(f.Write) > 0:
	case len(f.System) > 0:
		short = "the account can read mysql.*"
	default:
		short = "the account has PROCESS, SUPER or FILE"
	}
	extra := append([]string{"The bot only needs to read " + mc.DBName + ". Create a read-only account and put it in the dsn:"}, grants.ReadOnlySetup(mc.DBName)...)
	if len(wc.Access.Hidden)+len(wc.Access.Sensitive)+len(wc.Access.Levels) > 0 {
		// With access rules, the account must not read what they hide either.
		extra = []string{"The bot only needs to read what its access rules let it. Create its read-only accounts with column privileges:",
			fmt.Sprintf("bot access grants --config FILE --warehouse %s", wc.Name)}
	}
	if len(f.Risky) > 0 {
		extra = append(extra, "or take the global privileges from this account:", fmt.Sprintf("REVOKE %s ON *.* FROM '%s'@'%%';", grants.RiskyNames(f.Risky), mc.User))
	}
	return checkResult{Status: statusWarn, What: what,
		Detail: fmt.Sprintf("%s, server %s; %s", mc.Addr, version, strings.Join(problems, "; ")),
		Short:  short, Extra: extra}
}

// --- model ---

// checkModel: the server answers GET /models and lists the model.
func checkModel(ctx context.Context, lc LLMConfig, env doctorEnv) checkResult {
	const what = "model"
	if strings.TrimSpace(lc.Model) == "" {
		return checkResult{What: what, Detail: "none configured; the offline engine answers"}
	}
	var oc openai.ClientConfig
	if lc.Azure {
		oc = openai.DefaultAzureConfig(lc.APIKey, lc.BaseURL)
		if lc.APIVersion != "" {
			oc.APIVersion = lc.APIVersion
		}
	} else {
		oc = openai.DefaultConfig(lc.APIKey)
		if lc.BaseURL != "" {
			oc.BaseURL = strings.TrimRight(lc.BaseURL, "/")
		}
	}
	oc.HTTPClient = env.HTTP
	list, err := openai.NewClientWithConfig(oc).ListModels(ctx)
	if err != nil {
		var ae *openai.APIError
		var re *openai.RequestError
		if errors.As(err, &ae) && ae.HTTPStatusCode == http.StatusNotFound || errors.As(err, &re) && re.HTTPStatusCode == http.StatusNotFound {
			// Some compatible servers answer chat completions but list nothing.
			return checkResult{Status: statusWarn, What: what, Detail: fmt.Sprintf("%s: the server does not list models; cannot check that %q exists", oc.BaseURL, lc.Model)}
		}
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("%s: %v", oc.BaseURL, err), Short: "the model server refused or did not answer"}
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	if slices.Contains(ids, lc.Model) {
		return checkResult{What: what, Detail: fmt.Sprintf("%s at %s", lc.Model, oc.BaseURL)}
	}
	status := statusError
	if lc.Azure {
		// Azure lists base models, not deployment names.
		status = statusWarn
	}
	shown := ids
	if len(shown) > 8 {
		shown = append(slices.Clone(shown[:8]), "…")
	}
	return checkResult{Status: status, What: what,
		Detail: fmt.Sprintf("%q is not among the %d models %s lists (%s)", lc.Model, len(ids), oc.BaseURL, strings.Join(shown, ", ")),
		Short:  fmt.Sprintf("%q not found", lc.Model)}
}

// --- bbolt store ---

// checkBoltStore: the data directory is writable (or can be created) and
// every bbolt file in it opens read-only with a readable schema version.
// A file locked by a running bot is fine.
func checkBoltStore(ctx context.Context, dir string) []checkResult {
	out := []checkResult{checkDataDir(dir)}
	files, _ := filepath.Glob(filepath.Join(dir, "*.db"))
	if len(files) == 0 && out[0].Status == statusOK {
		out = append(out, checkResult{What: "store", Detail: "no bbolt files yet; they are created at first start"})
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		out = append(out, checkBoltFile(f))
	}
	return out
}

func checkDataDir(dir string) checkResult {
	what := "data dir " + dir
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		parent := filepath.Dir(dir)
		for parent != filepath.Dir(parent) {
			if _, err := os.Stat(parent); err == nil {
				break
			}
			parent = filepath.Dir(parent)
		}
		if err := probeWritable(parent); err != nil {
			return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("does not exist and cannot be created: %v", err), Short: "cannot be created"}
		}
		return checkResult{What: what, Detail: "does not exist yet; it will be created"}
	}
	if err != nil {
		return checkResult{Status: statusError, What: what, Detail: err.Error()}
	}
	if !info.IsDir() {
		return checkResult{Status: statusError, What: what, Detail: "is not a directory"}
	}
	if err := probeWritable(dir); err != nil {
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("not writable: %v", err), Short: "not writable"}
	}
	return checkResult{What: what, Detail: "writable"}
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".clarify-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkBoltFile opens the file read-only (a shared lock, so it never
// changes the file) and reads meta/schema, as internal/kv writes it for bbolt files.
func checkBoltFile(path string) checkResult {
	what := "store " + filepath.Base(path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 500 * time.Millisecond})
	if errors.Is(err, berrors.ErrTimeout) {
		return checkResult{What: what, Detail: "in use by a running bot (locked); not inspected"}
	}
	if err != nil {
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("cannot open: %v", err), Short: "cannot open"}
	}
	defer db.Close()
	var version string
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("meta")); b != nil {
			version = string(b.Get([]byte("schema")))
		}
		return nil
	})
	switch {
	case err != nil:
		return checkResult{Status: statusError, What: what, Detail: fmt.Sprintf("cannot read: %v", err), Short: "cannot read"}
	case version == "":
		return checkResult{Status: statusWarn, What: what, Detail: "opens, but has no schema version (meta/schema); is it a Clarify file?", Short: "no schema version"}
	}
	return checkResult{What: what, Detail: "schema version " + version}
}

// --- output ---

// printResults writes one line per check, the extra lines indented, and
// reports whether any check failed.
func printResults(w io.Writer, results []checkResult) (failed bool) {
	for _, r := range results {
		fmt.Fprintf(w, "%-5s  %s: %s\n", r.Status, r.What, r.Detail)
		for _, x := range r.Extra {
			fmt.Fprintf(w, "         %s\n", x)
		}
		failed = failed || r.Status == statusError
	}
	return failed
}

// doctorSummary is the one line serve logs: counts, and the first problem.
func doctorSummary(results []checkResult) (line string, worst checkStatus) {
	var counts [3]int
	var first *checkResult
	for i, r := range results {
		counts[r.Status]++
		if r.Status > worst {
			worst = r.Status
		}
		if r.Status != statusOK && (first == nil || r.Status > first.Status) {
			first = &results[i]
		}
	}
	parts := []string{fmt.Sprintf("%d ok", counts[statusOK])}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	if counts[statusWarn] > 0 {
		parts = append(parts, plural(counts[statusWarn], "warning", "warnings"))
	}
	if counts[statusError] > 0 {
		parts = append(parts, plural(counts[statusError], "error", "errors"))
	}
	line = "doctor: " + strings.Join(parts, ", ")
	if first != nil {
		short := first.Short
		if short == "" {
			short = first.Detail
		}
		line += fmt.Sprintf(" (%s: %s; see bot doctor)", first.What, short)
	}
	return line, worst
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
